//! The 2584 game as the learner plays it: slides and the random tiles.

use board::SpawnRule;
use learn::Rules;
use rand::Rng;

use crate::Board;

/// 2584 Fibonacci's random tiles: after every legal slide, index 1 (90%) or
/// index 2 (10%) on a uniformly drawn empty cell; two of them start a game.
///
/// The draw is 2048's [`SpawnRule`] (exponent 1 or 2, the second with the
/// 4-rate), read as a tile index, so both games share one tested sampler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fibonacci {
    spawns: SpawnRule,
}

impl Default for Fibonacci {
    fn default() -> Self {
        Self::STANDARD
    }
}

impl Fibonacci {
    /// The course's rule: index 2 with probability 0.1.
    pub const STANDARD: Fibonacci = Fibonacci {
        spawns: SpawnRule::STANDARD,
    };

    /// Places a random tile on `board`: the board and where and what was
    /// placed (cell, tile index), or `None` if the board is full.
    #[inline]
    pub fn place<R: Rng>(&self, board: Board, rng: &mut R) -> Option<(Board, usize, u8)> {
        let (cell, index) = self.spawns.draw(board.empty_mask(), rng)?;
        Some((board.with_tile(cell, index), cell, index))
    }
}

impl Rules for Fibonacci {
    type Board = Board;

    fn initial<R: Rng>(&self, rng: &mut R) -> Board {
        let (one, ..) = self.place(Board::EMPTY, rng).expect("room");
        let (two, ..) = self.place(one, rng).expect("room");
        two
    }

    #[inline]
    fn afterstates(&self, board: Board) -> [Option<(Board, u32)>; 4] {
        board.afterstates()
    }

    #[inline]
    fn spawn<R: Rng>(&self, afterstate: Board, rng: &mut R) -> Board {
        self.place(afterstate, rng)
            .expect("a legal slide leaves an empty cell")
            .0
    }

    fn max_tile(&self, board: Board) -> u8 {
        board.max_tile()
    }

    fn expected(&self, afterstate: Board, mut value: impl FnMut(Board) -> f32) -> f32 {
        let empty = afterstate.empty_mask();
        let four = self.spawns.four_rate() as f32;
        let mut sum = 0.0;
        for cell in (0..16).filter(|&cell| empty & (1 << cell) != 0) {
            sum += (1.0 - four) * value(afterstate.with_tile(cell, 1));
            sum += four * value(afterstate.with_tile(cell, 2));
        }
        sum / empty.count_ones().max(1) as f32
    }
}
