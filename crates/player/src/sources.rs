//! Which source chose each move: the search, or which table.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::tables::Tables;

/// Where a move came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The search, no table applying.
    Search,
    /// The table of this index among the player's [`Tables`].
    Table(usize),
}

/// Counts of the moves each source chose, over every game and thread.
#[derive(Debug)]
pub struct Sources {
    names: Vec<String>,
    /// The search's count first, then each table's in the tables' order.
    counts: Vec<AtomicU64>,
}

impl Sources {
    /// Counts for the search and each of `tables`, all 0.
    pub fn new(tables: &Tables) -> Self {
        let names: Vec<String> = std::iter::once("search".to_owned())
            .chain(tables.names())
            .collect();
        Self {
            counts: names.iter().map(|_| AtomicU64::new(0)).collect(),
            names,
        }
    }

    pub(crate) fn count(&self, source: Source) {
        let index = match source {
            Source::Search => 0,
            Source::Table(table) => 1 + table,
        };
        self.counts[index].fetch_add(1, Relaxed);
    }

    /// Each source's name and count of moves: the search first, then the
    /// tables in their order.
    pub fn counts(&self) -> impl Iterator<Item = (&str, u64)> {
        self.names
            .iter()
            .zip(&self.counts)
            .map(|(name, count)| (name.as_str(), count.load(Relaxed)))
    }
}

impl fmt::Display for Sources {
    /// One line: each source's share of the moves and its count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total: u64 = self.counts().map(|(_, count)| count).sum();
        write!(f, "moves by source:")?;
        for (index, (name, count)) in self.counts().enumerate() {
            let share = 100.0 * count as f64 / total.max(1) as f64;
            let separator = if index == 0 { "" } else { "," };
            write!(f, "{separator} {name} {share:.1}% ({count})")?;
        }
        Ok(())
    }
}
