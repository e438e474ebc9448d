//! Carousel shaping, as TDL2048+'s `block` mode plays it (`-b 2048 65536`):
//! an episode is a chain of games, each started from the board of the game
//! before at its last move that made a large tile, with that board's large
//! tiles raised to the next combination, so that late positions are learnt
//! from long before whole games reach them.

use board::Board;
use rand::Rng;

use crate::watch::{Outcome, Watch};
use crate::{Carousel, Rules, Values, restart};

/// Plays an episode learning by TD(0) (during each game, or after it if
/// `backward`) over the chain of games `carousel` makes; returns the first
/// game's outcome, which `watch` follows.
///
/// The first game starts from a fresh board. Each game records its last
/// afterstate whose move earned at least `carousel.block` (the start, a
/// board of one tile, if none did). The next game starts from that
/// afterstate, with its kinds of tile ([`kinds`]) counted one block up, as
/// a binary number (2048 then 4096, 4096 and 2048, 8192, ...) and forced
/// onto it by [`with_kinds`]; its first update goes to that afterstate. The
/// chain ends when the kinds would reach `carousel.limit` (or leave no
/// empty cell). Games whose
/// rules offer no shaping ([`Rules::empty`]) play the first game alone.
pub(crate) fn play<G: Rules, V: Values<G::Board>, R: Rng>(
    rules: &G,
    values: &V,
    (rate, backward, carousel): (f32, bool, Carousel),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let learn = (rate, backward);
    let mut path = Vec::with_capacity(1024);
    let Some(empty) = rules.empty() else {
        let board = rules.initial(rng);
        watch.start(board);
        return restart::game((rules, values), (board, None), learn, rng, watch, &mut path);
    };
    let mut start = rules.spawn(empty, rng);
    let board = rules.spawn(start, rng);
    watch.start(board);
    let outcome = restart::game((rules, values), (board, None), learn, rng, watch, &mut path);
    start = last_large(&path, carousel.block).unwrap_or(start);
    let mut kinds = rules.kinds(start) + carousel.block;
    while kinds < carousel.limit {
        let afterstate = rules.with_kinds(start, kinds | 1);
        if rules.kinds(afterstate) & 1 == 0 {
            // No empty cell left for the next tile (no kind was held twice
            // to give one up): the chain ends.
            break;
        }
        let board = rules.spawn(afterstate, rng);
        let after = Some(afterstate);
        restart::game(
            (rules, values),
            (board, after),
            learn,
            rng,
            &mut (),
            &mut path,
        );
        start = last_large(&path, carousel.block).unwrap_or(afterstate);
        kinds = rules.kinds(start) + carousel.block;
    }
    outcome
}

/// The last afterstate of `path` whose move earned at least `block`.
fn last_large<B: Copy>(path: &[(B, u32)], block: u32) -> Option<B> {
    path.iter()
        .rev()
        .find(|&&(_, reward)| reward >= block)
        .map(|&(afterstate, _)| afterstate)
}

/// The kinds of tile on `board` as bits: bit 0 for an empty cell, bit t
/// for a tile 2^t (TDL2048+'s `scale`).
pub(crate) fn kinds(board: Board) -> u32 {
    (0..16).fold(0, |kinds, cell| kinds | 1 << board.tile(cell))
}

/// `board` changed towards holding exactly the kinds of tile `wanted`, as
/// TDL2048+'s `board::scale64(wanted)` changes it: while its largest tile
/// is above the largest wanted, the tiles above the highest missing kind
/// move down one ([`shift_down`]); then, from the largest kind that differs
/// down, a wanted kind that is missing takes one cell of the largest
/// present kind below it (or, failing that, of the smallest kind above it
/// held twice), and a present kind that is not wanted becomes the largest
/// wanted kind below it (or the smallest other kind present, or 2).
/// Returns the board and its kinds.
pub(crate) fn with_kinds(mut board: Board, wanted: u32) -> (Board, u32) {
    let mut rank = kinds(board);
    let mut distance = log2(rank) - log2(wanted);
    while distance > 0 {
        distance -= 1;
        let (shifted, moved) = shift_down(board);
        if !moved {
            break;
        }
        board = shifted;
        rank = kinds(board);
    }
    let mut diff = wanted ^ rank;
    while diff != 0 {
        let u = highest(diff);
        if wanted & u != 0 {
            // Wanted but missing: take a cell of another kind.
            let mut t = highest(rank & (u - 1));
            let mut cells = if t != 0 { where_is(board, kind(t)) } else { 0 };
            let mut n = cells.count_ones();
            let mut k = rank & !(u - 1);
            while n == 0 && k != 0 {
                t = lowest(k);
                cells = where_is(board, kind(t));
                n = cells.count_ones();
                if n <= 1 {
                    n = 0;
                }
                k ^= t;
            }
            if n != 0 {
                board = put(board, lowest_cell(cells), kind(u));
                if n == 1 {
                    diff ^= (wanted ^ diff) & t;
                }
                rank = (rank ^ if n > 1 { 0 } else { t }) | u;
            }
        } else {
            // Present but not wanted: all its cells become another kind.
            let cells = where_is(board, kind(u));
            let below = highest(wanted & (u - 1));
            let t = match (below, lowest(rank ^ u)) {
                (0, 0) => 1,
                (0, other) => other,
                (below, _) => below,
            };
            board = put(board, cells, kind(t));
            rank = (rank ^ u) | t;
        }
        diff ^= u;
    }
    (board, rank)
}

