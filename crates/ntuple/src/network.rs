//! A network: patterns, their weight tables, and the value of a board.

use board::Board;
use board::bits::pext;

use crate::memory::{available_memory, format_bytes};
use crate::{Error, Pattern, Table};

/// How one pattern turns a board into an index.
#[derive(Clone, Copy, Debug)]
enum Indexer {
    /// Cells in increasing order: one `pext` of the board with this mask.
    Pext(u64),
    /// Any other order: cell by cell.
    Cells(Pattern),
}

impl Indexer {
    fn new(pattern: Pattern) -> Self {
        match pattern.pext_mask() {
            Some(mask) => Self::Pext(mask),
            None => Self::Cells(pattern),
        }
    }

    #[inline(always)]
    fn index(self, board: Board) -> usize {
        match self {
            Self::Pext(mask) => pext(board.raw(), mask) as usize,
            Self::Cells(pattern) => pattern.index(board),
        }
    }
}

/// An n-tuple network: the value of a board is the sum of the weights its
/// features select, one table per pattern.
///
/// Isomorphic patterns are read on the eight symmetric images of the board,
/// visited as TDL2048+ visits them: the board, then alternately flipped top
/// to bottom and transposed (seven cheap steps). The weights of each image
/// are summed in pattern order into a partial sum, and the partial sums into
/// the total, the order TDL2048+ uses, so equal weights give equal `f32`
/// values. Patterns without isomorphism are read on the board alone and
/// summed last.
///
/// `estimate` and `update` take `&self`: the tables are lock-free (see
/// [`Table`]), so threads can train one network together.
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
    patterns: Vec<Pattern>,
    tables: Vec<Table>,
    /// (table, indexer) of the isomorphic patterns, in pattern order.
    isomorphic: Vec<(usize, Indexer)>,
    /// (table, indexer) of the patterns read on the board only.
    plain: Vec<(usize, Indexer)>,
}

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
        if patterns.is_empty() {
            return Err(Error::EmptyNetwork);
        }
        let needed = table_bytes(&patterns);
        if needed > limit {
            return Err(Error::TooLarge {
                network: describe_patterns(&patterns),
                needed,
                limit,
            });
        }
        let tables = patterns
            .iter()
            .map(|pattern| Table::zeroed(pattern.table_len()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| Error::Memory { needed, source })?;
        let features = |isomorphic: bool| {
            patterns
                .iter()
                .enumerate()
                .filter(|(_, pattern)| pattern.is_isomorphic() == isomorphic)
                .map(|(table, &pattern)| (table, Indexer::new(pattern)))
                .collect()
        };
        Ok(Self {
            isomorphic: features(true),
            plain: features(false),
            patterns,
            tables,
        })
    }

    /// The patterns, in order.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// The weight tables, one per pattern, in order.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The weight tables, for filling them.
    pub fn tables_mut(&mut self) -> &mut [Table] {
        &mut self.tables
    }

    /// The number of features: 8 per isomorphic pattern, 1 per other. The
    /// learning rate is divided by it by default.
    pub fn feature_count(&self) -> usize {
        self.patterns.iter().map(Pattern::features).sum()
    }

    /// The memory of the weight tables in bytes.
    pub fn memory_bytes(&self) -> u64 {
        table_bytes(&self.patterns)
    }

    /// One line describing the network: patterns, tables and memory.
    pub fn describe(&self) -> String {
        describe_patterns(&self.patterns)
    }

    /// The value of `board`: the sum of the weights of all its features.
    #[inline]
    pub fn estimate(&self, board: Board) -> f32 {
        self.visit(board, |table, index| table.get(index))
    }

    /// Adds `amount` to the weight of every feature of `board` and returns
    /// the new value (the sum of the updated weights). The caller scales the
    /// amount: learning rate times error, divided by the feature count.
    ///
    /// Features that select the same weight (a symmetric board, or empty
    /// lines seen from several sides) add to it once each, as in TDL2048+.
    #[inline]
    pub fn update(&self, board: Board, amount: f32) -> f32 {
        self.visit(board, |table, index| table.add(index, amount))
    }

    /// Sums `weight(table, index)` over every feature of `board`, in the
    /// documented order.
    #[inline(always)]
    fn visit(&self, board: Board, mut weight: impl FnMut(&Table, usize) -> f32) -> f32 {
        let mut total = 0.0f32;
        if !self.isomorphic.is_empty() {
            let mut image = board;
            for step in 0..8 {
                let mut partial = 0.0f32;
                for &(table, indexer) in &self.isomorphic {
                    partial += weight(&self.tables[table], indexer.index(image));
                }
                total += partial;
                image = if step % 2 == 0 {
                    image.flip()
                } else {
                    image.transpose()
                };
            }
        }
        if !self.plain.is_empty() {
            let mut partial = 0.0f32;
            for &(table, indexer) in &self.plain {
                partial += weight(&self.tables[table], indexer.index(board));
            }
            total += partial;
        }
        total
    }
}

fn table_bytes(patterns: &[Pattern]) -> u64 {
    patterns.iter().map(|p| p.table_len() as u64 * 4).sum()
}

fn describe_patterns(patterns: &[Pattern]) -> String {
    let names: Vec<String> = patterns.iter().map(ToString::to_string).collect();
    let features: usize = patterns.iter().map(Pattern::features).sum();
    format!(
        "{} ({} tables, {features} features, {} of f32 weights)",
        names.join(" "),
        patterns.len(),
        format_bytes(table_bytes(patterns))
    )
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
