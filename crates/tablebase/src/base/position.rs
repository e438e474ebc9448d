//! Positions as a table holds them, and the board arithmetic every part of
//! the crate shares: tile sums and large tiles.

use std::fmt;
use std::str::FromStr;

use crate::Error;
use crate::base::hex;

/// A position as a table holds it: sixteen 4-bit cells in 2048lab's order
/// (cell 0, the upper-left, in the lowest nibble), where a cell of 0xF is
/// a large tile held out of the endgame ([`Large`](crate::Large): a tile
/// of 32768 or more, or a wall), not a 32768.
///
/// Positions are read and written as the reference builder writes them
/// (`0x100000001fff2fff`, the upper-left cell first), or as a grid of tile
/// values with `f` for a large tile:
///
/// ```
/// use tablebase::Position;
///
/// let seed: Position = "0x100000001fff2fff".parse()?;
/// let grid: Position = "2 . . . / . . . . / 2 f f f / 4 f f f".parse()?;
/// assert_eq!(seed, grid);
/// assert_eq!((seed.large_count(), seed.tile_sum() - 6 * 32768), (6, 8));
/// assert_eq!(seed.to_string(), "0x100000001fff2fff");
/// # Ok::<(), tablebase::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position(u64);

impl Position {
    /// The position of these cells, in 2048lab's order.
    pub const fn from_bits(bits: u64) -> Self {
        Self(bits)
    }

    /// Its cells, in 2048lab's order: what [`board::Board::raw`] holds
    /// for the same grid, with 0xF for the large tiles.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The position the reference builder writes as `reference`.
    ///
    /// ```
    /// // The reference's 0x100000001fff2fff: a 2 in the upper-left cell.
    /// let position = tablebase::Position::from_reference(0x1000_0000_1fff_2fff);
    /// assert_eq!(position.bits() & 0xF, 1);
    /// ```
    pub const fn from_reference(reference: u64) -> Self {
        Self(hex::from_reference(reference))
    }

    /// The reference builder's number for the position.
    pub const fn to_reference(self) -> u64 {
        hex::to_reference(self.0)
    }

    /// The sum of its tiles, a large tile counted as 32768.
    pub fn tile_sum(self) -> u32 {
        tile_sum(self.0)
    }

    /// The number of its large tiles.
    pub fn large_count(self) -> u32 {
        large_count(self.0)
    }

    /// The cells of its large tiles, 0xF each.
    pub fn large_cells(self) -> u64 {
        large_nibbles(self.0)
    }
}

impl FromStr for Position {
    type Err = Error;

    /// Reads a grid of tile values (cells split by white space or `/`,
    /// `f` for a large tile) or the reference's hex.
    fn from_str(text: &str) -> Result<Self, Error> {
        hex::parse_board(text).map(Self)
    }
}

impl fmt::Display for Position {
    /// The reference's hex: `0x` and 16 digits, the upper-left cell first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::format(self.0))
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

/// The tile sum of a board, 0xF counted as 32768.
pub(crate) fn tile_sum(board: u64) -> u32 {
    (0..16)
        .map(|cell| ((board >> (4 * cell)) & 0xF) as u8)
        .map(|tile| if tile == 0 { 0 } else { 1u32 << tile })
        .sum()
}

/// The number of large tiles (0xF) of `board`.
pub(crate) fn large_count(board: u64) -> u32 {
    large_nibbles(board).count_ones() / 4
}

/// The tile sum of `board`'s tiles other than large ones: with
/// [`large_count`], what tells boards of different tile sums apart in
/// words a user knows.
pub(crate) fn free_sum(board: u64) -> u32 {
    tile_sum(board) - (large_count(board) << 15)
}

/// The nibbles of `board` that hold 0xF, as a mask of nibbles.
pub(crate) fn large_nibbles(board: u64) -> u64 {
    let ones = board & (board >> 1) & (board >> 2) & (board >> 3) & 0x1111_1111_1111_1111;
    ones * 0xF
}
