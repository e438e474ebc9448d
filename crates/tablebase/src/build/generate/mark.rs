//! Layers marked by rank: one bit for each child in a bitmap of the
//! boards of the layer's tile sum.

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::CHUNK;
use crate::base::children::{GROUP, LISTED, Listed, list_children};
use crate::base::layer::rank::{Marks, Space, bitmap_words};
use crate::base::prefetch::prefetch;
use crate::{Mover, Spec};

/// A layer's positions marked by rank, for formations whose large tiles
/// never move ([`crate::Formation::fixed_large`]) or go anywhere (the free
/// formations, ranked by class of symmetric boards:
/// [`crate::Formation::anywhere_large`]): where [`super::run`] lists the
/// children to sort them, [`mark`] sets one bit for each child in a bitmap
/// of the boards of the layer's tile sum (a `rank::Space`): nothing to
/// hold, sort or merge, and the layer comes out in order. Generating
/// L3-256's layers in memory took 1.5 times less CPU than sorting
/// (docs/tablebase-builder.md).
///
/// Up to two threads (`OWN_BITMAPS_MOST`) each mark a bitmap of their own,
/// joined at the end; more share one, marked with atomic ors. A bitmap a
/// thread made memory and the joining grow with the threads (free8-32 at
/// 16 threads: 3.8 times the peak memory of one thread and twice its CPU
/// time), while atomic ors, which wait for the stores before them, spent
/// a tenth more CPU time than plain ones.
pub struct Reached {
    space: Space,
    /// One bitmap, or one for each thread.
    bitmaps: Vec<Vec<AtomicU64>>,
    /// Whether every child marked was in the space.
    inside: bool,
}

/// The most threads that mark bitmaps of their own: two threads' second
/// bitmap added a tenth to L3-256's peak memory.
const OWN_BITMAPS_MOST: usize = 2;

impl Reached {
    /// Marks for layer `index`, if the formation's large tiles never move
    /// or go anywhere, its positions form a `rank::Space`, and the space's
    /// tables and bitmaps take at most `most` bytes.
    pub fn new(spec: &Spec, index: usize, most: u64) -> Option<Self> {
        let bitmaps = bitmaps() as u64;
        let space = Space::of_layer(spec, index, |tables, count| {
            tables + bitmaps * bitmap_words(count) * 8 <= most
        })?;
        Some(Self::in_space(space))
    }

    /// Marks for the boards of `space`, whatever they take.
    pub fn in_space(space: Space) -> Self {
        let words = bitmap_words(space.len()) as usize;
        let bitmaps = (0..bitmaps())
            .map(|_| (0..words).map(|_| AtomicU64::new(0)).collect())
            .collect();
        Self {
            space,
            bitmaps,
            inside: true,
        }
    }

    /// The bytes its tables and bitmaps take: what [`Reached::new`] held
    /// within its bound.
    pub fn bytes(&self) -> u64 {
        self.space.table_bytes() + self.bitmaps.len() as u64 * bitmap_words(self.space.len()) * 8
    }

    /// The positions marked, or `None` if a child was outside the space:
    /// the layer is then not this one's to make.
    pub fn into_marks(self) -> Option<Marks> {
        let space = self.space;
        let marked = joined(self.bitmaps, self.inside)?;
        Some(Marks::new(space, marked).expect("one word for every 64 boards of the space"))
    }

    /// The bitmap of the ranks marked, or `None` if a child was outside
    /// the space.
    pub fn into_bits(self) -> Option<Vec<u64>> {
        joined(self.bitmaps, self.inside)
    }
}

/// The bitmaps marks are made in on this thread pool: one for each
/// thread, or one for all.
fn bitmaps() -> usize {
    match rayon::current_num_threads() {
        threads if threads <= OWN_BITMAPS_MOST => threads,
        _ => 1,
    }
}

