//! N-tuple networks for 2584: 2048's patterns and tables, with tile indices
//! clamped so that a table of n cells has radix^n entries.

use std::path::Path;

use learn::Values;
use ntuple::{Metadata, Pattern, Stages, Weights};

use crate::tile::MAX_INDEX;
use crate::{Board, Error};

/// The game recorded in 2584 weight files, so that they are never loaded as
/// 2048's (and the other way round).
pub const GAME: &str = "2584";

/// The course's limit on weight tables: 2 GiB.
pub const COURSE_LIMIT: u64 = 2 << 30;

/// The largest radix a cell can need: every tile index kept apart.
pub const MAX_RADIX: u32 = MAX_INDEX as u32 + 1;

/// The most consecutive cells one lookup of [`Clamped`] reads.
const CHUNK: usize = 3;

/// For every 15-bit value of three cells, their clamped part of a table
/// index: the sum of min(tile of cell j, radix - 1) x radix^j. A feature's
/// index is then a few lookups in this small (128 KiB) table instead of a
/// clamp and a multiplication per cell.
#[derive(Debug)]
struct Clamped(Box<[u32]>);

impl Clamped {
    fn new(radix: u32) -> Self {
        let cells = 1usize << (5 * CHUNK);
        Self(
            (0..cells)
                .map(|bits| {
                    (0..CHUNK).rev().fold(0, |index, j| {
                        let tile = (bits >> (5 * j)) as u32 & 31;
                        index * radix + tile.min(radix - 1)
                    })
                })
                .collect(),
        )
    }
}

/// Up to [`CHUNK`] consecutive cells of a pattern, read in one lookup.
#[derive(Clone, Copy, Debug, Default)]
struct Chunk {
    /// Where the first cell's bits start on the board.
    shift: u8,
    /// The bits of the chunk's cells, from the first.
    mask: u32,
    /// radix^(the position of the chunk's first cell in the pattern).
    scale: u32,
}

/// How a feature reads its table index off a board.
#[derive(Clone, Copy, Debug)]
enum Extract {
    /// Consecutive cells with every index kept apart: the index is the
    /// cells' bits as they lie on the board.
    Run { shift: u32, mask: u128 },
    /// Chunks of consecutive cells, each clamped by one lookup: the index
    /// is the sum of min(tile of cell j, radix - 1) x radix^j.
    Chunks {
        chunks: [Chunk; ntuple::MAX_CELLS],
        len: u8,
    },
}

impl Extract {
    fn new(pattern: &Pattern, radix: u32) -> Self {
        let cells = pattern.cells();
        let consecutive = |pair: &[u8]| pair[1] == pair[0] + 1;
        if radix == MAX_RADIX && cells.windows(2).all(consecutive) {
            return Self::Run {
                shift: 5 * u32::from(cells[0]),
                mask: (1 << (5 * cells.len())) - 1,
            };
        }
        let mut chunks = [Chunk::default(); ntuple::MAX_CELLS];
        let mut len = 0;
        let mut start = 0;
        while start < cells.len() {
            let mut end = start + 1;
            while end < cells.len() && end - start < CHUNK && consecutive(&cells[end - 1..=end]) {
                end += 1;
            }
            chunks[len] = Chunk {
                shift: 5 * cells[start],
                mask: (1 << (5 * (end - start))) - 1,
                scale: radix.pow(start as u32),
            };
            len += 1;
            start = end;
        }
        Self::Chunks {
            chunks,
            len: len as u8,
        }
    }

    #[inline(always)]
    fn index(&self, board: Board, clamped: &Clamped) -> usize {
        match self {
            Self::Run { shift, mask } => (board.raw() >> shift & mask) as usize,
            Self::Chunks { chunks, len } => chunks[..usize::from(*len)]
                .iter()
                .map(|chunk| {
                    let bits = (board.raw() >> chunk.shift) as u32 & chunk.mask;
                    clamped.0[bits as usize] as usize * chunk.scale as usize
                })
                .sum(),
        }
    }
}

