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
mod placement;

use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;
use system::bits::{pdep, pext};

use crate::base::canon::Canon;
use crate::base::formation::large_nibbles;
use crate::base::prefetch::prefetch;
use crate::base::slide::LARGE;
use crate::tile_sum;
use placement::Placements;

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

/// Every board with large tiles in some cells (and nowhere else) and free
/// tiles of some sum, each with its rank: the number of those boards below
/// it. Or, for a free formation, whose large tiles go anywhere, every
/// class of boards that the symmetries of the square turn into one
/// another ([`Space::placed`]).
///
/// Generation marks the ranks its children reach ([`crate::build::generate`]);
/// [`Ranked`] finds a layer's positions by rank.
#[derive(Clone, Debug)]
pub struct Space {
    /// The nibbles of the large tiles (0xF each), which every board holds;
    /// for a free formation, the nibbles above those of a content of its
    /// free cells, as gathered by [`Placements::place`].
    large: u64,
    /// The high half of the free cells: for each of its contents, the
    /// ranks below those of that high half.
    high: Half<u32>,
    /// The low half: for each of its contents, its rank among the low
    /// halves of its tile sum.
    low: Half<u16>,
    /// Half the free tiles' sum.
    half_sum: u64,
    /// The number of contents of the free cells of that sum.
    contents: u64,
    /// For a free formation, the classes of placements of its large tiles:
    /// a board's rank is its class's index times the number of contents,
    /// plus the rank of the smallest content its symmetries give it with
    /// the class's smallest placement.
    placements: Option<Arc<Placements>>,
}

impl Space {
    /// The boards with 0xF in the cells of `large` and free tiles of sum
    /// `sum`, if they have at most [`MOST_FREE`] free cells, fewer than
    /// 2^32 - 1 boards, and tiles under 32768 (so that no free cell can
    /// hold 0xF), and if `accept(table bytes, boards)` accepts what its
    /// tables would take and how many boards it has, before they are made.
    pub fn within(large: u64, sum: u64, accept: impl FnOnce(u64, u64) -> bool) -> Option<Self> {
        let free = !large;
        let cells = free.count_ones() / 4;
        if cells > MOST_FREE || sum >= 1 << LARGE {
            return None;
        }
        // No tile is over the sum.
        let top = u64::from(sum.max(1).ilog2());
        let low_cells = cells / 2;
        let tables = table_bytes(cells, top);
        let count = boards_of_sum(cells, sum, top);
        if count >= u64::from(NONE) || !accept(tables, count) {
            return None;
        }
        // The low half: the lowest free cells.
        let mut low = 0;
        for _ in 0..low_cells {
            low |= 0xF << (free & !low).trailing_zeros();
        }
        // Each low half is ranked among those of its own sum, even a sum
        // over the space's, which no board of the space holds (and which
        // `exact_rank` tells by the sums): the count fits 16 bits.
        let mut per_sum = vec![0u16; (u64::from(low_cells) << top) as usize / 2 + 1];
        let low = Half::new(low, top, |half| {
            let count = &mut per_sum[(half / 2) as usize];
            *count += 1;
            *count - 1
        });
        let mut total = 0;
        let high = Half::new(free & !low.cells, top, |half| {
            let Some(rest) = sum.checked_sub(half) else {
                return NONE;
            };
            let below = total;
            total += per_sum
                .get((rest / 2) as usize)
                .map_or(0, |&count| u64::from(count));
            below as u32
        });
        debug_assert_eq!(total, count);
        Some(Self {
            large,
            high,
            low,
            half_sum: sum / 2,
            contents: count,
            placements: None,
        })
    }

    /// Every class of boards with `large` large tiles anywhere, the other
    /// cells free with tiles of sum `sum`, that the eight symmetries of the
    /// square turn into one another: the positions of a free formation
    /// (`freeN`), whose ranks are those of the classes, whichever board of
    /// a class is ranked, so that its children need no canonical form. As
    /// [`Space::within`], for at most [`MOST_FREE`] free cells and if
    /// `accept(table bytes, boards)` accepts.
    pub fn placed(large: u32, sum: u64, accept: impl FnOnce(u64, u64) -> bool) -> Option<Self> {
        let cells = 16u32.checked_sub(large)?;
        if cells == 0 || cells > MOST_FREE {
            return None;
        }
        let placements = Placements::new(large);
        let mut space = Self::within(u64::MAX << (4 * cells), sum, |tables, contents| {
            accept(tables + placements.bytes(), contents * placements.classes())
        })?;
        space.placements = Some(Arc::new(placements));
        Some(space)
    }

    /// Whether the large tiles may sit anywhere: ranks are those of
    /// classes of boards ([`Space::placed`]).
    pub fn is_free(&self) -> bool {
        self.placements.is_some()
    }

    /// The number of boards.
    pub fn len(&self) -> u64 {
        self.contents
            * self
                .placements
                .as_ref()
                .map_or(1, |placements| placements.classes())
    }

    /// The bytes its tables take.
    pub(crate) fn table_bytes(&self) -> u64 {
        let placements = self
            .placements
            .as_ref()
            .map_or(0, |placements| placements.bytes());
        table_bytes((!self.large).count_ones() / 4, self.low.top) + placements
    }

