//! The evaluator of the search: tiles that descend from one corner.

use board::Board;

/// Values a board by how well its tiles descend from the upper-left corner,
/// along every row (left to right) and every column (top to bottom): the
/// shape the classic bots keep, with the largest tile held in a corner and
/// the next ones lined up beside it, ready to merge in turn.
///
/// Each of the eight lines is read from the corner's end and scored from a
/// table of all 65,536 lines. A tile of exponent `r` weighs `r * 2^r`, so
/// that a large tile in its place outweighs anything small. Along a line,
/// each pair of neighbours `a` then `b` adds `a + b` when `a >= b` (and `a`
/// again when they are equal, a merge in waiting), and costs `12 (b - a)`
/// when a smaller tile sits nearer the corner than a larger one; the line's
/// first tile adds its own weight once more.
///
/// The value is anchored, not symmetric: the player keeps its large tiles in
/// the upper-left corner, and the search's positions are its own (endgame
/// tables are read in any orientation, so this costs them nothing).
#[derive(Clone)]
pub struct Snake {
    lines: Box<[i32]>,
}

impl Default for Snake {
    fn default() -> Self {
        Self::new()
    }
}

impl Snake {
    /// Builds the table of lines (a millisecond or so).
    pub fn new() -> Self {
        Self {
            lines: (0..=u16::MAX).map(line_value).collect(),
        }
    }

    /// The value of `board`.
    #[inline]
    pub fn value(&self, board: Board) -> i32 {
        let columns = board.transpose().raw();
        let rows = board.raw();
        let line = |bits: u64, index: u32| self.lines[usize::from((bits >> (16 * index)) as u16)];
        (0..4)
            .map(|index| line(rows, index) + line(columns, index))
            .sum()
    }
}

impl std::fmt::Debug for Snake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Snake")
    }
}

/// The weight of a tile of exponent `exponent` (0 for an empty cell).
pub(crate) const fn weight(exponent: u8) -> i32 {
    (exponent as i32) << exponent
}

/// The value of one line, its first cell (lowest nibble) at the corner.
fn line_value(line: u16) -> i32 {
    let weights: [i32; 4] = std::array::from_fn(|i| weight(((line >> (4 * i)) & 0xF) as u8));
    let mut value = weights[0];
    for pair in weights.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        value += if a >= b {
            a + b + if a == b { a } else { 0 }
        } else {
            (a - b) * 12
        };
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_reward_descent_from_the_corner() {
        // 8 4 2 . : descending, no merge.
        let w = |r| weight(r);
        assert_eq!(
            line_value(0x0123),
            w(3) + (w(3) + w(2)) + (w(2) + w(1)) + w(1)
        );
        // The same tiles the other way round are heavily penalised.
        assert!(line_value(0x3210) < 0);
        // Equal neighbours count the first again.
        assert_eq!(line_value(0x0011), w(1) + 3 * w(1) + w(1));
    }

    #[test]
    fn a_corner_tile_beats_a_middle_one() {
        let snake = Snake::new();
        let corner: Board = "1024 . . . / . . . . / . . . . / . . . 2".parse().unwrap();
        let middle: Board = ". . . . / . 1024 . . / . . . . / . . . 2".parse().unwrap();
        assert!(snake.value(corner) > snake.value(middle));
    }
}
