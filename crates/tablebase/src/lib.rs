//! Endgame tablebases for 2048: for a formation (large tiles held in place)
//! and a target tile, the exact probability of making the target from every
//! position, as the 2048EndgameTablebase builder defines it
//! (docs/tablebase.md).
//!
//! A [`Formation`] says where the large tiles sit and where the target
//! counts; a [`Spec`] adds the target and the spawn rule. Tables are built
//! forward layer by layer, then solved backward, into a folder of layer
//! files ([`builder::build`]) that a [`Table`] reads.
//!
//! ```
//! use tablebase::builder::{self, Options};
//! use tablebase::{Formation, Position, Spec, Table};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // L3 to 32, with a near horizon: a table built in a moment.
//! let formation = Formation::builtin("L3")?.with_extra_steps(4);
//! let spec = Spec::new(formation, 5, 0.1)?;
//! let dir = tempfile::tempdir()?;
//! builder::build(&spec, dir.path(), Options::default(), None, &mut |_| {})?;
//!
//! // Positions are written in the reference's order, upper-left cell first.
//! let table = Table::open(dir.path())?;
//! let seed: Position = "0x100000001fff2fff".parse()?;
//! let rate = table.afterstate_rate(seed)?;
//! assert!(0.0 < rate && rate < 1.0);
//!
//! // A position to move from: the seed with a 2 spawned beside the 2.
//! let position: Position = "0x110000001fff2fff".parse()?;
//! let (direction, best) = table.move_rates(position)?.best().expect("a move");
//! println!("{direction:?} makes 32 with probability {best:.6}");
//! # Ok(())
//! # }
//! ```

mod base;
mod build;
mod error;
mod format;
pub mod internals;
mod probe;

/// Building a table into a folder: [`builder::build`] with its
/// [`builder::Options`], the [`builder::Event`]s it reports and the
/// [`builder::Summary`] it returns; the manifest a built table keeps; a
/// build as tasks over partitioned layers ([`builder::partitioned`],
/// docs/distributed.md).
pub mod builder {
    pub use crate::build::partitioned;
    pub use crate::build::{Event, Summary, build};
    pub use crate::format::layer_path;
    pub use crate::format::manifest::{MANIFEST_VERSION, Manifest, Options};
}

pub use base::canon::Canon;
pub use base::formation::{Formation, FormationSpec};
pub use base::position::Position;
pub use base::rate::{Fixed, Rate};
pub use base::slide::{Large, Mover};
pub use base::spec::Spec;
pub use error::Error;
pub use format::layer_file::{LayerFile, LayerHeader, Precision};
pub use format::partition::{LayerParts, Partitions, RankRanges};
pub use probe::compare::Comparison;
pub use probe::digest::LayerDigest;
pub use probe::stored::StoredLayer;
pub use probe::table::{MoveRates, Table, table_dirs};
pub use probe::verify::Verified;
