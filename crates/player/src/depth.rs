//! How deep the player searches, by the number of empty cells.

use std::fmt;
use std::str::FromStr;

/// The plies the player searches for each number of empty cells (0 to 16):
/// a base depth, and deeper where few cells are empty.
///
/// A board with few empty cells is where games are lost, and where a
/// search is cheap (few spawns to try): 100 games with the player's tables
/// averaged 298,337 at 4p, and 412,956 at 3p, searching 4p with 5 empty
/// cells or fewer and 5p with 1 or none, in half the time
/// (docs/player.md). Written `3p,4p@5,5p@1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depths {
    plies: [u8; 17],
}

impl Depths {
    /// The deepest search accepted.
    pub const MAX: u8 = 12;

    /// `plies` plies whatever the board.
    ///
    /// # Panics
    /// If `plies` is 0 or more than [`Depths::MAX`].
    pub fn fixed(plies: u8) -> Self {
        assert!((1..=Self::MAX).contains(&plies), "1 to {} plies", Self::MAX);
        Self { plies: [plies; 17] }
    }

    /// The same, searching at least `plies` plies on boards of `empty`
    /// empty cells or fewer.
    ///
    /// # Panics
    /// If `plies` is 0 or more than [`Depths::MAX`].
    #[must_use]
    pub fn deeper(mut self, plies: u8, empty: u8) -> Self {
        assert!((1..=Self::MAX).contains(&plies), "1 to {} plies", Self::MAX);
        for depth in &mut self.plies[..=usize::from(empty.min(16))] {
            *depth = (*depth).max(plies);
        }
        self
    }

    /// The plies searched on a board of `empty` empty cells.
    pub fn plies(&self, empty: u32) -> u8 {
        self.plies[(empty as usize).min(16)]
    }
}

impl FromStr for Depths {
    type Err = String;

    /// Reads `3p` (or `3`), then any number of `,Np@E`: N plies with E
    /// empty cells or fewer.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("{text:?} is not a depth (as 3p, or 3p,4p@5,5p@2)");
        let plies = |text: &str| -> Result<u8, String> {
            text.strip_suffix('p')
                .unwrap_or(text)
                .parse::<u8>()
                .ok()
                .filter(|plies| (1..=Self::MAX).contains(plies))
                .ok_or_else(bad)
        };
        let mut parts = text.split(',');
        let mut depths = Self::fixed(plies(parts.next().ok_or_else(bad)?)?);
        for part in parts {
            let (deeper, empty) = part.split_once('@').ok_or_else(bad)?;
            let empty: u8 = empty.parse().ok().filter(|&e| e <= 16).ok_or_else(bad)?;
            depths = depths.deeper(plies(deeper)?, empty);
        }
        Ok(depths)
    }
}

impl fmt::Display for Depths {
    /// As read: `3p,4p@5,5p@2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}p", self.plies[16])?;
        for empty in (0..16).rev() {
            if self.plies[empty] != self.plies[empty + 1] {
                write!(f, ",{}p@{empty}", self.plies[empty])?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_read_and_write_alike() {
        let depths: Depths = "3p,4p@5,5p@2".parse().unwrap();
        assert_eq!(
            (0..=16)
                .map(|empty| depths.plies(empty))
                .collect::<Vec<_>>(),
            [5, 5, 5, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]
        );
        assert_eq!(depths.to_string(), "3p,4p@5,5p@2");
        assert_eq!("4".parse::<Depths>().unwrap(), Depths::fixed(4));
        assert_eq!(Depths::fixed(4).to_string(), "4p");
        // A shallower tier changes nothing.
        assert_eq!("4p,3p@2".parse::<Depths>().unwrap(), Depths::fixed(4));
        for bad in ["", "0p", "13p", "3p,4p", "3p,4p@17", "3p,x@2", "deep"] {
            assert!(bad.parse::<Depths>().is_err(), "{bad}");
        }
    }
}
