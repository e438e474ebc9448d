//! Sorting boards and dropping repeats, about a quarter of generation's
//! time.
//!
//! On many threads the sort must be parallel: serial, it held `free8 32` on
//! 16 threads at 34-37 s of wall time instead of 22-25. But rayon's
//! `par_sort_unstable` is an older algorithm than the standard library's
//! `sort_unstable` (on one thread, 21 ms against 15 for the 858,165
//! children of L3-128's largest layer) and partitions the whole slice on one
//! thread first. So each thread sorts a part and drops its repeats, and the
//! parts are merged by key range: splitters cut every part into as many
//! ranges as there are parts, and each range is merged on a thread of its
//! own.
//!
//! A part is sorted by `sort_dedup`, a radix sort where it pays: the boards
//! of a layer differ in few of their bits (the children of L3-256's largest
//! layers in 30), so a least-significant-digit radix sort of just those
//! bits takes three passes, and sorts them in half the time of
//! `sort_unstable`.
//!
//! Boards with a value each are sorted by [`sort_with_values`].

mod with_values;

use rayon::prelude::*;
use system::bits::{pdep, pext};

pub use with_values::sort_with_values;

/// Below this many boards a part, one thread sorts them all.
const PART: usize = 1 << 15;

/// `boards` sorted, without repeats.
pub fn sort_unique(mut boards: Vec<u64>) -> Vec<u64> {
    let parts = rayon::current_num_threads().min(boards.len() / PART);
    if parts < 2 {
        let kept = sort_dedup(&mut boards);
        boards.truncate(kept);
        return boards;
    }
    let part = boards.len().div_ceil(parts);
    let runs: Vec<&[u64]> = boards
        .par_chunks_mut(part)
        .map(|part| {
            let kept = sort_dedup(part);
            &part[..kept]
        })
        .collect();
    union(&runs)
}

