//! The one error type of the crate.

use crate::{Board, Direction};

/// What can go wrong when boards, moves or rules are built from input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hex board has a character that is not a hex digit.
    #[error("{input:?} is not a board: {digit:?} is not a hex digit")]
    HexDigit {
        /// The text given.
        input: String,
        /// The first offending character.
        digit: char,
    },
    /// A hex board has no digits, or more than 16.
    #[error("{input:?} is not a board: {count} hex digits, at most 16 fit")]
    HexLength {
        /// The text given.
        input: String,
        /// The number of digits found.
        count: usize,
    },
    /// A grid does not have sixteen cells.
    #[error("{input:?} is not a board: {count} cells, a board has 16")]
    CellCount {
        /// The text given.
        input: String,
        /// The number of cells found.
        count: usize,
    },
    /// A grid cell is neither empty nor a power of two from 2 up.
    #[error("{input:?} is not a board: {token:?} is not a tile (2, 4, 8, ... or . for empty)")]
    Tile {
        /// The text given.
        input: String,
        /// The offending cell.
        token: String,
    },
    /// A tile is larger than the board type can hold.
    #[error(
        "cell {cell} holds {}, above the largest tile that fits ({})",
        1u64 << exponent,
        1u64 << max
    )]
    TileTooLarge {
        /// The cell (0 to 15).
        cell: usize,
        /// The exponent of its tile.
        exponent: u8,
        /// The largest exponent the board type holds.
        max: u8,
    },
    /// A text names no direction.
    #[error("{input:?} is not a direction (up, right, down, left, or 0 to 3)")]
    Direction {
        /// The text given.
        input: String,
    },
    /// The probability of a 4 is not between 0 and 1.
    #[error("the 4-rate must be between 0 and 1, not {rate}")]
    FourRate {
        /// The rate given.
        rate: f64,
    },
    /// A game record breaks the format or the rules (docs/records.md).
    #[error("not a game record: {problem}")]
    Record {
        /// What is wrong, and where.
        problem: String,
    },
    /// A policy chose a move that does not change the board.
    #[error("{direction} is not a legal move on {board:?}")]
    IllegalMove {
        /// The board the move was chosen on.
        board: Board,
        /// The move chosen.
        direction: Direction,
    },
}
