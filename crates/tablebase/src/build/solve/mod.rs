//! Backward solving: the success probability of every position of a layer
//! from the two layers after it.

mod grouped;

use rayon::prelude::*;

use crate::base::children::{MOST_CHILDREN, for_each_child};
use crate::base::expectation::{average, rate};
use crate::base::layer::{Lookup, Solved};
use crate::base::rate::Rate;
use crate::{Mover, Spec};

/// The positions of `boards` whose rate in `rates` is above 0, with their
/// rates, in order: the positions a solved layer keeps. The vectors are of
/// exact length, as a solved layer may be held for the next two, and are
/// filled in parallel pieces, where a loop had been one of the steps of a
/// layer that more threads did not shorten (docs/tablebase-builder.md).
///
/// # Panics
/// If the lengths differ.
pub(crate) fn kept<R: Rate>(boards: &[u64], rates: &[R]) -> (Vec<u64>, Vec<R>) {
    const PIECE: usize = 1 << 16;
    assert_eq!(boards.len(), rates.len(), "one rate per board");
    let zero = R::default();
    let counts: Vec<usize> = rates
        .par_chunks(PIECE)
        .map(|rates| rates.iter().filter(|&&rate| rate > zero).count())
        .collect();
    let kept = counts.iter().sum();
    let (mut kept_boards, mut kept_rates) = (vec![0; kept], vec![zero; kept]);
    // Each piece's share of the kept vectors.
    let mut shares = Vec::with_capacity(counts.len());
    let (mut boards_left, mut rates_left) = (&mut kept_boards[..], &mut kept_rates[..]);
    for count in counts {
        let (boards_share, boards_rest) = boards_left.split_at_mut(count);
        let (rates_share, rates_rest) = rates_left.split_at_mut(count);
        shares.push((boards_share, rates_share));
        (boards_left, rates_left) = (boards_rest, rates_rest);
    }
    shares
        .into_par_iter()
        .zip(boards.par_chunks(PIECE).zip(rates.par_chunks(PIECE)))
        .for_each(|((kept_boards, kept_rates), (boards, rates))| {
            let kept = boards.iter().zip(rates).filter(|&(_, &rate)| rate > zero);
            for ((to_board, to_rate), (&board, &rate)) in
                kept_boards.iter_mut().zip(kept_rates.iter_mut()).zip(kept)
            {
                (*to_board, *to_rate) = (board, rate);
            }
        });
    (kept_boards, kept_rates)
}

/// The rates of layer `index` (before the horizon) from the two solved
/// layers after it.
///
/// A lookup in a layer far larger than the caches waits on memory several
/// times (index, bucket, rate), so looking children up as the parents come
/// spends most of the time waiting. Instead, parents list their children
/// first, a batch at a time; the children are grouped by region of the
/// child layer (a counting sort), and each region's are sorted and found in
/// one walk through its boards, within the caches. The larger the batch,
/// the more lookups share a region while it is cached, so batches grow
/// with the child layers, up to 2^21 children, or `most` (see
/// [`batch_within`] and [`batch_of_threads`]); each thread keeps
/// [`scratch_bytes`] for them. Child layers whose boards are found by
/// rank (layers whose large tiles never move or go anywhere) need no
/// search: their children are looked up a group of parents at a time
/// (`grouped`), and a free formation's, found by rank in any orientation,
/// spare their canonical forms. Child layers that fit the caches are
/// looked up as the parents come, which saves the listing.
pub fn layer<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    boards: &[u64],
    layers: [&Solved<R>; 2],
    most: usize,
) -> Vec<R> {
    solve_within(spec, mover, index, boards, layers, most, CACHED)
}

/// [`layer`] from `layers` that hold only the children fetched for
/// `boards` (a part of a partitioned build's layer), which it looks up in
/// batches even where they would fit the caches: fetched children are
/// spread over the whole range of a layer's boards, and looked up as the
/// parents came, through their index, they took 1.26 times the CPU time
/// of batches building free8-32 in 16 parts (docs/distributed.md).
pub fn fetched_layer<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    boards: &[u64],
    layers: [&Solved<R>; 2],
) -> Vec<R> {
    solve_within(spec, mover, index, boards, layers, BATCH_MOST, 0)
}

