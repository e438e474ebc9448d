//! What afterstate learning needs of a game and of a value function, so that
//! one TD(0) implementation serves 2048 and its variants.

use board::{Board, SpawnRule};
use ntuple::Network;
use rand::Rng;

/// The rules of a 2048-like game as afterstate learning sees them: four
/// slides, each giving an afterstate and a reward, then a random tile.
///
/// Implemented by [`SpawnRule`] for 2048 and by the `fib2584` crate for
/// 2584 Fibonacci.
pub trait Rules: Sync {
    /// A position.
    type Board: Copy;

    /// A fresh game's first position.
    fn initial<R: Rng>(&self, rng: &mut R) -> Self::Board;

    /// The afterstate and reward of each legal slide of `board`, in the
    /// order up, right, down, left (`None` where the slide is illegal).
    fn afterstates(&self, board: Self::Board) -> [Option<(Self::Board, u32)>; 4];

    /// `afterstate` with a random tile added. The caller guarantees that an
    /// afterstate of a legal slide has an empty cell.
    fn spawn<R: Rng>(&self, afterstate: Self::Board, rng: &mut R) -> Self::Board;

    /// The kind of the largest tile on `board` (an exponent for 2048, an
    /// index of the Fibonacci sequence for 2584): what [`crate::Stats`]
    /// counts games by.
    fn max_tile(&self, board: Self::Board) -> u8;

    /// The expected `value` of the position `afterstate` becomes: over
    /// every tile that may appear, each with its probability. What the
    /// player of state values ([`crate::Valued::States`]) chooses by.
    fn expected(&self, afterstate: Self::Board, value: impl FnMut(Self::Board) -> f32) -> f32;

    /// The empty board, from which carousel shaping spawns an episode's
    /// first tile ([`crate::Carousel`]); `None` (the default) where the game
    /// offers no shaping, whose episodes are then one game.
    fn empty(&self) -> Option<Self::Board> {
        None
    }

    /// The kinds of tile on `board` as bits, for carousel shaping: bit 0 for
    /// an empty cell, bit t for the tile of kind t (TDL2048+'s `scale`).
    fn kinds(&self, board: Self::Board) -> u32 {
        let _ = board;
        0
    }

    /// `board` changed towards holding exactly the kinds of tile `kinds`,
    /// for carousel shaping (TDL2048+'s `scale(kinds)`).
    fn with_kinds(&self, board: Self::Board, kinds: u32) -> Self::Board {
        let _ = kinds;
        board
    }
}

/// A learnable value function of afterstates, shared by threads.
pub trait Values<B>: Sync {
    /// The value of `board`.
    fn estimate(&self, board: B) -> f32;

    /// Adds `amount` to each weight `board` selects and returns the new
    /// value.
    fn update(&self, board: B, amount: f32) -> f32;

    /// The number of weights an update touches: the learning rate is
    /// divided by it by default.
    fn feature_count(&self) -> usize;

    /// A hint that `board` is about to be estimated: start loading what its
    /// value needs. Does nothing by default.
    #[inline]
    fn prefetch(&self, board: B) {
        let _ = board;
    }

    /// A hint that `board`, just estimated, is about to be updated: start
    /// loading what its update needs beyond that. Does nothing by default.
    #[inline]
    fn prefetch_update(&self, board: B) {
        let _ = board;
    }
}

impl Rules for SpawnRule {
    type Board = Board;

    #[inline]
    fn initial<R: Rng>(&self, rng: &mut R) -> Board {
        SpawnRule::initial(self, rng)
    }

    #[inline]
    fn afterstates(&self, board: Board) -> [Option<(Board, u32)>; 4] {
        board
            .afterstates()
            .0
            .map(|afterstate| afterstate.map(|a| (a.board, a.reward)))
    }

    #[inline]
    fn spawn<R: Rng>(&self, afterstate: Board, rng: &mut R) -> Board {
        SpawnRule::spawn(self, afterstate, rng).expect("a legal move leaves an empty cell")
    }

    fn expected(&self, afterstate: Board, mut value: impl FnMut(Board) -> f32) -> f32 {
        self.outcomes(afterstate)
            .map(|(board, probability)| probability as f32 * value(board))
            .sum()
    }

    #[inline]
    fn max_tile(&self, board: Board) -> u8 {
        board.max_tile()
    }

    fn empty(&self) -> Option<Board> {
        Some(Board::EMPTY)
    }

    fn kinds(&self, board: Board) -> u32 {
        crate::carousel::kinds(board)
    }

    fn with_kinds(&self, board: Board, kinds: u32) -> Board {
        crate::carousel::with_kinds(board, kinds).0
    }
}

/// Always inlined: the four estimates of a move then share one body with
/// the move choice, as the loads of a memory-bound loop should.
impl Values<Board> for Network {
    #[inline(always)]
    fn estimate(&self, board: Board) -> f32 {
        Network::estimate(self, board)
    }

    #[inline(always)]
    fn update(&self, board: Board, amount: f32) -> f32 {
        Network::update(self, board, amount)
    }

    fn feature_count(&self) -> usize {
        Network::feature_count(self)
    }

    #[inline(always)]
    fn prefetch(&self, board: Board) {
        Network::prefetch(self, board);
    }

    #[inline(always)]
    fn prefetch_update(&self, board: Board) {
        Network::prefetch_update(self, board);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expectation_weighs_every_tile_by_its_chance() {
        // Three empty cells, 0 to 2.
        let afterstate: Board = "0 0 0 2 / 4 8 16 32 / 64 128 256 512 / 2 4 8 16"
            .parse()
            .unwrap();
        let rule = SpawnRule::STANDARD;
        let expected = |value: &dyn Fn(Board) -> f32| rule.expected(afterstate, value);
        assert!((expected(&|_| 1.0) - 1.0).abs() < 1e-6);
        // A 4 in cell 1: a third of the cells, a tenth of the tiles.
        let four_in_1 = |board: Board| if board.tile(1) == 2 { 1.0 } else { 0.0 };
        assert!((expected(&four_in_1) - 0.1 / 3.0).abs() < 1e-6);
    }
}
