//! A hand-made evaluator in the style of the classic expectimax bots, for
//! playing well without any trained network.

use board::Board;

use crate::Evaluator;

/// nneonneo's heuristic (2048-ai, 2014): each of the 4 rows and 4 columns is
/// scored from a 65,536-entry table of 16-bit lines,
///
/// ```text
/// 200000 + 270 x empty + 700 x merges - 47 x min(monotonicity left, right)
///        - 11 x sum of rank^3.5
/// ```
///
/// where monotonicity sums the rank^4 differences against each direction,
/// and `merges` counts each run of equal ranks as its length (the bot's
/// rule). Every line's score is the same read either way, so the board's
/// value is the same under all eight symmetries.
#[derive(Clone)]
pub struct Heuristic {
    lines: Box<[f32]>,
}

impl Default for Heuristic {
    fn default() -> Self {
        Self::new()
    }
}

impl Heuristic {
    /// Builds the line table (a few milliseconds).
    pub fn new() -> Self {
        Self {
            lines: (0..=u16::MAX).map(line_score).collect(),
        }
    }
}

/// The score of one line of four ranks (exponents), as the classic bot
/// computes it.
pub fn line_score(line: u16) -> f32 {
    let ranks: [u32; 4] = std::array::from_fn(|i| u32::from((line >> (4 * i)) & 0xF));
    let mut sum = 0.0f32;
    let mut empty = 0;
    let mut merges = 0;
    let mut previous = 0;
    let mut run = 0;
    for &rank in &ranks {
        sum += (rank as f32).powf(3.5);
        if rank == 0 {
            empty += 1;
        } else {
            if previous == rank {
                run += 1;
            } else if run > 0 {
                merges += 1 + run;
                run = 0;
            }
            previous = rank;
        }
    }
    if run > 0 {
        merges += 1 + run;
    }
    let (mut left, mut right) = (0.0f32, 0.0f32);
    for pair in ranks.windows(2) {
        let (a, b) = ((pair[0] as f32).powi(4), (pair[1] as f32).powi(4));
        if pair[0] > pair[1] {
            left += a - b;
        } else {
            right += b - a;
        }
    }
    200_000.0 + 270.0 * empty as f32 + 700.0 * merges as f32 - 47.0 * left.min(right) - 11.0 * sum
}

impl Evaluator for Heuristic {
    #[inline]
    fn value(&self, afterstate: Board) -> f32 {
        let transposed = afterstate.transpose();
        (0..4)
            .map(|line| {
                self.lines[usize::from((afterstate.raw() >> (16 * line)) as u16)]
                    + self.lines[usize::from((transposed.raw() >> (16 * line)) as u16)]
            })
            .sum()
    }

    fn is_symmetric(&self) -> bool {
        true
    }
}

impl std::fmt::Debug for Heuristic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Heuristic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use board::Symmetry;

    #[test]
    fn lines_score_as_the_classic_bot() {
        // An empty line: 4 empty cells, no merges, flat.
        assert_eq!(line_score(0), 200_000.0 + 270.0 * 4.0);
        // 2 2 . . : ranks 1 1: one run of two = 2 merges; monotone.
        let expected = 200_000.0 + 270.0 * 2.0 + 700.0 * 2.0 - 11.0 * 2.0;
        assert_eq!(line_score(0x0011), expected);
    }

    #[test]
    fn boards_score_alike_under_symmetries() {
        let board = Board::from_raw(0x0123_4567_89ab_cdef);
        let heuristic = Heuristic::new();
        let value = heuristic.value(board);
        for symmetry in Symmetry::ALL {
            let image = heuristic.value(board.transform(symmetry));
            assert!((image - value).abs() <= value.abs() * 1e-6, "{symmetry:?}");
        }
    }
}
