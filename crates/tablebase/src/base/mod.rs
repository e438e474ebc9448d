//! What building and probing share: boards and how their tiles move, the
//! formations and specs that define a table, canonical forms, the rate
//! types, a position's children and the rate they make, sorting, and a
//! solved layer held in memory with what finds a board in it.

pub mod canon;
pub mod children;
pub(crate) mod expectation;
pub mod formation;
pub(crate) mod hex;
pub mod layer;
pub mod position;
pub(crate) mod prefetch;
pub mod rate;
pub mod slide;
pub mod sort;
pub mod spec;
