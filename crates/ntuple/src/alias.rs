//! The networks known by name, and the parsing of network descriptions.

use crate::{Error, Pattern};

/// The built-in networks: name and patterns, as TDL2048+ and the course
/// frameworks define them.
pub const ALIASES: &[(&str, &str)] = &[
    ("4x6patt", "012345 456789 012456 45689a"),
    ("5x6patt", "012345 456789 89abcd 012456 45689a"),
    ("6x6patt", "012456 456789 012345 234569 01259a 345678"),
    (
        "7x6patt",
        "012456 456789 012345 234569 01259a 345678 134567",
    ),
    (
        "8x6patt",
        "012456 456789 012345 234569 01259a 345678 134567 01489a",
    ),
    ("4x5patt", "01234 45678 01245 45689"),
    ("2x4patt", "0123 4567"),
    ("5x4patt", "0123 4567 0145 1256 569a"),
    // The course's simplest network: rows and columns, no isomorphism.
    ("8x4patt", "0123! 4567! 89ab! cdef! 048c! 159d! 26ae! 37bf!"),
    // The nine 2x2 squares, no isomorphism.
    (
        "9x4patt",
        "0145! 1256! 2367! 4589! 569a! 67ab! 89cd! 9ade! abef!",
    ),
    ("1x8patt", "01234567"),
    ("2x8patt", "01234567 456789ab"),
    ("3x8patt", "01234567 456789ab 0123458c"),
    ("4x8patt", "01234567 456789ab 01245689 0123458c"),
    ("2x7patt", "0123456 456789a"),
    ("3x7patt", "0123456 456789a 89abcde"),
    // TDL2048+'s statistic features (ntuple::Pattern names each table).
    ("mono", "m@0123 m@4567"),
    ("mono/0123", "m@0123"),
    ("mono/4567", "m@4567"),
    ("num", "num@lt num@st"),
];

/// Reads a network description: a list of alias names and patterns, in
/// order (`4x6patt`, or `012345 456789`, or `2x4patt 0145`).
///
/// # Errors
/// [`Error::Pattern`] for a word that is neither an alias nor a pattern, and
/// [`Error::EmptyNetwork`] for an empty list.
///
/// ```
/// let patterns = ntuple::parse_patterns(["4x6patt"])?;
/// assert_eq!(patterns.len(), 4);
/// assert_eq!(patterns[3].to_string(), "45689a");
/// # Ok::<(), ntuple::Error>(())
/// ```
pub fn parse_patterns<S: AsRef<str>>(
    words: impl IntoIterator<Item = S>,
) -> Result<Vec<Pattern>, Error> {
    let mut patterns = Vec::new();
    for word in words {
        for word in word.as_ref().split_whitespace() {
            match ALIASES.iter().find(|(name, _)| *name == word) {
                Some((_, list)) => {
                    for pattern in list.split_whitespace() {
                        patterns.push(pattern.parse().expect("aliases are valid"));
                    }
                }
                None => patterns.push(word.parse().map_err(|error| match error {
                    Error::Pattern { input, problem } => Error::Pattern {
                        input,
                        problem: format!("{problem} (nor is it a network name: {})", alias_names()),
                    },
                    other => other,
                })?),
            }
        }
    }
    if patterns.is_empty() {
        return Err(Error::EmptyNetwork);
    }
    Ok(patterns)
}

/// The alias names, comma-separated, for messages and help.
pub fn alias_names() -> String {
    ALIASES
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_parses() {
        for (name, list) in ALIASES {
            let patterns = parse_patterns([name]).unwrap();
            assert_eq!(patterns.len(), list.split_whitespace().count(), "{name}");
        }
    }

    #[test]
    fn aliases_hold_what_tdl2048_defines() {
        let text = |name: &str| {
            parse_patterns([name])
                .unwrap()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            text("8x6patt"),
            "012456 456789 012345 234569 01259a 345678 134567 01489a"
        );
        assert_eq!(text("4x8patt"), "01234567 456789ab 01245689 0123458c");
        assert_eq!(text("3x7patt"), "0123456 456789a 89abcde");
        assert!(
            parse_patterns(["8x4patt"])
                .unwrap()
                .iter()
                .all(|p| !p.is_isomorphic())
        );
    }

    #[test]
    fn unknown_words_and_empty_lists_are_errors() {
        let error = parse_patterns(["4x9patt"]).unwrap_err().to_string();
        assert!(
            error.starts_with("pattern \"4x9patt\" is not valid"),
            "{error}"
        );
        assert!(error.contains("4x6patt"), "{error}");
        assert!(matches!(
            parse_patterns(Vec::<String>::new()),
            Err(Error::EmptyNetwork)
        ));
    }
}
