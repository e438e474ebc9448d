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
    bitmaps: Vec<Vec<u64>>,
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
        let bitmaps = (0..bitmaps()).map(|_| vec![0; words]).collect();
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
fn joined(mut bitmaps: Vec<Vec<u64>>, inside: bool) -> Option<Vec<u64>> {
    if !inside {
        return None;
    }
    // The others are joined into the last, a part at a time.
    const PART: usize = 1 << 12;
    let mut marked = bitmaps.pop().unwrap_or_default();
    marked
        .par_chunks_mut(PART)
        .enumerate()
        .for_each(|(at, words)| {
            for other in &bitmaps {
                for (word, &more) in words.iter_mut().zip(&other[at * PART..]) {
                    *word |= more;
                }
            }
        });
    Some(marked)
}

/// `words` as atomics, for threads to mark together: what the standard
/// library's `AtomicU64::from_mut_slice` does, not yet stable.
fn atomic(words: &mut [u64]) -> &[AtomicU64] {
    const _: () = assert!(align_of::<AtomicU64>() == align_of::<u64>());
    // SAFETY: `AtomicU64` has the size and bit validity of `u64`, and here
    // its alignment (asserted above); the exclusive borrow of `words`
    // lasts as long as the view, so only atomic accesses reach them.
    unsafe { &*(std::ptr::from_mut(words) as *const [AtomicU64]) }
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
    let mut sides = [after_two, after_four];
    let bitmaps = sides
        .each_ref()
        .map(|side| side.as_ref().map(|reached| reached.bitmaps.len()));
    if let [Some(two), Some(four)] = bitmaps {
        assert_eq!(two, four, "bitmaps for as many threads");
    }
    let [two, four] = sides.each_mut().map(|side| {
        let reached = side.as_deref_mut()?;
        Some((&reached.space, &mut reached.bitmaps))
    });
    let [(two_space, two_bits), (four_space, four_bits)] = [two, four].map(Option::unzip);
    let spaces = [two_space, four_space];
    let work = Marking {
        spec,
        mover,
        parent_layer,
        parents,
        exponents,
        spaces,
        free: spaces.iter().flatten().any(|space| space.is_free()),
        next: AtomicUsize::new(0),
    };
    let bitmaps = bitmaps.into_iter().flatten().next().unwrap_or(1);
    let threads = rayon::current_num_threads();
    let outside = if bitmaps > 1 || threads == 1 {
        // Each thread marks a bitmap of its own: the sides' bitmaps
        // paired by thread.
        let mut sides = [two_bits, four_bits].map(|side| side.map(|bitmaps| bitmaps.iter_mut()));
        let lanes: Vec<[Option<&mut [u64]>; 2]> = (0..bitmaps)
            .map(|_| {
                sides
                    .each_mut()
                    .map(|side| Some(side.as_mut()?.next()?.as_mut_slice()))
            })
            .collect();
        lanes
            .into_par_iter()
            .map(|lane| work.thread(lane))
            .reduce(|| [false; 2], either)
    } else {
        let shared = [two_bits, four_bits].map(|side| side.map(|bitmaps| atomic(&mut bitmaps[0])));
        (0..threads)
            .into_par_iter()
            .map(|_| work.thread(shared.map(|side| side.map(Shared))))
            .reduce(|| [false; 2], either)
    };
    for (reached, outside) in sides.into_iter().zip(outside) {
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
    /// One thread's marking in the bitmaps `bits` of each side, taking the
    /// next chunk of parents until none is left: for each side, whether a
    /// child was outside its space.
    fn thread<B: Bitmap>(&self, mut bits: [Option<B>; 2]) -> [bool; 2] {
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
                    let (Some(space), Some(bits)) = (self.spaces[side], &mut bits[side]) else {
                        continue;
                    };
                    // The ranks, each word asked for; past every word for
                    // a child outside the space.
                    let ranks = &mut ranks[..children.len()];
                    if self.free {
                        for (rank, &child) in ranks.iter_mut().zip(children.boards()) {
                            *rank = space.rank(child).unwrap_or(u64::MAX);
                            prefetch(bits.words(), (*rank / 64) as usize);
                        }
                    } else {
                        space
                            .tables()
                            .fixed_ranks(children.boards(), ranks, bits.words());
                    }
                    children.clear();
                    for &mut rank in ranks {
                        outside[side] |= !bits.set(rank);
                    }
                }
            }
        }
    }
}

/// A bitmap a thread marks.
trait Bitmap {
    type Word;

    /// Its words, to ask for ahead.
    fn words(&self) -> &[Self::Word];

    /// Sets bit `rank`: whether it was inside the bitmap.
    fn set(&mut self, rank: u64) -> bool;
}

/// A thread's own bitmap.
impl Bitmap for &mut [u64] {
    type Word = u64;

    fn words(&self) -> &[u64] {
        self
    }

    #[inline(always)]
    fn set(&mut self, rank: u64) -> bool {
        let Some(word) = self.get_mut((rank / 64) as usize) else {
            return false;
        };
        *word |= 1 << (rank % 64);
        true
    }
}

/// A bitmap all threads mark: with an atomic or, only where the bit is
/// not set yet, as most children were marked already, by a sibling or
/// another parent.
#[derive(Clone, Copy)]
struct Shared<'a>(&'a [AtomicU64]);

impl Bitmap for Shared<'_> {
    type Word = AtomicU64;

    fn words(&self) -> &[AtomicU64] {
        self.0
    }

    #[inline(always)]
    fn set(&mut self, rank: u64) -> bool {
        let Some(word) = self.0.get((rank / 64) as usize) else {
            return false;
        };
        let bit = 1 << (rank % 64);
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
        true
    }
}
