//! Temporal-difference learning of n-tuple networks for 2048, as TDL2048+
//! does it: afterstate TD(0) in its online, forward and backward forms,
//! n-step TD and TD(lambda) ([`Target`]), restarts ([`Restart`]), carousel
//! shaping ([`Carousel`]) and state values ([`play_states`]), statistics in
//! its log layout, and runs over threads sharing one network.
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
//!     player: Player::Greedy { network: &network, valued: Default::default(), learning: Some(Learning::default()) },
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

#![forbid(unsafe_code)]

mod carousel;
pub mod checkpoint;
mod episode;
mod error;
mod greedy;
mod learning;
mod log;
mod multistep;
mod restart;
mod rules;
mod run;
mod seed;
pub mod session;
mod states;
mod stats;
mod watch;

pub use episode::{play, play_searched, play_wide};
pub use error::Error;
pub use greedy::{GreedyMove, best_move};
pub use learning::{Carousel, Learning, Mode, Restart, Target, Valued};
pub use log::Log;
pub use rules::{Rules, Values};
pub use run::{Agent, Block, Plan, Player, Run, play_episodes, run_blocks};
pub use seed::{episode_rng, seed_from_text};
pub use states::play_states;
pub use stats::{Stats, TILE_KINDS, TileRow, block_report, summary};
pub use watch::{Outcome, Watch};