/// An n-tuple network for 2584: the value of a board is the sum of the
/// weights its features select. Patterns are 2048's ([`Pattern`], so
/// `4x6patt`, `8x4patt` and `2x4patt` name the course's networks); a cell's
/// tile index is clamped to `radix - 1` in table indices, so tables stay
/// small enough for long patterns.
///
/// Isomorphic patterns are read on the eight symmetric images of the board
/// (one table for all eight), others on the board itself.
///
/// ```
/// use fib2584::{Board, Network};
/// use ntuple::parse_patterns;
///
/// let network = Network::new(parse_patterns(["2x4patt"])?, 32, u64::MAX)?;
/// // Sixteen different tiles: every feature selects a weight of its own.
/// let board = Board::from_cells(std::array::from_fn(|cell| cell as u8 + 1)).unwrap();
/// let value = network.update(board, 0.25);
/// assert_eq!(value, 16.0 * 0.25);
/// assert_eq!(network.estimate(board.transpose()), value);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Network {
    weights: Weights,
    /// The clamped values of three cells, for the features' indices.
    clamped: Clamped,
    /// Features of isomorphic patterns, read on every image of the board.
    isomorphic: Vec<(Extract, usize)>,
    /// Features of the other patterns, read on the board itself.
    plain: Vec<(Extract, usize)>,
}

impl Network {
    /// A network of `patterns` with zero weights and cells clamped to
    /// `radix` values, refused if its tables need more than `limit` bytes.
    ///
    /// # Errors
    /// [`Error::Radix`] and [`Error::Statistic`] for what 2584 networks cannot
    /// hold; [`Error::Weights`] with `ntuple`'s [`ntuple::Error::TooLarge`]
    /// over the limit (before allocating), [`ntuple::Error::Memory`] if
    /// allocation fails and [`ntuple::Error::EmptyNetwork`] without patterns.
    pub fn new(patterns: Vec<Pattern>, radix: u32, limit: u64) -> Result<Self, Error> {
        check(&patterns, radix)?;
        let weights = Weights::zeroed(GAME, patterns, radix, Stages::single(), limit)?;
        for table in &weights.tables {
            table.fault_in();
        }
        Ok(Self::from_weights(weights))
    }

    fn from_weights(weights: Weights) -> Self {
        let features = |isomorphic: bool| {
            weights
                .patterns
                .iter()
                .enumerate()
                .filter(|(_, pattern)| pattern.is_isomorphic() == isomorphic)
                .map(|(table, pattern)| (Extract::new(pattern, weights.radix), table))
                .collect()
        };
        Self {
            isomorphic: features(true),
            plain: features(false),
            clamped: Clamped::new(weights.radix),
            weights,
        }
    }

    /// The patterns, in order.
    pub fn patterns(&self) -> &[Pattern] {
        &self.weights.patterns
    }

    /// The values a cell takes in a table index: tile indices from
    /// `radix - 1` up share the last.
    pub fn radix(&self) -> u32 {
        self.weights.radix
    }

    /// The memory of the weight tables in bytes.
    pub fn memory_bytes(&self) -> u64 {
        self.weights.tables.iter().map(|t| t.len() as u64 * 4).sum()
    }

    /// One line describing the network, as 2048's are described.
    pub fn describe(&self) -> String {
        self.weights.describe()
    }

    /// The number of features: 8 per isomorphic pattern, 1 per other.
    pub fn feature_count(&self) -> usize {
        self.patterns().iter().map(Pattern::features).sum()
    }

    /// The value of `board`.
    #[inline]
    pub fn estimate(&self, board: Board) -> f32 {
        self.visit(board, |table, index| table.get(index))
    }

    /// Adds `amount` to the weight of every feature of `board` and returns
    /// the new value.
    #[inline]
    pub fn update(&self, board: Board, amount: f32) -> f32 {
        self.visit(board, |table, index| table.add(index, amount))
    }

    /// Sums `weight(table, index)` over the features of `board`.
    #[inline(always)]
    fn visit(&self, board: Board, mut weight: impl FnMut(&ntuple::Table, usize) -> f32) -> f32 {
        let tables = &self.weights.tables;
        let mut total = 0.0f32;
        for (extract, table) in &self.plain {
            total += weight(&tables[*table], extract.index(board, &self.clamped));
        }
        if self.isomorphic.is_empty() {
            return total;
        }
        let mut image = board;
        for step in 0..8 {
            for (extract, table) in &self.isomorphic {
                total += weight(&tables[*table], extract.index(image, &self.clamped));
            }
            image = if step % 2 == 0 {
                image.flip()
            } else {
                image.transpose()
            };
        }
        total
    }

    /// Writes the network and `metadata` to `path` atomically, in 2048lab's
    /// weight format with the game recorded as 2584.
    ///
    /// # Errors
    /// [`ntuple::Error::Io`] naming the file.
    pub fn save(&self, path: &Path, metadata: &Metadata) -> Result<(), ntuple::Error> {
        self.weights.save(path, metadata)
    }

