//! Expectimax search for 2048 over any evaluator of afterstates, with
//! TDL2048+'s conventions so that results compare (docs/search.md).
//!
//! ```
//! use board::{Board, SpawnRule};
//! use search::{Depth, Evaluator, Expectimax};
//!
//! /// Prefers afterstates with many empty cells.
//! struct Empties;
//! impl Evaluator for Empties {
//!     fn value(&self, afterstate: Board) -> f32 {
//!         afterstate.empty_count() as f32
//!     }
//! }
//!
//! let board: Board = "2 2 4 . / . . . . / . . . . / . . . 8".parse()?;
//! let mut search = Expectimax::new(&Empties, "2p".parse()?, SpawnRule::STANDARD);
//! let choice = search.choose(board).unwrap();
//! println!("{} scores {}", choice.direction, choice.value);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod depth;
mod expectimax;

pub use depth::{Depth, Error};
pub use expectimax::{Choice, Expectimax};

use board::Board;

/// Values afterstates: the expected score still to come from a board after
/// a move, before the spawn. Search calls it at its leaves.
pub trait Evaluator {
    /// The value of `afterstate`.
    fn value(&self, afterstate: Board) -> f32;
}

impl Evaluator for ntuple::Network {
    #[inline]
    fn value(&self, afterstate: Board) -> f32 {
        self.estimate(afterstate)
    }
}

impl<E: Evaluator + ?Sized> Evaluator for &E {
    #[inline]
    fn value(&self, afterstate: Board) -> f32 {
        (**self).value(afterstate)
    }
}
