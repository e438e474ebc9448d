//! The builder's parts, public for the benches, `cargo xtask` and the
//! tests that hold them to plain references. They are not part of the
//! crate's stable API and change with the builder.

pub use crate::base::children::{children, empty_cells};
pub use crate::base::layer::Solved;
pub use crate::base::sort::{sort_unique, sort_with_values};
pub use crate::build::phase::optimal;
pub use crate::build::{generate, in_memory, solve};
pub use crate::format::layer_file::{BLOCK, write as write_layer};
