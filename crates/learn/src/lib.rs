//! Temporal-difference learning of n-tuple networks for 2048, as TDL2048+
//! does it: afterstate TD(0) in its online, forward and backward forms,
//! statistics in its log layout, and runs over threads sharing one network.
//! The learner is generic over the game and the value function ([`Rules`],
//! [`Values`]), so 2048's variants (the `fib2584` crate) learn with it too.
//!
//! ```
//! use board::SpawnRule;
//! use learn::{Learning, Plan, Player, Run, Stats};
//! use ntuple::{Network, parse_patterns};
//!
//! let network = Network::new(parse_patterns(["2x4patt"])?)?;
//! let run = Run {
//!     player: Player::Greedy { network: &network, learning: Some(Learning::default()) },
//!     spawns: SpawnRule::STANDARD,
//!     seed: learn::seed_from_text("doc"),
//!     threads: 1,
//!     plan: "2x50".parse()?,
//!     progress: None,
//! };
//! let mut total = Stats::default();
//! run.execute(0, &mut total, |block| {
//!     print!("{}", learn::block_report(block.index + 1, 2, block.elapsed, block.local, block.total, 11));
//!     Ok::<(), learn::Error>(())
//! })?;
//! assert_eq!(total.episodes, 100);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! docs/learning.md in the repository describes the modes, the parallel
//! runs and what they accept, and the measurements.

pub mod checkpoint;
mod episode;
mod error;
mod log;
pub mod logfile;
mod rules;
mod run;
mod seed;
pub mod session;
mod stats;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use episode::{GreedyMove, Outcome, Watch, best_move, play, play_searched, play_wide};
pub use error::Error;
pub use log::Log;
pub use rules::{Rules, Values};
pub use run::{Agent, Block, Plan, Player, Run, play_episodes, run_blocks};
pub use seed::{episode_rng, seed_from_text};
pub use stats::{Stats, TILE_KINDS, TileRow, block_report, summary};

/// When the afterstates of an episode are updated (TDL2048+'s modes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// TDL2048+'s default (`optimize`): each afterstate is updated as soon as
    /// the next move is chosen, from the value cached when it was chosen.
    #[default]
    Online,
    /// The same, but the afterstate is estimated again before its update.
    Forward,
    /// After the episode, from the last afterstate to the first.
    Backward,
}

impl FromStr for Mode {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        match text {
            "online" | "optimize" => Ok(Self::Online),
            "forward" => Ok(Self::Forward),
            "backward" => Ok(Self::Backward),
            _ => Err(Error::Mode {
                input: text.to_owned(),
            }),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Online => "online",
            Self::Forward => "forward",
            Self::Backward => "backward",
        })
    }
}

/// TD(0) settings: the learning rate and when updates happen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Learning {
    /// The learning rate before division (TDL2048+'s default 0.1).
    pub alpha: f32,
    /// The divisor of alpha; `None` divides by the network's feature count
    /// (32 for 4x6patt).
    pub norm: Option<u32>,
    /// When afterstates are updated.
    pub mode: Mode,
}

impl Default for Learning {
    fn default() -> Self {
        Self {
            alpha: 0.1,
            norm: None,
            mode: Mode::Online,
        }
    }
}

impl Learning {
    /// The step applied to every feature per unit of error: alpha divided by
    /// the norm.
    pub fn rate(&self, feature_count: usize) -> f32 {
        let norm = self.norm.map_or(feature_count, |norm| norm as usize);
        self.alpha / norm.max(1) as f32
    }
}
