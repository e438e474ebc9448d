//! The 2584 board: sixteen 5-bit cells in one integer, slides by row
//! tables, and the eight symmetries as bit operations.

use std::fmt;
use std::sync::LazyLock;

use board::{Direction, Symmetry};

use crate::line::slide_towards_first;
use crate::tile::{self, MAX_INDEX};

/// Bits of one cell.
const CELL_BITS: u32 = 5;
/// Bits of one row of four cells.
const ROW_BITS: u32 = 4 * CELL_BITS;
const CELL: u128 = (1 << CELL_BITS) - 1;
const ROW: u128 = (1 << ROW_BITS) - 1;
/// The bits a board uses.
const USED: u128 = (1 << (16 * CELL_BITS)) - 1;

/// A 2584 position: cell `i` (0 to 15, row-major from the upper left) holds
/// the index of its tile in the Fibonacci sequence (0 for empty) in bits
/// `5i..5i+5`, so a row is 20 bits and the board 80 bits of a `u128`.
///
/// ```
/// use fib2584::Board;
/// use board::Direction;
///
/// // 1 1 . .   slides left into   2 . . .   for a reward of 2
/// let board = Board::EMPTY.with_tile(0, 1).with_tile(1, 1);
/// let (after, reward) = board.slide(Direction::Left).unwrap();
/// assert_eq!((after.tile(0), after.tile(1), reward), (2, 0, 2));
/// assert!(board.slide(Direction::Up).is_none(), "nothing moves up");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board(u128);

/// The slide of every row towards its first cell: the slid row in the low
/// 20 bits, the reward above.
static LEFT: LazyLock<Box<[u64]>> = LazyLock::new(|| {
    (0..1u32 << ROW_BITS)
        .map(|row| {
            let cells = [0, 1, 2, 3].map(|j| (row >> (CELL_BITS * j)) as u8 & CELL as u8);
            let (slid, reward) = slide_towards_first(cells);
            let slid = slid
                .iter()
                .enumerate()
                .fold(0u64, |row, (j, &tile)| row | u64::from(tile) << (5 * j));
            slid | u64::from(reward) << ROW_BITS
        })
        .collect()
});

/// The cells of `cells` (a set of cell numbers) as a mask of their bits.
const fn mask(cells: u16) -> u128 {
    let mut mask = 0;
    let mut cell = 0;
    while cell < 16 {
        if cells >> cell & 1 == 1 {
            mask |= CELL << (CELL_BITS * cell);
        }
        cell += 1;
    }
    mask
}

impl Board {
    /// The empty board.
    pub const EMPTY: Board = Board(0);

    /// The board of these 80 bits; bits above them are dropped.
    pub const fn from_raw(raw: u128) -> Self {
        Self(raw & USED)
    }

    /// The board's bits.
    pub const fn raw(self) -> u128 {
        self.0
    }

    /// The board with these tile indices, cell by cell, or `None` if one is
    /// above [`MAX_INDEX`].
    pub fn from_cells(cells: [u8; 16]) -> Option<Self> {
        cells
            .iter()
            .enumerate()
            .try_fold(Self::EMPTY, |board, (cell, &index)| {
                (index <= MAX_INDEX).then(|| board.with_tile(cell, index))
            })
    }

    /// The tile indices, cell by cell.
    pub fn cells(self) -> [u8; 16] {
        std::array::from_fn(|cell| self.tile(cell))
    }

    /// The tile index on `cell` (0 for empty).
    #[inline]
    pub const fn tile(self, cell: usize) -> u8 {
        (self.0 >> (CELL_BITS as usize * cell)) as u8 & CELL as u8
    }

    /// The board with `cell` holding tile `index` (replacing what was there).
    ///
    /// # Panics
    /// In debug builds, if `index` is above [`MAX_INDEX`].
    #[inline]
    #[must_use]
    pub const fn with_tile(self, cell: usize, index: u8) -> Self {
        debug_assert!(index <= MAX_INDEX);
        let shift = CELL_BITS as usize * cell;
        Self(self.0 & !(CELL << shift) | (index as u128) << shift)
    }

    /// The empty cells as a bit set (bit `i` for cell `i`).
    #[inline]
    pub fn empty_mask(self) -> u16 {
        (0..16).fold(0, |mask, cell| {
            mask | u16::from(self.tile(cell) == 0) << cell
        })
    }

    /// The largest tile index on the board.
    pub fn max_tile(self) -> u8 {
        (0..16).map(|cell| self.tile(cell)).max().unwrap_or(0)
    }

    /// The sum of the tiles' values.
    pub fn tile_sum(self) -> u32 {
        (0..16).map(|cell| tile::value(self.tile(cell))).sum()
    }

