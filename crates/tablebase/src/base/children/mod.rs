//! The children of a position: for each empty cell and each spawn, the
//! moves that change the board and keep the formation, in canonical form.
//! Generation, solving and the probes all list children here.

pub(crate) mod lanes;

use crate::base::canon::Canon;
use crate::base::slide::Mover;
use crate::base::spec::Spec;

/// Evaluates `$body` with `$form` bound to the form that children take
/// from a spawned board's four moves, all four at once: as the moves left
/// them if `$moved` or the formation has no symmetry (`$canon` the
/// identity), else in canonical form.
macro_rules! with_form {
    ($canon:expr, $moved:expr, $form:ident => $body:expr) => {{
        let canon: Canon = $canon;
        match canon {
            _ if $moved || canon == Canon::Identity => {
                let $form = |moved: [u64; 4]| moved;
                $body
            }
            // Free formations: a move's four results are canonicalised at
            // once ([`Canon::canonical_all`]), which took their builds about
            // a tenth less CPU time than one at a time
            // (docs/tablebase-builder.md); the same loop
            // slowed the other modes, which form each move alone.
            Canon::Full => {
                let $form = |moved| canon.canonical_all(moved);
                $body
            }
            _ => {
                let $form = |moved: [u64; 4]| moved.map(|moved| canon.canonical(moved));
                $body
            }
        }
    }};
}

/// Calls `visit` with the canonical children of `board` with a tile of
/// `exponent` spawned: for every empty cell, every move that changes the
/// board and keeps the formation.
#[inline]
pub fn children(spec: &Spec, mover: &Mover, board: u64, exponent: u8, visit: &mut impl FnMut(u64)) {
    for_each_child(spec, mover, board, exponent..=exponent, |_, _, child| {
        visit(child)
    });
}

/// Calls `visit(cell, side, child)` for every child of `board`: for its
/// `cell`-th empty cell (counted from 0) and a tile of each of `exponents`
/// spawned there (exponent 1, a 2, `side` 0, whose children are in the next
/// layer; exponent 2, a 4, `side` 1, the layer after), the canonical board
/// of every move that changes the board and keeps the formation, in
/// [`board::Direction::ALL`] order. Returns the number of empty cells.
///
/// The optimal-line thinning and the solver of one position at a time list
/// children here, and generation and the grouped solver through
/// `list_children`, which checks them alike from the same moves
/// ([`Mover::slide_all_spawned`]); the tests hold the two to the same
/// children.
#[inline(always)]
pub fn for_each_child(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    exponents: std::ops::RangeInclusive<u8>,
    visit: impl FnMut(usize, usize, u64),
) -> usize {
    with_form!(spec.formation().canon(), false, form => {
        for_each_formed(spec, mover, board, exponents, form, visit)
    })
}

/// [`for_each_child`] with each child as the move left it, not in
/// canonical form: for lookups that find every orientation of a board
/// alike (a free formation's ranks, `rank::Space::placed`), which then
/// spare the canonical forms (docs/tablebase-builder.md).
#[inline(always)]
pub fn for_each_moved(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    exponents: std::ops::RangeInclusive<u8>,
    visit: impl FnMut(usize, usize, u64),
) -> usize {
    for_each_formed(spec, mover, board, exponents, |moved| moved, visit)
}

/// Calls `visit(cell, side, child)` as [`for_each_child`] does, each child
/// in the form that `form` gives the four results of a spawned board's
/// moves, made all at once, children or not.
#[inline(always)]
fn for_each_formed(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    exponents: std::ops::RangeInclusive<u8>,
    form: impl Fn([u64; 4]) -> [u64; 4],
    mut visit: impl FnMut(usize, usize, u64),
) -> usize {
    let fits = fits(spec.formation());
    let slid = mover.slid(board);
    let (first, last) = exponents.into_inner();
    let mut cells = 0;
    for cell in empty_cells(board) {
        for exponent in first..last + 1 {
            let spawned = board | u64::from(exponent) << (4 * cell);
            let moved = mover.slide_all_spawned(&slid, cell, exponent);
            for (moved, formed) in moved.into_iter().zip(form(moved)) {
                if moved != spawned && fits(moved) {
                    visit(cells, usize::from(exponent - 1), formed);
                }
            }
        }
        cells += 1;
    }
    cells
}

/// Whether a move's result keeps the formation's large tiles.
#[inline(always)]
fn fits(formation: &crate::Formation) -> impl Fn(u64) -> bool + '_ {
    let mask = one_mask(formation);
    move |moved: u64| match mask {
        Some(mask) => mask & !moved == 0,
        None => formation.fits(moved),
    }
}

/// The formation's one mask of large cells (0 for none): every fixed
/// formation has one, which needs no loop to check.
#[inline(always)]
fn one_mask(formation: &crate::Formation) -> Option<u64> {
    match formation.masks() {
        [] => Some(0),
        &[mask] => Some(mask),
        _ => None,
    }
}

