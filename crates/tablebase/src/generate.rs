//! Forward generation: every position a layer's positions lead to.

use rayon::prelude::*;

use crate::sort::{merge_unique, sort_unique};
use crate::{Mover, Spec};

/// Boards per parallel work item: large enough to amortise the scheduling,
/// small enough to balance two to sixteen threads.
const CHUNK: usize = 1 << 12;

/// A direct-mapped cache of the children seen last: neighbouring parents
/// share many children, and dropping the repeats before sorting makes the
/// sort several times shorter (the reference builder does the same). It is
/// lossy: a repeat that was evicted is sorted out later.
struct Recent {
    slots: Box<[u64; Recent::SLOTS]>,
}

impl Recent {
    const SLOTS: usize = 1 << 12;

    fn new() -> Self {
        Self {
            slots: Box::new([u64::MAX; Self::SLOTS]),
        }
    }

    /// Whether `board` is not in its slot, which it then takes.
    #[inline]
    fn is_new(&mut self, board: u64) -> bool {
        let hash = board.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SLOTS.ilog2());
        let slot = &mut self.slots[hash as usize];
        let new = *slot != board;
        *slot = board;
        new
    }
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
/// Generation, both solvers and the optimal-line thinning all list children
/// here, so they can never disagree on them.
#[inline(always)]
pub fn for_each_child(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    exponents: std::ops::RangeInclusive<u8>,
    mut visit: impl FnMut(usize, usize, u64),
) -> usize {
    let formation = spec.formation();
    let (first, last) = exponents.into_inner();
    let mut cells = 0;
    for cell in empty_cells(board) {
        for exponent in first..last + 1 {
            let spawned = board | u64::from(exponent) << (4 * cell);
            for moved in mover.slide_all(spawned) {
                if moved != spawned && formation.fits(moved) {
                    visit(
                        cells,
                        usize::from(exponent - 1),
                        formation.canon().canonical(moved),
                    );
                }
            }
        }
        cells += 1;
    }
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

/// Layer `index`: the children of layer `index - 1` with a 2 spawned and of
/// layer `index - 2` with a 4, sorted and without repeats. Parents that are
/// won ([`Spec::is_won`]) or in the horizon are not expanded; the caller
/// passes an empty slice for a parent layer that is not expanded at all.
/// `index` is at least 1: layer 0 is the seeds.
pub fn layer(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    after_two: &[u64],
    after_four: &[u64],
) -> Vec<u64> {
    let mut runs = vec![run(spec, mover, index - 1, 1, after_two)];
    if index >= 2 {
        runs.push(run(spec, mover, index - 2, 2, after_four));
    }
    merge(runs)
}

/// The children of `parents`, positions of layer `parent_layer`, with a
/// tile of `exponent` spawned: sorted and without repeats. Won parents are
/// not expanded. A layer generated in pieces is the [`merge`] of the runs
/// of its parents' pieces.
///
/// The children are sorted once, all together: sorting each work item's
/// first removed few repeats (6% on L3-128, whose repeats are mostly
/// between work items) and cost 5% of the whole build.
pub fn run(
    spec: &Spec,
    mover: &Mover,
    parent_layer: usize,
    exponent: u8,
    parents: &[u64],
) -> Vec<u64> {
    let parts = parents
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut out = Vec::with_capacity(chunk.len() * 8);
            let mut recent = Recent::new();
            for &board in chunk {
                if !spec.is_won(board, parent_layer) {
                    children(spec, mover, board, exponent, &mut |child| {
                        if recent.is_new(child) {
                            out.push(child);
                        }
                    });
                }
            }
            out
        })
        .collect::<Vec<_>>();
    let children = parts.concat();
    drop(parts);
    sort_unique(children)
}

/// The sorted union of runs (each sorted and without repeats), without
/// repeats: two runs, a layer's from each parent layer, are merged in one
/// pass; more (the runs of a layer generated in pieces), sorted together.
pub fn merge(mut runs: Vec<Vec<u64>>) -> Vec<u64> {
    match &mut runs[..] {
        [] => Vec::new(),
        [run] => std::mem::take(run),
        [first, second] => {
            let mut boards = vec![0; first.len() + second.len()];
            let kept = merge_unique(first, second, &mut boards);
            boards.truncate(kept);
            boards
        }
        _ => {
            let boards = runs.concat();
            drop(runs);
            sort_unique(boards)
        }
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

    #[test]
    fn pieces_make_the_same_layer() {
        let spec = Spec::new(crate::Formation::builtin("442").unwrap(), 6, 0.1).unwrap();
        let mover = Mover::new(spec.formation().large());
        let mut layers = vec![spec.formation().layer_zero()];
        let empty = Vec::new();
        for index in 1..12 {
            let two = &layers[index - 1];
            let four = if index >= 2 {
                &layers[index - 2]
            } else {
                &empty
            };
            let whole = layer(&spec, &mover, index, two, four);
            let runs: Vec<Vec<u64>> = two
                .chunks(7)
                .map(|piece| run(&spec, &mover, index - 1, 1, piece))
                .chain(
                    four.chunks(7)
                        .map(|piece| run(&spec, &mover, index - 2, 2, piece)),
                )
                .collect();
            assert!(runs.len() > 1 || two.len() + four.len() <= 7);
            assert_eq!(merge(runs), whole);
            layers.push(whole);
        }
    }
}
