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

/// The deepest search allowed for each number of empty cells (0 to 16), as
/// TDL2048+'s `limit=5p,5p,5p,5p,4p,...`: fewer than 17 values repeat the last.
/// A chance node with that many empty cells searches at most that many plies
/// below it, counting the move after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits([u8; 17]);

impl Limits {
    /// The most move layers a chance node with `empty` empty cells searches.
    pub fn layers(&self, empty: u32) -> u32 {
        u32::from(self.0[(empty as usize).min(16)]) - 1
    }
}

impl FromStr for Limits {
    type Err = Error;

    /// Reads depths separated by commas, for 0, 1, 2, ... empty cells.
    fn from_str(text: &str) -> Result<Self, Error> {
        let depths: Vec<Depth> = text.split(',').map(str::parse).collect::<Result<_, _>>()?;
        if depths.is_empty() || depths.len() > 17 {
            return Err(Error::Limits {
                input: text.to_owned(),
            });
        }
        let mut limits = [0; 17];
        for (empty, limit) in limits.iter_mut().enumerate() {
            *limit = depths[empty.min(depths.len() - 1)].plies();
        }
        Ok(Self(limits))
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
    /// A list of depth limits has more than 17 values.
    #[error("{input:?} has more than 17 depth limits (one per number of empty cells, 0 to 16)")]
    Limits {
        /// The text given.
        input: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_repeat_their_last_value() {
        let limits: Limits = "5p,5p,4p,3".parse().unwrap();
        assert_eq!(limits.layers(0), 4);
        assert_eq!(limits.layers(2), 3);
        assert_eq!(limits.layers(16), 2);
        assert!("5p,x".parse::<Limits>().is_err());
        assert!(vec!["2p"; 18].join(",").parse::<Limits>().is_err());
    }

    #[test]
    fn depths_read_as_plies() {
        assert_eq!("3p".parse::<Depth>().unwrap().plies(), 3);
        assert_eq!("2".parse::<Depth>().unwrap().to_string(), "2p");
        for bad in ["0p", "17p", "p", "deep", "-1"] {
            assert!(bad.parse::<Depth>().is_err(), "{bad}");
        }
    }
}
