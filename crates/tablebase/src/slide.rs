//! How tiles move on a tablebase's boards, where the nibble 0xF is not a
//! 32768 tile but a large tile that stays out of the endgame.

use std::sync::LazyLock;

use board::Direction;

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
            Direction::Up => transpose(rows(transpose(board), self.left)),
            Direction::Down => transpose(rows(transpose(board), self.right)),
        }
    }

    /// The board slid in each direction, in [`Direction::ALL`] order.
    #[inline]
    pub fn slide_all(&self, board: u64) -> [u64; 4] {
        let transposed = transpose(board);
        [
            transpose(rows(transposed, self.left)),
            rows(board, self.right),
            transpose(rows(transposed, self.right)),
            rows(board, self.left),
        ]
    }
}

#[inline(always)]
fn rows(board: u64, table: &RowTable) -> u64 {
    (0..4).fold(0, |slid, row| {
        let line = (board >> (16 * row)) as u16;
        slid | u64::from(table[usize::from(line)]) << (16 * row)
    })
}

#[inline(always)]
fn transpose(board: u64) -> u64 {
    board::Board::from_raw(board).transpose().raw()
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
