//! Forward generation: every position a layer's positions lead to.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::base::children::{GROUP, LISTED, Listed, children, list_children};
use crate::base::layer::rank::{Marks, Space, bitmap_words};
use crate::base::prefetch::prefetch;
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

/// A layer's positions marked by rank, for formations whose large tiles
/// never move ([`crate::Formation::fixed_large`]) or go anywhere (the free
/// formations, ranked by class of symmetric boards:
/// [`crate::Formation::anywhere_large`]): where [`run`] lists the
/// children to sort them, [`mark`] sets one bit for each child in a bitmap
/// of the boards of the layer's tile sum (a `rank::Space`): nothing to
/// hold, sort or merge, and the layer comes out in order. Generating
/// L3-256's layers in memory took 1.5 times less CPU than sorting
/// (docs/tablebase-builder.md). Each thread marks a bitmap of its own,
/// joined at the end.
pub struct Reached {
    space: Space,
    /// One bitmap a thread.
    bits: Vec<Vec<u64>>,
    /// Whether every child marked was in the space.
    inside: bool,
}

impl Reached {
    /// Marks for layer `index`, if the formation's large tiles never move
    /// or go anywhere, its positions form a `rank::Space`, and the space's
    /// tables and a bitmap for each thread take at most `most` bytes.
    pub fn new(spec: &Spec, index: usize, most: u64) -> Option<Self> {
        let threads = rayon::current_num_threads() as u64;
        let space = Space::of_layer(spec, index, |tables, count| {
            tables + threads * bitmap_words(count) * 8 <= most
        })?;
        Some(Self::in_space(space))
    }

    /// Marks for the boards of `space`, whatever they take: a bitmap of
    /// it for each thread.
    pub fn in_space(space: Space) -> Self {
        let words = bitmap_words(space.len()) as usize;
        let threads = rayon::current_num_threads();
        let bits = (0..threads).map(|_| vec![0; words]).collect();
        Self {
            space,
            bits,
            inside: true,
        }
    }

    /// The bytes its tables and bitmaps take: what [`Reached::new`] held
    /// within its bound.
    pub fn bytes(&self) -> u64 {
        self.space.table_bytes() + self.bits.len() as u64 * bitmap_words(self.space.len()) * 8
    }

    /// Its space, and its bitmaps and flag to mark them by.
    fn parts(&mut self) -> (&Space, std::slice::IterMut<'_, Vec<u64>>, &mut bool) {
        (&self.space, self.bits.iter_mut(), &mut self.inside)
    }

    /// The positions marked by every thread, or `None` if a child was
    /// outside the space: the layer is then not this one's to make.
    pub fn into_marks(self) -> Option<Marks> {
        let marked = joined(self.bits, self.inside)?;
        Some(Marks::new(self.space, marked).expect("one word for every 64 boards of the space"))
    }

    /// The bitmap of the ranks marked by every thread, or `None` if a
    /// child was outside the space.
    pub fn into_bits(self) -> Option<Vec<u64>> {
        joined(self.bits, self.inside)
    }
}

/// The threads' bitmaps `bits` joined into one, if every child marked was
/// `inside` the space.
fn joined(mut bits: Vec<Vec<u64>>, inside: bool) -> Option<Vec<u64>> {
    if !inside {
        return None;
    }
    // The other threads' bitmaps are joined into one, a part at a time.
    const PART: usize = 1 << 12;
    let mut marked = bits.pop().unwrap_or_default();
    marked
        .par_chunks_mut(PART)
        .enumerate()
        .for_each(|(at, words)| {
            for other in &bits {
                for (word, &more) in words.iter_mut().zip(&other[at * PART..]) {
                    *word |= more;
                }
            }
        });
    Some(marked)
}