    /// Reads a 2584 network from `path`, refusing 2048's weight files, other
    /// networks than `expected` and tables over `limit` bytes.
    ///
    /// # Errors
    /// As [`ntuple::Weights::load`].
    pub fn load(
        path: &Path,
        expected: Option<&[Pattern]>,
        limit: u64,
    ) -> Result<(Self, Metadata), ntuple::Error> {
        let (weights, metadata) = Weights::load(path, GAME, expected, limit)?;
        check(&weights.patterns, weights.radix).map_err(|error| ntuple::Error::File {
            path: path.to_owned(),
            problem: format!("corrupt header: {error}"),
        })?;
        Ok((Self::from_weights(weights), metadata))
    }
}

/// The radix the course's networks use by default: the largest (at most
/// [`MAX_RADIX`]) whose tables fit the course's 2 GiB, or 2.
pub fn default_radix(patterns: &[Pattern]) -> u32 {
    (2..=MAX_RADIX)
        .rev()
        .find(|&radix| {
            patterns
                .iter()
                .map(|p| p.entries(radix) as u64 * 4)
                .sum::<u64>()
                <= COURSE_LIMIT
        })
        .unwrap_or(2)
}

/// Refuses what a 2584 network cannot hold.
fn check(patterns: &[Pattern], radix: u32) -> Result<(), Error> {
    if let Some(statistic) = patterns.iter().find(|pattern| pattern.is_statistic()) {
        return Err(Error::Statistic {
            name: statistic.to_string(),
        });
    }
    if !(2..=MAX_RADIX).contains(&radix) {
        return Err(Error::Radix { radix });
    }
    Ok(())
}

/// Checkpoints of 2584 training hold the network with its radix.
impl learn::checkpoint::Weights for Network {
    fn save(&self, path: &Path, metadata: &Metadata) -> Result<(), ntuple::Error> {
        Network::save(self, path, metadata)
    }

    fn load(path: &Path) -> Result<(Self, Metadata), ntuple::Error> {
        Network::load(path, None, u64::MAX)
    }
}

/// Always inlined, as 2048's: the four estimates of a move share one body
/// with the move choice.
impl Values<Board> for Network {
    #[inline(always)]
    fn estimate(&self, board: Board) -> f32 {
        Network::estimate(self, board)
    }

    #[inline(always)]
    fn update(&self, board: Board, amount: f32) -> f32 {
        Network::update(self, board, amount)
    }

    fn feature_count(&self) -> usize {
        Network::feature_count(self)
    }

    #[inline(always)]
    fn prefetch(&self, board: Board) {
        self.visit(board, |table, index| {
            table.prefetch(index);
            0.0
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ntuple::parse_patterns;

    /// The plain definition of a feature's index: the sum of
    /// min(tile of cell j, radix - 1) x radix^j.
    fn plain_index(pattern: &Pattern, radix: u32, board: Board) -> usize {
        pattern.cells().iter().rev().fold(0, |index, &cell| {
            let tile = u32::from(board.tile(usize::from(cell))).min(radix - 1);
            index * radix as usize + tile as usize
        })
    }

    /// Every way of reading an index agrees with the plain definition.
    #[test]
    fn indices_follow_the_plain_definition() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let patterns = parse_patterns(["0123 4567 012345 012456 45689a 048c 159d! 37bf 1256"]);
        for radix in [32, 22, 12, 2] {
            let clamped = Clamped::new(radix);
            for pattern in patterns.as_ref().unwrap() {
                let extract = Extract::new(pattern, radix);
                for _ in 0..2000 {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    let board = Board::from_raw(u128::from(state) << 16 ^ u128::from(state));
                    assert_eq!(
                        extract.index(board, &clamped),
                        plain_index(pattern, radix, board),
                        "{pattern} radix {radix} {board:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn clamping_merges_large_tiles() {
        let pattern: Pattern = "01".parse().unwrap();
        let clamped = Clamped::new(22);
        let extract = Extract::new(&pattern, 22);
        let board = |a: u8, b: u8| Board::EMPTY.with_tile(0, a).with_tile(1, b);
        assert_eq!(extract.index(board(3, 2), &clamped), 3 + 2 * 22);
        assert_eq!(extract.index(board(21, 0), &clamped), 21);
        assert_eq!(extract.index(board(25, 31), &clamped), 21 + 21 * 22);
    }

    #[test]
    fn default_radix_fits_the_course_limit() {
        let radix = |name: &str| default_radix(&parse_patterns([name]).unwrap());
        assert_eq!(radix("8x4patt"), 32);
        assert_eq!(radix("4x6patt"), 22);
        assert_eq!(radix("5x6patt"), 21);
    }
}
