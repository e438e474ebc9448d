//! A network: patterns, their weight tables, and the value of a board.

use std::sync::atomic::{AtomicU16, AtomicU32};

use board::Board;
use system::{Cache, available_memory, prefetch};

use crate::coherence::Coherence;
use crate::layout::Layout;
use crate::precision::Entry;
use crate::weights::{GAME_2048, Weights, describe, table_bytes};
use crate::{Error, Pattern, Precision, Stages, Table};

/// An n-tuple network: the value of a board is the sum of the weights its
/// features select, one table per pattern.
///
/// The weights are summed in TDL2048+'s orders, so equal weights give equal
/// `f32` values. When every pattern is isomorphic, the patterns are read on
/// the eight symmetric images of the board, visited as TDL2048+ visits them
/// (the board, then alternately flipped top to bottom and transposed: seven
/// cheap steps), the weights of each image summed in pattern order into a
/// partial sum and the partial sums into the total. Otherwise (patterns
/// without isomorphism, `merge`, `num@lt`, `num@st`), one running sum goes
/// over the features in the order TDL2048+ lists them.
///
/// `estimate` and `update` take `&self`: the tables are lock-free (see
/// [`Table`]), so threads can train one network together.
///
/// A multistage network ([`Network::with_stages`]) holds one copy of the
/// tables per stage of the game ([`Stages`]); each board is valued and
/// updated by the tables of its own stage.
///
/// ```
/// use board::Board;
/// use ntuple::{Network, parse_patterns};
///
/// let network = Network::new(parse_patterns(["2x4patt"])?)?;
/// assert_eq!(network.feature_count(), 16);
/// // Sixteen different tiles: every feature selects a weight of its own.
/// let board = Board::from_raw(0x0123_4567_89ab_cdef);
/// assert_eq!(network.estimate(board), 0.0);
/// let value = network.update(board, 0.5);
/// assert_eq!(value, 8.0); // 16 features, each raised by 0.5
/// assert_eq!(network.estimate(board.transpose()), value);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Network {
    /// The patterns of one stage (every stage has the same).
    patterns: Vec<Pattern>,
    stages: Stages,
    /// `patterns.len()` tables per stage, stage after stage.
    tables: Vec<Table>,
    /// How each stage's features are read.
    layouts: Vec<Layout>,
    /// The update histories of temporal coherence learning, if enabled.
    coherence: Option<Coherence>,
    /// Where [`Network::prefetch`] brings weights.
    prefetch_into: Cache,
    /// How every table stores its weights.
    precision: Precision,
}

/// More tables than any network has: a larger count in a file is damage,
/// and a larger position in a selection (`[0-3]|file.w`) a mistake.
pub(crate) const MAX_TABLES: u32 = 4096;

/// Networks whose tables take more than this prefetch into the second-level
/// cache: far larger than the last-level cache, their weights come from
/// memory, many lines a move. Smaller ones are mostly cached already, and
/// the first level serves their loads sooner: through the second, 8x4patt
/// (2 MiB) trained 14% slower and 4x5patt (16 MiB) tested 8% slower.
const PREFETCH_FAR: u64 = 64 << 20;

// SAFETY: the raw pointers of the features point into the tables this
// network owns, and are only used for atomic access, like the tables.
unsafe impl Send for Network {}
// SAFETY: as above.
unsafe impl Sync for Network {}

impl Network {
    /// A network of `patterns` with zero weights, if it fits in the memory
    /// available now.
    ///
    /// # Errors
    /// [`Error::TooLarge`] if its tables need more memory than is available,
    /// before any of it is allocated; [`Error::Memory`] if allocation fails.
    pub fn new(patterns: Vec<Pattern>) -> Result<Self, Error> {
        Self::with_limit(patterns, available_memory().unwrap_or(u64::MAX))
    }

    /// A network of `patterns` with zero weights, refused if its tables need
    /// more than `limit` bytes.
    ///
    /// # Errors
    /// [`Error::TooLarge`] over the limit; [`Error::Memory`] if allocation
    /// fails; [`Error::EmptyNetwork`] without patterns.
    pub fn with_limit(patterns: Vec<Pattern>, limit: u64) -> Result<Self, Error> {
        Self::with_stages(patterns, Stages::single(), limit)
    }