/// [`layer`], looking children up as the parents come in child layers of
/// up to `cached` positions.
fn solve_within<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    boards: &[u64],
    layers: [&Solved<R>; 2],
    most: usize,
    cached: usize,
) -> Vec<R> {
    let mut rates = vec![R::default(); boards.len()];
    if layers
        .iter()
        .all(|layer| layer.is_ranked() || layer.is_empty())
    {
        rates
            .par_chunks_mut(GROUPED_TOGETHER)
            .zip(boards.par_chunks(GROUPED_TOGETHER))
            .for_each(|(rates, boards)| {
                grouped::solve(spec, mover, index, boards, layers, rates);
            });
        return rates;
    }
    if layers
        .iter()
        .all(|layer| layer.is_ranked() || layer.len() <= cached)
    {
        let [next, after] = layers;
        boards
            .par_iter()
            .with_min_len(1 << 10)
            .map(|&board| rate(spec, mover, board, index, next, after))
            .collect_into_vec(&mut rates);
        return rates;
    }
    // A work item fills about one batch, yet each thread gets several, of
    // enough parents to amortise the scheduling.
    let threads = rayon::current_num_threads();
    let batch = batch(layers, most);
    let item = (batch / CHILDREN_PER_PARENT)
        .min(boards.len().div_ceil(4 * threads))
        .max(1 << 12);
    rates
        .par_chunks_mut(item)
        .zip(boards.par_chunks(item))
        .for_each(|(rates, chunk)| {
            SWEEP.with_borrow_mut(|sweep| {
                sweep.solve(spec, mover, index, chunk, layers, batch, rates);
            });
        });
    rates
}

/// Positions a thread solves a group at a time in one call
/// (`grouped::solve`), whose lists of children (40 KB, zeroed) are made
/// for each call: for 1,024 positions a call, zeroing them was 2% of the
/// instructions valgrind counts building L3-64 (docs/tablebase-builder.md).
const GROUPED_TOGETHER: usize = 1 << 13;

/// The fewest and the most children a batch lists for each spawn (and its
/// most cell slots).
const BATCHES: std::ops::RangeInclusive<usize> = 1 << 17..=1 << 21;

/// The most children a batch lists for each spawn: for [`layer`] where
/// memory is not short.
pub const BATCH_MOST: usize = *BATCHES.end();

/// The most children a batch may list for each spawn so that a thread's
/// scratch takes at most `bytes` (but at least the smallest batch's).
pub fn batch_within(bytes: u64) -> usize {
    let children = usize::try_from(bytes / SCRATCH_PER_CHILD as u64).unwrap_or(usize::MAX);
    (1usize << children.max(1).ilog2()).clamp(*BATCHES.start(), *BATCHES.end())
}

/// The most children a batch of each of `threads` threads lists for each
/// spawn, so that their scratch together is about one thread's with
/// [`BATCH_MOST`] (but each at least the smallest batch).
pub fn batch_of_threads(threads: usize) -> usize {
    (BATCH_MOST / threads.max(1)).max(*BATCHES.start())
}

/// Scratch bytes for each child of a batch: its entries for both spawns,
/// their grouped copy and regions, the cells' best rates and the parents'
/// first slots (at most a batch's).
const SCRATCH_PER_CHILD: usize = 2 * size_of::<Wanted>() + size_of::<Wanted>() + 4 + 2 * 8 + 4;

/// Children a parent lists for each spawn, rounded up (up to 64, 2.8 on
/// average in L3 and free8): a work item of a batch's size over this many
/// parents about fills one batch.
const CHILDREN_PER_PARENT: usize = 4;

/// The children a batch lists for each spawn when looking up in `layers`:
/// a quarter of the larger, within [`BATCHES`] and at most `most`.
///
/// Work items of 8,192 parents used to list about 25,000 children a batch:
/// free8-32's largest layers (7 million positions) then solved in 560-640
/// ns a position, against 310-390 with batches of 2^21 (one thread); whole
/// builds, docs/tablebase-builder.md.
fn batch<R: Rate>(layers: [&Solved<R>; 2], most: usize) -> usize {
    children_per_batch(layers[0].len().max(layers[1].len()), most)
}

