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

#![forbid(unsafe_code)]

mod depth;
mod expectimax;
mod heuristic;
mod table;

pub use depth::{Depth, Error, Limits};
pub use expectimax::{Choice, Expectimax, Settings};
pub use heuristic::{Heuristic, line_score};
pub use table::TranspositionTable;

use board::Board;

/// Values afterstates: the expected score still to come from a board after
/// a move, before the spawn. Search calls it at its leaves.
pub trait Evaluator {
    /// The value of `afterstate`.
    fn value(&self, afterstate: Board) -> f32;

    /// Whether every symmetric image of a board has the same value, so that
    /// a transposition table may share one entry between them. False unless
    /// an evaluator says otherwise.
    fn is_symmetric(&self) -> bool {
        false
    }
}

impl Evaluator for ntuple::Network {
    #[inline]
    fn value(&self, afterstate: Board) -> f32 {
        self.estimate(afterstate)
    }

    /// Networks whose patterns are all isomorphic.
    fn is_symmetric(&self) -> bool {
        self.patterns().iter().all(ntuple::Pattern::is_isomorphic)
    }
}

impl<E: Evaluator + ?Sized> Evaluator for &E {
    #[inline]
    fn value(&self, afterstate: Board) -> f32 {
        (**self).value(afterstate)
    }

    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
}
