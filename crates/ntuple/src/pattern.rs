//! Patterns: the n-tuples of cells whose tiles index a weight table.

use std::fmt;
use std::str::FromStr;

use board::Board;

use crate::Error;

/// The most cells a pattern may have: 16^8 entries (16 GiB of `f32`) is the
/// largest table any known network uses, and the index fits a `u32`.
pub const MAX_CELLS: usize = 8;

/// An n-tuple: up to eight distinct cells, written as hex digits (`012345`
/// is cells 0 to 5), whose tiles form the index of one weight table.
///
/// The index of a board is the sum of `tile(cells[j]) << 4j`: the first cell
/// is the least significant nibble, as in TDL2048+. An *isomorphic* pattern
/// (the default) is read on all eight symmetric images of the board, so one
/// table holds the weights of eight features; a trailing `!` (`0123!`) makes
/// it read the board only as it is, as in the course's 8x4 network.
///
/// ```
/// use ntuple::Pattern;
///
/// let pattern: Pattern = "0145".parse()?;
/// assert_eq!(pattern.cells(), &[0, 1, 4, 5]);
/// assert_eq!(pattern.table_len(), 65536);
/// assert!("01x5".parse::<Pattern>().is_err());
/// # Ok::<(), ntuple::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pattern {
    cells: [u8; MAX_CELLS],
    len: u8,
    isomorphic: bool,
}

impl Pattern {
    /// The pattern over `cells`, read on all eight symmetric images if
    /// `isomorphic`.
    ///
    /// # Errors
    /// [`Error::Pattern`] if there are no cells, more than eight, a cell above
    /// 15, or a cell twice.
    pub fn new(cells: &[u8], isomorphic: bool) -> Result<Self, Error> {
        let text = || cells.iter().map(|&c| format!("{c:x}")).collect::<String>();
        let problem = if cells.is_empty() {
            Some("it has no cells".to_owned())
        } else if cells.len() > MAX_CELLS {
            Some(format!(
                "it has {} cells, at most {MAX_CELLS} are allowed",
                cells.len()
            ))
        } else if let Some(&cell) = cells.iter().find(|&&cell| cell > 15) {
            Some(format!("cell {cell} is off the board"))
        } else {
            (1..cells.len())
                .find(|&i| cells[..i].contains(&cells[i]))
                .map(|i| format!("cell {:x} appears twice", cells[i]))
        };
        if let Some(problem) = problem {
            return Err(Error::Pattern {
                input: text(),
                problem,
            });
        }
        let mut stored = [0; MAX_CELLS];
        stored[..cells.len()].copy_from_slice(cells);
        Ok(Self {
            cells: stored,
            len: cells.len() as u8,
            isomorphic,
        })
    }

    /// The cells, first (least significant) first.
    pub fn cells(&self) -> &[u8] {
        &self.cells[..usize::from(self.len)]
    }

    /// Whether the pattern is read on all eight images of the board.
    pub const fn is_isomorphic(&self) -> bool {
        self.isomorphic
    }

    /// The number of features it contributes: 8 if isomorphic, else 1.
    pub const fn features(&self) -> usize {
        if self.isomorphic { 8 } else { 1 }
    }

    /// The number of entries in its table, 16^n.
    pub const fn table_len(&self) -> usize {
        1 << (4 * self.len as usize)
    }

    /// The bits of its cells in a board, when its cells are in increasing
    /// order: then one `pext` with this mask is the index. `None` otherwise.
    pub(crate) fn pext_mask(&self) -> Option<u64> {
        let cells = self.cells();
        cells
            .windows(2)
            .all(|pair| pair[0] < pair[1])
            .then(|| cells.iter().fold(0, |mask, &cell| mask | 0xF << (4 * cell)))
    }

    /// The index of `board` in this pattern's table, cell by cell: the plain
    /// definition the fast paths are tested against.
    pub fn index(&self, board: Board) -> usize {
        self.cells()
            .iter()
            .enumerate()
            .map(|(j, &cell)| usize::from(board.tile(usize::from(cell))) << (4 * j))
            .sum()
    }
}

impl FromStr for Pattern {
    type Err = Error;

    /// Reads hex digits, one per cell, with an optional trailing `!` for a
    /// pattern without isomorphism.
    fn from_str(input: &str) -> Result<Self, Error> {
        let (digits, isomorphic) = match input.strip_suffix('!') {
            Some(digits) => (digits, false),
            None => (input, true),
        };
        let cells = digits
            .chars()
            .map(|c| c.to_digit(16).map(|d| d as u8))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| Error::Pattern {
                input: input.to_owned(),
                problem: "cells are hex digits 0-9 and a-f".to_owned(),
            })?;
        Self::new(&cells, isomorphic).map_err(|error| match error {
            Error::Pattern { problem, .. } => Error::Pattern {
                input: input.to_owned(),
                problem,
            },
            other => other,
        })
    }
}

impl fmt::Display for Pattern {
    /// The hex digits, with `!` after a pattern without isomorphism.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for cell in self.cells() {
            write!(f, "{cell:x}")?;
        }
        if !self.isomorphic {
            f.write_str("!")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_patterns_say_why() {
        let message = |text: &str| text.parse::<Pattern>().unwrap_err().to_string();
        assert_eq!(message(""), "pattern \"\" is not valid: it has no cells");
        assert_eq!(
            message("0123456789"),
            "pattern \"0123456789\" is not valid: it has 10 cells, at most 8 are allowed"
        );
        assert_eq!(
            message("0113"),
            "pattern \"0113\" is not valid: cell 1 appears twice"
        );
        assert_eq!(
            message("01g3"),
            "pattern \"01g3\" is not valid: cells are hex digits 0-9 and a-f"
        );
    }

    #[test]
    fn display_round_trips() {
        for text in ["012345", "0123!", "fedc", "01489a"] {
            assert_eq!(text.parse::<Pattern>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn index_puts_the_first_cell_lowest() {
        let board = Board::from_raw(0x0000_0000_0000_4321);
        let pattern: Pattern = "0123".parse().unwrap();
        assert_eq!(pattern.index(board), 0x4321);
        let reversed: Pattern = "3210".parse().unwrap();
        assert_eq!(reversed.index(board), 0x1234);
        assert_eq!(pattern.pext_mask(), Some(0xFFFF));
        assert_eq!(reversed.pext_mask(), None);
    }
}