/// TDL2048+'s `board::shift64()`: the tiles above the highest kind missing
/// below the largest tile (empty cells aside) move down one kind, filling
/// it. Whether anything moved.
fn shift_down(board: Board) -> (Board, bool) {
    let rank = kinds(board);
    let mask = (highest(rank).wrapping_sub(1)) & !1;
    let hole = highest(!rank & mask);
    if hole == 0 {
        return (board, false);
    }
    let mut shifted = board;
    let mut above = rank & !(hole - 1);
    while above != 0 {
        let last = lowest(above);
        shifted = put(shifted, where_is(board, kind(last)), kind(last) - 1);
        above ^= last;
    }
    (shifted, true)
}

/// The cells holding tile kind `tile`, as the low bit of each cell's nibble.
fn where_is(board: Board, tile: u8) -> u64 {
    let mut x = board.raw() ^ (u64::from(tile) * 0x1111_1111_1111_1111);
    x |= x >> 2;
    x |= x >> 1;
    !x & 0x1111_1111_1111_1111
}

/// `board` with the cells of `cells` (low nibble bits) set to `tile`.
fn put(board: Board, cells: u64, tile: u8) -> Board {
    Board::from_raw((board.raw() & !(cells * 0xF)) | (cells * u64::from(tile)))
}

/// The lowest cell of `cells` alone.
fn lowest_cell(cells: u64) -> u64 {
    cells & cells.wrapping_neg()
}

/// The kind a one-bit set stands for.
fn kind(bit: u32) -> u8 {
    bit.trailing_zeros() as u8
}

fn highest(bits: u32) -> u32 {
    if bits == 0 {
        0
    } else {
        1 << (31 - bits.leading_zeros())
    }
}

fn lowest(bits: u32) -> u32 {
    bits & bits.wrapping_neg()
}

/// The floor of log2, as TDL2048+'s `math::lg` (-1 for 0).
fn log2(bits: u32) -> i32 {
    31 - bits.leading_zeros() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board of the fixture changed as TDL2048+ changes it.
    #[test]
    fn kinds_are_forced_as_tdl2048_forces_them() {
        let fixture = include_str!("../tests/fixtures/tdl2048-scale.tsv");
        let hex = |field: &str| u64::from_str_radix(field.trim_start_matches("0x"), 16).unwrap();
        let mut rows = 0;
        for line in fixture.lines().filter(|line| !line.starts_with('#')) {
            let fields: Vec<u64> = line.split('\t').map(hex).collect();
            let (board, wanted) = (Board::from_raw(fields[0]), fields[1] as u32);
            let (changed, rank) = with_kinds(board, wanted);
            assert_eq!(
                (changed.raw(), u64::from(rank)),
                (fields[2], fields[3]),
                "{line}"
            );
            assert_eq!(kinds(changed), rank, "{line}");
            rows += 1;
        }
        assert_eq!(rows, 340);
    }

    #[test]
    fn shifting_fills_the_highest_hole() {
        // 2 8 32 64: 16 and 4 are missing, 16 the highest: 32 and 64 move down.
        let board: Board = "2 8 32 64 / . . . . / . . . . / . . . .".parse().unwrap();
        let expected: Board = "2 8 16 32 / . . . . / . . . . / . . . .".parse().unwrap();
        assert_eq!(shift_down(board), (expected, true));
        let full: Board = "2 4 8 16 / . . . . / . . . . / . . . .".parse().unwrap();
        assert_eq!(shift_down(full), (full, false));
    }
}
