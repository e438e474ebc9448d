//! Search depth in TDL2048+'s plies.

use std::fmt;
use std::str::FromStr;

/// How deep a search looks, in TDL2048+'s plies: `1p` is the greedy player
/// (reward + value of the afterstate), and each further ply adds a chance
/// layer (every spawn) and a move layer, so `Np` has N move layers counting
/// the root and N - 1 chance layers between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Depth(u8);

impl Depth {
    /// The deepest search accepted: far past anything that finishes.
    pub const MAX: u8 = 16;

    /// `plies` plies.
    ///
    /// # Errors
    /// [`Error::Depth`] unless `1 <= plies <= 16`.
    pub fn new(plies: u8) -> Result<Self, Error> {
        if (1..=Self::MAX).contains(&plies) {
            Ok(Self(plies))
        } else {
            Err(Error::Depth {
                input: plies.to_string(),
            })
        }
    }

    /// The number of plies (move layers).
    pub const fn plies(self) -> u8 {
        self.0
    }
}

impl FromStr for Depth {
    type Err = Error;

    /// Reads `3p` or `3`.
    fn from_str(text: &str) -> Result<Self, Error> {
        let bad = || Error::Depth {
            input: text.to_owned(),
        };
        let plies: u8 = text
            .strip_suffix('p')
            .unwrap_or(text)
            .parse()
            .map_err(|_| bad())?;
        Self::new(plies).map_err(|_| bad())
    }
}

impl fmt::Display for Depth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}p", self.0)
    }
}

/// What can go wrong setting up a search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A depth is not 1p to 16p.
    #[error("{input:?} is not a search depth (1p to 16p)")]
    Depth {
        /// The text given.
        input: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_read_as_plies() {
        assert_eq!("3p".parse::<Depth>().unwrap().plies(), 3);
        assert_eq!("2".parse::<Depth>().unwrap().to_string(), "2p");
        for bad in ["0p", "17p", "p", "deep", "-1"] {
            assert!(bad.parse::<Depth>().is_err(), "{bad}");
        }
    }
}
