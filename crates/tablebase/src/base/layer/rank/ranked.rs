//! Lookups by rank in a solved layer ([`Ranked`]): the bitmap of the
//! ranks it holds, with counts, so that a board's rank gives its position.

use system::bits::pdep;

use crate::base::position::large_nibbles;
use crate::base::position::tile_sum;
use crate::base::prefetch::prefetch;

use super::{
    MOST_BYTES_PER_FREE_POSITION, MOST_BYTES_PER_POSITION, Marks, SPARE_BYTES, Space, Tables,
    bitmap_words,
};

/// Rank lookups over one sorted layer.
#[derive(Clone, Debug)]
pub struct Ranked {
    /// The boards of the layer's large cells and tile sum.
    pub(super) space: Space,
    /// The ranks the layer holds, 64 a word, and for each word the layer's
    /// positions of lower ranks.
    words: Vec<Word>,
}

/// 64 ranks of the bitmap.
#[derive(Clone, Copy, Debug, Default)]
struct Word {
    /// The ranks the layer holds.
    bits: u64,
    /// The layer's positions of lower ranks.
    before: u64,
}

impl Ranked {
    /// Rank lookups over `boards` (sorted, without repeats), if they all
    /// hold their large tiles in the same cells and have the same tile sum
    /// in a [`Space`], and the lookups take at most [`SPARE_BYTES`] and
    /// [`MOST_BYTES_PER_POSITION`].
    pub fn new(boards: &[u64]) -> Option<Self> {
        Self::within(
            boards,
            SPARE_BYTES + MOST_BYTES_PER_POSITION * boards.len() as u64,
        )
    }

    /// The same, if the lookups take at most `most` bytes.
    pub(super) fn within(boards: &[u64], most: u64) -> Option<Self> {
        let &first = boards.first()?;
        let large = large_nibbles(first);
        let sum = u64::from(tile_sum(first & !large));
        let space = Space::within(large, sum, |tables, count| {
            tables + bitmap_words(count) * size_of::<Word>() as u64 <= most
        })?;
        let mut words = vec![Word::default(); bitmap_words(space.len()) as usize];
        for &board in boards {
            let rank = space.exact_rank(board)?;
            words[(rank / 64) as usize].bits |= 1 << (rank % 64);
        }
        let mut before = 0;
        for word in &mut words {
            word.before = before;
            before += u64::from(word.bits.count_ones());
        }
        Some(Self { space, words })
    }

    /// Rank lookups over the boards of `space` of `ranks`, in increasing
    /// order, whatever they take; `None` if a rank is out of order,
    /// repeated or past the space's boards.
    pub(crate) fn of_ranks(space: Space, ranks: &[u64]) -> Option<Self> {
        if !ranks.is_sorted() || ranks.last().is_some_and(|&last| last >= space.len()) {
            return None;
        }
        // The words in turn, each written once: the ranks are in order.
        let count = bitmap_words(space.len()) as usize;
        let mut words = Vec::with_capacity(count);
        let mut ranks = ranks.iter().peekable();
        let mut before = 0;
        for word in 0..count as u64 {
            let mut bits = 0u64;
            while let Some(&&rank) = ranks.peek() {
                if rank / 64 != word {
                    break;
                }
                // A repeated rank would be counted twice.
                if bits & 1 << (rank % 64) != 0 {
                    return None;
                }
                bits |= 1 << (rank % 64);
                ranks.next();
            }
            words.push(Word { bits, before });
            before += u64::from(bits.count_ones());
        }
        Some(Self { space, words })
    }