/// Marks the children of `parents`, positions of layer `parent_layer`
/// (won parents are not expanded): those after a 2 in `after_two`, the
/// marks of the next layer, and those after a 4 in `after_four`, the
/// marks of the layer after it. Given both, each parent is listed once
/// for the two (its moves and empty cells found once, and read once by a
/// caller that reads its layer for each), where a layer at a time lists
/// it twice: L3-128 generated in about a seventh less time
/// (docs/tablebase-builder.md). A child outside its marks' space makes
/// that layer not theirs to make ([`Reached::into_marks`]).
///
/// The children of a group of 32 parents are listed first (`Listed`),
/// then ranked, each rank's word asked for, then marked: the marks of
/// many wait on memory at once (free8-32's largest layers marked in a
/// tenth less time, in a harness on one thread), and each pass is a loop
/// short enough for the compiler to keep what it reads in registers
/// (docs/tablebase-builder.md).
///
/// # Panics
/// If the two were made for different numbers of threads.
pub fn mark(
    spec: &Spec,
    mover: &Mover,
    parent_layer: usize,
    parents: &[u64],
    [after_two, after_four]: [Option<&mut Reached>; 2],
) {
    let exponents = match (&after_two, &after_four) {
        (Some(_), Some(_)) => 1..=2,
        (Some(_), None) => 1..=1,
        (None, Some(_)) => 2..=2,
        (None, None) => return,
    };
    let [mut two, mut four] = [after_two, after_four].map(|reached| reached.map(Reached::parts));
    let spaces = [&two, &four].map(|part| part.as_ref().map(|&(space, ..)| space));
    let free = spaces.iter().flatten().any(|space| space.is_free());
    let threads = [&two, &four].map(|part| part.as_ref().map(|(_, bits, _)| bits.len()));
    if let [Some(two), Some(four)] = threads {
        assert_eq!(two, four, "bitmaps for as many threads");
    }
    // Each thread's bitmaps, one for each layer marked.
    let lanes: Vec<[Option<&mut Vec<u64>>; 2]> = std::iter::from_fn(|| {
        let lane = [&mut two, &mut four].map(|part| part.as_mut()?.1.next());
        lane.iter().any(Option::is_some).then_some(lane)
    })
    .collect();
    // Each thread takes the next chunk of parents until none is left.
    let next = AtomicUsize::new(0);
    let outside = lanes
        .into_par_iter()
        .map(|mut lane| {
            let mut outside = [false; 2];
            let mut children = [(); 2].map(|()| Listed::<()>::new());
            let mut ranks = vec![0; LISTED];
            loop {
                let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                let Some(chunk) = parents.get(start..(start + CHUNK).min(parents.len())) else {
                    break outside;
                };
                for group in chunk.chunks(GROUP) {
                    for &board in group {
                        if spec.is_won(board, parent_layer) {
                            continue;
                        }
                        // Free formations' children ranked alike in every
                        // orientation, as their moves left them.
                        let exponents = exponents.clone();
                        list_children(
                            spec,
                            mover,
                            board,
                            exponents,
                            free,
                            &mut children,
                            |_, _| (),
                        );
                    }
                    for (side, children) in children.iter_mut().enumerate() {
                        let (Some(space), Some(bits)) = (spaces[side], &mut lane[side]) else {
                            continue;
                        };
                        // The ranks, each word asked for; past every word
                        // for a child outside the space.
                        let ranks = &mut ranks[..children.len()];
                        if free {
                            for (rank, &child) in ranks.iter_mut().zip(children.boards()) {
                                *rank = space.rank(child).unwrap_or(u64::MAX);
                                prefetch(bits, (*rank / 64) as usize);
                            }
                        } else {
                            space.tables().fixed_ranks(children.boards(), ranks, bits);
                        }
                        children.clear();
                        for &mut rank in ranks {
                            match bits.get_mut((rank / 64) as usize) {
                                Some(word) => *word |= 1 << (rank % 64),
                                None => outside[side] = true,
                            }
                        }
                    }
                }
            }
        })
        .reduce(|| [false; 2], |[a, b], [c, d]| [a || c, b || d]);
    for (part, outside) in [two, four].into_iter().zip(outside) {
        if let Some((_, _, inside)) = part {
            *inside &= !outside;
        }
    }
}

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
