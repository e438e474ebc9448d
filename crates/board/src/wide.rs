//! A board whose tiles go past 32768, for games that reach 65536.

use std::fmt;
use std::str::FromStr;

use crate::bits::zero_nibbles;
use crate::board::check_exponents;
use crate::moves::slide_cells;
use crate::text::{parse_grid, write_grid};
use crate::{Afterstate, Afterstates, Board, Direction, Error};

/// A board with a fifth bit in every cell: tiles up to 2^18 = 262,144.
///
/// The low four bits of each cell are a [`Board`], and a 16-bit word holds
/// the fifth bit of cell `i` in bit `i`, as TDL2048+'s extended board does.
/// Two 32768 tiles merge into a 65536 here. 2^18 is the largest tile any game
/// can make (it needs every cell, with 4s spawned); two tiles of it merge
/// into an empty cell and pay 2^19, as the 64-bit board does with 32768.
///
/// Moves on boards without a 32768 or larger tile use the row tables of
/// [`Board`]; beyond that they slide cell by cell, several times slower,
/// which is fine for playing a game but not for searching one.
///
/// ```
/// use board::{Board, Direction, WideBoard};
///
/// let board: WideBoard = "32768 32768 . . / . . . . / . . . . / . . . 2".parse()?;
/// let left = board.slide(Direction::Left).unwrap();
/// assert_eq!(left.board.max_tile(), 16); // 65536
/// assert_eq!(left.reward, 65536);
/// assert!(Board::try_from(left.board).is_err());
/// # Ok::<(), board::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct WideBoard {
    low: Board,
    high: u16,
}

impl WideBoard {
    /// The largest exponent a cell holds (2^18 = 262,144).
    pub const MAX_EXPONENT: u8 = 18;

    /// The board of these parts: the low four bits of every cell, and the
    /// fifth bit of cell `i` in bit `i` of `high`.
    ///
    /// # Errors
    /// [`Error::TileTooLarge`] if a cell would hold more than 2^18.
    pub fn from_parts(low: Board, high: u16) -> Result<Self, Error> {
        let board = Self { low, high };
        check_exponents(board.exponents(), Self::MAX_EXPONENT)?;
        Ok(board)
    }

    /// The low four bits of every cell.
    pub const fn low(self) -> Board {
        self.low
    }

    /// The fifth bit of every cell, cell `i` in bit `i`.
    pub const fn high(self) -> u16 {
        self.high
    }

