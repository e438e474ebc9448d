//! Expectimax over afterstates with TDL2048+'s values at every node.

use board::{Afterstate, Board, Direction, SpawnRule};

use crate::{Depth, Evaluator};

/// The move a search chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The move.
    pub direction: Direction,
    /// Its afterstate and reward.
    pub afterstate: Afterstate,
    /// Its score: the reward plus the searched value of the afterstate.
    pub value: f32,
}

/// An expectimax search to a fixed depth.
///
/// Values follow ../shared/docs/tdl2048.md, so scores compare with
/// TDL2048+'s at the same depth:
/// - the root scores each legal move as its reward plus the value of the
///   chance node after it, and takes the best (the first of equals, in the
///   order up, right, down, left);
/// - a chance node with no move layers left is the evaluator's value of the
///   afterstate; otherwise it averages, over its empty cells, the value after
///   a 2 (probability 1 - `four_rate`) and after a 4;
/// - an inner move node is worth the best of reward + max(chance value, 0)
///   over its legal moves, plus 1 (a bonus for surviving); a board with no
///   legal move is worth 0.
#[derive(Debug)]
pub struct Expectimax<'a, E: ?Sized> {
    evaluator: &'a E,
    depth: Depth,
    four_rate: f64,
    nodes: u64,
}

impl<'a, E: Evaluator + ?Sized> Expectimax<'a, E> {
    /// A search of `evaluator` to `depth`, spawning as `spawns` says.
    pub fn new(evaluator: &'a E, depth: Depth, spawns: SpawnRule) -> Self {
        Self {
            evaluator,
            depth,
            four_rate: spawns.four_rate(),
            nodes: 0,
        }
    }

    /// The number of nodes (move and chance) visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The best move on `board`, or `None` if no move is legal.
    pub fn choose(&mut self, board: Board) -> Option<Choice> {
        let layers = u32::from(self.depth.plies()) - 1;
        let mut best: Option<Choice> = None;
        for (direction, afterstate) in board.afterstates().iter() {
            let value = afterstate.reward as f32 + self.chance(afterstate.board, layers);
            if best.is_none_or(|best| value > best.value) {
                best = Some(Choice {
                    direction,
                    afterstate,
                    value,
                });
            }
        }
        best
    }

    /// The value of an afterstate with `layers` move layers still to search.
    fn chance(&mut self, afterstate: Board, layers: u32) -> f32 {
        self.nodes += 1;
        if layers == 0 {
            return self.evaluator.value(afterstate);
        }
        let empty = afterstate.empty_mask();
        let mut expected = 0.0f32;
        // Summed as TDL2048+ sums: f32 total, products in f64.
        for cell in (0..16).filter(|&cell| empty & (1 << cell) != 0) {
            let two = self.best(afterstate.with_tile(cell, 1), layers);
            expected = (f64::from(expected) + (1.0 - self.four_rate) * f64::from(two)) as f32;
            let four = self.best(afterstate.with_tile(cell, 2), layers);
            expected = (f64::from(expected) + self.four_rate * f64::from(four)) as f32;
        }
        expected / empty.count_ones().max(1) as f32
    }

    /// The value of a board to move on, with `layers` move layers to search
    /// (this one included).
    fn best(&mut self, board: Board, layers: u32) -> f32 {
        self.nodes += 1;
        let mut best: Option<f32> = None;
        for (_, afterstate) in board.afterstates().iter() {
            let value =
                afterstate.reward as f32 + self.chance(afterstate.board, layers - 1).max(0.0);
            best = Some(best.map_or(value, |best| best.max(value)));
        }
        best.map_or(0.0, |best| best + 1.0)
    }
}

impl<E: Evaluator + ?Sized> board::Policy for Expectimax<'_, E> {
    fn choose(&mut self, board: Board, _: &board::Afterstates) -> Option<Direction> {
        Expectimax::choose(self, board).map(|choice| choice.direction)
    }
}
