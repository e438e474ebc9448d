//! Boards sorted with a value each: a free formation's solved layer, found
//! in order of rank, put in order of board for its file
//! (`solve::Solved::sorted`), or to be held sorted where ranks would take
//! too much memory.
//!
//! A most-significant-digit radix sort, a byte a pass: a pass sends each
//! board to the bucket of its next byte, and a bucket of few boards is
//! sorted by the standard library. Such a layer's boards differ in all
//! their bits (its large tiles go anywhere), so a least-significant-digit
//! sort would take eight passes over it all; here each pass splits the
//! buckets into ones that soon fit the caches. The passes go back and
//! forth between the boards and values as two slices (where they end) and
//! as one vector of pairs (the scratch), so the sort works in place with
//! 16 bytes of scratch a board, where rayon's sort of pairs (1.22 times
//! slower on free8's layers; docs/tablebase-builder.md) needed the pairs
//! and two vectors for the result.

use rayon::prelude::*;

/// Bits a digit.
const DIGIT_BITS: u32 = 8;

/// Values a digit takes.
const RADIX: usize = 1 << DIGIT_BITS;

/// At most this many boards a bucket, the standard library's sort.
const LEAF: usize = 1 << 8;

/// From this many boards a bucket, its buckets are sorted in parallel.
const PARALLEL: usize = 1 << 16;

/// Counts of boards by digit.
type Counts = [usize; RADIX];

/// Sorts `boards` with their `values` by board, in place. Needs a
/// scratch vector of pairs as long as they are.
///
/// # Panics
/// If the lengths differ.
pub fn sort_with_values<V>(boards: &mut [u64], values: &mut [V])
where
    V: Copy + Default + Send + Sync,
{
    assert_eq!(boards.len(), values.len(), "one value per board");
    let mut pairs = vec![(0, V::default()); boards.len()];
    let bits = u64::BITS - DIGIT_BITS;
    // The first pass: each thread's part of the boards goes to its own
    // places in every bucket.
    let part = boards
        .len()
        .div_ceil(rayon::current_num_threads())
        .max(PARALLEL);
    let counts: Vec<Counts> = boards
        .par_chunks(part)
        .map(|part| count(part.iter().copied(), bits))
        .collect();
    let mut totals = [0; RADIX];
    for counts in &counts {
        for (total, count) in totals.iter_mut().zip(counts) {
            *total += count;
        }
    }
    let mut places: Vec<Vec<&mut [(u64, V)]>> = counts.iter().map(|_| Vec::new()).collect();
    let mut rest = &mut pairs[..];
    for digit in 0..RADIX {
        for (places, counts) in places.iter_mut().zip(&counts) {
            let place = rest.split_off_mut(..counts[digit]);
            places.push(place.expect("counts sum to the length"));
        }
    }
    (places.into_par_iter())
        .zip(boards.par_chunks(part).zip(values.par_chunks(part)))
        .for_each(|(mut places, (boards, values))| {
            let mut at = [0; RADIX];
            for (&board, &value) in boards.iter().zip(values) {
                let digit = digit(board, bits);
                places[digit][at[digit]] = (board, value);
                at[digit] += 1;
            }
        });
    let all = Bucket {
        pairs: &mut pairs,
        boards,
        values,
    };
    all.each(&totals, |bucket| bucket.sort_pairs(bits));
}

/// A bucket of boards with their values, held either as pairs or in the
/// two slices; the other is scratch.
struct Bucket<'a, V> {
    pairs: &'a mut [(u64, V)],
    boards: &'a mut [u64],
    values: &'a mut [V],
}

