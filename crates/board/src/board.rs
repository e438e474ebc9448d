//! The 64-bit board and what can be read off it.

use system::bits;

use crate::Error;
use crate::bits::zero_nibbles;

/// A 2048 position: sixteen cells of 4 bits in one `u64`.
///
/// Cell `i` (0 to 15) is row `i / 4`, column `i % 4`, counted from the
/// upper-left corner, and sits in bits `4i..4i+4`. Each cell holds the
/// exponent of its tile: 0 is empty, 1 is a 2, 2 is a 4, ..., 15 is 32768.
/// This is the layout of TDL2048+ and the course frameworks, so hex boards
/// and patterns such as `0x0123` mean the same everywhere (docs/board.md
/// works an example).
///
/// A nibble cannot hold 65536: two 32768 tiles merge into an *empty* cell and
/// still pay 65536, as in TDL2048+. Games that go further use
/// [`WideBoard`](crate::WideBoard).
///
/// ```
/// use board::{Board, Direction};
///
/// let board: Board = "2 2 . 4 / . . . . / . . . . / . . . 2".parse()?;
/// let left = board.slide(Direction::Left).unwrap();
/// assert_eq!(left.board, "4 4 . . / . . . . / . . . . / 2 . . .".parse()?);
/// assert_eq!(left.reward, 4);
/// # Ok::<(), board::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Board(pub(crate) u64);

impl Board {
    /// The value of a tile of this exponent: 0 for an empty cell, else
    /// 2^exponent.
    #[inline]
    pub const fn tile_value(exponent: u8) -> u32 {
        if exponent == 0 { 0 } else { 1 << exponent }
    }

    /// The board with no tiles.
    pub const EMPTY: Board = Board(0);

    /// The largest exponent a cell holds (32768).
    pub const MAX_EXPONENT: u8 = 15;

    /// The board with this raw encoding; every `u64` is a board.
    pub const fn from_raw(raw: u64) -> Self {
        Self(raw)
    }

    /// The raw encoding.
    pub const fn raw(self) -> u64 {
        self.0
    }

    /// The board holding these exponents, cell 0 first.
    ///
    /// # Errors
    /// [`Error::TileTooLarge`] if an exponent does not fit in 4 bits.
    pub fn from_exponents(exponents: [u8; 16]) -> Result<Self, Error> {
        check_exponents(exponents, Self::MAX_EXPONENT)?;
        Ok((0..16).fold(Self::EMPTY, |board, cell| {
            board.with_tile(cell, exponents[cell])
        }))
    }

    /// The exponents of the sixteen cells, cell 0 first.
    pub fn exponents(self) -> [u8; 16] {
        std::array::from_fn(|cell| self.tile(cell))
    }

    /// The exponent of the tile in `cell` (0 when empty).
    ///
    /// # Panics
    /// If `cell` is 16 or more.
    #[inline]
    pub const fn tile(self, cell: usize) -> u8 {
        assert!(cell < 16, "cells are numbered 0 to 15");
        ((self.0 >> (4 * cell)) & 0xF) as u8
    }

    /// This board with the tile of `exponent` in `cell` (0 empties it).
    ///
    /// # Panics
    /// If `cell` is 16 or more, or `exponent` is more than 15.
    #[inline]
    #[must_use]
    pub const fn with_tile(self, cell: usize, exponent: u8) -> Self {
        assert!(cell < 16, "cells are numbered 0 to 15");
        assert!(
            exponent <= Self::MAX_EXPONENT,
            "a cell holds exponents 0 to 15"
        );
        let shift = 4 * cell;
        Self((self.0 & !(0xF << shift)) | (exponent as u64) << shift)
    }

    /// The 16-bit row `row` (0 to 3), cell `4 * row` in its lowest nibble.
    #[inline]
    pub(crate) const fn row(self, row: usize) -> u16 {
        (self.0 >> (16 * row)) as u16
    }

    /// The empty cells as a 16-bit mask: bit `i` is set when cell `i` is empty.
    #[inline]
    pub fn empty_mask(self) -> u16 {
        bits::pext(zero_nibbles(self.0), crate::bits::NIBBLE_LOW_BITS) as u16
    }

    /// The number of empty cells.
    #[inline]
    pub const fn empty_count(self) -> u32 {
        zero_nibbles(self.0).count_ones()
    }

    /// The largest exponent on the board (0 for the empty board).
    pub fn max_tile(self) -> u8 {
        (0..16).map(|cell| self.tile(cell)).max().unwrap_or(0)
    }

