//! Partitioned layers: a layer split into P parts by a hash of the
//! canonical board, each part a layer file of its own, so that every step
//! of a build can be a task over one part (docs/distributed.md).
//!
//! The hash spreads the boards of a layer evenly whatever they share (the
//! large tiles of a formation sit in the same cells, so the boards' high
//! bits vary little): SplitMix64's finaliser, then the top half scaled to
//! the part count, which takes any count, not only powers of two.

use std::path::{Path, PathBuf};

use crate::Error;

/// How a table's layers are split: into `count` parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partitions {
    count: u32,
}

impl Partitions {
    /// The most parts a layer may be split into.
    pub const MOST: u32 = 1 << 16;

    /// Layers split into `count` parts, 1 to [`Partitions::MOST`].
    ///
    /// # Errors
    /// [`Error::Build`] for a count outside that range.
    pub fn new(count: u32) -> Result<Self, Error> {
        if (1..=Self::MOST).contains(&count) {
            Ok(Self { count })
        } else {
            Err(Error::Build(format!(
                "{count} partitions: a layer is split into 1 to {}",
                Self::MOST
            )))
        }
    }

    /// The number of parts.
    pub fn count(self) -> usize {
        self.count as usize
    }

    /// The part that holds `board`, a canonical board.
    #[inline]
    pub fn of(self, board: u64) -> usize {
        let mut mixed = board;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        mixed ^= mixed >> 31;
        (((mixed >> 32) * u64::from(self.count)) >> 32) as usize
    }

    /// `boards` split by part, each part in the order `boards` has.
    pub fn split(self, boards: &[u64]) -> Vec<Vec<u64>> {
        let mut parts = vec![Vec::new(); self.count()];
        for &board in boards {
            parts[self.of(board)].push(board);
        }
        parts
    }
}

/// The folder of solved layer `index`'s parts in a partitioned table.
pub fn parts_dir(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("layer-{index:04}"))
}

/// The layer file of part `part` of solved layer `index`.
pub fn part_path(dir: &Path, index: usize, part: usize) -> PathBuf {
    parts_dir(dir, index).join(format!("part-{part:04}.tbl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every part gets its share of a layer's boards, which share their
    /// high bits, and a split keeps each part in order.
    #[test]
    fn boards_spread_evenly_and_stay_in_order() {
        let parts = Partitions::new(16).unwrap();
        let boards: Vec<u64> = (0..160_000u64)
            .map(|at| 0xFFF0_FFF0_0000_0000 | (at * 3))
            .collect();
        let split = parts.split(&boards);
        for part in &split {
            assert!((9_000..11_000).contains(&part.len()), "{}", part.len());
            assert!(part.is_sorted());
        }
        assert_eq!(split.iter().map(Vec::len).sum::<usize>(), boards.len());
        assert!(
            boards
                .iter()
                .all(|&board| split[parts.of(board)].contains(&board))
        );
        let single = Partitions::new(1).unwrap();
        assert!(boards.iter().all(|&board| single.of(board) == 0));
        assert!(Partitions::new(0).is_err() && Partitions::new(Partitions::MOST + 1).is_err());
    }
}
