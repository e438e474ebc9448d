//! A bucket index over a sorted layer, so that a lookup searches a bucket
//! of the layer (16 boards are aimed at; 50 to 130 on average, by board,
//! in the fixed formations' layers) instead of all of it.
//!
//! The boards of a layer share many bits (the formation's large tiles sit in
//! the same cells), so the index buckets them by their highest bits that
//! vary, gathered with one `pext`. Since the bits above those do not vary,
//! the bucket number never decreases along the sorted layer, and each bucket
//! is a contiguous range: one table of starts finds it.
//!
//! Those bits are not uniform: in free8's layers, where a nibble holds one
//! of a few small tiles or a large one, a bucket holds thousands of boards,
//! not 16. Splitting them again (a tree of such tables) or widening the
//! table did not make lookups faster; solving's batches sort their
//! children and walk the layer instead (`solve::layer`,
//! docs/tablebase-builder.md).

use std::ops::Range;

use rayon::prelude::*;
use system::bits::pext;

/// Boards per bucket aimed at.
const PER_BUCKET: usize = 16;

/// The most bits (2^22 starts, 16 MiB).
const MAX_BITS: u32 = 22;

/// Where each bucket of a sorted layer starts.
#[derive(Clone, Debug)]
pub struct Index {
    mask: u64,
    starts: Vec<u32>,
}

/// The index of no boards, in which every board has an empty bucket.
impl Default for Index {
    fn default() -> Self {
        Self::new(&[])
    }
}

impl Index {
    /// The index of `boards`, which are sorted. Made on all threads, each
    /// filling the starts of a range of buckets: on one thread it took
    /// 0.12 s of `tb-build build free8 32 -p 2`'s wall time while the
    /// pool waited.
    pub fn new(boards: &[u64]) -> Self {
        let wanted = (boards.len() / PER_BUCKET).max(1).ilog2().min(MAX_BITS);
        let (or, and) = boards
            .par_iter()
            .fold(|| (0, u64::MAX), |(or, and), &b| (or | b, and & b))
            .reduce(|| (0, u64::MAX), |x, y| (x.0 | y.0, x.1 & y.1));
        let varying = or ^ and;
        let mut mask = 0u64;
        let mut rest = varying;
        for _ in 0..wanted.min(varying.count_ones()) {
            let top = 63 - rest.leading_zeros();
            mask |= 1 << top;
            rest &= !(1 << top);
        }
        // Bucket `b` starts at the first board of a bucket from `b` on.
        let bucket = |board: u64| pext(board, mask) as usize;
        let mut starts = vec![0u32; (1 << mask.count_ones()) + 1];
        let piece = starts.len().div_ceil(4 * rayon::current_num_threads());
        starts
            .par_chunks_mut(piece)
            .enumerate()
            .for_each(|(k, starts)| {
                let first = k * piece;
                let mut position = boards.partition_point(|&board| bucket(board) < first);
                for (b, start) in (first..).zip(starts) {
                    position += boards[position..]
                        .iter()
                        .take_while(|&&board| bucket(board) < b)
                        .count();
                    *start = position as u32;
                }
            });
        Self { mask, starts }
    }

    /// The bytes the index takes.
    pub fn bytes(&self) -> u64 {
        (self.starts.len() * size_of::<u32>()) as u64
    }

    /// The bucket of `board`. Buckets never decrease as boards grow.
    #[inline]
    pub fn bucket(&self, board: u64) -> usize {
        pext(board, self.mask) as usize
    }

    /// The positions of bucket `bucket`: where a board of that bucket
    /// would be, if the layer holds it.
    #[inline]
    pub fn bucket_range(&self, bucket: usize) -> Range<usize> {
        self.starts[bucket] as usize..self.starts[bucket + 1] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_is_in_its_range() {
        // Constant high nibbles, varying low ones, as in a formation's layer.
        let mut boards: Vec<u64> = (0..50_000u64)
            .map(|i| 0xFFF0_FFF0_0000_0000 | (i * 2_654_435_761 % (1 << 36)))
            .collect();
        boards.sort_unstable();
        boards.dedup();
        let index = Index::new(&boards);
        assert!(index.mask.count_ones() >= 10);
        // Made on all threads, the starts are those found one board at a
        // time.
        let mut starts = Vec::new();
        for (position, &board) in boards.iter().enumerate() {
            while starts.len() <= index.bucket(board) {
                starts.push(position as u32);
            }
        }
        starts.resize(index.starts.len(), boards.len() as u32);
        assert_eq!(index.starts, starts);
        for (position, &board) in boards.iter().enumerate() {
            assert!(index.bucket_range(index.bucket(board)).contains(&position));
        }
        // Boards the layer lacks land in a range without them.
        let missing = 0xFFF0_FFF1_0000_0000;
        assert!(!boards[index.bucket_range(index.bucket(missing))].contains(&missing));
        let empty = Index::new(&[]);
        assert_eq!(empty.bucket_range(empty.bucket(7)), 0..0);
    }
}
