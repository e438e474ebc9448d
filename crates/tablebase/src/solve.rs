//! Backward solving: the success probability of every position of a layer
//! from the two layers after it.

use rayon::prelude::*;

use crate::generate::empty_cells;
use crate::index::Index;
use crate::{Mover, Spec};

/// A solved layer in memory: sorted boards, their success rates (a board
/// that is not there is worth 0), and a bucket index for lookups.
#[derive(Clone, Debug, Default)]
pub struct Solved {
    boards: Vec<u64>,
    rates: Vec<f64>,
    index: Index,
}

impl Solved {
    /// A solved layer of sorted `boards` and their `rates`.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn new(boards: Vec<u64>, rates: Vec<f64>) -> Self {
        assert_eq!(boards.len(), rates.len(), "one rate per board");
        Self {
            index: Index::new(&boards),
            boards,
            rates,
        }
    }

    /// The positions, sorted.
    pub fn boards(&self) -> &[u64] {
        &self.boards
    }

    /// Their success probabilities.
    pub fn rates(&self) -> &[f64] {
        &self.rates
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    /// Whether the layer holds no position.
    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    /// The rate of a canonical `board`: 0 if the layer lacks it.
    #[inline]
    pub fn rate(&self, board: u64) -> f64 {
        let range = self.index.range(board);
        let start = range.start;
        match self.boards[range].binary_search(&board) {
            Ok(found) => self.rates[start + found],
            Err(_) => 0.0,
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

    /// The positions whose rate is above `threshold` (the reference stores
    /// those above 0; the others read as 0 anyway).
    #[must_use]
    pub fn above(&self, threshold: f64) -> Self {
        let (boards, rates) = self
            .boards
            .iter()
            .zip(&self.rates)
            .filter(|&(_, &rate)| rate > threshold)
            .unzip();
        Self::new(boards, rates)
    }
}

/// Where the rates of a layer's positions are looked up.
pub trait Rates {
    /// The rate of a canonical `board`: 0 if it is not there.
    fn rate(&self, board: u64) -> f64;
}

impl Rates for Solved {
    #[inline]
    fn rate(&self, board: u64) -> f64 {
        Solved::rate(self, board)
    }
}

/// Lookups that only note the boards asked for (and read 0).
#[derive(Default)]
struct Asked(std::cell::RefCell<Vec<u64>>);

impl Rates for Asked {
    fn rate(&self, board: u64) -> f64 {
        self.0.borrow_mut().push(board);
        0.0
    }
}

/// The best rate after a spawn: the largest rate in `next` of the boards the
/// allowed moves of `spawned` lead to, 0 when no move is allowed.
#[inline]
pub fn best_move(spec: &Spec, mover: &Mover, spawned: u64, next: &impl Rates) -> f64 {
    let formation = spec.formation();
    let mut best = 0.0f64;
    for moved in mover.slide_all(spawned) {
        if moved != spawned && formation.fits(moved) {
            best = best.max(next.rate(formation.canon().canonical(moved)));
        }
    }
    best
}

/// The success probability of `board` in layer `index`, given the two
/// layers after it: 1 if won, else the average over empty cells of the
/// spawn-weighted best moves.
#[inline]
pub fn rate(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    index: usize,
    next: &impl Rates,
    after: &impl Rates,
) -> f64 {
    if spec.is_won(board, index) {
        return 1.0;
    }
    let four = spec.four_rate();
    let mut sum = 0.0f64;
    let mut empty = 0u32;
    for cell in empty_cells(board) {
        let shift = 4 * cell;
        let with_two = best_move(spec, mover, board | 1 << shift, next);
        let with_four = best_move(spec, mover, board | 2 << shift, after);
        sum += (1.0 - four) * with_two + four * with_four;
        empty += 1;
    }
    if empty == 0 {
        0.0
    } else {
        sum / f64::from(empty)
    }
}

/// The boards that [`layer`] looks up to solve `boards` of layer `index`:
/// those in the next layer (after a 2) and those in the one after (after a
/// 4), each sorted and without repeats. Solving in pieces fetches just
/// these from disk.
pub fn wanted(spec: &Spec, mover: &Mover, index: usize, boards: &[u64]) -> [Vec<u64>; 2] {
    let pieces: Vec<[Vec<u64>; 2]> = boards
        .par_chunks(1 << 10)
        .map(|chunk| {
            let (next, after) = (Asked::default(), Asked::default());
            for &board in chunk {
                rate(spec, mover, board, index, &next, &after);
            }
            [next, after].map(|asked| {
                let mut boards = asked.0.into_inner();
                boards.sort_unstable();
                boards.dedup();
                boards
            })
        })
        .collect();
    [0, 1].map(|side| {
        let mut boards: Vec<u64> = pieces
            .iter()
            .flat_map(|piece| &piece[side])
            .copied()
            .collect();
        boards.sort_unstable();
        boards.dedup();
        boards
    })
}

/// The rates of a horizon layer: 1 where the target shows, else 0.
pub fn horizon(spec: &Spec, boards: &[u64]) -> Vec<f64> {
    boards
        .par_iter()
        .map(|&board| f64::from(u8::from(spec.formation().shows(board, spec.target()))))
        .collect()
}

/// The rates of layer `index` (before the horizon) from the two solved
/// layers after it.
pub fn layer(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    boards: &[u64],
    next: &Solved,
    after: &Solved,
) -> Vec<f64> {
    boards
        .par_iter()
        .with_min_len(1 << 10)
        .map(|&board| rate(spec, mover, board, index, next, after))
        .collect()
}
