//! A position's rate from its children's: the spawn-weighted average of
//! the best move after each spawn, and the children that rate looks up.

use rayon::prelude::*;

use crate::base::children::{for_each_child, for_each_moved};
use crate::base::layer::Solved;
use crate::base::rate::Rate;
use crate::base::sort::{sort_unique, union};
use crate::{Mover, Spec};

/// A position's rate from the best move after each spawn, cell by cell
/// (`with_two[k]` and `with_four[k]` for its `k`-th empty cell, in the
/// rate type's units): the spawn-weighted average over the cells, 0
/// without any. The operations are the reference's, in its order.
#[inline(always)]
pub(crate) fn average<R: Rate>(four: f64, with_two: &[f64], with_four: &[f64]) -> R {
    if with_two.is_empty() {
        return R::default();
    }
    let sum = with_two
        .iter()
        .zip(with_four)
        .fold(0.0f64, |sum, (&two, &after_four)| {
            sum + two * (1.0 - four) + after_four * four
        });
    R::from_units(sum / with_two.len() as f64)
}

/// The success probability of `board` in layer `index`, given the two
/// layers after it: 1 if won, else the average over empty cells of the
/// spawn-weighted best moves.
///
/// One position at a time; [`layer`](crate::build::solve::layer) solves many
/// together, with the same numbers bit for bit.
#[inline]
pub fn rate<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    index: usize,
    next: &Solved<R>,
    after: &Solved<R>,
) -> R {
    if spec.is_won(board, index) {
        return R::ONE;
    }
    let mut best = [[0.0f64; 16]; 2];
    let look_up = |cell: usize, side: usize, child| {
        let layer = if side == 0 { next } else { after };
        best[side][cell] = best[side][cell].max(layer.child_rate(child).units());
    };
    let cells = if next.finds_every_orientation() && after.finds_every_orientation() {
        for_each_moved(spec, mover, board, 1..=2, look_up)
    } else {
        for_each_child(spec, mover, board, 1..=2, look_up)
    };
    average(spec.four_rate(), &best[0][..cells], &best[1][..cells])
}

/// The boards that [`layer`](crate::build::solve::layer) looks up to solve
/// `boards` of layer `index`: those in the next layer (after a 2) and those in
/// the one after (after a 4), each sorted and without repeats. Solving in
/// pieces fetches just these from disk.
pub fn wanted(spec: &Spec, mover: &Mover, index: usize, boards: &[u64]) -> [Vec<u64>; 2] {
    let mut sought = Sought::default();
    sought.add(spec, mover, index, boards);
    sought.finish()
}

/// The boards that [`layer`](crate::build::solve::layer) looks up, gathered
/// from one batch of boards after another: a segment solved within a budget
/// takes boards until what they look up fills its share ([`Sought::len`]).
#[derive(Debug, Default)]
pub struct Sought {
    /// Sorted runs without repeats, after a 2 and after a 4: one for the
    /// children of each [`Sought::PIECE`] boards.
    runs: [Vec<Vec<u64>>; 2],
    /// The boards in the runs.
    len: usize,
}

impl Sought {
    /// Parents a run is listed from: enough children for the radix sort to
    /// pay, and few runs to merge. Runs of 2^10 parents, sorted by the
    /// standard sort, took 1.16 times the CPU time of L3-256 built with
    /// `--memory 40M` (docs/distributed.md), for a peak as low (36 MiB).
    const PIECE: usize = 1 << 14;

    /// Adds the boards that solving `boards` of layer `index` looks up.
    pub fn add(&mut self, spec: &Spec, mover: &Mover, index: usize, boards: &[u64]) {
        let pieces: Vec<[Vec<u64>; 2]> = boards
            .par_chunks(Self::PIECE)
            .map(|chunk| {
                let mut asked = [Vec::new(), Vec::new()];
                for &board in chunk {
                    if !spec.is_won(board, index) {
                        for_each_child(spec, mover, board, 1..=2, |_, side, child| {
                            asked[side].push(child)
                        });
                    }
                }
                // Unlike generation, each piece drops its repeats first, and
                // the room they took, so that the lists held for a segment
                // within a budget stay small.
                asked.map(|boards| {
                    let mut boards = sort_unique(boards);
                    boards.shrink_to_fit();
                    boards
                })
            })
            .collect();
        for [two, four] in pieces {
            self.len += two.len() + four.len();
            self.runs[0].push(two);
            self.runs[1].push(four);
        }
    }

    /// The boards held, repeats between runs included: at least as many as
    /// [`Sought::finish`] returns.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The boards after a 2 and after a 4, each sorted and without
    /// repeats: the runs merged, which takes at most as many boards again
    /// as [`Sought::len`] while the runs are held.
    pub fn finish(self) -> [Vec<u64>; 2] {
        self.runs.map(|runs| {
            let runs: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
            union(&runs)
        })
    }
}

/// The rates of a horizon layer: 1 where the target shows, else 0.
pub fn horizon<R: Rate>(spec: &Spec, boards: &[u64]) -> Vec<R> {
    boards
        .par_iter()
        .map(|&board| {
            if spec.formation().shows(board, spec.target()) {
                R::ONE
            } else {
                R::default()
            }
        })
        .collect()
}