impl<V: Copy + Send + Sync> Bucket<'_, V> {
    /// Sorts the bucket, held as pairs, into the two slices: its boards
    /// agree above their lowest `bits`.
    fn sort_pairs(self, bits: u32) {
        if self.pairs.len() <= LEAF || bits == 0 {
            self.pairs.sort_unstable_by_key(|&(board, _)| board);
            let moved = self.boards.iter_mut().zip(self.values.iter_mut());
            for ((board, value), &pair) in moved.zip(&*self.pairs) {
                (*board, *value) = pair;
            }
            return;
        }
        let bits = bits - DIGIT_BITS;
        let counts = count(self.pairs.iter().map(|&(board, _)| board), bits);
        if counts.contains(&self.pairs.len()) {
            return self.sort_pairs(bits);
        }
        let mut at = starts(&counts);
        for &(board, value) in &*self.pairs {
            let at = &mut at[digit(board, bits)];
            (self.boards[*at], self.values[*at]) = (board, value);
            *at += 1;
        }
        self.each(&counts, |bucket| bucket.sort_slices(bits));
    }

    /// Sorts the bucket, held in the two slices, in place: its boards
    /// agree above their lowest `bits`.
    fn sort_slices(self, bits: u32) {
        let held = self.boards.iter().zip(&*self.values);
        if self.pairs.len() <= LEAF || bits == 0 {
            for (pair, (&board, &value)) in self.pairs.iter_mut().zip(held) {
                *pair = (board, value);
            }
            return self.sort_pairs(bits);
        }
        let bits = bits - DIGIT_BITS;
        let counts = count(self.boards.iter().copied(), bits);
        if counts.contains(&self.pairs.len()) {
            return self.sort_slices(bits);
        }
        let mut at = starts(&counts);
        for (&board, &value) in held {
            let at = &mut at[digit(board, bits)];
            self.pairs[*at] = (board, value);
            *at += 1;
        }
        self.each(&counts, |bucket| bucket.sort_pairs(bits));
    }

    /// Calls `sort` with each bucket of `counts` boards in turn, in
    /// parallel if this bucket is large.
    fn each(mut self, counts: &Counts, sort: impl Fn(Self) + Send + Sync) {
        let parallel = self.pairs.len() >= PARALLEL;
        let mut buckets = Vec::with_capacity(if parallel { RADIX } else { 0 });
        for &count in counts.iter().filter(|&&count| count > 0) {
            let bucket = self.split_off(count);
            if parallel {
                buckets.push(bucket);
            } else {
                sort(bucket);
            }
        }
        buckets.into_par_iter().for_each(sort);
    }

    /// The first `len` boards of the bucket, cut off from it.
    fn split_off(&mut self, len: usize) -> Self {
        const SHORT: &str = "counts sum to the bucket's length";
        Bucket {
            pairs: self.pairs.split_off_mut(..len).expect(SHORT),
            boards: self.boards.split_off_mut(..len).expect(SHORT),
            values: self.values.split_off_mut(..len).expect(SHORT),
        }
    }
}

/// The digit of `board` above its lowest `bits`.
#[inline(always)]
fn digit(board: u64, bits: u32) -> usize {
    (board >> bits) as usize & (RADIX - 1)
}

/// How many `boards` have each digit above their lowest `bits`.
fn count(boards: impl Iterator<Item = u64>, bits: u32) -> Counts {
    let mut counts = [0; RADIX];
    for board in boards {
        counts[digit(board, bits)] += 1;
    }
    counts
}

/// Where each digit's bucket starts.
fn starts(counts: &Counts) -> Counts {
    let mut starts = [0; RADIX];
    let mut start = 0;
    for (at, &count) in starts.iter_mut().zip(counts) {
        (*at, start) = (start, start + count);
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way in: few boards and many, boards that agree in their top
    /// bytes (passes that split nothing), repeats, the whole range, on
    /// one thread and several; the values go with their boards.
    #[test]
    fn sorts_as_a_plain_sort_of_pairs() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let wide: Vec<u64> = (0..300_000).map(|_| next()).collect();
        // Two buckets of the first pass whose boards agree in their next
        // bytes.
        let narrow: Vec<u64> = (0..200_000)
            .map(|i| [0xFFF0_FFF0, 0x0100_0000][i % 2] << 32 | (next() % 100_000))
            .collect();
        let skewed: Vec<u64> = (0..150_000)
            .map(|i| if i % 3 == 0 { next() } else { next() % 7 })
            .collect();
        let small: Vec<u64> = (0..1_000).map(|_| next() >> 40).collect();
        for threads in [1, 2, 5] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for boards in [&wide, &narrow, &skewed, &small, &Vec::new(), &vec![3, 1, 3]] {
                let values: Vec<u32> = (0..boards.len() as u32).collect();
                let mut expected: Vec<(u64, u32)> =
                    boards.iter().copied().zip(values.iter().copied()).collect();
                expected.sort_unstable();
                let (mut sorted, mut moved) = (boards.clone(), values);
                pool.install(|| sort_with_values(&mut sorted, &mut moved));
                let got: Vec<(u64, u32)> = sorted.into_iter().zip(moved).collect();
                // Repeats may come in any order of their values.
                let mut got_sorted = got.clone();
                got_sorted.sort_unstable();
                assert_eq!(got_sorted, expected, "{threads} threads");
                assert!(
                    got.is_sorted_by_key(|&(board, _)| board),
                    "{threads} threads"
                );
            }
        }
    }
}