    /// A multistage network of `patterns` with zero weights: one copy of the
    /// tables per stage, refused if they need more than `limit` bytes in all.
    ///
    /// # Errors
    /// As [`Network::with_limit`].
    pub fn with_stages(patterns: Vec<Pattern>, stages: Stages, limit: u64) -> Result<Self, Error> {
        Self::with_precision(patterns, stages, Precision::F32, limit)
    }

    /// [`Network::with_stages`], the weights stored in `precision`.
    ///
    /// # Errors
    /// As [`Network::with_limit`].
    pub fn with_precision(
        patterns: Vec<Pattern>,
        stages: Stages,
        precision: Precision,
        limit: u64,
    ) -> Result<Self, Error> {
        let network = Self::allocate(patterns, stages, precision, limit)?;
        // Zero weights are about to be read and trained: make them resident
        // now, as TDL2048+'s value-initialised arrays are, so that a short
        // run's speed is not the kernel's page zeroing and memory runs out
        // here rather than mid-run.
        for table in network.tables() {
            table.fault_in();
        }
        Ok(network)
    }

    /// [`Network::with_precision`] without faulting the tables in, for
    /// tests that touch few weights.
    pub(crate) fn allocate(
        patterns: Vec<Pattern>,
        stages: Stages,
        precision: Precision,
        limit: u64,
    ) -> Result<Self, Error> {
        let weights = Weights::zeroed_as(GAME_2048, patterns, (16, precision), stages, limit)?;
        Ok(Self::from_parts(
            weights.patterns,
            weights.stages,
            weights.tables,
        ))
    }

    /// The network of these patterns and their tables: one of the right
    /// length per pattern and stage, stage after stage.
    pub(crate) fn from_parts(patterns: Vec<Pattern>, stages: Stages, tables: Vec<Table>) -> Self {
        assert!(
            patterns.len() * stages.len() == tables.len()
                && patterns
                    .iter()
                    .cycle()
                    .zip(&tables)
                    .all(|(p, t)| p.table_len() == t.len()),
            "one table of the right length per pattern and stage"
        );
        let precision = tables[0].precision();
        assert!(
            tables.iter().all(|table| table.precision() == precision),
            "every table of one precision"
        );
        let bytes = table_bytes(&patterns, 16, precision) * stages.len() as u64;
        Self {
            layouts: tables
                .chunks(patterns.len())
                .map(|tables| Layout::new(&patterns, tables))
                .collect(),
            patterns,
            stages,
            tables,
            coherence: None,
            precision,
            prefetch_into: if bytes > PREFETCH_FAR {
                Cache::Second
            } else {
                Cache::First
            },
        }
    }

    /// The network with the TC histories `tables` (one per weight table, as
    /// [`Network::coherence_tables`] gives them).
    pub(crate) fn with_coherence_tables(mut self, tables: Vec<Table>) -> Self {
        assert!(
            tables.len() == self.tables.len()
                && tables
                    .iter()
                    .zip(&self.tables)
                    .all(|(h, t)| h.len() == 2 * t.len()),
            "one history table of twice the length per weight table"
        );
        self.coherence = Some(Coherence::from_tables(&self.patterns, tables));
        self
    }

    /// Makes [`Network::update`] learn by temporal coherence (TC, as
    /// TDL2048+'s `coherence`): every weight keeps the sum A of its updates
    /// and the sum U of their sizes, and an update `d` moves it by
    /// `d x |A| / U` (by `d` the first time). The histories take twice the
    /// memory of the weights, refused over `limit` bytes. Does nothing if TC
    /// is already on.
    ///
    /// # Errors
    /// [`Error::TooLarge`] over the limit; [`Error::Memory`] if allocation
    /// fails.
    pub fn enable_coherence(&mut self, limit: u64) -> Result<(), Error> {
        if self.coherence.is_some() {
            return Ok(());
        }
        let entries: usize = self.tables.iter().map(Table::len).sum();
        let needed = Coherence::bytes_for(entries as u64);
        if needed > limit {
            return Err(Error::TooLarge {
                network: format!("{} with TC histories", self.describe()),
                needed,
                limit,
            });
        }
        self.coherence = Some(Coherence::new(&self.patterns, &self.tables)?);
        Ok(())
    }

    /// Drops the TC histories: updates are plain TD again.
    pub fn disable_coherence(&mut self) {
        self.coherence = None;
    }