    /// The rank of `board`, a board of the space's tile sum, or `None` if
    /// it is not one of the boards: if it has a tile over the largest or a
    /// high half over the sum, or lacks a large tile. A board of another
    /// sum may get the rank of another board: the tables read hold no
    /// sums, which halves them (whole builds took 2-5% less CPU), so
    /// callers ask for boards of the right sum (the children of the layer
    /// before) or check the sum ([`Space::exact_rank`]).
    #[inline(always)]
    pub fn rank(&self, board: u64) -> Option<u64> {
        self.rank_by(board, Self::rank_of_codes)
    }

    /// Its tables as plain values ([`Tables`]), for a loop that ranks
    /// many boards.
    #[inline(always)]
    pub(crate) fn tables(&self) -> Tables<'_> {
        Tables {
            high: self.high.codes(),
            low: self.low.codes(),
            contents: self.contents,
            large: self.large,
        }
    }

    /// The rank of `board`, or `None` if it is not one of the boards
    /// (large tiles in their cells, none elsewhere, free tiles of the sum),
    /// whatever its sum.
    pub fn exact_rank(&self, board: u64) -> Option<u64> {
        self.rank_by(board, Self::exact_rank_of_codes)
    }

    /// The rank of `board` given `of_codes`, which ranks a content of the
    /// free cells from the codes of its high and low halves: the content
    /// of the board itself, or for a free formation, its content with its
    /// class's smallest placement, after the classes before.
    #[inline(always)]
    fn rank_by(
        &self,
        board: u64,
        of_codes: impl Fn(&Self, usize, usize) -> Option<u64>,
    ) -> Option<u64> {
        match &self.placements {
            None => self.fixed_rank_by(board, of_codes),
            Some(placements) => {
                let radix = self.high.top as u32 + 1;
                let (class, (high, low)) = placements.place(board, radix)?;
                let rank = of_codes(self, high as usize, low as usize)?;
                Some(class as u64 * self.contents + rank)
            }
        }
    }

    /// [`Space::rank_by`] where the large tiles never move: the content
    /// of the board itself, which must hold every large tile.
    #[inline(always)]
    fn fixed_rank_by(
        &self,
        board: u64,
        of_codes: impl Fn(&Self, usize, usize) -> Option<u64>,
    ) -> Option<u64> {
        let tables = self.tables();
        of_codes(self, tables.high.code(board), tables.low.code(board))
            .filter(|_| board & self.large == self.large)
    }

    /// [`Space::rank`] among the contents of the free cells.
    #[inline(always)]
    fn rank_of_codes(&self, high: usize, low: usize) -> Option<u64> {
        self.tables().rank_of_codes(high, low)
    }

    /// [`Space::exact_rank`] among the contents of the free cells.
    fn exact_rank_of_codes(&self, high: usize, low: usize) -> Option<u64> {
        let half_sum = self.high.half_sum(high)? + self.low.half_sum(low)?;
        // Of the sum, the high entry is not NONE.
        (half_sum == self.half_sum)
            .then(|| u64::from(self.high.table[high]) + u64::from(self.low.table[low]))
    }

    /// Calls `visit` with the boards whose ranks, within `ranks`, are set
    /// in `bits`, in increasing order of rank: for a free formation, the
    /// board of each class with the class's smallest placement and, of
    /// those, the smallest.
    fn visit_marked(
        &self,
        listing: &Listing,
        bits: &[u64],
        ranks: Range<u64>,
        mut visit: impl FnMut(u64),
    ) {
        let Some(placements) = &self.placements else {
            return listing.visit(self, bits, 0, ranks, visit);
        };
        if self.contents == 0 {
            return;
        }
        for class in ranks.start / self.contents..placements.classes() {
            let base = class * self.contents;
            if base >= ranks.end {
                break;
            }
            let within = ranks.start.saturating_sub(base)..(ranks.end - base).min(self.contents);
            listing.visit(self, bits, base, within, |board| {
                visit(placements.board(class as usize, board & !self.large));
            });
        }
    }
}

/// A layer's boards as the bitmap of their ranks in a [`Space`], as
/// generation by rank marks them: a bit for each board of the layer's tile
/// sum (7 to 27 a position in L3-256's large layers), where a list takes 64
/// a position. A layer's working file holds the bitmap, and its boards are
/// listed from it, in order, from any position.
#[derive(Debug)]
pub struct Marks {
    space: Space,
    bits: Vec<u64>,
    /// For every block of [`Marks::BLOCK`] words, the positions before it.
    before: Vec<u64>,
    /// The number of boards.
    len: usize,
    listing: Listing,
}

impl Marks {
    const BLOCK: usize = 8;

    /// The boards of `space` whose ranks are set in `bits`, if it has one
    /// word for every 64 ranks of the space (and one more) and no bit past
    /// the last rank.
    pub fn new(space: Space, bits: Vec<u64>) -> Option<Self> {
        let past = u64::MAX << (space.len() % 64);
        if bits.len() as u64 != bitmap_words(space.len()) || bits.last()? & past != 0 {
            return None;
        }
        let mut count = 0;
        let before = bits
            .chunks(Self::BLOCK)
            .map(|block| {
                let below = count;
                count += block
                    .iter()
                    .map(|word| u64::from(word.count_ones()))
                    .sum::<u64>();
                below
            })
            .collect();
        Some(Self {
            listing: Listing::new(&space),
            space,
            bits,
            before,
            len: count as usize,
        })
    }

