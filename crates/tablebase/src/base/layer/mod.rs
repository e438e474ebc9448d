//! A solved layer held in memory: sorted boards, their rates and what
//! finds a board among them (an index of buckets, or ranks).

pub(crate) mod index;
pub(crate) mod rank;

use std::borrow::Cow;

use crate::base::layer::index::Index;
use crate::base::layer::rank::Ranked;
use crate::base::rate::Rate;
use crate::base::sort::sort_with_values;

/// A solved layer in memory: sorted boards, their success rates (a board
/// that is not there is worth 0) in the type the table is solved in
/// ([`Rate`]), and what finds a board among them.
#[derive(Clone, Debug)]
pub struct Solved<R = f64> {
    boards: Vec<u64>,
    rates: Vec<R>,
    lookup: Lookup,
}

impl<R> Default for Solved<R> {
    fn default() -> Self {
        Self {
            boards: Vec::new(),
            rates: Vec::new(),
            lookup: Lookup::default(),
        }
    }
}

/// How a layer finds a board's position.
#[derive(Clone, Debug)]
pub(crate) enum Lookup {
    /// A binary search in an index bucket.
    Buckets(Index),
    /// The board's rank, for layers whose large tiles never move or go
    /// anywhere (`rank::Space`).
    Ranks(Box<Ranked>),
}

impl Default for Lookup {
    fn default() -> Self {
        Self::Buckets(Index::default())
    }
}

impl<R: Rate> Solved<R> {
    /// A solved layer of sorted `boards` and their `rates`.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn new(boards: Vec<u64>, rates: Vec<R>) -> Self {
        let ranked = Ranked::new(&boards);
        Self::with_ranks(boards, rates, ranked)
    }

    /// The same, found by `ranked` if given (the lookups [`Ranked::new`]
    /// makes for the boards or none), else through an index.
    ///
    /// # Panics
    /// If the lengths differ.
    pub(crate) fn with_ranks(boards: Vec<u64>, rates: Vec<R>, ranked: Option<Ranked>) -> Self {
        assert_eq!(boards.len(), rates.len(), "one rate per board");
        let lookup = match ranked {
            Some(ranked) => Lookup::Ranks(Box::new(ranked)),
            None => Lookup::Buckets(Index::new(&boards)),
        };
        Self {
            boards,
            rates,
            lookup,
        }
    }

    /// A layer found by rank through `ranked` alone, of the positions it
    /// holds, with their `rates` in order of rank, without their boards:
    /// the children a part of a partitioned build fetched for the rates
    /// it looks up by rank, whose boards it would list only to rank them
    /// again. Its [`Solved::boards`] are empty; lookups work.
    ///
    /// # Panics
    /// If `ranked` holds another number of positions.
    pub(crate) fn by_rank(rates: Vec<R>, ranked: Ranked) -> Self {
        assert_eq!(ranked.len(), rates.len(), "one rate per rank held");
        Self {
            boards: Vec::new(),
            rates,
            lookup: Lookup::Ranks(Box::new(ranked)),
        }
    }

    /// The positions, sorted; for a free formation's layer found by rank
    /// as the builder holds it, in order of rank (and sorted for its
    /// files).
    pub fn boards(&self) -> &[u64] {
        &self.boards
    }

    /// The boards, sorted, with their rates, as files hold them: a copy
    /// for a free formation's layer found by rank, whose boards are in
    /// order of rank.
    pub(crate) fn sorted(&self) -> (Cow<'_, [u64]>, Cow<'_, [R]>) {
        if self.is_ranked_by_class() {
            let (mut boards, mut rates) = (self.boards.clone(), self.rates.clone());
            sort_with_values(&mut boards, &mut rates);
            (Cow::Owned(boards), Cow::Owned(rates))
        } else {
            (Cow::Borrowed(&self.boards), Cow::Borrowed(&self.rates))
        }
    }

    /// How a board is found among them.
    pub(crate) fn lookup(&self) -> &Lookup {
        &self.lookup
    }

    /// Their success rates.
    pub fn rates(&self) -> &[R] {
        &self.rates
    }

    /// Whether boards are found by rank (see [`crate::base::layer::rank`]), which reads
    /// little memory, rather than searched for.
    pub(crate) fn is_ranked(&self) -> bool {
        matches!(self.lookup, Lookup::Ranks(_))
    }

    /// Whether a board is found in any orientation, so that children
    /// need no canonical form: in a free formation's layer found by rank,
    /// or in no layer at all.
    #[inline]
    pub(crate) fn finds_every_orientation(&self) -> bool {
        self.is_ranked_by_class() || self.is_empty()
    }

    /// Whether boards are found by the rank of their class, in a free
    /// formation's layer as the builder holds it (`rank::Space::placed`).
    pub(crate) fn is_ranked_by_class(&self) -> bool {
        matches!(&self.lookup, Lookup::Ranks(ranked) if ranked.is_free())
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.rates.len()
    }

    /// Whether the layer holds no position.
    pub fn is_empty(&self) -> bool {
        self.rates.is_empty()
    }

    /// The bytes it takes in memory: boards, rates and lookups.
    pub(crate) fn bytes(&self) -> u64 {
        let lookups = match &self.lookup {
            Lookup::Buckets(index) => index.bytes(),
            Lookup::Ranks(ranked) => ranked.bytes(),
        };
        (self.boards.len() * size_of::<u64>() + self.rates.len() * size_of::<R>()) as u64 + lookups
    }

    /// The rate of a canonical `board`: 0 if the layer lacks it.
    pub fn rate(&self, board: u64) -> R {
        match &self.lookup {
            Lookup::Buckets(index) => self.rate_in(index, board, index.bucket(board)),
            Lookup::Ranks(ranked) => ranked.find(board).map_or(R::default(), |at| self.rates[at]),
        }
    }

    /// The rate of a child of a position of the layer before (with a tile
    /// spawned and moved): [`Solved::rate`] for a board known to have the
    /// layer's tile sum, which lookups by rank then need not check.
    #[inline(always)]
    pub(crate) fn child_rate(&self, child: u64) -> R {
        match &self.lookup {
            Lookup::Buckets(index) => self.rate_in(index, child, index.bucket(child)),
            Lookup::Ranks(ranked) => ranked
                .position(child)
                .map_or(R::default(), |at| self.rates[at]),
        }
    }

    /// The rate of a canonical `board` whose bucket in `index` is `bucket`.
    #[inline]
    fn rate_in(&self, index: &Index, board: u64, bucket: usize) -> R {
        let range = index.bucket_range(bucket);
        let start = range.start;
        match self.boards[range].binary_search(&board) {
            Ok(found) => self.rates[start + found],
            Err(_) => R::default(),
        }
    }

    /// The same layer with each rate turned into an `S` by `convert` (a
    /// stored layer read in the type its table was solved in): the
    /// lookups, which do not depend on the rates, are kept.
    #[must_use]
    pub fn map_rates<S: Rate>(self, convert: impl FnMut(R) -> S) -> Solved<S> {
        Solved {
            boards: self.boards,
            rates: self.rates.into_iter().map(convert).collect(),
            lookup: self.lookup,
        }
    }

    /// The positions of `wanted` (sorted) that the layer holds.
    #[must_use]
    pub fn only(&self, wanted: &[u64]) -> Self {
        let (boards, rates) = self
            .boards
            .iter()
            .zip(&self.rates)
            .filter(|&(board, _)| wanted.binary_search(board).is_ok())
            .unzip();
        Self::new(boards, rates)
    }
}
