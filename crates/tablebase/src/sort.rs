//! Sorting boards and dropping repeats, a third of generation's time.
//!
//! On many threads the sort must be parallel: serial, it held `free8 32` on
//! 16 threads at 34-37 s of wall time instead of 22-25. But rayon's
//! `par_sort_unstable` is an older algorithm than the standard library's
//! `sort_unstable` (on one thread, 21 ms against 15 for the 858,165
//! children of L3-128's largest layer) and partitions the whole slice on one
//! thread first. So each thread sorts a part with `sort_unstable` and drops
//! its repeats, and the parts are merged by key range: splitters cut every
//! part into as many ranges as there are parts, and each range is merged on
//! a thread of its own.

use rayon::prelude::*;

/// Below this many boards a part, one thread sorts them all.
const PART: usize = 1 << 15;

/// `boards` sorted, without repeats.
pub fn sort_unique(mut boards: Vec<u64>) -> Vec<u64> {
    let parts = rayon::current_num_threads().min(boards.len() / PART);
    if parts < 2 {
        boards.sort_unstable();
        boards.dedup();
        return boards;
    }
    let part = boards.len().div_ceil(parts);
    let runs: Vec<&[u64]> = boards
        .par_chunks_mut(part)
        .map(|part| {
            part.sort_unstable();
            let kept = dedup(part);
            &part[..kept]
        })
        .collect();

    // Ranges of keys, one a part: every run is cut at the same splitters,
    // so a key's copies all fall in one range.
    let mut samples: Vec<u64> = runs
        .iter()
        .flat_map(|run| (1..parts).map(move |k| run[k * run.len() / parts]))
        .collect();
    samples.sort_unstable();
    let splitters: Vec<u64> = (1..parts).map(|k| samples[k * (parts - 1)]).collect();
    let pieces: Vec<Vec<&[u64]>> = (0..parts)
        .map(|range| {
            runs.iter()
                .map(|run| {
                    let cut = |k: usize| match k {
                        0 => 0,
                        k if k == parts => run.len(),
                        k => run.partition_point(|&board| board < splitters[k - 1]),
                    };
                    &run[cut(range)..cut(range + 1)]
                })
                .collect()
        })
        .collect();

    // Each range merges its pieces into its place in `merged`.
    let lens: Vec<usize> = pieces
        .iter()
        .map(|pieces| pieces.iter().map(|piece| piece.len()).sum())
        .collect();
    let mut merged = vec![0u64; lens.iter().sum()];
    let kept: Vec<usize> = split_mut(&mut merged, &lens)
        .into_par_iter()
        .zip(pieces)
        .map(|(out, pieces)| merge_all(&pieces, out))
        .collect();
    drop(boards);
    let mut len = 0;
    let mut start = 0;
    for (kept, range_len) in kept.into_iter().zip(lens) {
        merged.copy_within(start..start + kept, len);
        len += kept;
        start += range_len;
    }
    merged.truncate(len);
    merged
}

/// Sorted `pieces`, each without repeats, merged into the start of `out`
/// (as long as they are together) without repeats. Returns how many boards
/// that is.
fn merge_all(pieces: &[&[u64]], out: &mut [u64]) -> usize {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    use std::collections::binary_heap::PeekMut;
    if let [a, b] = pieces {
        return merge_unique(a, b, out);
    }
    // The smallest board not yet merged of each piece, with the piece and
    // its place there.
    let mut heads: BinaryHeap<Reverse<(u64, usize, usize)>> = pieces
        .iter()
        .enumerate()
        .filter(|(_, piece)| !piece.is_empty())
        .map(|(k, piece)| Reverse((piece[0], k, 0)))
        .collect();
    let mut kept = 0;
    while let Some(mut head) = heads.peek_mut() {
        let Reverse((board, k, at)) = *head;
        if kept == 0 || out[kept - 1] != board {
            out[kept] = board;
            kept += 1;
        }
        match pieces[k].get(at + 1) {
            Some(&next) => *head = Reverse((next, k, at + 1)),
            None => {
                PeekMut::pop(head);
            }
        }
    }
    kept
}

/// Sorted `a` and `b`, each without repeats, merged into the start of `out`
/// (as long as both) without repeats. Returns how many boards that is.
pub(crate) fn merge_unique(a: &[u64], b: &[u64], out: &mut [u64]) -> usize {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out[k] = x.min(y);
        k += 1;
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    for rest in [&a[i..], &b[j..]] {
        out[k..k + rest.len()].copy_from_slice(rest);
        k += rest.len();
    }
    k
}

/// Drops the repeats of sorted `boards` to the front; returns how many
/// remain.
fn dedup(boards: &mut [u64]) -> usize {
    if boards.is_empty() {
        return 0;
    }
    let mut kept = 1;
    for i in 1..boards.len() {
        if boards[i] != boards[kept - 1] {
            boards[kept] = boards[i];
            kept += 1;
        }
    }
    kept
}

/// `slice` cut into consecutive pieces of `lens`.
fn split_mut<'a>(mut slice: &'a mut [u64], lens: &[usize]) -> Vec<&'a mut [u64]> {
    lens.iter()
        .map(|&len| {
            let (piece, rest) = std::mem::take(&mut slice).split_at_mut(len);
            slice = rest;
            piece
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(mut boards: Vec<u64>) -> Vec<u64> {
        boards.sort_unstable();
        boards.dedup();
        boards
    }

    #[test]
    fn sorts_and_drops_repeats_as_a_plain_sort() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Narrow ranges with many repeats, skewed ones, the whole range.
        let narrow: Vec<u64> = (0..300_000)
            .map(|_| 0xFFF0_FFF0_0000_0000 | (next() % 100_000))
            .collect();
        let skewed: Vec<u64> = (0..200_000)
            .map(|i| if i % 3 == 0 { next() } else { 5 + next() % 7 })
            .collect();
        let wide: Vec<u64> = (0..100_000)
            .map(|_| next())
            .chain([0, u64::MAX, u64::MAX])
            .collect();
        let equal = vec![42u64; 150_000];
        for threads in [1, 2, 3, 5, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for boards in [&narrow, &skewed, &wide, &equal, &Vec::new(), &vec![3, 1, 3]] {
                let sorted = pool.install(|| sort_unique(boards.clone()));
                assert_eq!(sorted, plain(boards.clone()), "{threads} threads");
            }
        }
    }
}