/// The union of sorted `runs`, each without repeats: sorted and without
/// repeats, merged in as many ranges of keys as there are threads (fewer
/// for few boards). Splitters cut every run at the same keys, so that a
/// key's copies all fall in one range, and each range is merged on a
/// thread of its own.
pub fn union(runs: &[&[u64]]) -> Vec<u64> {
    let runs: Vec<&[u64]> = runs.iter().copied().filter(|run| !run.is_empty()).collect();
    let total: usize = runs.iter().map(|run| run.len()).sum();
    let ranges = rayon::current_num_threads().min(total / PART).max(1);
    let mut samples: Vec<u64> = runs
        .iter()
        .flat_map(|run| (1..ranges).map(move |k| run[k * run.len() / ranges]))
        .collect();
    samples.sort_unstable();
    let splitters: Vec<u64> = (1..ranges)
        .map(|k| samples[k * samples.len() / ranges])
        .collect();
    let pieces: Vec<Vec<&[u64]>> = (0..ranges)
        .map(|range| {
            runs.iter()
                .map(|run| {
                    let cut = |k: usize| match k {
                        0 => 0,
                        k if k == ranges => run.len(),
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

/// `parts` one after another, copied on all threads: a serial copy of a
/// layer's children was the largest step of generation that more threads
/// did not shorten (2.3 s of `tb-build build free8 32 -p 2`'s wall time).
pub fn concat(parts: Vec<Vec<u64>>) -> Vec<u64> {
    let lens: Vec<usize> = parts.iter().map(Vec::len).collect();
    let mut joined = vec![0u64; lens.iter().sum()];
    split_mut(&mut joined, &lens)
        .into_par_iter()
        .zip(parts)
        .for_each(|(to, part)| to.copy_from_slice(&part));
    joined
}

/// Below this many boards the standard library's sort is faster than the
/// radix sort's passes over its counters.
const RADIX_MIN: usize = 1 << 12;

/// The widest digit of the radix sort. A pass writes to as many places at
/// once as a digit has values: with 11-bit digits, random boards of 44 bits
/// (four passes) sorted slower than with the standard library's sort (16.3
/// against 14.9 ns a board at 1.5 million boards), with 10-bit ones 40 bits
/// sorted faster (below).
const DIGIT_BITS: u32 = 10;

/// The most boards the radix sort takes in `passes` passes: past them its
/// scattered writes outgrow the last-level cache and the standard
/// library's sort is faster. Random boards, ns a board, the radix sort
/// against `sort_unstable` (one thread, the fastest of 3 runs): 40 bits (4
/// passes) 9.2 against 14.4 at 1 million boards, 12.5 against 15.6 at 4
/// million, 16.7 against 16.0 at 6 million; 48 bits (5 passes) 11.3
/// against 14.5 at 1 million, even from 2 million; free8's children (64
/// bits) 22 against 18.
fn radix_limit(passes: usize) -> usize {
    match passes {
        0..=4 => 1 << 22,
        5 => 1 << 20,
        _ => 0,
    }
}

/// Sorts `boards` and gathers one of each at the front; returns how many
/// that is. A least-significant-digit radix sort of the bits that vary
/// among them, gathered with `pext` (which keeps the order of boards that
/// agree on the other bits), in as few passes of equal digits as
/// [`DIGIT_BITS`] allows; the standard library's sort where that would be
/// slower ([`RADIX_MIN`], [`radix_limit`]). Needs a second buffer as long
/// as `boards`.
fn sort_dedup(boards: &mut [u64]) -> usize {
    let (any, all) = boards.iter().fold((0, u64::MAX), |(any, all), &board| {
        (any | board, all & board)
    });
    let varying = any ^ all;
    let bits = varying.count_ones();
    let passes = bits.div_ceil(DIGIT_BITS) as usize;
    if boards.len() < RADIX_MIN || boards.len() > radix_limit(passes) {
        boards.sort_unstable();
        return dedup(boards);
    }
    if bits == 0 {
        return 1;
    }
    let digit = bits.div_ceil(passes as u32);
    let radix = 1 << digit;
    let of = |key: u64, pass: usize| (key >> (pass as u32 * digit)) as usize & (radix - 1);
    // The keys in place, and every pass's digit counts in one read.
    let mut counts = vec![0usize; passes * radix];
    for board in boards.iter_mut() {
        *board = pext(*board, varying);
        for pass in 0..passes {
            counts[pass * radix + of(*board, pass)] += 1;
        }
    }
    for counts in counts.chunks_mut(radix) {
        let mut start = 0;
        for count in counts {
            (*count, start) = (start, start + *count);
        }
    }
    let mut scratch = vec![0u64; boards.len()];
    for (pass, starts) in counts.chunks_mut(radix).enumerate() {
        let (from, to) = if pass % 2 == 0 {
            (&*boards, &mut scratch[..])
        } else {
            (&*scratch, &mut *boards)
        };
        for &key in from {
            let at = &mut starts[of(key, pass)];
            to[*at] = key;
            *at += 1;
        }
    }
    // The boards back from their keys, from wherever the last pass left them.
    let board_of = |key: u64| pdep(key, varying) | all;
    if passes % 2 == 1 {
        for (board, &key) in boards.iter_mut().zip(&scratch) {
            *board = board_of(key);
        }
    } else {
        for board in boards.iter_mut() {
            *board = board_of(*board);
        }
    }
    dedup(boards)
}

/// Sorted `pieces`, each without repeats, merged into the start of `out`
/// (as long as they are together) without repeats. Returns how many boards
/// that is.
fn merge_all(pieces: &[&[u64]], out: &mut [u64]) -> usize {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    use std::collections::binary_heap::PeekMut;
    match pieces {
        [a] => {
            out[..a.len()].copy_from_slice(a);
            return a.len();
        }
        [a, b] => return merge_unique(a, b, out),
        _ => {}
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
fn merge_unique(a: &[u64], b: &[u64], out: &mut [u64]) -> usize {
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

/// Gathers one of each of sorted `boards` at the front; returns how many
/// that is. Each board is written, and kept if it differs from the one
/// before: a branch on it would be mispredicted as often as there are
/// repeats (a third of generation's children after the cache): with the
/// standard library's `dedup`, dropping them took two thirds as long as
/// the radix sort itself.
fn dedup(boards: &mut [u64]) -> usize {
    let Some(&first) = boards.first() else {
        return 0;
    };
    let mut previous = first;
    let mut kept = 1;
    for at in 1..boards.len() {
        let board = boards[at];
        boards[kept] = board;
        kept += usize::from(board != previous);
        previous = board;
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

    /// A xorshift stream from `seed`.
    fn random(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn the_radix_sort_sorts_and_drops_repeats_as_the_standard_sort() {
        let mut next = random(0x2545_F491_4F6C_DD1D);
        // Boards varying in `width` scattered bits (one to five passes, odd
        // and even counts, digits of 1 to 10 bits, and past five passes the
        // standard sort), fixed ones elsewhere, on both sides of the length
        // where the radix sort takes over.
        for width in [1, 5, 10, 11, 22, 23, 30, 33, 40, 45, 56, 64] {
            let mut varying = 0u64;
            while varying.count_ones() < width {
                varying |= 1 << (next() % 64);
            }
            let fixed = next() & !varying;
            for len in [RADIX_MIN - 1, RADIX_MIN, 3 * RADIX_MIN + 17] {
                let mut boards: Vec<u64> =
                    (0..len).map(|_| pdep(next(), varying) | fixed).collect();
                let expected = plain(boards.clone());
                let kept = sort_dedup(&mut boards);
                assert_eq!(boards[..kept], expected, "{width} bits, {len} boards");
            }
        }
    }

    /// Runs merged by ranges of keys (none, an empty one, one alone, runs
    /// that share boards, runs far apart, seven runs, a run of one board)
    /// give the plain union, and parts joined give the plain
    /// concatenation, on any number of threads.
    #[test]
    fn unions_of_runs_are_the_plain_union() {
        let mut next = random(0x3C6E_F372_FE94_F82B);
        let mut run = |len: usize, modulus: u64, offset: u64| {
            plain((0..len).map(|_| offset + next() % modulus).collect())
        };
        let shared = [run(90_000, 150_000, 0), run(70_000, 150_000, 0)];
        let apart = [run(50_000, 1 << 40, 0), run(60_000, 1 << 40, 1 << 50)];
        let many: Vec<Vec<u64>> = (0..7).map(|k| run(20_000 * k, 1 << 20, 0)).collect();
        let single = [vec![7u64; 1], run(40_000, 1 << 30, 0)];
        let cases: [&[Vec<u64>]; 6] = [&[], &[Vec::new()], &shared[..1], &shared, &apart, &many];
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for runs in cases.iter().copied().chain([&single[..]]) {
                let slices: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
                let merged = pool.install(|| union(&slices));
                assert_eq!(merged, plain(runs.concat()), "{threads} threads");
                let joined = pool.install(|| concat(runs.to_vec()));
                assert_eq!(joined, runs.concat(), "{threads} threads");
            }
        }
    }

    #[test]
    fn sorts_and_drops_repeats_as_a_plain_sort() {
        let mut next = random(0x9E37_79B9_7F4A_7C15);
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
