//! How tiles move on a tablebase's boards, where the nibble 0xF is not a
//! 32768 tile but a large tile that stays out of the endgame.

use std::sync::LazyLock;

use board::Direction;
use system::bits::{pdep, pext};

/// What the nibble 0xF is on a formation's board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Large {
    /// A placeholder for a large tile: it slides like any tile but never
    /// merges, not even with another 0xF. Two 16384 still merge into one.
    Sliding,
    /// An immovable wall that splits its row and column into segments (the
    /// small-board variants 2x4, 3x3 and 3x4).
    Wall,
}

/// The exponent of the large tile or wall.
pub const LARGE: u8 = 0xF;

/// Slides a line of four exponents towards its first cell: tiles pack, and
/// equal neighbours below [`LARGE`] merge once each, pairing from the wall.
/// With [`Large::Wall`], each 0xF stays where it is and the cells between
/// walls slide as lines of their own.
///
/// The plain rule the move tables are built from, and the reference the
/// tests check them against.
pub fn slide_line(line: [u8; 4], large: Large) -> [u8; 4] {
    let mut out = [0u8; 4];
    let mut start = 0;
    while start < 4 {
        // The segment [start, end): up to the next wall, or the whole line.
        let end = match large {
            Large::Wall => (start..4).find(|&i| line[i] == LARGE).unwrap_or(4),
            Large::Sliding => 4,
        };
        let mut len = start;
        let mut open = false;
        for &tile in line[start..end].iter().filter(|&&tile| tile != 0) {
            if open && out[len - 1] == tile && tile != LARGE {
                out[len - 1] = tile + 1;
                open = false;
            } else {
                out[len] = tile;
                len += 1;
                open = true;
            }
        }
        if end < 4 {
            out[end] = LARGE;
        }
        start = end + 1;
    }
    out
}

/// A row table: the slid row (cells at 4-bit shifts, the first cell lowest)
/// for every row.
type RowTable = [u16; 1 << 16];

fn row_table(large: Large, towards_first: bool) -> Box<RowTable> {
    let mut table: Box<RowTable> = vec![0u16; 1 << 16]
        .into_boxed_slice()
        .try_into()
        .expect("the length is 2^16");
    for (row, entry) in table.iter_mut().enumerate() {
        let mut line: [u8; 4] = std::array::from_fn(|k| ((row >> (4 * k)) & 0xF) as u8);
        if !towards_first {
            line.reverse();
        }
        let mut slid = slide_line(line, large);
        if !towards_first {
            slid.reverse();
        }
        *entry = slid
            .iter()
            .enumerate()
            .map(|(k, &tile)| u16::from(tile) << (4 * k))
            .sum();
    }
    table
}

static SLIDING_LEFT: LazyLock<Box<RowTable>> = LazyLock::new(|| row_table(Large::Sliding, true));
static SLIDING_RIGHT: LazyLock<Box<RowTable>> = LazyLock::new(|| row_table(Large::Sliding, false));
static WALL_LEFT: LazyLock<Box<RowTable>> = LazyLock::new(|| row_table(Large::Wall, true));
static WALL_RIGHT: LazyLock<Box<RowTable>> = LazyLock::new(|| row_table(Large::Wall, false));

/// The four moves of boards whose 0xF is `large`, from two row tables.
#[derive(Clone, Copy, Debug)]
pub struct Mover {
    left: &'static RowTable,
    right: &'static RowTable,
}

impl Mover {
    /// The moves for boards whose 0xF nibbles are `large`.
    pub fn new(large: Large) -> Self {
        let (left, right) = match large {
            Large::Sliding => (&**SLIDING_LEFT, &**SLIDING_RIGHT),
            Large::Wall => (&**WALL_LEFT, &**WALL_RIGHT),
        };
        Self { left, right }
    }

