//! Endgame tablebases for 2048: for a formation (large tiles held in place)
//! and a target tile, the exact probability of making the target from every
//! position, as the 2048EndgameTablebase builder defines it
//! (docs/tablebase.md).
//!
//! A [`Formation`] says where the large tiles sit and where the target
//! counts; a [`Spec`] adds the target and the spawn rule. Tables are built
//! forward layer by layer ([`generate`]), then solved backward ([`solve`]).

pub mod builder;
mod canon;
mod error;
mod formation;
pub mod generate;
pub mod hex;
mod index;
pub mod memory;
pub mod optimal;
mod rank;
pub mod rate;
mod slide;
pub mod solve;
pub mod sort;
mod spec;
pub mod storage;
mod table;
mod work;

pub use canon::Canon;
pub use error::Error;
pub use formation::{Formation, FormationSpec, tile_sum};
pub use rate::{Fixed, Rate};
pub use slide::{LARGE, Large, Mover, slide_line};
pub use spec::Spec;
pub use table::{MoveRates, Table};
