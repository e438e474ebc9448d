//! The phases of a build on disk, each within the memory budget:
//! generating a layer into its working file, solving the generated layers
//! into layer files, and thinning a solved table to its optimal lines.

pub(crate) mod generate;
pub mod optimal;
pub(crate) mod solve;
