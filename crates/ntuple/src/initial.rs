//! Starting values for a network's weights, given with its patterns as
//! TDL2048+ takes them: `4x6patt=320000/norm` starts every weight of a new
//! 4x6patt at 320000 / 32 (optimistic initialisation, OTD), and
//! `4x6patt=+1000` adds 1000 to every weight of a loaded one.

use crate::{Error, Network, Pattern, parse_patterns};

/// A value for the weights of a network's tables.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Initial {
    /// The value (`320000` in `=320000/norm`).
    pub amount: f32,
    /// Divided by the network's feature count (`/norm`): a board's value,
    /// the sum of its features' weights, then starts at `amount`.
    pub per_feature: bool,
    /// Written with a sign (`=+1000`, `=-5`): added to a loaded table's
    /// weights; a new table starts at it all the same.
    pub relative: bool,
}

impl Initial {
    /// Reads the text after `=`: `320000`, `320000/norm`, `+1000`.
    fn parse(word: &str, text: &str) -> Result<Self, Error> {
        let (number, per_feature) = match text.strip_suffix("/norm") {
            Some(number) => (number, true),
            None => (text, false),
        };
        let amount = number
            .parse::<f32>()
            .ok()
            .filter(|amount| amount.is_finite())
            .ok_or_else(|| Error::Initial {
                input: word.to_owned(),
                problem: format!(
                    "{text:?} is not a starting weight (a number, then /norm to divide it \
                     among the features, or +N to add N to a loaded network)"
                ),
            })?;
        Ok(Self {
            amount,
            per_feature,
            relative: number.starts_with(['+', '-']),
        })
    }

    /// The value each weight gets or is moved by in a network of
    /// `feature_count` features.
    pub fn per_weight(self, feature_count: usize) -> f32 {
        if self.per_feature {
            self.amount / feature_count.max(1) as f32
        } else {
            self.amount
        }
    }
}

/// Reads a network description whose words may end in `=VALUE`
/// ([`Initial`]): its patterns, as [`parse_patterns`] reads them, and the
/// starting value of each (`None` where its word has none). An alias's
/// value goes to each of its patterns.
///
/// # Errors
/// As [`parse_patterns`], and [`Error::Initial`] for a value that is no
/// number.
///
/// ```
/// let (patterns, initials) = ntuple::parse_network(["4x6patt=320000/norm 0123"])?;
/// assert_eq!(patterns.len(), 5);
/// assert_eq!(initials[0].unwrap().per_weight(40), 8000.0);
/// assert_eq!(initials[4], None);
/// # Ok::<(), ntuple::Error>(())
/// ```
pub fn parse_network<S: AsRef<str>>(
    words: impl IntoIterator<Item = S>,
) -> Result<(Vec<Pattern>, Vec<Option<Initial>>), Error> {
    let (mut patterns, mut initials) = (Vec::new(), Vec::new());
    for words in words {
        for word in words.as_ref().split_whitespace() {
            let (name, initial) = match word.split_once('=') {
                Some((name, text)) => (name, Some(Initial::parse(word, text)?)),
                None => (word, None),
            };
            let named = parse_patterns([name])?;
            initials.extend(std::iter::repeat_n(initial, named.len()));
            patterns.extend(named);
        }
    }
    if patterns.is_empty() {
        return Err(Error::EmptyNetwork);
    }
    Ok((patterns, initials))
}

impl Network {
    /// Gives pattern i's tables (in every stage) the value `initials[i]`
    /// says, per weight of this network's feature count: set on a new
    /// network, added to a `loaded` one.
    ///
    /// # Errors
    /// [`Error::Initial`] for a plain value (`=5000`) on a loaded network,
    /// whose weights it would throw away: adding takes a sign (`=+5000`).
    ///
    /// # Panics
    /// If `initials` does not have one entry per pattern.
    pub fn initialise(&mut self, initials: &[Option<Initial>], loaded: bool) -> Result<(), Error> {
        assert_eq!(initials.len(), self.patterns().len(), "one value a pattern");
        let features = self.feature_count();
        let patterns = self.patterns().to_vec();
        for (index, initial) in initials.iter().enumerate() {
            let Some(initial) = *initial else { continue };
            if loaded && !initial.relative {
                return Err(Error::Initial {
                    input: format!("{}={}", patterns[index], initial.amount),
                    problem: format!(
                        "would replace the loaded weights: write ={:+} to add to them",
                        initial.amount
                    ),
                });
            }
            let value = initial.per_weight(features);
            let count = patterns.len();
            for table in self.tables_mut().iter_mut().skip(index).step_by(count) {
                if loaded {
                    table.offset(value);
                } else {
                    table.fill(value);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_as_tdl2048_writes_them() {
        let (patterns, initials) = parse_network(["2x4patt=1600/norm", "0145=-2.5"]).unwrap();
        assert_eq!(patterns.len(), 3);
        let set = Initial {
            amount: 1600.0,
            per_feature: true,
            relative: false,
        };
        let add = Initial {
            amount: -2.5,
            per_feature: false,
            relative: true,
        };
        assert_eq!(initials, [Some(set), Some(set), Some(add)]);
        for word in ["4x6patt=", "4x6patt=x", "4x6patt=1/norms", "4x6patt=inf"] {
            let error = parse_network([word]).unwrap_err().to_string();
            assert!(
                error.contains("is not a starting weight"),
                "{word}: {error}"
            );
        }
        assert!(parse_network(["4x6patx=1"]).is_err());
    }

    #[test]
    fn new_tables_start_at_the_value_and_loaded_ones_move_by_it() {
        // 24 features (three patterns in eight orientations): 2400/norm is
        // 100 a weight.
        let (patterns, initials) = parse_network(["2x4patt=2400/norm 0145"]).unwrap();
        let stages = crate::Stages::new(vec![0, 2048]).unwrap();
        let mut network = Network::with_stages(patterns, stages, u64::MAX).unwrap();
        network.initialise(&initials, false).unwrap();
        let firsts: Vec<f32> = network.tables().iter().map(|table| table.get(7)).collect();
        // Two stages of three tables: the third pattern has no value.
        assert_eq!(firsts, [100.0, 100.0, 0.0, 100.0, 100.0, 0.0]);
        let (_, more) = parse_network(["0123=+1 4567 0145=-3"]).unwrap();
        network.initialise(&more, true).unwrap();
        let firsts: Vec<f32> = network.tables().iter().map(|table| table.get(9)).collect();
        assert_eq!(firsts, [101.0, 100.0, -3.0, 101.0, 100.0, -3.0]);
        let (_, plain) = parse_network(["0123=5 4567 0145"]).unwrap();
        let error = network.initialise(&plain, true).unwrap_err().to_string();
        assert_eq!(
            error,
            "0123=5: would replace the loaded weights: write =+5 to add to them"
        );
    }
}