    /// Whether updates learn by temporal coherence.
    pub fn has_coherence(&self) -> bool {
        self.coherence.is_some()
    }

    /// The TC histories, one per weight table (twice its length: for entry
    /// i, the accumulated updates at 2i and their accumulated sizes at
    /// 2i + 1); empty without TC.
    pub fn coherence_tables(&self) -> &[Table] {
        self.coherence.as_ref().map_or(&[], Coherence::tables)
    }

    /// The patterns, the stages and the tables, taken apart.
    pub(crate) fn into_parts(self) -> (Vec<Pattern>, Stages, Vec<Table>) {
        (self.patterns, self.stages, self.tables)
    }

    /// The patterns of a stage, in order (every stage has the same).
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// The stages: one unless the network is multistage.
    pub fn stages(&self) -> &Stages {
        &self.stages
    }

    /// The weight tables: one per pattern in order, stage after stage.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The weight tables, for filling them.
    pub fn tables_mut(&mut self) -> &mut [Table] {
        &mut self.tables
    }

    /// The number of features of a stage (those an update touches): 8 per
    /// isomorphic pattern, 1 per other. The learning rate is divided by it
    /// by default.
    pub fn feature_count(&self) -> usize {
        self.patterns.iter().map(Pattern::features).sum()
    }

    /// The memory of the weight tables in bytes, all stages together.
    pub fn memory_bytes(&self) -> u64 {
        table_bytes(&self.patterns, 16, self.precision) * self.stages.len() as u64
    }

    /// How the weights are stored.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The network with its weights stored in `precision` (each rounded to
    /// the nearest when narrowed), TC histories kept.
    ///
    /// # Errors
    /// [`Error::Memory`] if the new tables cannot be allocated (both copies
    /// are held while converting, one table at a time).
    pub fn into_precision(self, precision: Precision) -> Result<Network, Error> {
        if precision == self.precision {
            return Ok(self);
        }
        let coherence = self.coherence.map(Coherence::into_tables);
        let (patterns, stages, tables) = (self.patterns, self.stages, self.tables);
        let mut converted = Vec::with_capacity(tables.len());
        for table in tables {
            converted.push(
                table
                    .to_precision(precision)
                    .map_err(|source| Error::Memory {
                        needed: (table.len() * precision.bytes()) as u64,
                        source,
                    })?,
            );
        }
        let network = Network::from_parts(patterns, stages, converted);
        Ok(match coherence {
            Some(histories) => network.with_coherence_tables(histories),
            None => network,
        })
    }

    /// One line describing the network: patterns, tables, stages and memory.
    pub fn describe(&self) -> String {
        describe(&self.patterns, 16, &self.stages, self.precision)
    }

    /// The value of `board`: the sum of the weights of all its features.
    #[inline]
    pub fn estimate(&self, board: Board) -> f32 {
        self.visit_stored(board, AtomicU32::value, AtomicU16::value)
    }

    /// Asks the CPU to fetch the weights of `board`'s features into the
    /// cache without waiting for them.
    ///
    /// The weights of a large network are scattered over far more memory
    /// than the caches hold, so each estimate waits on memory. Prefetching
    /// the weights of all four afterstates of a move before estimating any of
    /// them lets all those loads overlap (docs/learning.md has the figures).
    /// That is 128 lines for 4x6patt and 256 for 8x6patt, so networks of
    /// more than 64 MiB prefetch into the second-level cache rather than the
    /// first: training 8-9% faster for 4x6patt, 9-20% for 8x6patt.
    /// Does nothing on targets without a prefetch instruction.
    #[inline]
    pub fn prefetch(&self, board: Board) {
        // One walk per cache, so that the choice is made once a board, not
        // once a weight.
        fn into<E>(cache: Cache) -> impl FnMut(&E) -> f32 {
            move |entry: &E| {
                prefetch(entry, cache);
                0.0
            }
        }
        match self.prefetch_into {
            Cache::First => self.visit_stored(board, into(Cache::First), into(Cache::First)),
            Cache::Second => self.visit_stored(board, into(Cache::Second), into(Cache::Second)),
        };
    }