    /// Whether the boards are ranked by class ([`Space::placed`]): read in
    /// order of rank rather than in increasing order.
    pub fn is_free(&self) -> bool {
        self.space.is_free()
    }

    /// The bitmap: bit `rank % 64` of word `rank / 64`.
    pub fn bits(&self) -> &[u64] {
        &self.bits
    }

    /// The number of boards.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The boards of positions `start..start + count` (fewer past the
    /// end), in order, listed in parallel pieces: for a free formation, a
    /// board of each class, in order of rank ([`Marks::read_canonical`]
    /// gives each class's canonical board).
    pub fn read(&self, start: usize, count: usize) -> Vec<u64> {
        self.read_as(start, count, false)
    }

    /// The same, each a canonical board: for a free formation, the
    /// smallest of its class, since a position's rate sums over its empty
    /// cells in its canonical board's order, which decides the last bit
    /// of an `f64` rate.
    pub fn read_canonical(&self, start: usize, count: usize) -> Vec<u64> {
        self.read_as(start, count, self.space.is_free())
    }

    /// [`Marks::read`], with each board put in canonical form under the
    /// eight symmetries if `canonical`.
    fn read_as(&self, start: usize, count: usize, canonical: bool) -> Vec<u64> {
        const PIECE: usize = 1 << 14;
        let end = start.saturating_add(count).min(self.len);
        let mut boards = vec![0; end.saturating_sub(start)];
        boards
            .par_chunks_mut(PIECE)
            .enumerate()
            .for_each(|(piece, out)| {
                let from = start + piece * PIECE;
                let ranks = self.rank_of(from)..self.rank_of(from + out.len());
                let mut at = 0;
                (self.space).visit_marked(&self.listing, &self.bits, ranks, |board| {
                    out[at] = board;
                    at += 1;
                });
                if canonical {
                    // Four at a time in vector registers (`Canon::canonical_all`).
                    let (fours, rest) = out.as_chunks_mut();
                    for four in fours {
                        *four = Canon::Full.canonical_all(*four);
                    }
                    for board in rest {
                        *board = Canon::Full.canonical(*board);
                    }
                }
            });
        boards
    }

    /// Every board, canonical and sorted: as [`Marks::read_canonical`]
    /// lists them, sorted for a free formation.
    pub fn sorted_boards(&self) -> Vec<u64> {
        let mut boards = self.read_canonical(0, usize::MAX);
        if self.space.is_free() {
            boards.par_sort_unstable();
        }
        boards
    }

    /// The rank of the board at `position`, or the space's size for the
    /// position past the last.
    fn rank_of(&self, position: usize) -> u64 {
        let position = position as u64;
        let block = self.before.partition_point(|&below| below <= position) - 1;
        let mut left = position - self.before[block];
        for (word, &bits) in self.bits.iter().enumerate().skip(block * Self::BLOCK) {
            let ones = u64::from(bits.count_ones());
            if left < ones {
                return 64 * word as u64 + u64::from(pdep(1 << left, bits).trailing_zeros());
            }
            left -= ones;
        }
        self.space.len()
    }
}

/// A space's boards in the order of their ranks, a high half at a time:
/// what listing marked boards reads.
#[derive(Debug)]
struct Listing {
    /// The high halves that boards of the space hold, in increasing order:
    /// the rank of the first board of each, its nibbles, and the index in
    /// `lows` of the low halves that complete it.
    highs: Vec<(u64, u64, usize)>,
    /// The low halves of each half sum, in increasing order.
    lows: Vec<Vec<u64>>,
}

impl Listing {
    fn new(space: &Space) -> Self {
        let mut lows = vec![Vec::new(); (space.half_sum + 1) as usize];
        for (nibbles, sum) in space.low.contents() {
            if let Some(lows) = lows.get_mut((sum / 2) as usize) {
                lows.push(nibbles);
            }
        }
        let highs = space
            .high
            .entries()
            .filter(|&(_, entry)| entry != NONE)
            .map(|((nibbles, sum), entry)| {
                let rest = (space.half_sum - sum / 2) as usize;
                (u64::from(entry), nibbles, rest)
            })
            .collect();
        Self { highs, lows }
    }

    /// Calls `visit` with the boards of `space` whose ranks among the
    /// contents of its free cells, within `ranks`, are set in `bits` from
    /// bit `offset` on, in increasing order.
    fn visit(
        &self,
        space: &Space,
        bits: &[u64],
        offset: u64,
        ranks: Range<u64>,
        mut visit: impl FnMut(u64),
    ) {
        // The high halves' ranks follow one another: the first whose
        // boards reach into `ranks`.
        let end_of = |&(first, _, rest): &(u64, u64, usize)| first + self.lows[rest].len() as u64;
        let skipped = self
            .highs
            .partition_point(|high| end_of(high) <= ranks.start);
        let mut highs = self.highs[skipped..].iter();
        let (Some(mut high), false) = (highs.next(), ranks.is_empty()) else {
            return;
        };
        let mut end = end_of(high);
        // The bits of `ranks`, a word at a time, each board's high half
        // found by walking the high halves along: no branch on where a
        // high half's boards begin or end within a word.
        let (from, to) = (offset + ranks.start, offset + ranks.end);
        for word in from / 64..to.div_ceil(64) {
            let base = word * 64;
            // Shifts under 64: `from` is in the first word, `to` past the
            // start of the last.
            let below = u64::MAX << from.saturating_sub(base);
            let above = u64::MAX >> (base + 64).saturating_sub(to);
            let mut set = bits[word as usize] & below & above;
            while set != 0 {
                let rank = base + u64::from(set.trailing_zeros()) - offset;
                set &= set - 1;
                while rank >= end {
                    high = highs
                        .next()
                        .expect("a high half for every rank of the space");
                    end = end_of(high);
                }
                let &(first, nibbles, rest) = high;
                visit(space.large | nibbles | self.lows[rest][(rank - first) as usize]);
            }
        }
    }
}

