//! The weights of a network of any game: its patterns, the values a cell
//! takes, its stages, and one table per pattern and stage. The network
//! values boards with them; the file formats only read and write them.

use system::format_bytes;

use crate::{Error, Pattern, Precision, Stages, Table};

/// The game of 2048's weights: the `game` of [`Weights`] that
/// [`Network`](crate::Network) holds and saves.
pub const GAME_2048: &str = "2048";

/// The tables of a weight file of any game, with what describes them. Games
/// other than 2048 keep their networks in this container ([`Weights::save`],
/// [`Weights::load`]), so that a file of one game is never taken for
/// another's.
#[derive(Debug)]
pub struct Weights {
    /// The game the weights are for, such as [`GAME_2048`].
    pub game: String,
    /// The patterns of a stage, in order.
    pub patterns: Vec<Pattern>,
    /// The values a cell takes in a table index.
    pub radix: u32,
    /// The stages (one for most networks).
    pub stages: Stages,
    /// One table per pattern and stage, stage after stage, each of
    /// [`Pattern::entries`] entries.
    pub tables: Vec<Table>,
    /// Temporal coherence histories, one per table and of twice its length,
    /// or none.
    pub coherence: Vec<Table>,
}

impl Weights {
    /// Zeroed tables for `patterns` with `radix` values a cell, one set per
    /// stage, refused if they need more than `limit` bytes.
    ///
    /// # Errors
    /// [`Error::TooLarge`] over the limit, before anything is allocated;
    /// [`Error::Memory`] if allocation fails; [`Error::EmptyNetwork`]
    /// without patterns.
    pub fn zeroed(
        game: &str,
        patterns: Vec<Pattern>,
        radix: u32,
        stages: Stages,
        limit: u64,
    ) -> Result<Self, Error> {
        Self::zeroed_as(game, patterns, (radix, Precision::F32), stages, limit)
    }

    /// [`Weights::zeroed`], the weights stored in `precision`.
    ///
    /// # Errors
    /// As [`Weights::zeroed`].
    pub fn zeroed_as(
        game: &str,
        patterns: Vec<Pattern>,
        (radix, precision): (u32, Precision),
        stages: Stages,
        limit: u64,
    ) -> Result<Self, Error> {
        if patterns.is_empty() {
            return Err(Error::EmptyNetwork);
        }
        let needed = table_bytes(&patterns, radix, precision) * stages.len() as u64;
        if needed > limit {
            return Err(Error::TooLarge {
                network: describe(&patterns, radix, &stages, precision),
                needed,
                limit,
            });
        }
        let tables = (0..stages.len())
            .flat_map(|_| &patterns)
            .map(|pattern| Table::zeroed_as(pattern.entries(radix), precision))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| Error::Memory { needed, source })?;
        Ok(Self {
            game: game.to_owned(),
            patterns,
            radix,
            stages,
            tables,
            coherence: Vec::new(),
        })
    }

    /// One line describing the network: patterns, tables, features, the
    /// radix where it is not 16, stages and memory.
    pub fn describe(&self) -> String {
        describe(&self.patterns, self.radix, &self.stages, self.precision())
    }

    /// How the weights are stored.
    pub fn precision(&self) -> Precision {
        self.tables.first().map_or(Precision::F32, Table::precision)
    }
}

/// The bytes of the tables of `patterns` with `radix` values a cell.
pub(crate) fn table_bytes(patterns: &[Pattern], radix: u32, precision: Precision) -> u64 {
    patterns
        .iter()
        .map(|p| (p.entries(radix) * precision.bytes()) as u64)
        .sum()
}

/// One line describing a network: patterns, tables, stages and memory.
pub(crate) fn describe(
    patterns: &[Pattern],
    radix: u32,
    stages: &Stages,
    precision: Precision,
) -> String {
    let names: Vec<String> = patterns.iter().map(ToString::to_string).collect();
    let features: usize = patterns.iter().map(Pattern::features).sum();
    let staged = match stages.len() {
        1 => String::new(),
        count => format!(" x {count} stages from tile sums {stages}"),
    };
    let clamped = match radix {
        16 => String::new(),
        radix => format!(", {radix} values a cell"),
    };
    format!(
        "{}{staged} ({} tables, {features} features{clamped}, {} of {precision} weights)",
        names.join(" "),
        patterns.len() * stages.len(),
        format_bytes(table_bytes(patterns, radix, precision) * stages.len() as u64)
    )
}
