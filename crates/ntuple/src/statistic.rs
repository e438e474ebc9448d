//! TDL2048+'s statistic features: tables indexed not by the tiles on a few
//! cells but by a summary of the board (merges, the order of tiles along
//! lines, counts of tiles). They add knowledge n-tuples see only through
//! many weights, at the cost of one table each.

use board::Board;
use system::bits::pext;

/// What a weight table's index is made of.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Kind {
    /// An n-tuple: the tiles on its cells.
    Tuple,
    /// `merge`: the merges a left move makes in each row and an up move in
    /// each column ([`merge_index`]).
    Merge,
    /// `m@0123`, `m@4567`: the order of the tiles along two lines of four
    /// cells, the pattern's first four cells and its last four
    /// ([`monotonicity`]).
    Monotonicity,
    /// `num@lt`: how many tiles of each of 256 to 32768 ([`large_tiles`]).
    LargeTiles,
    /// `num@st`: how many empty cells and tiles of each of 2 to 128
    /// ([`small_tiles`]).
    SmallTiles,
}

impl Kind {
    /// The number of entries of its table, for n-tuples of `cells` cells
    /// taking `radix` values each.
    pub(crate) const fn entries(self, cells: u32, radix: u32) -> usize {
        match self {
            Self::Tuple => (radix as usize).pow(cells),
            Self::Merge => 1 << 16,
            Self::Monotonicity | Self::LargeTiles | Self::SmallTiles => 1 << 24,
        }
    }
}

/// TDL2048+'s `merge` index: the merges of each row (bits `2r..2r+2`), then
/// of each column (bits `8+2c..8+2c+2`).
#[inline]
pub(crate) fn merge_index(board: Board) -> usize {
    let transposed = board.transpose();
    (0..4).fold(0, |index, line| {
        let merges =
            |board: Board| usize::from(MERGES[(board.raw() >> (16 * line)) as u16 as usize]);
        index | merges(board) << (2 * line) | merges(transposed) << (8 + 2 * line)
    })
}

/// The merges of every line of four tiles ([`merges`]), by the line's
/// nibbles: eight lookups a board instead of eight loops.
static MERGES: [u8; 1 << 16] = {
    let mut counts = [0; 1 << 16];
    let mut line = 0;
    while line < 1 << 16 {
        counts[line] = merges(line as u16);
        line += 1;
    }
    counts
};

/// The number of merges sliding a line of four nibbles makes (either way:
/// a run of k equal tiles gives k / 2 merges from either end).
const fn merges(line: u16) -> u8 {
    let mut count = 0;
    // The last tile not yet merged, 0 for none.
    let mut open = 0;
    let mut cell = 0;
    while cell < 4 {
        let tile = (line >> (4 * cell)) & 0xF;
        if tile != 0 {
            if tile == open {
                count += 1;
                open = 0;
            } else {
                open = tile;
            }
        }
        cell += 1;
    }
    count
}

/// TDL2048+'s `mono` index of two lines of four cells, `cells[..4]` and
/// `cells[4..]`: 12 bits for each line ([`line_order`]), the first line
/// lowest.
pub(crate) fn monotonicity(board: Board, cells: &[u8]) -> usize {
    let line = |cells: &[u8]| {
        let nibbles = cells.iter().rev().fold(0, |nibbles, &cell| {
            nibbles << 4 | usize::from(board.tile(usize::from(cell)))
        });
        usize::from(LINE_ORDERS[nibbles])
    };
    line(&cells[..4]) | line(&cells[4..]) << 12
}

/// The order code ([`line_order`]) of every line of four tiles, by the
/// line's nibbles (the first cell lowest): a lookup instead of six
/// comparisons, as TDL2048+ does it.
pub(crate) static LINE_ORDERS: [u16; 1 << 16] = {
    let mut orders = [0; 1 << 16];
    let mut nibbles = 0;
    while nibbles < 1 << 16 {
        let tiles = (nibbles as u16).to_le_bytes();
        orders[nibbles] =
            line_order([tiles[0] & 0xF, tiles[0] >> 4, tiles[1] & 0xF, tiles[1] >> 4]);
        nibbles += 1;
    }
    orders
};

