//! Temporal coherence (TC) learning: every weight keeps the sum of its
//! updates and the sum of their sizes, and learns at the rate of their
//! ratio, so weights whose updates agree keep learning fast and weights
//! whose updates cancel slow down (Jaśkowski's TC, as TDL2048+ offers it).

use system::Cache;

use crate::features::{Listed, images};
use crate::precision::Entry;
use crate::{Error, Pattern, Table};

/// The update histories of a network's weights, and how each feature's
/// index is read.
#[derive(Debug)]
pub(crate) struct Coherence {
    /// One table per weight table, of twice its length: for entry i, the
    /// accumulated updates A at 2i and their accumulated sizes U at 2i + 1,
    /// side by side so that one cache line holds both.
    tables: Vec<Table>,
    /// The features of each table of a stage, in TDL2048+'s list order.
    features: Vec<Listed>,
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
            .map(|&pattern| Listed::of(pattern))
            .collect();
        Self { tables, features }
    }

    /// The histories, one table per weight table.
    pub(crate) fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The histories, taken out.
    pub(crate) fn into_tables(self) -> Vec<Table> {
        self.tables
    }

    /// The bytes of histories for `entries` weights: two `f32` each.
    pub(crate) const fn bytes_for(entries: u64) -> u64 {
        8 * entries
    }

    /// Starts loading the histories an update of `board` will touch into
    /// `cache`.
    pub(crate) fn prefetch(&self, first: usize, board: board::Board, cache: Cache) {
        let images = images(board);
        for (features, table) in self.features.iter().zip(&self.tables[first..]) {
            features.fold((), &images, |(), index| {
                table.prefetch_into(2 * index, cache)
            });
        }
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
        let images = images(board);
        let tables = self.features.iter().zip(weights).zip(&self.tables[first..]);
        tables.fold(0.0f32, |total, ((features, weights), histories)| {
            // Histories are f32 whatever the weights: read as such, their
            // precision checked once a table rather than at each access.
            let histories = histories.singles();
            features.fold(total, &images, |total, index| {
                let history = &histories[2 * index..2 * index + 2];
                let (sum, size) = (history[0].value(), history[1].value());
                let ratio = if size > 0.0 { sum.abs() / size } else { 1.0 };
                let total = total + weights.add(index, step * ratio);
                history[0].add(step);
                history[1].add(step.abs());
                total
            })
        })
    }
}