    /// The board holding these exponents, cell 0 first.
    ///
    /// # Errors
    /// [`Error::TileTooLarge`] if an exponent is above 18.
    pub fn from_exponents(exponents: [u8; 16]) -> Result<Self, Error> {
        check_exponents(exponents, Self::MAX_EXPONENT)?;
        Ok((0..16).fold(Self::default(), |board, cell| {
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
    pub const fn tile(self, cell: usize) -> u8 {
        self.low.tile(cell) | (((self.high >> cell) & 1) as u8) << 4
    }

    /// This board with the tile of `exponent` in `cell` (0 empties it).
    ///
    /// # Panics
    /// If `cell` is 16 or more, or `exponent` is more than 18.
    #[must_use]
    pub const fn with_tile(self, cell: usize, exponent: u8) -> Self {
        assert!(
            exponent <= Self::MAX_EXPONENT,
            "a wide cell holds exponents 0 to 18"
        );
        Self {
            low: self.low.with_tile(cell, exponent & 0xF),
            high: (self.high & !(1 << cell)) | ((exponent >> 4) as u16) << cell,
        }
    }

    /// The empty cells as a 16-bit mask: bit `i` is set when cell `i` is empty.
    pub fn empty_mask(self) -> u16 {
        self.low.empty_mask() & !self.high
    }

    /// The number of empty cells.
    pub fn empty_count(self) -> u32 {
        self.empty_mask().count_ones()
    }

    /// The largest exponent on the board.
    pub fn max_tile(self) -> u8 {
        self.exponents().into_iter().max().unwrap_or(0)
    }

    /// The sum of the values of all tiles.
    pub fn tile_sum(self) -> u32 {
        self.exponents().into_iter().map(Board::tile_value).sum()
    }

    /// The game score that made this board if every spawned tile was a 2
    /// (see [`Board::implied_score`]).
    pub fn implied_score(self) -> u32 {
        self.exponents()
            .into_iter()
            .map(crate::board::implied_score)
            .sum()
    }

    /// Whether no move changes the board.
    pub fn is_game_over(self) -> bool {
        self.afterstates().is_empty()
    }

    /// A 64-bit copy for a player that knows tiles only below `threshold`
    /// (an exponent): while the largest tile is at or above it, every tile
    /// above the smallest missing exponent moves down one (filling the gap),
    /// as TDL2048+'s tile-downgrading (`-h`) does.
    ///
    /// The map keeps equal tiles equal and different tiles different and in
    /// order, so every move slides the copy as it slides this board: a move
    /// is legal on one exactly when it is legal on the other. If no gap is
    /// left and tiles still exceed 32768, those are clamped to 32768 (then
    /// the copy can allow a merge this board does not have).
    ///
    /// ```
    /// use board::WideBoard;
    ///
    /// let board: WideBoard = "65536 32768 2 . / . . . . / . . . . / . . . 4".parse()?;
    /// // 8 is the smallest tile missing: 65536 and 32768 move down to fill it.
    /// let seen = board.downgraded(15);
    /// assert_eq!(seen, "16384 8192 2 . / . . . . / . . . . / . . . 4".parse()?);
    /// # Ok::<(), board::Error>(())
    /// ```
    pub fn downgraded(self, threshold: u8) -> Board {
        self.downgraded_into(threshold, |present, largest| {
            (1..largest).find(|&e| present & (1 << e) == 0)
        })
    }

    /// The same copy, filling the largest gap instead of the smallest:
    /// while the largest tile is at or above `threshold`, every tile above
    /// the largest exponent missing below it moves down one. Only the large
    /// tiles move, so the small ones keep their values: a search that
    /// spawns 2s and 4s into the copy sees them merge as they would on this
    /// board, where [`WideBoard::downgraded`] of a board with no 2 turns
    /// every 4 into a 2.
    ///
    /// ```
    /// use board::WideBoard;
    ///
    /// let board: WideBoard = "32768 8192 4 . / . . . . / . . . . / . . . 4".parse()?;
    /// // 16384 is the largest tile missing: only 32768 moves down.
    /// let seen = board.downgraded_from_top(15);
    /// assert_eq!(seen, "16384 8192 4 . / . . . . / . . . . / . . . 4".parse()?);
    /// # Ok::<(), board::Error>(())
    /// ```
    pub fn downgraded_from_top(self, threshold: u8) -> Board {
        self.downgraded_into(threshold, |present, largest| {
            (1..largest).rev().find(|&e| present & (1 << e) == 0)
        })
    }

    /// The downgrading loop of [`WideBoard::downgraded`], with `gap`
    /// choosing the missing exponent to fill from the exponents present (a
    /// mask) and the largest.
    fn downgraded_into(self, threshold: u8, gap: impl Fn(u32, u8) -> Option<u8>) -> Board {
        let mut exponents = self.exponents();
        loop {
            let largest = exponents.iter().copied().max().unwrap_or(0);
            if largest < threshold.max(1) && largest <= Board::MAX_EXPONENT {
                break;
            }
            let present = exponents.iter().fold(0u32, |mask, &e| mask | 1 << e);
            let Some(missing) = gap(present, largest) else {
                break;
            };
            for exponent in &mut exponents {
                if *exponent > missing {
                    *exponent -= 1;
                }
            }
        }
        let clamped = exponents.map(|exponent| exponent.min(Board::MAX_EXPONENT));
        Board::from_exponents(clamped).expect("clamped to what fits")
    }

    /// Whether every tile is below 32768, so the 64-bit tables move it right.
    fn fits_tables(self) -> bool {
        // A nibble of 0xF in `low` is a zero nibble of `!low`.
        self.high == 0 && zero_nibbles(!self.low.raw()) == 0
    }

    /// Slides the board in `direction`, or `None` if that leaves it unchanged.
    pub fn slide(self, direction: Direction) -> Option<Afterstate<WideBoard>> {
        if self.fits_tables() {
            return self.low.slide(direction).map(widen);
        }
        let cells = self.exponents();
        let (slid, reward) = slide_cells(cells, direction, Self::MAX_EXPONENT);
        (slid != cells).then(|| Afterstate {
            board: Self::from_exponents(slid).expect("slides keep exponents in range"),
            reward,
        })
    }

    /// All four moves at once.
    pub fn afterstates(self) -> Afterstates<WideBoard> {
        if self.fits_tables() {
            return Afterstates(self.low.afterstates().0.map(|a| a.map(widen)));
        }
        Afterstates(Direction::ALL.map(|direction| self.slide(direction)))
    }
}

fn widen(afterstate: Afterstate) -> Afterstate<WideBoard> {
    Afterstate {
        board: afterstate.board.into(),
        reward: afterstate.reward,
    }
}

impl From<Board> for WideBoard {
    fn from(low: Board) -> Self {
        Self { low, high: 0 }
    }
}

impl TryFrom<WideBoard> for Board {
    type Error = Error;

    /// The 64-bit board, if every tile fits in it.
    ///
    /// # Errors
    /// [`Error::TileTooLarge`] naming the first cell above 32768.
    fn try_from(board: WideBoard) -> Result<Self, Error> {
        match board.high {
            0 => Ok(board.low),
            high => {
                let cell = high.trailing_zeros() as usize;
                Err(Error::TileTooLarge {
                    cell,
                    exponent: board.tile(cell),
                    max: Board::MAX_EXPONENT,
                })
            }
        }
    }
}

impl FromStr for WideBoard {
    type Err = Error;

    /// Reads a grid of sixteen tile values up to 262,144, or a 64-bit board
    /// in hex (see [`Board`]'s `FromStr`).
    fn from_str(input: &str) -> Result<Self, Error> {
        if input.trim_start().starts_with("0x") || input.trim_start().starts_with("0X") {
            return input.parse::<Board>().map(Self::from);
        }
        Self::from_exponents(parse_grid(input)?)
    }
}

impl fmt::Display for WideBoard {
    /// The grid of tile values; `{:#}` writes it on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_grid(f, self.exponents())
    }
}

impl fmt::Debug for WideBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "WideBoard({:#018x}, high {:#06x})",
            self.low.raw(),
            self.high
        )
    }
}