/// [`batch`] for a larger child layer of `largest` positions.
fn children_per_batch(largest: usize, most: usize) -> usize {
    (largest / 4)
        .next_power_of_two()
        .clamp(*BATCHES.start(), most.max(*BATCHES.start()))
}

/// Positions of a child layer looked up together: 32 KiB of boards.
const REGION: usize = 1 << 12;

/// Child layers up to this many positions are looked up as the parents
/// come: the boards and rates of two (32 MiB) fit the last-level cache of
/// the machine measured. 442-128 solved 5% slower in batches, L3-128 and
/// L3-256 the same (their largest layers hold 0.5 and 1 million positions),
/// free8-16 1.45 times faster; and below this no scratch is needed.
const CACHED: usize = 1 << 20;

/// The memory each thread keeps for solving once it has solved layers
/// from child layers of up to `largest` positions in batches of at most
/// `most` children a spawn, until the thread ends: none while they fit the
/// caches, else a batch's scratch and the regions' counts: 9 to 145 MiB.
pub fn scratch_bytes(largest: usize, most: usize) -> u64 {
    if largest <= CACHED {
        return 0;
    }
    (children_per_batch(largest, most) * SCRATCH_PER_CHILD + (largest / REGION + 2) * 4) as u64
}

/// The first position from `from` on whose board is not below `key`, in
/// sorted `boards`: found in steps that double from `from`, then halve, so
/// that a board near the one before is found in a few steps, all of them
/// close by.
#[inline]
pub(crate) fn gallop(boards: &[u64], from: usize, key: u64) -> usize {
    let (mut low, mut step) = (from, 1);
    while low + step < boards.len() && boards[low + step] < key {
        low += step;
        step *= 2;
    }
    let high = (low + step).min(boards.len());
    low + boards[low..high].partition_point(|&board| board < key)
}

thread_local! {
    static SWEEP: std::cell::RefCell<Sweep> = std::cell::RefCell::default();
}

/// A child to look up.
#[derive(Clone, Copy, Default)]
struct Wanted {
    /// Its canonical board.
    child: u64,
    /// The cell slot whose best move it may be.
    slot: u32,
}

/// A thread's scratch space for solving.
#[derive(Default)]
struct Sweep {
    /// For each parent of the batch, where its cells' slots start (won
    /// parents: none), and where the last one's end.
    firsts: Vec<u32>,
    /// The children to look up in the next layer and the one after.
    wanted: [Vec<Wanted>; 2],
    /// The same, grouped by region.
    grouped: Vec<Wanted>,
    /// Children per region, then where each region starts, then, once the
    /// children are grouped, where each ends.
    counts: Vec<u32>,
    /// The region of each wanted child.
    regions: Vec<u32>,
    /// For each cell slot, the best rate after a 2 and after a 4, in the
    /// rate type's units.
    best: [Vec<f64>; 2],
}

impl Sweep {
    /// The rates of `parents` (of layer `index`) into `out`, a batch of
    /// them at a time (of at most `batch` children a spawn).
    #[allow(clippy::too_many_arguments)]
    fn solve<R: Rate>(
        &mut self,
        spec: &Spec,
        mover: &Mover,
        index: usize,
        parents: &[u64],
        layers: [&Solved<R>; 2],
        batch: usize,
        out: &mut [R],
    ) {
        let mut start = 0;
        while start < parents.len() {
            let end = self.list(spec, mover, index, &parents[start..], batch) + start;
            for (side, layer) in layers.into_iter().enumerate() {
                self.look_up(side, layer);
            }
            let four = spec.four_rate();
            let batch = parents[start..end].iter().zip(&mut out[start..end]);
            for ((&board, rate), cells) in batch.zip(self.firsts.windows(2)) {
                let cells = cells[0] as usize..cells[1] as usize;
                *rate = if spec.is_won(board, index) {
                    R::ONE
                } else {
                    average(four, &self.best[0][cells.clone()], &self.best[1][cells])
                };
            }
            start = end;
        }
    }