    /// Rank lookups over the positions of `marks` that `keep` keeps (by
    /// position), if they take at most [`SPARE_BYTES`] and
    /// [`MOST_BYTES_PER_POSITION`] for each position marked (for a free
    /// formation, [`MOST_BYTES_PER_FREE_POSITION`] for each kept): the
    /// same lookups as [`Ranked::new`]'s, from the ranks the marks hold,
    /// where [`Ranked::new`] works out each board's.
    ///
    /// A fixed formation's bound counts the positions marked, not those
    /// kept, as the layer was solved with lookups allowed for each: the
    /// layers near the horizon, most of whose positions are lost, are
    /// then found by rank too, where their bucket index cost L3-256 about
    /// 0.9 s more (docs/tablebase-builder.md).
    pub fn of_kept(marks: &Marks, keep: impl Fn(usize) -> bool) -> Option<Self> {
        let mut words = Vec::with_capacity(marks.bits.len());
        let (mut position, mut before) = (0, 0);
        for &marked in &marks.bits {
            // The word's positions kept, one bit each, put in the places of
            // its marks: a branch on each mark, kept or not, cost a
            // mispredicted jump for most lost positions.
            let count = marked.count_ones() as usize;
            let kept = (0..count).fold(0, |kept, at| kept | u64::from(keep(position + at)) << at);
            let bits = pdep(kept, marked);
            position += count;
            words.push(Word { bits, before });
            before += u64::from(bits.count_ones());
        }
        let ranked = Self {
            space: marks.space.clone(),
            words,
        };
        let most = if marks.space.is_free() {
            MOST_BYTES_PER_FREE_POSITION * before
        } else {
            MOST_BYTES_PER_POSITION * marks.len() as u64
        };
        (before > 0 && ranked.bytes() <= SPARE_BYTES + most).then_some(ranked)
    }

    /// The bytes the lookups take: the space's tables and the bitmap.
    pub(crate) fn bytes(&self) -> u64 {
        self.space.table_bytes() + (self.words.len() * size_of::<Word>()) as u64
    }

    /// The number of positions it finds.
    pub(crate) fn len(&self) -> usize {
        self.words.last().map_or(0, |word| {
            (word.before + u64::from(word.bits.count_ones())) as usize
        })
    }

    /// Whether the layer's positions are classes of a free formation's
    /// boards, in order of rank ([`Space::placed`]).
    pub fn is_free(&self) -> bool {
        self.space.is_free()
    }

    /// The position of `board` in the layer, if it holds it.
    pub fn find(&self, board: u64) -> Option<usize> {
        self.at(self.space.exact_rank(board)?)
    }

    /// The same for a board of the layer's tile sum (see [`Space::rank`]).
    #[inline(always)]
    pub fn position(&self, board: u64) -> Option<usize> {
        self.at(self.space.rank(board)?)
    }

    /// The rank of a board of the layer's tile sum (see [`Space::rank`]),
    /// to find with [`Ranked::at`].
    #[inline(always)]
    pub(crate) fn rank(&self, board: u64) -> Option<u64> {
        self.space.rank(board)
    }

    /// Its space's tables as plain values ([`Tables`]), for a loop that
    /// ranks many boards.
    #[inline(always)]
    pub(crate) fn tables(&self) -> Tables<'_> {
        self.space.tables()
    }

    /// Its bitmap as a plain value ([`Positions`]), for a loop that finds
    /// many ranks.
    #[inline(always)]
    pub(crate) fn positions(&self) -> Positions<'_> {
        Positions { words: &self.words }
    }

    /// The position of the board of `rank`, if the layer holds it.
    #[inline(always)]
    pub(crate) fn at(&self, rank: u64) -> Option<usize> {
        self.positions().at(rank)
    }
}

/// A [`Ranked`]'s bitmap borrowed, as [`Tables`] are.
#[derive(Clone, Copy)]
pub(crate) struct Positions<'a> {
    words: &'a [Word],
}

impl<'a> Positions<'a> {
    /// Its words, 64 ranks each, for [`Tables::fixed_ranks`] to ask for.
    pub(crate) fn words(self) -> &'a [impl Sized] {
        self.words
    }

    /// Asks the CPU to fetch what [`Positions::at`] reads for `rank`.
    #[inline(always)]
    pub(crate) fn prefetch(self, rank: u64) {
        prefetch(self.words, (rank / 64) as usize);
    }

    /// The position of the board of `rank`, if the layer holds it (none
    /// for a rank past the space's boards).
    #[inline(always)]
    pub(crate) fn at(self, rank: u64) -> Option<usize> {
        let (position, held) = self.place(rank);
        held.then_some(position)
    }

    /// The position the board of `rank` has or would have among the
    /// layer's, and whether the layer holds it: for a caller that keeps
    /// the position either way and moves on by `held`, without a branch
    /// on it. A rank past the space's boards is not held.
    #[inline(always)]
    pub(crate) fn place(self, rank: u64) -> (usize, bool) {
        let word = (rank / 64) as usize;
        let bit = 1 << (rank % 64);
        let Word { bits, before } = self.words.get(word).copied().unwrap_or_default();
        let below = before + u64::from((bits & (bit - 1)).count_ones());
        (below as usize, bits & bit != 0)
    }
}
