//! The 2048 board as a 64-bit bitboard: moves, spawns and symmetries, fast
//! enough for learning and search and checked against a plain reference.
//!
//! [`Board`] holds sixteen 4-bit cells in a `u64` (cell 0 upper-left, row by
//! row, cell `i` in bits `4i..4i+4`), each the exponent of its tile: the
//! layout of TDL2048+ and the course frameworks. All four moves of a board
//! come from two 65,536-entry row tables, generated at build time from the
//! rule in one plain function, in a few nanoseconds ([`Board::afterstates`]).
//! [`WideBoard`] goes past 32768 for games that reach 65536.
//!
//! ```
//! use board::{Game, RandomPolicy, SpawnRule};
//! use rand::SeedableRng;
//! use rand_pcg::Pcg64Mcg;
//!
//! // A random game, reproducible from its seeds.
//! let mut spawns = Pcg64Mcg::seed_from_u64(2048);
//! let game = Game::new(SpawnRule::STANDARD, &mut spawns);
//! let episode = game.play_out(&mut RandomPolicy(Pcg64Mcg::seed_from_u64(7)), &mut spawns)?;
//! println!("{} moves, score {}\n{}", episode.steps.len(), episode.score(), episode.last);
//! assert!(episode.last.is_game_over());
//! # Ok::<(), board::Error>(())
//! ```
//!
//! Text: boards parse from hex (`"0x0000000000001b21".parse()`) or from a
//! grid of tile values (`"2 4 2048 2 / . . . . / . . . . / . . . ."`), and
//! print as a grid ([`Display`](std::fmt::Display)) or, with `{:#}`, as one
//! line that parses back.
//!
//! Speed: on x86-64 the workspace builds for x86-64-v3, so the BMI2
//! instructions `pext` and `pdep` are used (see `system::bits`); other targets use
//! portable code that gives the same results. **A crate that depends on
//! `board` does not inherit that setting**: it builds the portable code
//! unless it asks for the CPU too, which made moves and n-tuple lookups
//! about 1.28 times slower here. Ask for it in your own
//! `.cargo/config.toml`:
//!
//! ```toml
//! [target.'cfg(target_arch = "x86_64")']
//! rustflags = ["-C", "target-cpu=x86-64-v3"]
//! ```
//!
//! docs/board.md in the repository explains the encoding with a worked
//! example.

mod bits;
mod board;
mod direction;
mod error;
mod game;
mod line;
mod moves;
pub mod record;
mod spawn;
mod symmetry;
mod text;
mod wide;

pub use board::Board;
pub use direction::Direction;
pub use error::Error;
pub use game::{Episode, Game, Policy, RandomPolicy, Step};
pub use moves::{Afterstate, Afterstates};
pub use record::GameRecord;
pub use spawn::SpawnRule;
pub use symmetry::{Symmetry, SymmetryGroup};
pub use wide::WideBoard;

/// The plain rules every fast path of this crate is derived from and
/// checked against: one line sliding towards its first cell, and a whole
/// board slid cell by cell. Code built on the board checks its own fast
/// paths against them in tests and benchmarks.
pub mod reference {
    pub use crate::line::slide_towards_first;
    pub use crate::moves::slide_cells;
}