/// Rank lookups over one sorted layer.
#[derive(Clone, Debug)]
pub struct Ranked {
    /// The boards of the layer's large cells and tile sum.
    space: Space,
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

/// Some free cells, the code of what they hold among all their contents
/// of tiles up to a largest, and a table by code of entries `E`.
#[derive(Clone, Debug)]
struct Half<E> {
    /// The nibbles of the cells.
    cells: u64,
    /// The largest tile's exponent.
    top: u64,
    /// The code of the contents of the first two cells (their nibbles
    /// gathered), then of the others (from [`FIRST_CODES`]): a content's
    /// code is their sum, past the table for a tile over the largest. One
    /// array, so that a loop ranking many boards holds one pointer for it.
    codes: Box<[u32; CODES]>,
    /// By code: for the high half, the ranks below those of its content
    /// ([`NONE`] for a content whose sum is over the space's); for the low
    /// half, its content's rank among the low halves of its sum, at most
    /// 509 (five cells), so 16 bits, which halve the table that the
    /// lookups of every layer read.
    table: Vec<E>,
    /// By code, half the content's tile sum, to check a board's sum apart
    /// from the lookups, which read `table` alone.
    half_sums: Vec<u16>,
}

/// The codes of a half's first two cells' nibbles.
const FIRST_CODES: usize = 1 << 8;

/// The codes of a half's cells after its first two: three cells' nibbles
/// at most.
const REST_CODES: usize = 1 << 12;

/// The codes of a half's nibbles: its first two cells', then the others'.
const CODES: usize = FIRST_CODES + REST_CODES;

/// A code past every table.
const OUTSIDE: u32 = 1 << 30;

impl<E: Copy + Into<u32>> Half<E> {
    /// The `cells` (nibbles) with tiles up to `2^top` (at most 2^14), each
    /// content's table entry from `entry(sum)` in increasing order of
    /// content.
    fn new(cells: u64, top: u64, mut entry: impl FnMut(u64) -> E) -> Self {
        let count = cells.count_ones() / 4;
        let radix = top + 1;
        let rest_cells = Self::rest_cells(count);
        // The code of `nibbles` (of cells `from..`), or OUTSIDE.
        let code = |nibbles: usize, from: u32, to: u32| {
            (from..to)
                .try_fold(0, |code, cell| {
                    let nibble = (nibbles >> (4 * (cell - from)) & 0xF) as u64;
                    (nibble <= top).then(|| code + nibble * radix.pow(cell))
                })
                .map_or(OUTSIDE, |code| code as u32)
        };
        let codes = Box::new(std::array::from_fn(|at| {
            match at.checked_sub(FIRST_CODES) {
                None => code(at, 0, count.min(2)),
                Some(nibbles) if nibbles >> (4 * rest_cells) == 0 => {
                    code(nibbles, 2, 2 + rest_cells)
                }
                Some(_) => OUTSIDE,
            }
        }));
        let mut half = Self {
            cells,
            top,
            codes,
            table: Vec::new(),
            half_sums: Vec::new(),
        };
        // Contents in increasing order are codes in increasing order.
        // Half the sum of at most five tiles of 16384 fits 16 bits.
        (half.table, half.half_sums) = half
            .contents()
            .map(|(_, sum)| (entry(sum), (sum / 2) as u16))
            .unzip();
        half
    }

    /// The cells whose code `rest` gives, of a half of `count` cells.
    fn rest_cells(count: u32) -> u32 {
        count.saturating_sub(2)
    }

    /// The bytes of the tables [`Half::new`] makes for `count` cells with
    /// tiles up to `2^top`.
    fn bytes(count: u32, top: u64) -> u64 {
        let contents = (top + 1).pow(count);
        (CODES * size_of::<u32>()) as u64 + contents * (size_of::<E>() + size_of::<u16>()) as u64
    }

    /// Every content of the cells by code: a board's nibbles there and
    /// their tile sum.
    fn contents(&self) -> impl Iterator<Item = (u64, u64)> + use<E> {
        let (cells, top) = (self.cells, self.top);
        let count = cells.count_ones() / 4;
        // The cells' nibbles (the code's digits, the first cell lowest),
        // counted up like an odometer, and their tiles' sum.
        let (mut nibbles, mut sum) = (0u64, 0);
        (0..(top + 1).pow(count)).map(move |_| {
            let content = (pdep(nibbles, cells), sum);
            for cell in 0..count {
                let nibble = nibbles >> (4 * cell) & 0xF;
                sum -= tile(nibble);
                if nibble < top {
                    nibbles += 1 << (4 * cell);
                    sum += tile(nibble + 1);
                    break;
                }
                nibbles &= !(0xF << (4 * cell));
            }
            content
        })
    }

