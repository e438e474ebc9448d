//! A built table read: lookups of positions and moves (including
//! positions the table does not hold, solved from those it does), checks
//! of its layers and comparisons of two tables.

pub mod compare;
pub mod digest;
pub mod stored;
pub mod table;
pub(crate) mod unreached;
pub mod verify;