/// Lists `board`'s children after a 2 (in `listed[0]`) and after a 4 (in
/// `listed[1]`), those of `exponents`, each with `tag(cell, side)`: the
/// children [`for_each_child`] visits, or [`for_each_moved`] if `moved`,
/// in its order. Returns the number of empty cells.
///
/// A spawned board's four moves are checked and written at once, its
/// children first (in vector lanes: `crate::base::children::lanes`), and the length moved
/// on by their number, without a branch: which moves are children follows
/// no pattern a CPU could predict, and the lengths stay in registers
/// (docs/tablebase-builder.md).
#[inline(always)]
pub(crate) fn list_children<T: Copy>(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    exponents: std::ops::RangeInclusive<u8>,
    moved: bool,
    listed: &mut [Listed<T>; 2],
    tag: impl Fn(usize, usize) -> T,
) -> usize {
    with_form!(spec.formation().canon(), moved, form => {
        list_formed(spec, mover, board, exponents, form, listed, tag)
    })
}

/// [`list_children`], each child in the form `form` gives.
#[inline(always)]
fn list_formed<T: Copy>(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    exponents: std::ops::RangeInclusive<u8>,
    form: impl Fn([u64; 4]) -> [u64; 4],
    [two, four]: &mut [Listed<T>; 2],
    tag: impl Fn(usize, usize) -> T,
) -> usize {
    let (formation, mask) = (spec.formation(), one_mask(spec.formation()));
    let slid = mover.slid(board);
    let (first, last) = exponents.into_inner();
    let mut lens = [two.len, four.len];
    let mut lists = [
        (&mut *two.boards, &mut *two.tags),
        (&mut *four.boards, &mut *four.tags),
    ];
    let mut cells = 0;
    for cell in empty_cells(board) {
        for (side, ((boards, tags), len)) in lists.iter_mut().zip(&mut lens).enumerate() {
            let exponent = side as u8 + 1;
            if exponent < first || exponent > last {
                continue;
            }
            let spawned = board | u64::from(exponent) << (4 * cell);
            let moved = mover.slide_all_spawned(&slid, cell, exponent);
            let children = match mask {
                Some(mask) => lanes::children(moved, spawned, mask),
                None => (0..4).fold(0, |children, lane| {
                    let child = moved[lane] != spawned && formation.fits(moved[lane]);
                    children | u32::from(child) << lane
                }),
            };
            // All four written, the children first, the next written after
            // the children.
            let at = *len % LISTED;
            let four_boards = (&mut boards[at..at + 4]).try_into().expect("four");
            lanes::write_children(four_boards, form(moved), children);
            tags[at..at + 4].copy_from_slice(&[tag(cells, side); 4]);
            *len += children.count_ones() as usize;
        }
        cells += 1;
    }
    debug_assert!(lens.iter().all(|&len| len <= LISTED), "a group's children");
    [two.len, four.len] = lens;
    cells
}

/// The empty cells of a board, lowest first.
#[inline]
pub fn empty_cells(board: u64) -> impl Iterator<Item = usize> {
    let any = board | (board >> 1);
    let any = any | (any >> 2);
    let mut empty = !any & 0x1111_1111_1111_1111;
    std::iter::from_fn(move || {
        (empty != 0).then(|| {
            let cell = empty.trailing_zeros() as usize / 4;
            empty &= empty - 1;
            cell
        })
    })
}

/// Parents whose children are listed together, then ranked, then marked
/// ([`mark`](crate::build::generate::mark)) or looked up (the grouped solver): 16 to 64 marked
/// free8-32's largest layers alike in a harness, and 128 took L3-256 and
/// free8-32 1.04 to 1.08 times less CPU than 32 in whole builds, where each
/// group's passes run longer between their set-ups and ask for more
/// words ahead (docs/tablebase-builder.md).
pub(crate) const GROUP: usize = 128;

/// The most children of a parent after one spawn: four moves for each of
/// sixteen empty cells.
pub(crate) const MOST_CHILDREN: usize = 64;

/// The most children of a group of parents after one spawn.
pub(crate) const LISTED: usize = GROUP * MOST_CHILDREN;
const _: () = assert!(LISTED.is_power_of_two());

/// The children of a group of parents after one spawn, as listed
/// ([`list_children`]), each with a tag (the solver's slot of its best
/// rate; nothing here): two arrays and a length, which stay in registers
/// where a `Vec`'s pushes each checked its capacity and stored its length
/// (the grouped solver ran a tenth fewer instructions building L3-64;
/// docs/tablebase-builder.md). The arrays
/// hold four more than [`LISTED`], as each spawned board writes all four
/// of its moves after the children before it; a group's children are
/// fewer (a position holds a tile, so it has at most 60 children after a
/// spawn), and the writes never reach the first again.
pub(crate) struct Listed<T> {
    boards: Box<[u64; LISTED + 4]>,
    tags: Box<[T; LISTED + 4]>,
    len: usize,
}

impl<T: Copy + Default> Listed<T> {
    pub(crate) fn new() -> Self {
        Self {
            boards: Box::new([0; LISTED + 4]),
            tags: Box::new([T::default(); LISTED + 4]),
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn boards(&self) -> &[u64] {
        &self.boards[..self.len]
    }

    pub(crate) fn tags(&self) -> &[T] {
        &self.tags[..self.len]
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_cells_are_found_exactly() {
        let board = 0xF0F0_0000_1234_0F00u64;
        let cells: Vec<usize> = empty_cells(board).collect();
        assert_eq!(cells, [0, 1, 3, 8, 9, 10, 11, 12, 14]);
        assert_eq!(empty_cells(u64::MAX).count(), 0);
        assert_eq!(empty_cells(0).count(), 16);
    }
}