    /// Adds `amount` to the weight of every feature of `board` and returns
    /// the new value (the sum of the updated weights). The caller scales the
    /// amount: learning rate times error, divided by the feature count.
    ///
    /// Features that select the same weight (a symmetric board, or empty
    /// lines seen from several sides) add to it once each, as in TDL2048+.
    ///
    /// With temporal coherence on ([`Network::enable_coherence`]), each
    /// feature's weight moves by `amount` times its own coherence ratio.
    #[inline]
    pub fn update(&self, board: Board, amount: f32) -> f32 {
        if let Some(coherence) = &self.coherence {
            let first = self.first_table(board);
            let tables = &self.tables[first..first + self.patterns.len()];
            return coherence.update(tables, first, board, amount);
        }
        self.visit_stored(
            board,
            |entry: &AtomicU32| entry.add(amount),
            |entry: &AtomicU16| entry.add(amount),
        )
    }

    /// Asks the CPU to fetch what an [`Network::update`] of `board` will
    /// touch beyond its weights (which its estimate has just read): the TC
    /// histories, if TC is on, into the same cache as
    /// [`Network::prefetch`] (into the second level, TC training of 4x6patt
    /// ran 1.2-1.4 times as fast as into the first). Does nothing
    /// otherwise.
    #[inline]
    pub fn prefetch_update(&self, board: Board) {
        if let Some(coherence) = &self.coherence {
            coherence.prefetch(self.first_table(board), board, self.prefetch_into);
        }
    }

    /// The number of the first table of `board`'s stage.
    #[inline]
    fn first_table(&self, board: Board) -> usize {
        let stage = match self.stages.len() {
            1 => 0,
            _ => self.stages.of(board),
        };
        stage * self.patterns.len()
    }

    /// [`Network::visit`] with the entries the tables hold: `single` sums
    /// `f32` weights, `half` `f16` ones. One branch a board, not a weight.
    #[inline(always)]
    fn visit_stored(
        &self,
        board: Board,
        single: impl FnMut(&AtomicU32) -> f32,
        half: impl FnMut(&AtomicU16) -> f32,
    ) -> f32 {
        match self.precision {
            // SAFETY: the tables hold f32 weights.
            Precision::F32 => unsafe { self.visit(board, single) },
            Precision::F16 => self.visit_half(board, half),
        }
    }

    /// [`Network::visit`] of `f16` weights, out of line: the `f32` path
    /// that training takes stays as compact as without half precision.
    #[inline(never)]
    fn visit_half(&self, board: Board, half: impl FnMut(&AtomicU16) -> f32) -> f32 {
        // SAFETY: called only for tables of f16 weights.
        unsafe { self.visit(board, half) }
    }

    /// Sums `weight(entry)` over every feature of `board`, through the
    /// layout of its stage ([`Layout::visit`]).
    ///
    /// # Safety
    /// The tables must hold entries of type `E`: the network's precision.
    #[inline(always)]
    unsafe fn visit<E>(&self, board: Board, weight: impl FnMut(&E) -> f32) -> f32 {
        let layout = match &self.layouts[..] {
            [only] => only,
            layouts => &layouts[self.stages.of(board)],
        };
        // SAFETY: the caller promises the entry type.
        unsafe { layout.visit(board, weight) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_patterns;

    #[test]
    fn feature_counts_follow_isomorphism() {
        let count = |name: &str| {
            Network::new(parse_patterns([name]).unwrap())
                .unwrap()
                .feature_count()
        };
        assert_eq!(count("2x4patt"), 16);
        assert_eq!(count("8x4patt"), 8);
        assert_eq!(count("2x4patt 0123!"), 17);
    }

    #[test]
    fn only_networks_larger_than_the_caches_prefetch_into_the_second_level() {
        let cache = |name: &str| {
            let patterns = parse_patterns([name]).unwrap();
            Network::allocate(patterns, Stages::single(), Precision::F32, u64::MAX)
                .unwrap()
                .prefetch_into
        };
        assert_eq!(cache("4x6patt"), Cache::Second);
        assert_eq!(cache("8x4patt"), Cache::First);
        assert_eq!(cache("4x5patt"), Cache::First);
    }

    #[test]
    fn oversized_networks_are_refused_before_allocation() {
        let patterns = parse_patterns(["4x8patt"]).unwrap();
        let error = Network::with_limit(patterns, 1 << 30).unwrap_err();
        assert_eq!(
            error.to_string(),
            "network 01234567 456789ab 01245689 0123458c (4 tables, 32 features, \
             64 GiB of f32 weights) needs 64 GiB, more than the 1 GiB allowed"
        );
    }
}