    /// The board slid in `direction` (equal to `board` when the move changes
    /// nothing).
    #[inline]
    pub fn slide(&self, board: u64, direction: Direction) -> u64 {
        match direction {
            Direction::Left => rows(board, self.left),
            Direction::Right => rows(board, self.right),
            Direction::Up => in_columns(columns(board), self.left),
            Direction::Down => in_columns(columns(board), self.right),
        }
    }

    /// The board slid in each direction, in [`Direction::ALL`] order.
    #[inline]
    pub fn slide_all(&self, board: u64) -> [u64; 4] {
        self.slide_all_of(board, columns(board))
    }

    /// [`Mover::slide_all`] given the board's [`columns`].
    #[inline(always)]
    fn slide_all_of(&self, board: u64, columns: [u16; 4]) -> [u64; 4] {
        [
            in_columns(columns, self.left),
            rows(board, self.right),
            in_columns(columns, self.right),
            rows(board, self.left),
        ]
    }

    /// `board`'s four moves, kept with its rows and columns for
    /// [`Mover::slide_all_spawned`].
    #[inline(always)]
    pub fn slid(&self, board: u64) -> Slid {
        let columns = columns(board);
        Slid {
            board,
            columns,
            moved: self.slide_all_of(board, columns),
        }
    }

    /// [`Mover::slide_all`] of `slid`'s board with a tile of `exponent` in
    /// its empty `cell`: the tile changes one row and one column, so only
    /// they are slid again, four row-table lookups where a whole board
    /// takes sixteen and three transpositions.
    #[inline(always)]
    pub fn slide_all_spawned(&self, slid: &Slid, cell: usize, exponent: u8) -> [u64; 4] {
        debug_assert!(
            cell < 16 && slid.board >> (4 * cell) & 0xF == 0,
            "an empty cell"
        );
        debug_assert!(exponent < 16, "a tile's exponent");
        let (row, column) = (cell / 4, cell % 4);
        let tile = u16::from(exponent);
        let line = (slid.board >> (16 * row)) as u16 | tile << (4 * column);
        let across = slid.columns[column] | tile << (4 * row);
        let row_cells = 0xFFFF << (16 * row);
        let column_cells = COLUMN << (4 * column);
        let in_row = |table: &RowTable| u64::from(table[usize::from(line)]) << (16 * row);
        let in_column =
            |table: &RowTable| pdep(u64::from(table[usize::from(across)]), column_cells);
        let [up, right, down, left] = slid.moved;
        [
            up & !column_cells | in_column(self.left),
            right & !row_cells | in_row(self.right),
            down & !column_cells | in_column(self.right),
            left & !row_cells | in_row(self.left),
        ]
    }
}

/// A board with its four moves ([`Mover::slid`]), from which those of the
/// board with one more tile follow a line at a time.
#[derive(Clone, Copy, Debug)]
pub struct Slid {
    board: u64,
    columns: [u16; 4],
    /// The moves, in [`Direction::ALL`] order.
    moved: [u64; 4],
}

#[inline(always)]
fn rows(board: u64, table: &RowTable) -> u64 {
    (0..4).fold(0, |slid, row| {
        let line = (board >> (16 * row)) as u16;
        slid | u64::from(table[usize::from(line)]) << (16 * row)
    })
}

/// The cells of the first column.
const COLUMN: u64 = 0x000F_000F_000F_000F;

/// The columns of `board`, each as a row table reads a line (its top cell
/// lowest): gathered with `pext`, which took fewer instructions than
/// turning the board (docs/tablebase-builder.md).
#[inline(always)]
fn columns(board: u64) -> [u16; 4] {
    std::array::from_fn(|column| pext(board, COLUMN << (4 * column)) as u16)
}

