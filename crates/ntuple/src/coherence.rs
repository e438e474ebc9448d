//! Temporal coherence (TC) learning: every weight keeps the sum of its
//! updates and the sum of their sizes, and learns at the rate of their
//! ratio, so weights whose updates agree keep learning fast and weights
//! whose updates cancel slow down (Jaśkowski's TC, as TDL2048+ offers it).

use board::bits::pext;

use crate::table::Cache;
use crate::{Error, Pattern, Table};

/// The update histories of a network's weights, and the features read on
/// the board itself.
#[derive(Debug)]
pub(crate) struct Coherence {
    /// One table per weight table, of twice its length: for entry i, the
    /// accumulated updates A at 2i and their accumulated sizes U at 2i + 1,
    /// side by side so that one cache line holds both.
    tables: Vec<Table>,
    /// Every feature of a stage as (table number in the stage, how its
    /// index is read): an isomorphic pattern's eight images in TDL2048+'s
    /// list order.
    features: Vec<(usize, Read)>,
}

/// How a feature's index is read from a board.
#[derive(Clone, Copy, Debug)]
enum Read {
    /// One `pext` of the pattern's mask on one of the board's eight images
    /// ([`images`]): the pattern's cells increase, and the image brings the
    /// feature's cells to them.
    Image { image: usize, mask: u64 },
    /// Cell by cell, the feature's cells as read on the board itself.
    Cells(Pattern),
}

impl Read {
    /// How to read `pattern` seen through `symmetry` ([`Pattern::transformed`]).
    fn new(pattern: Pattern, symmetry: board::Symmetry) -> Self {
        let feature = pattern.transformed(symmetry);
        // Boards of sixteen different tiles tell every cell apart.
        let probes = [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210].map(board::Board::from_raw);
        pattern
            .pext_mask()
            .and_then(|mask| {
                let image = (0..8).find(|&image| {
                    probes.iter().all(|&probe| {
                        pext(images(probe)[image].raw(), mask) as usize == feature.index(probe)
                    })
                })?;
                Some(Self::Image { image, mask })
            })
            .unwrap_or(Self::Cells(feature))
    }

    /// The feature's index on the board whose eight images are `images`.
    #[inline(always)]
    fn index(self, images: &[board::Board; 8]) -> usize {
        match self {
            Self::Image { image, mask } => pext(images[image].raw(), mask) as usize,
            Self::Cells(feature) => feature.index(images[0]),
        }
    }
}

/// The eight images of `board` in the order the estimates visit them: the
/// board, then alternately flipped top to bottom and transposed.
#[inline(always)]
fn images(board: board::Board) -> [board::Board; 8] {
    let mut images = [board; 8];
    for image in 1..8 {
        images[image] = if image % 2 == 1 {
            images[image - 1].flip()
        } else {
            images[image - 1].transpose()
        };
    }
    images
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
                crate::network::feature_symmetries(pattern)
                    .iter()
                    .map(move |&symmetry| (number, Read::new(*pattern, symmetry)))
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

    /// Starts loading the histories an update of `board` will touch into
    /// `cache`.
    pub(crate) fn prefetch(&self, first: usize, board: board::Board, cache: Cache) {
        let images = images(board);
        for &(number, read) in &self.features {
            self.tables[first + number].prefetch_into(2 * read.index(&images), cache);
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
        let mut total = 0.0f32;
        let images = images(board);
        for &(number, read) in &self.features {
            let index = read.index(&images);
            let (table, history) = (&weights[number], &self.tables[first + number]);
            let sum = history.get(2 * index);
            let size = history.get(2 * index + 1);
            let ratio = if size > 0.0 { sum.abs() / size } else { 1.0 };
            total += table.add(index, step * ratio);
            history.add(2 * index, step);
            history.add(2 * index + 1, step.abs());
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every feature's index, by `pext` on an image or cell by cell, is
    /// the plain one of the pattern seen through its symmetry.
    #[test]
    fn indices_read_on_images_are_the_features_own() {
        let networks = ["4x6patt", "2x4patt", "8x4patt", "3210 0145! 01489a"];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for network in networks {
            let patterns = crate::parse_patterns([network]).unwrap();
            let coherence = Coherence::from_tables(&patterns, Vec::new());
            let plain: Vec<Pattern> = patterns
                .iter()
                .flat_map(|pattern| {
                    crate::network::feature_symmetries(pattern)
                        .iter()
                        .map(|&symmetry| pattern.transformed(symmetry))
                })
                .collect();
            assert_eq!(coherence.features.len(), plain.len());
            if network == "4x6patt" {
                let fast = |(_, read): &(usize, Read)| matches!(read, Read::Image { .. });
                assert!(coherence.features.iter().all(fast), "one pext a feature");
            }
            for _ in 0..200 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let board = board::Board::from_raw(state);
                let images = images(board);
                for (&(_, read), feature) in coherence.features.iter().zip(&plain) {
                    assert_eq!(
                        read.index(&images),
                        feature.index(board),
                        "{network} {feature}"
                    );
                }
            }
        }
    }
}