    /// How many cells hold each exponent: `counts[0]` is the number of empty
    /// cells, `counts[11]` the number of 2048 tiles.
    pub fn tile_counts(self) -> [u8; 16] {
        let mut counts = [0; 16];
        for cell in 0..16 {
            counts[usize::from(self.tile(cell))] += 1;
        }
        counts
    }

    /// The sum of the values of all tiles.
    ///
    /// Each move keeps it and each spawn adds 2 or 4, so it counts the
    /// progress of a game; endgame tables number their layers by it.
    pub fn tile_sum(self) -> u32 {
        (0..16).map(|cell| Self::tile_value(self.tile(cell))).sum()
    }

    /// The game score that made this board if every spawned tile was a 2.
    ///
    /// A tile of 2^n made by merges alone scored (n - 1) 2^n on the way, so
    /// this is the usual estimate of the score from a position; each 4 that
    /// was spawned rather than made lowers the true score by 4.
    pub fn implied_score(self) -> u32 {
        (0..16).map(|cell| implied_score(self.tile(cell))).sum()
    }

    /// Whether no move changes the board, which ends the game.
    ///
    /// A board with an empty cell and a tile always has a move, so only full
    /// boards without two equal neighbours are over (and the empty board).
    #[inline]
    pub const fn is_game_over(self) -> bool {
        if self.0 == 0 {
            return true;
        }
        if zero_nibbles(self.0) != 0 {
            return false;
        }
        // A zero nibble in the difference of neighbours is a possible merge.
        let horizontal = zero_nibbles(self.0 ^ (self.0 >> 4)) & 0x0111_0111_0111_0111;
        let vertical = zero_nibbles(self.0 ^ (self.0 >> 16)) & 0x0000_1111_1111_1111;
        horizontal | vertical == 0
    }
}

/// Fails on the first cell whose exponent is above `max`.
pub(crate) fn check_exponents(exponents: [u8; 16], max: u8) -> Result<(), Error> {
    match exponents.into_iter().position(|exponent| exponent > max) {
        Some(cell) => Err(Error::TileTooLarge {
            cell,
            exponent: exponents[cell],
            max,
        }),
        None => Ok(()),
    }
}

/// The score a tile of exponent `n` scored while it was made from 2s.
pub(crate) const fn implied_score(exponent: u8) -> u32 {
    if exponent < 2 {
        0
    } else {
        (exponent as u32 - 1) << exponent
    }
}

impl From<Board> for u64 {
    fn from(board: Board) -> u64 {
        board.raw()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_back_what_was_written() {
        let board = Board::from_raw(0xfedc_ba98_7654_3210);
        for cell in 0..16 {
            assert_eq!(board.tile(cell) as usize, cell);
        }
        assert_eq!(board.with_tile(3, 9).tile(3), 9);
        assert_eq!(board.with_tile(3, 0).with_tile(3, 3), board);
    }

    #[test]
    fn counts_and_sums() {
        let board = Board::from_raw(0x0000_0000_0000_1b21);
        assert_eq!(board.empty_count(), 12);
        assert_eq!(board.empty_mask(), 0xFFF0);
        assert_eq!(board.max_tile(), 11);
        assert_eq!(board.tile_sum(), 2 + 4 + 2048 + 2);
        assert_eq!(board.implied_score(), 4 + 10 * 2048);
        assert_eq!(board.tile_counts()[1], 2);
        assert_eq!(board.tile_counts()[0], 12);
    }

    #[test]
    fn exponents_round_trip_and_reject_overflow() {
        let board = Board::from_raw(0x0123_4567_89ab_cdef);
        assert_eq!(Board::from_exponents(board.exponents()).unwrap(), board);
        let mut too_large = [0; 16];
        too_large[5] = 16;
        assert!(matches!(
            Board::from_exponents(too_large),
            Err(Error::TileTooLarge { cell: 5, .. })
        ));
    }

    #[test]
    fn game_over() {
        assert!(Board::EMPTY.is_game_over());
        assert!(Board::from_raw(0x1212_2121_1212_2121).is_game_over());
        assert!(!Board::from_raw(0x1212_2121_1212_2120).is_game_over());
        assert!(!Board::from_raw(0x1212_2121_1212_2211).is_game_over());
        assert!(!Board::from_raw(0x1212_2121_1212_1121).is_game_over());
    }
}