/// The order of the tiles of a line, two bits for each of its six pairs of
/// cells (0-1, 0-2, 0-3, 1-2, 1-3, 2-3, the first pair lowest): for tiles a
/// and b, bit 0 says a >= b and bit 1 says b >= a, so 3 is equal tiles and
/// 0 two empty cells.
const fn line_order(tiles: [u8; 4]) -> u16 {
    const PAIRS: [(usize, usize); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let mut order = 0;
    let mut k = 0;
    while k < PAIRS.len() {
        let (a, b) = (tiles[PAIRS[k].0], tiles[PAIRS[k].1]);
        if a | b != 0 {
            order |= ((a >= b) as u16 | ((b >= a) as u16) << 1) << (2 * k);
        }
        k += 1;
    }
    order
}

/// TDL2048+'s `num@lt` index: the number of tiles of 256, 512, ..., 32768,
/// three bits each (at most 7), 256's lowest.
pub(crate) fn large_tiles(board: Board) -> usize {
    capped_counts(tile_counts(board) >> 32)
}

/// TDL2048+'s `num@st` index: the number of empty cells and of tiles of 2,
/// 4, ..., 128, three bits each (at most 7), empty cells lowest.
pub(crate) fn small_tiles(board: Board) -> usize {
    capped_counts(tile_counts(board))
}

/// How many cells hold each tile (0 for empty cells), a nibble each, the
/// empty cells lowest. The counts are added as one integer, as TDL2048+
/// adds them: sixteen cells of one kind (the empty board) carry into the
/// next kind's count, and a feature reads them so.
#[inline]
fn tile_counts(board: Board) -> u64 {
    board
        .raw()
        .to_le_bytes()
        .iter()
        .fold(0u64, |counts, &pair| {
            counts.wrapping_add(PAIR_COUNTS[usize::from(pair)])
        })
}

/// The counts of the two cells of each byte of a board.
const PAIR_COUNTS: [u64; 256] = {
    let mut counts = [0; 256];
    let mut pair = 0;
    while pair < 256 {
        counts[pair] = (1 << (4 * (pair & 0xF))) + (1 << (4 * (pair >> 4)));
        pair += 1;
    }
    counts
};

/// The lowest eight nibbles of `counts`, three bits each, capped at 7, the
/// first lowest.
#[inline]
fn capped_counts(counts: u64) -> usize {
    const NIBBLES: u64 = 0x7777_7777;
    // 7 where a count's top bit is set, the count itself otherwise.
    let capped = (counts & NIBBLES) | (((counts >> 3) & 0x1111_1111) * 7);
    pext(capped, NIBBLES) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_counts_merges_per_row_and_column() {
        // Row 0: 2 2 4 4 (two merges); column 0: 2 . 2 . (one merge).
        let board: Board = "2 2 4 4 / . . . . / 2 . . . / . . . .".parse().unwrap();
        assert_eq!(merge_index(board), 0b10 | 0b01 << 8);
    }

    #[test]
    fn merges_are_the_tiles_a_slide_removes() {
        for line in 0..=u16::MAX {
            let tiles = [0, 1, 2, 3].map(|cell| (line >> (4 * cell)) as u8 & 0xF);
            let (slid, _) = board::reference::slide_towards_first(tiles, 16);
            let count = |tiles: [u8; 4]| tiles.iter().filter(|&&tile| tile != 0).count();
            assert_eq!(
                usize::from(MERGES[usize::from(line)]),
                count(tiles) - count(slid)
            );
        }
    }

    #[test]
    fn line_order_codes_each_pair() {
        // 8 4 4 .: 8>=4, 8>=4, 8>=., 4=4, 4>=., 4>=.
        assert_eq!(line_order([3, 2, 2, 0]), 0b01_01_11_01_01_01);
        // . . . 2: the three pairs of empty cells are 0, the rest say 2 >= .
        assert_eq!(line_order([0, 0, 0, 1]), 0b10_10_00_10_00_00);
        assert_eq!(line_order([0; 4]), 0);
    }

    #[test]
    fn line_orders_hold_every_lines_code() {
        assert_eq!(LINE_ORDERS[0x0223], line_order([3, 2, 2, 0]));
        assert_eq!(LINE_ORDERS[0], 0);
    }

    #[test]
    fn monotonicity_puts_the_first_line_lowest() {
        let board: Board = "8 4 4 . / . . . 2 / . . . . / . . . .".parse().unwrap();
        let outer = monotonicity(board, &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(outer, 0b01_01_11_01_01_01 | 0b10_10_00_10_00_00 << 12);
        let reversed = monotonicity(board, &[4, 5, 6, 7, 0, 1, 2, 3]);
        assert_eq!(reversed, outer >> 12 | (outer & 0xFFF) << 12);
    }

    #[test]
    fn counts_take_three_bits_and_cap_at_seven() {
        // Eight 2s (capped at 7), one 4, one 256, two 32768, four empty.
        let board: Board = "2 2 2 2 / 2 2 2 2 / 4 256 32768 32768 / . . . ."
            .parse()
            .unwrap();
        assert_eq!(small_tiles(board), 4 | 7 << 3 | 1 << 6);
        assert_eq!(large_tiles(board), 1 | 2 << 21);
        assert!(large_tiles(board) < Kind::LargeTiles.entries(0, 16));
    }

    #[test]
    fn sixteen_of_a_kind_carry_into_the_next_count_as_in_tdl2048() {
        // Sixteen empty cells: no empty cell and one 2, by TDL2048+'s sums.
        assert_eq!(small_tiles(Board::from_raw(0)), 1 << 3);
        assert_eq!(large_tiles(Board::from_raw(0x8888_8888_8888_8888)), 1 << 3);
    }
}
