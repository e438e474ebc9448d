//! The rank tables of one half of the free cells ([`Half`]): each half's
//! content coded, and the code's entry (boards below it of the same sum).

use system::bits::{pdep, pext};

use crate::base::position::large_nibbles;
use crate::base::prefetch::prefetch;

/// Some free cells, the code of what they hold among all their contents
/// of tiles up to a largest, and a table by code of entries `E`.
#[derive(Clone, Debug)]
pub(super) struct Half<E> {
    /// The nibbles of the cells.
    pub(super) cells: u64,
    /// The largest tile's exponent.
    pub(super) top: u64,
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
    pub(super) table: Vec<E>,
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
    pub(super) fn new(cells: u64, top: u64, mut entry: impl FnMut(u64) -> E) -> Self {
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
    pub(super) fn contents(&self) -> impl Iterator<Item = (u64, u64)> + use<E> {
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
    pub(super) fn entries(&self) -> impl Iterator<Item = ((u64, u64), u32)> + '_ {
        self.contents()
            .zip(self.table.iter().map(|&entry| entry.into()))
    }

    /// Half the tile sum of the content of `code`, if it is one (no tile
    /// over the largest).
    pub(super) fn half_sum(&self, code: usize) -> Option<u64> {
        self.half_sums.get(code).map(|&half| u64::from(half))
    }

    /// Its tables as plain values.
    #[inline(always)]
    pub(super) fn codes(&self) -> Codes<'_, E> {
        Codes {
            cells: self.cells,
            codes: &self.codes,
            table: &self.table,
        }
    }
}

/// A [`Space`](super::Space)'s tables borrowed as plain values, which a loop
/// ranking many boards takes once, so that the compiler holds them in
/// registers: ranked through the space, each board reloaded every field of it
/// after the loop's stores, which the compiler could not tell from the tables
/// (docs/tablebase-builder.md).
#[derive(Clone, Copy)]
pub(crate) struct Tables<'a> {
    pub(super) high: Codes<'a, u32>,
    pub(super) low: Codes<'a, u16>,
    pub(super) contents: u64,
    pub(super) large: u64,
}

impl Tables<'_> {
    /// The rank of each of `boards` (of the space's tile sum) into `ranks` (as
    /// many), or `u64::MAX` for a board outside the space; each rank's word of
    /// a bitmap of the space (64 ranks an item of `words`) asked for. In a
    /// space whose large tiles never move (not
    /// [`Space::is_free`](super::Space::is_free)). A function of its own, so
    /// that the compiler holds the tables in registers: inlined into the
    /// callers' loops, it kept most of them on the stack.
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
    pub(super) fn rank_of_codes(self, high: usize, low: usize) -> Option<u64> {
        let rank = u64::from(self.high.entry(high)) + u64::from(self.low.entry(low));
        (rank < self.contents).then_some(rank)
    }
}

/// A [`Half`]'s code and entry tables, borrowed.
#[derive(Clone, Copy)]
pub(super) struct Codes<'a, E> {
    cells: u64,
    codes: &'a [u32; CODES],
    table: &'a [E],
}

impl<E: Copy + Into<u32>> Codes<'_, E> {
    /// The code of what `board` holds in these cells: past the tables for
    /// a tile over the largest.
    #[inline(always)]
    pub(super) fn code(self, board: u64) -> usize {
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
pub(super) const NONE: u32 = u32::MAX;

/// The bytes of the tables of a [`Space`](super::Space) of `cells` free cells
/// with tiles up to `2^top`: a low half of `cells / 2` cells, a high half of
/// the rest.
pub(super) fn table_bytes(cells: u32, top: u64) -> u64 {
    Half::<u16>::bytes(cells / 2, top) + Half::<u32>::bytes(cells - cells / 2, top)
}

/// How many ways `cells` cells hold tiles up to `2^top` (or nothing) of
/// tile sum `sum`.
pub(super) fn boards_of_sum(cells: u32, sum: u64, top: u64) -> u64 {
    ways_by_half_sum(cells, top, sum / 2)[(sum / 2) as usize]
}

/// How many ways `cells` cells hold tiles up to `2^top` (or nothing) of
/// each half tile sum up to `most`.
pub(super) fn ways_by_half_sum(cells: u32, top: u64, most: u64) -> Vec<u64> {
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
pub(super) fn tile(nibble: u64) -> u64 {
    if nibble == 0 { 0 } else { 1 << nibble }
}
