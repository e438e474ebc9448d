//! Ranks of boards, for layers whose large tiles never move (L3, 442 and
//! the other formations of one mask, and the variants' walls): lookups by
//! rank ([`Ranked`]), generation by rank (`generate::Reached`) and the
//! layers it leaves as bitmaps of their ranks ([`Marks`]).
//!
//! Such a layer's boards differ only in their free cells, and all have the
//! same tile sum, so each has a place (its rank) among every board of that
//! sum: the number of such boards below it. Split the free cells into a
//! high and a low half; the boards below are those of a smaller high half
//! (a count that depends on the high half alone, for a given sum) and
//! those of the same high half and a smaller low half of the same sum (a
//! count that depends on the low half alone). An entry of each half's
//! table gives the rank, and a bitmap of the ranks the layer holds, with
//! counts, gives the board's position in the layer: no search, and the
//! tables and the bitmap are a fraction of the layer's size. A lookup reads
//! the halves' tables (about 0.4 MiB, which the caches keep), a word of the
//! bitmap and the rate, where a binary search in an index bucket reads the
//! bucket's start and five or six boards in a row before the rate, from a
//! layer far larger than the caches (figures in docs/tablebase-builder.md).
//!
//! A free formation's large tiles go anywhere, but always as many, and
//! every symmetry of a position is a position ([`Space::placed`]). Its
//! boards are ranked by class of symmetric boards: the class of the
//! placement of the large tiles (12,870 placements of eight in 1,674
//! classes), then the content of the free cells once the board is turned
//! to the class's smallest placement, the smallest such content where the
//! placement is symmetric (`placement`). Every board of a class gets its
//! rank, so that children need no canonical form; a layer's marks list a
//! board of each class in order of rank ([`Marks::read_canonical`]: its
//! canonical board), and the builder sorts them for the files.

mod gather;
mod half;
mod marks;
mod placement;
mod ranked;
mod space;

pub(crate) use half::Tables;
pub use marks::Marks;
pub(crate) use marks::boards_of_ranks;
pub(crate) use ranked::Ranked;
pub(crate) use space::Space;

/// The most free cells ranked: five a half, whose code is read from two
/// tables of 256 and 4,096 entries.
const MOST_FREE: u32 = 10;

/// The most bytes a layer's rank lookups may take: their tables (about
/// 0.6 MiB up to 256-tiles), and their bitmap, beyond [`SPARE_BYTES`], at
/// most [`MOST_BYTES_PER_POSITION`] a position (a bucket index takes a
/// quarter of a byte); for a fixed formation's layer made from its marks,
/// a position marked ([`Ranked::of_kept`]). Small layers with large tables
/// and layers that hold few of the boards of their sum keep the bucket
/// index.
pub const MOST_BYTES_PER_POSITION: u64 = 4;

/// The same for a free formation's layers ([`Space::placed`]), whose ranks
/// count every class of boards of the sum: about 7 a position in
/// free8-128's largest layers, 18 a position kept (above 0), 4.5 bytes of
/// lookups; without them the layer is sorted and searched, as before
/// ranks.
pub const MOST_BYTES_PER_FREE_POSITION: u64 = 16;

/// See [`MOST_BYTES_PER_POSITION`].
pub const SPARE_BYTES: u64 = 1 << 20;

/// The words of a bitmap of `boards` ranks: one for every 64, and one
/// more, as generation marks them and [`Marks::new`] takes them.
pub(crate) fn bitmap_words(boards: u64) -> u64 {
    boards / 64 + 1
}

#[cfg(test)]
mod tests;
