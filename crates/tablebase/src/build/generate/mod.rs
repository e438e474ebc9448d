//! Forward generation: every position a layer's positions lead to.

mod mark;

use rayon::prelude::*;

pub use mark::{Reached, mark};

use crate::base::children::children;
use crate::base::sort::{concat, sort_unique, union};
use crate::{Mover, Spec};

/// Boards per parallel work item: large enough to amortise the scheduling,
/// small enough to balance two to sixteen threads.
const CHUNK: usize = 1 << 12;

/// A direct-mapped cache of the children seen last: neighbouring parents
/// share many children, and dropping the repeats before sorting makes the
/// sort several times shorter (the reference builder does the same). It is
/// lossy: a repeat that was evicted is sorted out later.
struct Recent {
    slots: Box<[u64; Recent::SLOTS]>,
}

impl Recent {
    const SLOTS: usize = 1 << 12;

    fn new() -> Self {
        Self {
            slots: Box::new([u64::MAX; Self::SLOTS]),
        }
    }

    /// Whether `board` is not in its slot, which it then takes.
    #[inline]
    fn is_new(&mut self, board: u64) -> bool {
        let hash = board.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SLOTS.ilog2());
        let slot = &mut self.slots[hash as usize];
        let new = *slot != board;
        *slot = board;
        new
    }
}

/// Layer `index`: the children of layer `index - 1` with a 2 spawned and of
/// layer `index - 2` with a 4, sorted and without repeats. Parents that are
/// won ([`Spec::is_won`]) or in the horizon are not expanded; the caller
/// passes an empty slice for a parent layer that is not expanded at all.
/// `index` is at least 1: layer 0 is the seeds.
///
/// Marked by rank ([`Reached`]) where the formation allows it within
/// [`REACHED_BYTES_PER_PARENT`], else sorted ([`by_sorting`]).
pub fn layer(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    after_two: &[u64],
    after_four: &[u64],
) -> Vec<u64> {
    let parents = (after_two.len() + after_four.len()) as u64;
    if let Some(mut reached) = Reached::new(spec, index, REACHED_BYTES_PER_PARENT * parents) {
        mark(
            spec,
            mover,
            index - 1,
            after_two,
            [Some(&mut reached), None],
        );
        if index >= 2 {
            mark(
                spec,
                mover,
                index - 2,
                after_four,
                [None, Some(&mut reached)],
            );
        }
        if let Some(marks) = reached.into_marks() {
            return marks.sorted_boards();
        }
    }
    by_sorting(spec, mover, index, after_two, after_four)
}

/// [`layer`] by listing and sorting the children ([`run`], [`merge`]),
/// whatever the formation.
pub fn by_sorting(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    after_two: &[u64],
    after_four: &[u64],
) -> Vec<u64> {
    let mut runs = vec![run(spec, mover, index - 1, 1, after_two)];
    if index >= 2 {
        runs.push(run(spec, mover, index - 2, 2, after_four));
    }
    merge(runs)
}

/// The children of `parents`, positions of layer `parent_layer`, with a
/// tile of `exponent` spawned: sorted and without repeats. Won parents are
/// not expanded. A layer generated in pieces is the [`merge`] of the runs
/// of its parents' pieces.
///
/// The children are sorted once, all together: sorting each work item's
/// first removed few repeats (6% on L3-128, whose repeats are mostly
/// between work items) and cost 5% of the whole build.
pub fn run(
    spec: &Spec,
    mover: &Mover,
    parent_layer: usize,
    exponent: u8,
    parents: &[u64],
) -> Vec<u64> {
    let parts = parents
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut out = Vec::with_capacity(chunk.len() * 8);
            let mut recent = Recent::new();
            for &board in chunk {
                if !spec.is_won(board, parent_layer) {
                    children(spec, mover, board, exponent, &mut |child| {
                        if recent.is_new(child) {
                            out.push(child);
                        }
                    });
                }
            }
            out
        })
        .collect::<Vec<_>>();
    sort_unique(concat(parts))
}

/// The most bytes [`Reached`] may take for each parent of the layer when
/// memory is not short: no more than sorting holds (8 bytes for each
/// child the cache lets through, about three a parent, and their sorted
/// copy). The bitmaps of a layer take one bit for each board of its sum
/// and tile cells: 7 to 27 for each position in L3-256's large layers.
pub const REACHED_BYTES_PER_PARENT: u64 = 8;

/// The sorted union of runs (each sorted and without repeats), without
/// repeats: a layer's runs from its two parent layers, or from the pieces
/// of a layer generated within a budget, merged by ranges of keys on all
/// threads (`sort::union`).
pub fn merge(mut runs: Vec<Vec<u64>>) -> Vec<u64> {
    match &mut runs[..] {
        [] => Vec::new(),
        [run] => std::mem::take(run),
        runs => union(&runs.iter().map(Vec::as_slice).collect::<Vec<_>>()),
    }
}

#[cfg(test)]
mod tests;