/// The board whose columns are `columns`, each slid by `table`.
#[inline(always)]
fn in_columns(columns: [u16; 4], table: &RowTable) -> u64 {
    (0..4).fold(0, |slid, column| {
        let line = u64::from(table[usize::from(columns[column])]);
        slid | pdep(line, COLUMN << (4 * column))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_slide_but_never_merge() {
        let line = |cells: [u8; 4]| slide_line(cells, Large::Sliding);
        assert_eq!(line([0xF, 0, 0xF, 1]), [0xF, 0xF, 1, 0]);
        assert_eq!(line([1, 1, 0xF, 0xF]), [2, 0xF, 0xF, 0]);
        assert_eq!(line([0xE, 0xE, 2, 2]), [0xF, 3, 0, 0]);
        assert_eq!(line([2, 2, 2, 2]), [3, 3, 0, 0]);
    }

    #[test]
    fn walls_stay_and_split_the_line() {
        let line = |cells: [u8; 4]| slide_line(cells, Large::Wall);
        assert_eq!(line([0, 1, 0xF, 1]), [1, 0, 0xF, 1]);
        assert_eq!(line([0, 0xF, 0, 2]), [0, 0xF, 2, 0]);
        assert_eq!(line([1, 1, 1, 0xF]), [2, 1, 0, 0xF]);
        assert_eq!(line([0xF, 0xF, 0xF, 0xF]), [0xF; 4]);
    }

    #[test]
    fn a_spawned_tile_slides_as_a_whole_board_does() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        for large in [Large::Sliding, Large::Wall] {
            let mover = Mover::new(large);
            for _ in 0..20_000 {
                // Random nibbles (0xF included), about a third of the cells
                // empty.
                let board = (0..16).fold(0u64, |board, cell| {
                    let draw = rng.next_u64() % 24;
                    board | if draw < 16 { draw << (4 * cell) } else { 0 }
                });
                let slid = mover.slid(board);
                for cell in (0..16).filter(|&cell| board >> (4 * cell) & 0xF == 0) {
                    for exponent in 1..=2 {
                        let spawned = board | u64::from(exponent) << (4 * cell);
                        assert_eq!(
                            mover.slide_all_spawned(&slid, cell, exponent),
                            mover.slide_all(spawned),
                            "{board:016x} {cell} {exponent}"
                        );
                    }
                }
            }
        }
    }

    /// Every move of random boards (0xF included) slides each row or
    /// column by the line rule: rows read from their first cell for left,
    /// their last for right, columns from the top for up, the bottom for
    /// down.
    #[test]
    fn moves_follow_the_line_rule_in_every_direction() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for large in [Large::Sliding, Large::Wall] {
            let mover = Mover::new(large);
            for _ in 0..5_000 {
                let board = rng.next_u64();
                let cell =
                    |row: usize, column: usize| (board >> (4 * (4 * row + column))) as u8 & 0xF;
                for (direction, moved) in Direction::ALL.into_iter().zip(mover.slide_all(board)) {
                    assert_eq!(mover.slide(board, direction), moved);
                    let mut expected = 0u64;
                    for line in 0..4 {
                        // The cells of the line, from the one tiles slide to.
                        let cells: [(usize, usize); 4] = std::array::from_fn(|k| match direction {
                            Direction::Left => (line, k),
                            Direction::Right => (line, 3 - k),
                            Direction::Up => (k, line),
                            Direction::Down => (3 - k, line),
                        });
                        let slid = slide_line(cells.map(|(row, column)| cell(row, column)), large);
                        for ((row, column), tile) in cells.into_iter().zip(slid) {
                            expected |= u64::from(tile) << (4 * (4 * row + column));
                        }
                    }
                    assert_eq!(moved, expected, "{board:016x} {direction:?}");
                }
            }
        }
    }

    #[test]
    fn tables_agree_with_the_line_rule() {
        for large in [Large::Sliding, Large::Wall] {
            let mover = Mover::new(large);
            // Row 0 holds 1 F 0 1 (cells 0..3), read and moved both ways.
            let board = 0x1_0F1u64;
            assert_eq!(mover.slide(board, Direction::Left) & 0xFFFF, {
                let slid = slide_line([1, 0xF, 0, 1], large);
                slid.iter()
                    .enumerate()
                    .map(|(k, &t)| u64::from(t) << (4 * k))
                    .sum::<u64>()
            });
        }
    }
}
