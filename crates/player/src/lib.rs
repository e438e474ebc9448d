//! A strong 2048 player: endgame tables where they apply, a corner-anchored
//! expectimax search elsewhere (docs/player.md).
//!
//! A [`Player`] plays whole games on the wide board, so that 65536 is made
//! and counted. For each position it asks its [`Tables`] (endgame tables
//! built by `tb-build`, each read whole into memory as a [`Book`]) for a
//! move, and otherwise searches with [`Search`] over the [`Snake`]
//! evaluator. [`Sources`] counts which of them chose each move.
//!
//! ```
//! use board::SpawnRule;
//! use learn::Agent;
//! use player::{Depths, Player, Settings, Tables};
//! use rand::SeedableRng;
//!
//! let player = Player::new(Settings::new(Depths::fixed(2)), Tables::none());
//! let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
//! let outcome = player.play(SpawnRule::STANDARD, &mut rng, &mut ());
//! assert!(outcome.max_tile >= 7, "a 2-ply search makes 128 at least");
//! println!("{} points in {} moves; {}", outcome.score, outcome.moves, player.sources());
//! ```

#![forbid(unsafe_code)]

mod book;
mod cache;
mod depth;
mod packed;
mod player;
mod search;
mod snake;
mod sources;
mod tables;

pub use book::Book;
pub use depth::Depths;
pub use player::{Analysis, Player, search_view};
pub use search::{Search, Settings};
pub use snake::Snake;
pub use sources::{Source, Sources};
pub use tables::Tables;