/// The bitmaps joined into one, if every child marked was `inside` the
/// space.
fn joined(mut bitmaps: Vec<Vec<AtomicU64>>, inside: bool) -> Option<Vec<u64>> {
    if !inside {
        return None;
    }
    // The others are joined into the last, a part at a time, each by
    // one thread; the two types have the same layout, so it is made plain
    // in place.
    const PART: usize = 1 << 12;
    let marked = bitmaps.pop().unwrap_or_default();
    marked.par_chunks(PART).enumerate().for_each(|(at, words)| {
        for other in &bitmaps {
            for (word, more) in words.iter().zip(&other[at * PART..]) {
                let joined = word.load(Ordering::Relaxed) | more.load(Ordering::Relaxed);
                word.store(joined, Ordering::Relaxed);
            }
        }
    });
    Some(marked.into_iter().map(AtomicU64::into_inner).collect())
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
/// If the two have bitmaps for different numbers of threads.
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
    let sides = [&after_two, &after_four].map(|side| side.as_deref());
    let bitmaps = sides.map(|side| side.map(|reached| reached.bitmaps.len()));
    if let [Some(two), Some(four)] = bitmaps {
        assert_eq!(two, four, "bitmaps for as many threads");
    }
    let work = Marking {
        spec,
        mover,
        parent_layer,
        parents,
        exponents,
        spaces: sides.map(|side| side.map(|reached| &reached.space)),
        free: sides
            .iter()
            .flatten()
            .any(|reached| reached.space.is_free()),
        next: AtomicUsize::new(0),
    };
    let bitmaps = bitmaps.into_iter().flatten().next().unwrap_or(1);
    let threads = rayon::current_num_threads();
    let lane = |lane: usize| sides.map(|side| side.map(|reached| &reached.bitmaps[lane][..]));
    let outside = if bitmaps > 1 || threads == 1 {
        // Each thread marks a bitmap of its own.
        (0..bitmaps)
            .into_par_iter()
            .map(|at| work.thread::<true>(lane(at)))
            .reduce(|| [false; 2], either)
    } else {
        (0..threads)
            .into_par_iter()
            .map(|_| work.thread::<false>(lane(0)))
            .reduce(|| [false; 2], either)
    };
    for (reached, outside) in [after_two, after_four].into_iter().zip(outside) {
        if let Some(reached) = reached {
            reached.inside &= !outside;
        }
    }
}

/// Each side's flag of `a` or of `b`.
fn either([a, b]: [bool; 2], [c, d]: [bool; 2]) -> [bool; 2] {
    [a || c, b || d]
}

/// One call of [`mark`]: what every thread reads.
struct Marking<'a> {
    spec: &'a Spec,
    mover: &'a Mover,
    parent_layer: usize,
    parents: &'a [u64],
    exponents: RangeInclusive<u8>,
    /// The space of each layer marked: after a 2, after a 4.
    spaces: [Option<&'a Space>; 2],
    /// Whether the spaces are a free formation's.
    free: bool,
    /// The first parent no thread has taken.
    next: AtomicUsize,
}

impl Marking<'_> {
    /// One thread's marking in the bitmaps `bits` of each side (`OWN`
    /// where no other thread marks them), taking the next chunk of parents
    /// until none is left: for each side, whether a child was outside its
    /// space.
    fn thread<const OWN: bool>(&self, bits: [Option<&[AtomicU64]>; 2]) -> [bool; 2] {
        let mut outside = [false; 2];
        let mut children = [(); 2].map(|()| Listed::<()>::new());
        let mut ranks = vec![0; LISTED];
        loop {
            let start = self.next.fetch_add(CHUNK, Ordering::Relaxed);
            let end = (start + CHUNK).min(self.parents.len());
            let Some(chunk) = self.parents.get(start..end) else {
                break outside;
            };
            for group in chunk.chunks(GROUP) {
                for &board in group {
                    if self.spec.is_won(board, self.parent_layer) {
                        continue;
                    }
                    // Free formations' children ranked alike in every
                    // orientation, as their moves left them.
                    list_children(
                        self.spec,
                        self.mover,
                        board,
                        self.exponents.clone(),
                        self.free,
                        &mut children,
                        |_, _| (),
                    );
                }
                for (side, children) in children.iter_mut().enumerate() {
                    let (Some(space), Some(bits)) = (self.spaces[side], bits[side]) else {
                        continue;
                    };
                    // The ranks, each word asked for; past every word for
                    // a child outside the space.
                    let ranks = &mut ranks[..children.len()];
                    if self.free {
                        for (rank, &child) in ranks.iter_mut().zip(children.boards()) {
                            *rank = space.rank(child).unwrap_or(u64::MAX);
                            prefetch(bits, (*rank / 64) as usize);
                        }
                    } else {
                        space.tables().fixed_ranks(children.boards(), ranks, bits);
                    }
                    children.clear();
                    for &mut rank in ranks {
                        outside[side] |= !set::<OWN>(bits, rank);
                    }
                }
            }
        }
    }
}

/// Sets bit `rank` of `bits`: whether it was inside them. Where the
/// bitmap is the thread's `OWN`, with a plain store; else with an atomic
/// or, only where the bit is not set yet: most children were marked
/// already, by a sibling or another parent.
#[inline(always)]
fn set<const OWN: bool>(bits: &[AtomicU64], rank: u64) -> bool {
    let Some(word) = bits.get((rank / 64) as usize) else {
        return false;
    };
    let bit = 1 << (rank % 64);
    let was = word.load(Ordering::Relaxed);
    if OWN {
        word.store(was | bit, Ordering::Relaxed);
    } else if was & bit == 0 {
        word.fetch_or(bit, Ordering::Relaxed);
    }
    true
}
