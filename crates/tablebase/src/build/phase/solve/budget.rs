//! What solving takes in memory, and how a layer is solved within the
//! budget ([`Plan`]): whole, in segments against the layers after it
//! held in memory, or in segments that fetch the children they look up.

use crate::base::layer::rank::{MOST_BYTES_PER_FREE_POSITION, MOST_BYTES_PER_POSITION};
use crate::build::segment::LEAST_SEGMENT;

/// Bytes per position of a layer solved whole in `R`: its boards, rates
/// and lookups (12 and a rate), and the copy of those above 0 that a
/// pruned layer stores (8 and a rate), with 8 of room for the allocator,
/// which cannot always give freed layers back (measured: 32 in all for
/// `f64` let L3-256 within 64 MiB peak 5% over).
pub(super) const fn whole_bytes_per_position<R>() -> u64 {
    28 + 2 * size_of::<R>() as u64
}

/// Bytes per position of a solved layer read whole from its working rates in
/// `R`, to be held for lookups: board, rate and lookups (up to
/// [`MOST_BYTES_PER_POSITION`]:
/// [`Ranked::new`](crate::base::layer::rank::Ranked::new)), with [`HELD_ROOM`].
/// A layer held since it was solved counts what it takes
/// ([`Solved::bytes`](crate::base::layer::Solved::bytes)): its lookups by rank
/// may take more a position kept
/// ([`Ranked::of_kept`](crate::base::layer::rank::Ranked::of_kept)).
pub(crate) const fn held_bytes_per_position<R>() -> u64 {
    8 + size_of::<R>() as u64 + MOST_BYTES_PER_POSITION + HELD_ROOM
}

/// Bytes of room for the allocator beside each position of a layer held.
pub(super) const HELD_ROOM: u64 = 4;

/// The bytes a position of a free formation's layer solved by class may
/// take for its lookups beyond [`held_bytes_per_position`]'s.
pub(super) const FREE_LOOKUP_BYTES: u64 = MOST_BYTES_PER_FREE_POSITION - MOST_BYTES_PER_POSITION;

/// Bytes of `positions` of a segment that fetches its children, solved in `R`,
/// and of the `sought` boards they look up
/// ([`Sought::len`](crate::base::expectation::Sought::len)): 8 and a rate for a
/// position's board and rate, as much again for the copies the segment keeps; 8
/// for a sought board in the lists, then, fetched, its board, rate and lookups
/// ([`held_bytes_per_position`]). Merging the lists takes no more: 8 bytes a
/// board for the lists, 8 for the merged.
pub(crate) const fn fetching_bytes<R>(positions: usize, sought: usize) -> u64 {
    let rate = size_of::<R>() as u64;
    (16 + 2 * rate) * positions as u64 + (8 + held_bytes_per_position::<R>()) * sought as u64
}

/// How a layer is solved within the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Plan {
    /// Whole, with the two layers after it in memory.
    Whole,
    /// In segments of this many positions, against the two layers after it
    /// in memory.
    Held(usize),
    /// In segments of this many bytes, each fetching the children it looks
    /// up from the two layers' working rates.
    Fetched(u64),
}

impl Plan {
    /// The plan for a layer of `parents` positions, each taking `whole`
    /// bytes to be solved whole, whose two layers after take `held` bytes
    /// in memory, within `budget` bytes (`None`: no limit). Children held
    /// in memory cost no reads and no sorting, where each segment that
    /// fetches them reads the pieces of their files that hold them (for
    /// free8, nearly all: `tb-build build free8 16 --memory 150M -p 2`
    /// took 16.0 s to solve its layers so, 7.8 s with them held, and 5.6 s
    /// without a budget), so they are held whenever a segment of
    /// [`LEAST_SEGMENT`] positions fits beside them.
    pub(super) fn within(budget: Option<u64>, parents: usize, whole: u64, held: u64) -> Self {
        let Some(bytes) = budget else {
            return Self::Whole;
        };
        let room = bytes.checked_sub(held).map_or(0, |left| left / whole);
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        if room >= parents && held <= bytes {
            Self::Whole
        } else if room >= LEAST_SEGMENT {
            Self::Held(room)
        } else {
            Self::Fetched(bytes)
        }
    }
}

/// What a batch of positions of a segment that fetches its children
/// takes, given the children it adds to the segment's: [`fetching_bytes`]
/// in the layer's rates.
pub(super) type FetchingBytes = fn(&[u64], usize) -> u64;
