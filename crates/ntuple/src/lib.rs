//! N-tuple networks for 2048: patterns, isomorphic weight tables, the value
//! of a board and its update, and weight files.
//!
//! A [`Pattern`] is a list of cells (`012345`); its table holds one `f32`
//! weight for every combination of tiles on those cells (16^n entries). An
//! isomorphic pattern reads the board in all eight symmetric orientations, so
//! one table serves eight features. TDL2048+'s statistic features (`mono`,
//! `num`, `merge`) are patterns too, each with a table of its own. A
//! [`Network`] is a list of patterns; the value of a board is the sum of
//! the weights of all its features, and TD learning nudges those weights
//! with [`Network::update`]. Weights are `f32`, or half precision
//! ([`Precision`]) in half the memory.
//!
//! ```
//! use board::Board;
//! use ntuple::{Network, parse_patterns};
//!
//! let network = Network::new(parse_patterns(["2x4patt"])?)?;
//! let board = Board::from_raw(0x0123_4567_89ab_cdef);
//! let rate = 0.1 / network.feature_count() as f32;
//! let error = 100.0 - network.estimate(board);
//! let value = network.update(board, rate * error);
//! assert!((value - 10.0).abs() < 1e-4); // a tenth of the way to 100
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Built-in networks are named as in TDL2048+ ([`ALIASES`]: `4x6patt`,
//! `8x6patt`, ...). Indices are extracted with one BMI2 `pext` for patterns
//! whose cells increase (all the built-in ones), cell by cell otherwise.
//! BMI2 is used only where the crate is built for a CPU that has it: a
//! crate depending on `ntuple` should build for x86-64-v3 as the workspace
//! does (the `board` crate's documentation shows how), or it runs the
//! portable code, about 1.28 times slower. Weight files are described in
//! docs/weights.md in the repository.

mod alias;
mod coherence;
mod error;
mod features;
mod file;
mod initial;
mod layout;
mod network;
mod pattern;
mod precision;
mod source;
mod stages;
mod statistic;
mod table;
mod tdl2048;
mod weights;

pub use alias::{ALIASES, alias_names, parse_patterns};
pub use error::Error;
pub use file::{Loaded, MAGIC, Metadata, VERSION, read_metadata};
pub use initial::{Initial, parse_network};
pub use network::Network;
pub use pattern::{MAX_CELLS, Pattern};
pub use precision::Precision;
pub use source::Source;
pub use stages::{MAX_STAGES, Stages};
pub use table::Table;
pub use weights::{GAME_2048, Weights};
