//! 2584 Fibonacci, the 2048-like game of the Theory of Computer Games course
//! (NYCU): tiles are Fibonacci numbers, and neighbours in the sequence merge.
//!
//! The crate holds the board ([`Board`], 5 bits a cell, slides by row
//! tables), n-tuple networks over it ([`Network`], with 2048's patterns and
//! weight files), the game as `learn`'s TD(0) plays it ([`Fibonacci`]), and
//! the course framework's episode records ([`record`]) and summary block
//! ([`report`]).
//!
//! ```
//! use fib2584::{Fibonacci, Network};
//! use learn::{Learning, play};
//! use ntuple::parse_patterns;
//!
//! let network = Network::new(parse_patterns(["2x4patt"])?, 32, u64::MAX)?;
//! let mut rng = learn::episode_rng(1, 0);
//! let outcome = play(&Fibonacci::STANDARD, &network, Some(&Learning::default()), &mut rng, &mut ());
//! assert!(outcome.moves > 0 && outcome.max_tile >= 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! docs/fib2584.md in the repository describes the rules, the formats and
//! the measurements.

#![forbid(unsafe_code)]

mod board;
mod error;
mod game;
mod line;
mod network;
pub mod record;
pub mod report;
pub mod tile;

pub use board::Board;
pub use error::Error;
pub use game::Fibonacci;
pub use line::slide_towards_first;
pub use network::{COURSE_LIMIT, GAME, MAX_RADIX, Network, default_radix};