    /// The board mirrored along the main diagonal: cell (r, c) goes to
    /// (c, r). Two exchanges of blocks, as for 4-bit boards.
    #[inline]
    #[must_use]
    pub const fn transpose(self) -> Self {
        const KEEP: u128 = mask(!0x0A0A & !0x5050);
        const DOWN_LEFT: u128 = mask(0x0A0A);
        const UP_RIGHT: u128 = mask(0x5050);
        const KEEP_BLOCKS: u128 = mask(!0x3300 & !0x00CC);
        const LOWER_LEFT: u128 = mask(0x3300);
        const UPPER_RIGHT: u128 = mask(0x00CC);
        let x = self.0;
        let x = x & KEEP | (x & DOWN_LEFT) << (3 * CELL_BITS) | (x & UP_RIGHT) >> (3 * CELL_BITS);
        Self(
            x & KEEP_BLOCKS
                | (x & LOWER_LEFT) >> (6 * CELL_BITS)
                | (x & UPPER_RIGHT) << (6 * CELL_BITS),
        )
    }

    /// The board upside down: row r goes to row 3 - r.
    #[inline]
    #[must_use]
    pub const fn flip(self) -> Self {
        let x = self.0;
        Self(
            (x & ROW) << (3 * ROW_BITS)
                | (x >> ROW_BITS & ROW) << (2 * ROW_BITS)
                | (x >> (2 * ROW_BITS) & ROW) << ROW_BITS
                | x >> (3 * ROW_BITS),
        )
    }

    /// The board mirrored left to right: column c goes to column 3 - c.
    #[inline]
    #[must_use]
    pub const fn mirror(self) -> Self {
        const COLUMNS: [u128; 4] = [mask(0x1111), mask(0x2222), mask(0x4444), mask(0x8888)];
        let x = self.0;
        Self(
            (x & COLUMNS[0]) << (3 * CELL_BITS)
                | (x & COLUMNS[1]) << CELL_BITS
                | (x & COLUMNS[2]) >> CELL_BITS
                | (x & COLUMNS[3]) >> (3 * CELL_BITS),
        )
    }

    /// The board under `symmetry`: the tile of cell `i` moves to
    /// `symmetry.cell(i)`, as for 2048's boards.
    #[must_use]
    pub fn transformed(self, symmetry: Symmetry) -> Self {
        (0..16).fold(Self::EMPTY, |board, cell| {
            board.with_tile(symmetry.cell(cell), self.tile(cell))
        })
    }

    /// Slides every row towards its first cell.
    #[inline]
    fn slide_rows_left(self) -> (u128, u32) {
        let table = &**LEFT;
        (0..4).fold((0, 0), |(board, reward), row| {
            let shift = ROW_BITS * row;
            let entry = table[(self.0 >> shift & ROW) as usize];
            (
                board | (u128::from(entry) & ROW) << shift,
                reward + (entry >> ROW_BITS) as u32,
            )
        })
    }

    /// Slides every row towards its last cell.
    #[inline]
    fn slide_rows_right(self) -> (u128, u32) {
        let (slid, reward) = self.mirror().slide_rows_left();
        (Self(slid).mirror().0, reward)
    }

    /// The board after sliding in `direction` and that slide's reward (the
    /// values of the merged tiles), or `None` if the slide changes nothing
    /// and so is not allowed.
    #[inline]
    pub fn slide(self, direction: Direction) -> Option<(Board, u32)> {
        let (slid, reward) = match direction {
            Direction::Left => self.slide_rows_left(),
            Direction::Right => self.slide_rows_right(),
            Direction::Up => {
                let (slid, reward) = self.transpose().slide_rows_left();
                (Self(slid).transpose().0, reward)
            }
            Direction::Down => {
                let (slid, reward) = self.transpose().slide_rows_right();
                (Self(slid).transpose().0, reward)
            }
        };
        (slid != self.0).then_some((Self(slid), reward))
    }

    /// [`Board::slide`] in each direction, in the order up, right, down,
    /// left.
    #[inline]
    pub fn afterstates(self) -> [Option<(Board, u32)>; 4] {
        Direction::ALL.map(|direction| self.slide(direction))
    }

    /// Whether no slide is allowed: the game is over.
    pub fn is_over(self) -> bool {
        self.afterstates().iter().all(Option::is_none)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({:#022x})", self.0)
    }
}

/// The board as four lines of tile values, `.` for empty cells.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..4 {
            let line: Vec<String> = (0..4)
                .map(|column| match self.tile(4 * row + column) {
                    0 => ".".to_owned(),
                    index => tile::value(index).to_string(),
                })
                .collect();
            let line: Vec<String> = line.iter().map(|cell| format!("{cell:>7}")).collect();
            writeln!(f, "{}", line.join(""))?;
        }
        Ok(())
    }
}
