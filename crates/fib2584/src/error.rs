//! What can go wrong in the 2584 crate.

use thiserror::Error;

/// An error of the 2584 crate.
#[derive(Debug, Error)]
pub enum Error {
    /// Weight tables or files, as `ntuple` reports them.
    #[error(transparent)]
    Weights(#[from] ntuple::Error),
    /// A radix (tile kinds kept apart in table indices) out of range.
    #[error("tile indices clamped to {radix} values: a cell takes 2 to 32")]
    Radix {
        /// The radix asked for.
        radix: u32,
    },
    /// A statistic feature (`merge`, `mono`, `num`), which reads 2048's
    /// merges and tiles.
    #[error("the {name} feature reads 2048's merges and tiles; 2584 networks use n-tuples only")]
    Statistic {
        /// The feature's name.
        name: String,
    },
    /// An episode record that is malformed or breaks the rules.
    #[error("record {record}, {place}: {problem}")]
    Record {
        /// The record's number in its file, from 1.
        record: usize,
        /// Where in the record: a field or an action.
        place: String,
        /// What is wrong.
        problem: String,
    },
}
