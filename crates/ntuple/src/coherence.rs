//! Temporal coherence (TC) learning: every weight keeps the sum of its
//! updates and the sum of their sizes, and learns at the rate of their
//! ratio, so weights whose updates agree keep learning fast and weights
//! whose updates cancel slow down (Jaśkowski's TC, as TDL2048+ offers it).

use crate::{Error, Pattern, Table};

/// The update histories of a network's weights, and the features read on
/// the board itself.
#[derive(Debug)]
pub(crate) struct Coherence {
    /// One table per weight table, of twice its length: the accumulated
    /// updates A of its entries, then their accumulated sizes U.
    tables: Vec<Table>,
    /// Every feature of a stage as (table number in the stage, its cells as
    /// read on the board itself): an isomorphic pattern's eight images in
    /// TDL2048+'s list order.
    features: Vec<(usize, Pattern)>,
}

impl Coherence {
    /// Zero histories for `weights` (one per weight table), features from
    /// `patterns`.
    pub(crate) fn new(patterns: &[Pattern], weights: &[Table]) -> Result<Self, Error> {
        let needed: u64 = weights.iter().map(|t| t.len() as u64 * 8).sum();
        let tables = weights
            .iter()
            .map(|table| Table::zeroed(2 * table.len()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| Error::Memory { needed, source })?;
        for table in &tables {
            table.fault_in();
        }
        Ok(Self::from_tables(patterns, tables))
    }

    /// The histories `tables` (as [`Coherence::tables`] holds them).
    pub(crate) fn from_tables(patterns: &[Pattern], tables: Vec<Table>) -> Self {
        let features = patterns
            .iter()
            .enumerate()
            .flat_map(|(number, pattern)| {
                let symmetries = if pattern.is_isomorphic() {
                    &crate::network::FEATURE_ORDER[..]
                } else {
                    &crate::network::FEATURE_ORDER[..1]
                };
                symmetries
                    .iter()
                    .map(move |&symmetry| (number, pattern.transformed(symmetry)))
            })
            .collect();
        Self { tables, features }
    }

    /// The histories, one table per weight table.
    pub(crate) fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The bytes of histories for weight tables of `weight_bytes`.
    pub(crate) const fn bytes_for(weight_bytes: u64) -> u64 {
        2 * weight_bytes
    }

    /// Updates the weights of `board`'s features by TC: each feature's
    /// weight moves by `step` x |A| / U (1 before its first update, as
    /// TDL2048+'s tiny initial values give), then A grows by `step` and U by
    /// |`step`|. `weights` are the tables of `board`'s stage, starting at
    /// table `first`. Returns the sum of the updated weights.
    pub(crate) fn update(
        &self,
        weights: &[Table],
        first: usize,
        board: board::Board,
        step: f32,
    ) -> f32 {
        let mut total = 0.0f32;
        for &(number, pattern) in &self.features {
            let index = pattern.index(board);
            let (table, history) = (&weights[number], &self.tables[first + number]);
            let sum = history.get(index);
            let size = history.get(table.len() + index);
            let ratio = if size > 0.0 { sum.abs() / size } else { 1.0 };
            total += table.add(index, step * ratio);
            history.add(index, step);
            history.add(table.len() + index, step.abs());
        }
        total
    }
}