    /// Every content (nibbles and sum) with its table entry, by code.
    fn entries(&self) -> impl Iterator<Item = ((u64, u64), u32)> + '_ {
        self.contents()
            .zip(self.table.iter().map(|&entry| entry.into()))
    }

    /// Half the tile sum of the content of `code`, if it is one (no tile
    /// over the largest).
    fn half_sum(&self, code: usize) -> Option<u64> {
        self.half_sums.get(code).map(|&half| u64::from(half))
    }

    /// Its tables as plain values.
    #[inline(always)]
    fn codes(&self) -> Codes<'_, E> {
        Codes {
            cells: self.cells,
            codes: &self.codes,
            table: &self.table,
        }
    }
}

/// A [`Space`]'s tables borrowed as plain values, which a loop ranking
/// many boards takes once, so that the compiler holds them in registers:
/// ranked through the space, each board reloaded every field of it after
/// the loop's stores, which the compiler could not tell from the tables
/// (docs/tablebase-builder.md).
#[derive(Clone, Copy)]
pub(crate) struct Tables<'a> {
    high: Codes<'a, u32>,
    low: Codes<'a, u16>,
    contents: u64,
    large: u64,
}

impl Tables<'_> {
    /// The rank of each of `boards` (of the space's tile sum) into `ranks`
    /// (as many), or `u64::MAX` for a board outside the space; each rank's
    /// word of a bitmap of the space (64 ranks an item of `words`) asked
    /// for. In a space whose large tiles never move (not
    /// [`Space::is_free`]). A function of its own, so that the compiler
    /// holds the tables in registers: inlined into the callers' loops, it
    /// kept most of them on the stack.
    ///
    /// The boards hold as many large tiles as the space (as every child
    /// of its formation does: large tiles never merge, and no free tile
    /// reaches 0xF under the space's sums), so a board without one in a
    /// cell of the space's holds it in a free cell, where 0xF is over
    /// every tile of the sum: outside, like a board with a tile over the
    /// largest, without checking the large cells (checking them took a
    /// sixth of the loop's instructions; docs/tablebase-builder.md).
    #[inline(never)]
    pub(crate) fn fixed_ranks<T>(self, boards: &[u64], ranks: &mut [u64], words: &[T]) {
        let large = self.large.count_ones();
        for (rank, &board) in ranks.iter_mut().zip(boards) {
            debug_assert_eq!(large_nibbles(board).count_ones(), large, "{board:016x}");
            *rank = self
                .rank_of_codes(self.high.code(board), self.low.code(board))
                .unwrap_or(u64::MAX);
            prefetch(words, (*rank / 64) as usize);
        }
    }

    /// The rank of the content of the free cells whose halves have codes
    /// `high` and `low`, if it is of the space's sum.
    #[inline(always)]
    fn rank_of_codes(self, high: usize, low: usize) -> Option<u64> {
        let rank = u64::from(self.high.entry(high)) + u64::from(self.low.entry(low));
        (rank < self.contents).then_some(rank)
    }
}

/// A [`Half`]'s code and entry tables, borrowed.
#[derive(Clone, Copy)]
struct Codes<'a, E> {
    cells: u64,
    codes: &'a [u32; CODES],
    table: &'a [E],
}

impl<E: Copy + Into<u32>> Codes<'_, E> {
    /// The code of what `board` holds in these cells: past the tables for
    /// a tile over the largest.
    #[inline(always)]
    fn code(self, board: u64) -> usize {
        let nibbles = pext(board, self.cells) as usize;
        let first = self.codes[nibbles % FIRST_CODES];
        let rest = self.codes[FIRST_CODES + (nibbles / FIRST_CODES) % REST_CODES];
        (first + rest) as usize
    }

    /// The entry of the content of `code`: [`NONE`] for a code past the
    /// table (a tile over the largest).
    #[inline(always)]
    fn entry(self, code: usize) -> u32 {
        self.table.get(code).map_or(NONE, |&entry| entry.into())
    }
}

/// The entry of a high half that no board of the space holds, and of any
/// content with a tile over the largest: whatever it is added to, the rank
/// is past the space's boards.
const NONE: u32 = u32::MAX;

/// The bytes of the tables of a [`Space`] of `cells` free cells with tiles
/// up to `2^top`: a low half of `cells / 2` cells, a high half of the rest.
fn table_bytes(cells: u32, top: u64) -> u64 {
    Half::<u16>::bytes(cells / 2, top) + Half::<u32>::bytes(cells - cells / 2, top)
}

/// How many ways `cells` cells hold tiles up to `2^top` (or nothing) of
/// tile sum `sum`.
fn boards_of_sum(cells: u32, sum: u64, top: u64) -> u64 {
    ways_by_half_sum(cells, top, sum / 2)[(sum / 2) as usize]
}

/// How many ways `cells` cells hold tiles up to `2^top` (or nothing) of
/// each half tile sum up to `most`.
fn ways_by_half_sum(cells: u32, top: u64, most: u64) -> Vec<u64> {
    // The ways of the cells counted so far.
    let mut ways = vec![0u64; (most + 1) as usize];
    ways[0] = 1;
    for _ in 0..cells {
        for half in (0..ways.len()).rev() {
            ways[half] += (1..=top)
                .map(|nibble| tile(nibble) / 2)
                .filter(|&step| step as usize <= half)
                .map(|step| ways[half - step as usize])
                .sum::<u64>();
        }
    }
    ways
}