    /// Lists the children of the first parents of `parents` that fit a
    /// batch of `batch` children for each spawn, and returns how many
    /// parents that is.
    fn list(
        &mut self,
        spec: &Spec,
        mover: &Mover,
        index: usize,
        parents: &[u64],
        batch: usize,
    ) -> usize {
        self.firsts.clear();
        for wanted in &mut self.wanted {
            wanted.clear();
            wanted.reserve_exact(batch);
        }
        let mut slots = 0u32;
        let mut listed = 0;
        for &board in parents {
            let full = |wanted: &Vec<Wanted>| wanted.len() + MOST_CHILDREN > batch;
            if slots as usize + 16 > batch || self.wanted.iter().any(full) {
                break;
            }
            self.firsts.push(slots);
            if !spec.is_won(board, index) {
                let wanted = &mut self.wanted;
                let cells = for_each_child(spec, mover, board, 1..=2, |cell, side, child| {
                    let slot = slots + cell as u32;
                    wanted[side].push(Wanted { child, slot });
                });
                slots += cells as u32;
            }
            listed += 1;
        }
        self.firsts.push(slots);
        for best in &mut self.best {
            best.clear();
            best.reserve_exact(batch);
            best.resize(slots as usize, 0.0);
        }
        listed
    }

    /// Looks up the listed children of `side` in `layer`, keeping each
    /// slot's best.
    ///
    /// In a layer found through its bucket index, a child could be searched
    /// for in its bucket, but in free8's layers, whose highest varying bits
    /// are far from uniform (a nibble holds one of a few small tiles or a
    /// large one), a bucket holds thousands of boards where 16 are meant,
    /// and a search takes 13 steps, each waiting on the one before. Sorted,
    /// a region's children are found one after the other, each a few steps
    /// past the one before: free8-32 and free8-64 took 5-7% less CPU
    /// time, free8-128 no less that this machine could tell
    /// (docs/tablebase-builder.md).
    fn look_up<R: Rate>(&mut self, side: usize, layer: &Solved<R>) {
        let (wanted, best) = (&mut self.wanted[side], &mut self.best[side]);
        let Lookup::Buckets(index) = layer.lookup() else {
            // A rank costs no search, which grouping by region would help.
            for entry in wanted.iter() {
                let best = &mut best[entry.slot as usize];
                *best = best.max(layer.child_rate(entry.child).units());
            }
            return;
        };
        // A counting sort by region of the child layer.
        let regions = layer.len() / REGION + 1;
        self.counts.clear();
        self.counts.resize(regions + 1, 0);
        self.regions.clear();
        self.regions.reserve_exact(wanted.len());
        for entry in wanted.iter() {
            let region = index.bucket_range(index.bucket(entry.child)).start / REGION;
            self.counts[region + 1] += 1;
            self.regions.push(region as u32);
        }
        for region in 1..=regions {
            self.counts[region] += self.counts[region - 1];
        }
        self.grouped.clear();
        self.grouped.reserve_exact(wanted.len());
        self.grouped.resize(wanted.len(), Wanted::default());
        for (&entry, &region) in wanted.iter().zip(&self.regions) {
            let at = &mut self.counts[region as usize];
            self.grouped[*at as usize] = entry;
            *at += 1;
        }
        // Each region's children in order, walked through its boards.
        let mut from = 0;
        for (region, &to) in self.counts[..regions].iter().enumerate() {
            let group = &mut self.grouped[from..to as usize];
            from = to as usize;
            group.sort_unstable_by_key(|entry| entry.child);
            // A child is where its bucket starts or after, and where the
            // child before it is or after.
            let mut at = region * REGION;
            for entry in &*group {
                at = gallop(layer.boards(), at, entry.child);
                let rate = match layer.boards().get(at) {
                    Some(&board) if board == entry.child => layer.rates()[at],
                    _ => R::default(),
                };
                let best = &mut best[entry.slot as usize];
                *best = best.max(rate.units());
            }
        }
    }
}

#[cfg(test)]
mod tests;
