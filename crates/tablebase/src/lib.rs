//! Endgame tablebases for 2048: for a formation (large tiles held in place)
//! and a target tile, the exact probability of making the target from every
//! position, as the 2048EndgameTablebase builder defines it
//! (docs/tablebase.md).
//!
//! A [`Formation`] says where the large tiles sit and where the target
//! counts; a [`Spec`] adds the target and the spawn rule. Tables are built
//! forward layer by layer ([`generate`]), then solved backward ([`solve`]),
//! into a folder of layer files ([`builder::build`]) that a [`Table`]
//! reads.
//!
//! ```
//! use tablebase::builder::{self, Options};
//! use tablebase::{Formation, Spec, Table, hex};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // L3 to 32, with a near horizon: a table built in a moment.
//! let formation = Formation::builtin("L3")?.with_extra_steps(4);
//! let spec = Spec::new(formation, 5, 0.1)?;
//! let dir = tempfile::tempdir()?;
//! builder::build(&spec, dir.path(), Options::default(), None, &mut |_| {})?;
//!
//! // Boards cross the boundary in the reference's order (`hex`).
//! let table = Table::open(dir.path())?;
//! let seed = hex::parse("0x100000001fff2fff")?;
//! let rate = table.afterstate_rate(seed)?;
//! assert!(0.0 < rate && rate < 1.0);
//!
//! // A position to move from: the seed with a 2 spawned beside the 2.
//! let position = hex::parse("0x110000001fff2fff")?;
//! let (direction, best) = table.move_rates(position)?.best().expect("a move");
//! println!("{direction:?} makes 32 with probability {best:.6}");
//! # Ok(())
//! # }
//! ```

pub mod builder;
mod canon;
mod compare;
mod direct;
mod error;
mod formation;
pub mod generate;
pub mod hex;
mod index;
mod lanes;
mod manifest;
pub mod memory;
mod missing;
mod prefetch;
mod rank;
pub mod rate;
mod segment;
mod slide;
pub mod solve;
pub mod sort;
mod spec;
pub mod storage;
mod table;
mod verify;
mod work;

pub use canon::Canon;
pub use compare::Comparison;
pub use error::Error;
pub use formation::{Formation, FormationSpec, large_count, large_nibbles, tile_sum};
pub use rate::{Fixed, Rate};
pub use slide::{LARGE, Large, Mover, Slid, slide_line};
pub use spec::Spec;
pub use table::{MoveRates, Table, table_dirs};
pub use verify::Verified;