/// The tile of a free cell's nibble.
fn tile(nibble: u64) -> u64 {
    if nibble == 0 { 0 } else { 1 << nibble }
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
    fn within(boards: &[u64], most: u64) -> Option<Self> {
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

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Every board of a layer is found at its position, and boards it
    /// lacks (other sums, other large cells, 0xF in a free cell, near
    /// misses) are not found; among boards of the layer's sum (two free
    /// cells swapped), neither without the check of the sum.
    #[test]
    fn positions_are_found_exactly() {
        let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
        let layers = crate::build::in_memory::build::<f64>(&spec);
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut ranked_layers = 0;
        for (index, layer) in layers.iter().enumerate() {
            let boards = layer.boards();
            let Some(ranked) = Ranked::within(boards, u64::MAX) else {
                continue;
            };
            ranked_layers += 1;
            for (position, &board) in boards.iter().enumerate() {
                assert_eq!(ranked.position(board), Some(position));
                assert_eq!(ranked.find(board), Some(position));
            }
            let others = layers
                .iter()
                .enumerate()
                .filter(|&(other, _)| other != index);
            for (_, other) in others {
                for &board in other.boards().iter().step_by(97) {
                    assert_eq!(ranked.find(board), None, "{board:016x}");
                }
            }
            let free: Vec<u64> = (0..16)
                .filter(|&cell| boards[0] >> (4 * cell) & 0xF != 0xF)
                .collect();
            for _ in 0..2000 {
                let board = boards[rng.next_u64() as usize % boards.len()];
                let cell = rng.next_u64() % 16;
                let changed = board ^ ((rng.next_u64() % 15 + 1) << (4 * cell));
                let found = ranked.find(changed);
                assert_eq!(found, boards.binary_search(&changed).ok(), "{changed:016x}");
                let [a, b] = [0, 1].map(|_| 4 * free[rng.next_u64() as usize % free.len()]);
                let (nibble_a, nibble_b) = (board >> a & 0xF, board >> b & 0xF);
                let swapped = board & !(0xF << a | 0xF << b) | nibble_a << b | nibble_b << a;
                let found = ranked.position(swapped);
                assert_eq!(found, boards.binary_search(&swapped).ok(), "{swapped:016x}");
            }
        }
        assert!(
            ranked_layers > layers.len() / 2,
            "{ranked_layers} of {}",
            layers.len()
        );
    }

    /// A rank's place is the count of the layer's ranks below it, and held
    /// just where the layer holds the rank (never past the space's boards):
    /// the solver keeps a child's place either way and moves on by whether
    /// it is held.
    #[test]
    fn places_count_the_ranks_below() {
        let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 5, 0.1).unwrap();
        let layers = crate::build::in_memory::build::<f64>(&spec);
        let mut placed = 0;
        for layer in &layers {
            let Some(ranked) = Ranked::within(layer.boards(), u64::MAX) else {
                continue;
            };
            let positions = ranked.positions();
            let ranks: Vec<u64> = (layer.boards().iter())
                .map(|&board| ranked.space.rank(board).expect("a board of the space"))
                .collect();
            for rank in 0..ranked.space.len() {
                let below = ranks.partition_point(|&held| held < rank);
                let held = ranks.get(below) == Some(&rank);
                assert_eq!(positions.place(rank), (below, held), "rank {rank}");
                assert_eq!(positions.at(rank), held.then_some(below));
                placed += 1;
            }
            for past in [ranked.space.len() + 64, u64::MAX] {
                assert!(!positions.place(past).1, "rank {past}");
            }
        }
        assert!(placed > 10_000, "{placed} ranks placed");
    }

    /// Every rank of a space gives back a board of the space that has that
    /// rank, in increasing order; marked ranks give back just their boards,
    /// read from any position.
    #[test]
    fn ranks_give_back_their_boards_in_order() {
        let large = 0xfff0_fff0_0000_0000;
        let space = Space::within(large, 40, |_, _| true).unwrap();
        let mut all = vec![u64::MAX; bitmap_words(space.len()) as usize];
        // No rank past the last.
        assert!(Marks::new(space.clone(), all.clone()).is_none());
        *all.last_mut().unwrap() = (1 << (space.len() % 64)) - 1;
        let boards = Marks::new(space.clone(), all.clone())
            .unwrap()
            .read(0, usize::MAX);
        assert_eq!(boards.len() as u64, space.len());
        assert_eq!(boards.len() as u64, boards_of_sum(10, 40, 5));
        for (rank, pair) in boards.windows(2).enumerate() {
            assert!(pair[0] < pair[1]);
            assert_eq!(space.rank(pair[0]), Some(rank as u64));
            assert_eq!(space.exact_rank(pair[0]), Some(rank as u64));
            // A 2 more in its lowest empty cell: another sum.
            let empty = (0..16).find(|&cell| pair[0] >> (4 * cell) & 0xF == 0);
            if let Some(cell) = empty {
                assert_eq!(space.exact_rank(pair[0] | 1 << (4 * cell)), None);
            }
        }
        for &board in &boards {
            assert_eq!(large_nibbles(board), large, "{board:016x}");
            assert_eq!(tile_sum(board & !large), 40, "{board:016x}");
        }
        let marked: Vec<u64> = boards.iter().copied().step_by(7).collect();
        let mut bits = vec![0u64; all.len()];
        for &board in &marked {
            let rank = space.rank(board).unwrap();
            bits[(rank / 64) as usize] |= 1 << (rank % 64);
        }
        let marks = Marks::new(space.clone(), bits.clone()).unwrap();
        assert_eq!(marks.len(), marked.len());
        assert_eq!(marks.read(0, usize::MAX), marked);
        // From any position, within the space's ranks and past them.
        for start in (0..marked.len() + 3).step_by(5) {
            for count in [0, 1, 2, 63, 64, 65, 1 << 15] {
                let end = (start + count).min(marked.len());
                let expected = marked.get(start..end).unwrap_or_default();
                assert_eq!(marks.read(start, count), expected, "{start} {count}");
            }
        }
        // A bitmap of another size is refused.
        bits.push(0);
        assert!(Marks::new(space, bits).is_none());
    }

    /// Ranked many at a time, the boards of a space get their ranks, and
    /// boards with a tile over the largest, or with more than the sum in
    /// the high half, a number past every word.
    #[test]
    fn boards_ranked_together_get_their_ranks() {
        let large = 0xfff0_fff0_0000_0000;
        let space = Space::within(large, 40, |_, _| true).unwrap();
        let mut all = vec![u64::MAX; bitmap_words(space.len()) as usize];
        *all.last_mut().unwrap() = (1 << (space.len() % 64)) - 1;
        let boards = Marks::new(space.clone(), all.clone())
            .unwrap()
            .read(0, usize::MAX);
        let mut ranks = vec![0; boards.len()];
        space.tables().fixed_ranks(&boards, &mut ranks, &all);
        assert!(ranks.iter().copied().eq(0..space.len()));
        // A 64 (sum 40 holds tiles up to 32) in the lowest free cell, then
        // the highest, in place of what was there; 32s in the two highest
        // free cells, of the high half, and nothing else.
        let free: Vec<usize> = (0..16)
            .filter(|&cell| large >> (4 * cell) & 0xF == 0)
            .collect();
        let (lowest, highest) = (free[0], free[free.len() - 1]);
        let outside: Vec<u64> = [lowest, highest]
            .map(|cell| boards[1] & !(0xF << (4 * cell)) | 6 << (4 * cell))
            .into_iter()
            .chain([large | 5 << (4 * highest) | 5 << (4 * free[free.len() - 2])])
            .collect();
        let mut ranks = vec![0; outside.len()];
        space.tables().fixed_ranks(&outside, &mut ranks, &all);
        assert_eq!(ranks, [u64::MAX; 3]);
    }

    /// Lookups over the kept positions of a layer's marks find the kept
    /// boards, each at its position among them, and no other board; they
    /// are made wherever lookups made from the kept boards are, and also
    /// where few positions are kept, as their bound counts the positions
    /// marked.
    #[test]
    fn lookups_of_kept_marks_are_those_of_the_kept_boards() {
        let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
        let layers = crate::build::in_memory::build::<f64>(&spec);
        let (mut made, mut only_of_marks, mut refused) = (0, 0, 0);
        for layer in &layers {
            let boards = layer.boards();
            let Some(first) = boards.first() else {
                continue;
            };
            let large = large_nibbles(*first);
            let space = Space::within(large, tile_sum(first & !large).into(), |_, _| true);
            let Some(space) = space else {
                continue;
            };
            let mut bits = vec![0; bitmap_words(space.len()) as usize];
            for &board in boards {
                let rank = space.exact_rank(board).unwrap();
                bits[(rank / 64) as usize] |= 1 << (rank % 64);
            }
            let marks = Marks::new(space, bits).unwrap();
            for step in [1, 3, 50] {
                let keep = |position: usize| position.is_multiple_of(step);
                let kept: Vec<u64> = (boards.iter().enumerate())
                    .filter(|&(position, _)| keep(position))
                    .map(|(_, &board)| board)
                    .collect();
                let (of_marks, of_boards) = (Ranked::of_kept(&marks, keep), Ranked::new(&kept));
                assert!(of_boards.is_none() || of_marks.is_some());
                let Some(of_marks) = of_marks else {
                    refused += 1;
                    continue;
                };
                made += 1;
                only_of_marks += usize::from(of_boards.is_none());
                for &board in boards {
                    let position = kept.binary_search(&board).ok();
                    assert_eq!(of_marks.position(board), position);
                    assert_eq!(of_marks.find(board), position);
                    if let Some(of_boards) = &of_boards {
                        assert_eq!(of_boards.find(board), position);
                    }
                }
            }
        }
        assert!(
            made > 10 && only_of_marks > 0 && refused > 0,
            "{made} made, {only_of_marks} of the marks only, {refused} refused"
        );
    }

    /// A free formation's ranks: every board of eight large tiles and free
    /// tiles of a sum, listed from every rank of the space, ranks as every
    /// image of it does; boards rank alike exactly when a symmetry turns
    /// one into the other; marked ranks list boards of those ranks, in
    /// order; boards of another sum or number of large tiles are told.
    #[test]
    fn free_ranks_are_those_of_symmetry_classes() {
        let sum = 14;
        let space = Space::placed(8, sum, |_, _| true).unwrap();
        let mut all = vec![u64::MAX; bitmap_words(space.len()) as usize];
        *all.last_mut().unwrap() = (1 << (space.len() % 64)) - 1;
        let listed = Marks::new(space.clone(), all).unwrap().read(0, usize::MAX);
        assert_eq!(listed.len() as u64, space.len());
        let mut rank_of_class = std::collections::HashMap::new();
        let mut class_of_rank = std::collections::HashMap::new();
        for (at, &board) in listed.iter().enumerate() {
            assert_eq!(large_nibbles(board).count_ones(), 32, "{board:016x}");
            assert_eq!(tile_sum(board & !large_nibbles(board)), sum as u32);
            let rank = space.rank(board).unwrap();
            // A content that a symmetry of its placement makes smaller
            // ranks as the smaller.
            assert!(rank <= at as u64, "{board:016x}");
            for symmetry in 0..8 {
                let image = placement::turn(board, symmetry);
                assert_eq!(space.rank(image), Some(rank), "{image:016x}");
                assert_eq!(space.exact_rank(image), Some(rank), "{image:016x}");
            }
            let class = board::Board::from_raw(board).canonical().raw();
            assert_eq!(*rank_of_class.entry(class).or_insert(rank), rank);
            assert_eq!(*class_of_rank.entry(rank).or_insert(class), class);
            // Another sum, another number of large tiles.
            let empty = (0..16).find(|&cell| board >> (4 * cell) & 0xF == 0);
            if let Some(cell) = empty {
                assert_eq!(space.exact_rank(board | 1 << (4 * cell)), None);
                assert_eq!(space.rank(board | 0xF << (4 * cell)), None);
            }
        }
        // Every class of the boards listed (which hold every placement up
        // to the symmetries) has a rank of its own.
        assert_eq!(rank_of_class.len(), class_of_rank.len());
        assert!(rank_of_class.len() > 10_000, "{}", rank_of_class.len());
        // Marks of some classes list a board of each, in order of rank.
        let mut ranks: Vec<u64> = class_of_rank.keys().copied().step_by(5).collect();
        ranks.sort_unstable();
        let mut bits = vec![0u64; bitmap_words(space.len()) as usize];
        for &rank in &ranks {
            bits[(rank / 64) as usize] |= 1 << (rank % 64);
        }
        let marks = Marks::new(space.clone(), bits).unwrap();
        let read = marks.read(0, usize::MAX);
        let read_ranks: Vec<u64> = read
            .iter()
            .map(|&board| space.rank(board).unwrap())
            .collect();
        assert_eq!(read_ranks, ranks);
        for start in (0..read.len()).step_by(211) {
            assert_eq!(
                marks.read(start, 300),
                read[start..(start + 300).min(read.len())]
            );
        }
        // Thirteen free cells are too many; sixteen, no placement.
        assert!(Space::placed(3, 40, |_, _| true).is_none());
        assert!(Space::placed(0, 40, |_, _| true).is_none());
    }

    /// The low half's entries fit 16 bits: whatever the largest tile, no
    /// tile sum has more than 510 contents of five cells.
    #[test]
    fn low_halves_of_a_sum_fit_sixteen_bits() {
        let ways = ways_by_half_sum(5, 14, 5 << 13);
        assert_eq!(ways.iter().max(), Some(&510));
    }

    /// Against every content of five cells, and counts of ten cells made
    /// by a recursion over the cells.
    #[test]
    fn boards_of_a_sum_are_counted() {
        let top: u64 = 5;
        let mut by_sum = vec![0; 5 * 32 / 2 + 1];
        for mut code in 0..(top + 1).pow(5) {
            let mut sum = 0;
            for _ in 0..5 {
                sum += tile(code % (top + 1));
                code /= top + 1;
            }
            by_sum[(sum / 2) as usize] += 1;
        }
        for (half, &count) in by_sum.iter().enumerate() {
            assert_eq!(
                boards_of_sum(5, 2 * half as u64, top),
                count,
                "sum {}",
                2 * half
            );
        }
        assert_eq!(boards_of_sum(10, 360, 8), 9_887_112);
        assert_eq!(boards_of_sum(10, 512, 9), 10_372_195);
        assert_eq!(boards_of_sum(10, 1024, 10), 12_186_595);
        assert_eq!(boards_of_sum(2, 4, 2), 3);
        assert_eq!(boards_of_sum(3, 0, 0), 1);
    }

    #[test]
    fn sparse_or_irregular_layers_are_not_ranked() {
        assert!(Ranked::new(&[]).is_none());
        // Thirteen free cells.
        assert!(Ranked::new(&[0x0000_0000_0000_1fff]).is_none());
        // One position of the 12 million boards of its sum (four 256s).
        assert!(Ranked::new(&[0x0000_0088_8fff_8fff]).is_none());
        assert!(Ranked::within(&[0x0000_0088_8fff_8fff], u64::MAX).is_some());
        // A dense layer, then with one board of another sum or with its
        // large tiles elsewhere.
        let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
        let layers = crate::build::in_memory::build::<f64>(&spec);
        let layer = layers
            .iter()
            .max_by_key(|layer| layer.len())
            .unwrap()
            .boards();
        assert!(Ranked::new(layer).is_some(), "{} positions", layer.len());
        let last = *layer.last().unwrap();
        let (top, below) = (last >> 60, last & !(0xF << 60));
        for stranger in [below | (top + 1) << 60, last.rotate_left(4)] {
            let mut boards = layer.to_vec();
            boards.push(stranger);
            boards.sort_unstable();
            assert!(
                Ranked::within(&boards, u64::MAX).is_none(),
                "{stranger:016x}"
            );
        }
    }
}
