//! Expectimax over afterstates with TDL2048+'s values at every node.

use board::{Afterstate, Board, Direction, SpawnRule};

use crate::{Depth, Evaluator, Limits, TranspositionTable};

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

/// How a search looks ahead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The depth in plies.
    pub depth: Depth,
    /// Caps on the depth by number of empty cells (`None`: none).
    pub limits: Option<Limits>,
    /// Chance nodes reached with a smaller probability than this are valued
    /// by the evaluator instead of searched (`None`: all are searched).
    pub cutoff: Option<f64>,
    /// How tiles spawn.
    pub spawns: SpawnRule,
    /// Search deeper on boards of many distinct tiles, as the classic bots
    /// do: one ply less than the number of distinct tiles (nneonneo's
    /// distinct - 2 chance layers), but at least `depth` and at most two
    /// plies more, so that a game's slowest moves stay within a few times
    /// its typical one.
    pub adaptive: bool,
}

impl Settings {
    /// A search to `depth` with standard spawns, no limits and no cutoff.
    pub fn new(depth: Depth) -> Self {
        Self {
            depth,
            limits: None,
            cutoff: None,
            spawns: SpawnRule::STANDARD,
            adaptive: false,
        }
    }
}

/// An expectimax search.
///
/// Values follow ../shared/docs/tdl2048.md, so scores compare with
/// TDL2048+'s at the same depth (docs/search.md works an example):
/// - the root scores each legal move as its reward plus the value of the
///   chance node after it, and takes the best (the first of equals, in the
///   order up, right, down, left);
/// - a chance node with no move layers left is the evaluator's value of the
///   afterstate; otherwise it averages, over its empty cells, the value after
///   a 2 (probability 1 - the 4-rate) and after a 4;
/// - an inner move node is worth the best of reward + max(chance value, 0)
///   over its legal moves, plus 1 (a bonus for surviving); a board with no
///   legal move is worth 0.
///
/// With a [`TranspositionTable`], chance nodes are looked up before they
/// are searched and stored after, keyed on the smallest symmetric image of
/// the board when the evaluator is symmetric, else on the board itself.
#[derive(Debug)]
pub struct Expectimax<'a, E: ?Sized> {
    evaluator: &'a E,
    settings: Settings,
    table: Option<&'a TranspositionTable>,
    symmetric: bool,
    nodes: u64,
}

impl<'a, E: Evaluator + ?Sized> Expectimax<'a, E> {
    /// A search of `evaluator` to `depth`, spawning as `spawns` says.
    pub fn new(evaluator: &'a E, depth: Depth, spawns: SpawnRule) -> Self {
        Self::with_settings(
            evaluator,
            Settings {
                spawns,
                ..Settings::new(depth)
            },
            None,
        )
    }

    /// A search with all its settings and, optionally, a transposition table
    /// (which threads may share).
    pub fn with_settings(
        evaluator: &'a E,
        settings: Settings,
        table: Option<&'a TranspositionTable>,
    ) -> Self {
        Self {
            evaluator,
            settings,
            table,
            symmetric: evaluator.is_symmetric(),
            nodes: 0,
        }
    }

    /// The number of nodes (move and chance) visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The best move on `board`, or `None` if no move is legal.
    pub fn choose(&mut self, board: Board) -> Option<Choice> {
        let values = self.move_values(board);
        let direction = Direction::best_of(values)?;
        Some(Choice {
            direction,
            afterstate: board.slide(direction)?,
            value: values[direction.index()]?,
        })
    }

    /// The score of each move on `board` in [`Direction::ALL`] order, as
    /// [`Expectimax::choose`] compares them (its reward plus the searched
    /// value of its afterstate), `None` for a move that is not legal.
    pub fn move_values(&mut self, board: Board) -> [Option<f32>; 4] {
        let mut plies = u32::from(self.settings.depth.plies());
        if self.settings.adaptive {
            let distinct = board.tile_counts()[1..]
                .iter()
                .filter(|&&count| count > 0)
                .count() as u32;
            let deepest = (plies + 2).min(u32::from(Depth::MAX));
            plies = distinct.saturating_sub(1).clamp(plies, deepest);
        }
        let layers = plies - 1;
        let mut values = [None; 4];
        for (direction, afterstate) in board.afterstates().iter() {
            values[direction.index()] =
                Some(afterstate.reward as f32 + self.chance(afterstate.board, layers, 1.0));
        }
        values
    }

    /// The value of an afterstate with `layers` move layers still to search,
    /// reached with `probability`.
    fn chance(&mut self, afterstate: Board, layers: u32, probability: f64) -> f32 {
        self.nodes += 1;
        let empty = afterstate.empty_mask();
        let layers = match self.settings.limits {
            Some(limits) => layers.min(limits.layers(empty.count_ones())),
            None => layers,
        };
        let cut = self
            .settings
            .cutoff
            .is_some_and(|cutoff| probability < cutoff);
        if layers == 0 || cut {
            return self.evaluator.value(afterstate);
        }
        // The key (and its canonical form) only matters with a table.
        let key = match (self.table, self.symmetric) {
            (Some(_), true) => afterstate.canonical(),
            _ => afterstate,
        };
        if let Some(value) = self.table.and_then(|table| table.get(key, layers)) {
            return value;
        }
        let four_rate = self.settings.spawns.four_rate();
        let share = probability / f64::from(empty.count_ones());
        let mut expected = 0.0f32;
        // Summed as TDL2048+ sums: f32 total, products in f64.
        for cell in (0..16).filter(|&cell| empty & (1 << cell) != 0) {
            let two = self.best(
                afterstate.with_tile(cell, 1),
                layers,
                share * (1.0 - four_rate),
            );
            expected = (f64::from(expected) + (1.0 - four_rate) * f64::from(two)) as f32;
            let four = self.best(afterstate.with_tile(cell, 2), layers, share * four_rate);
            expected = (f64::from(expected) + four_rate * f64::from(four)) as f32;
        }
        let value = expected / empty.count_ones().max(1) as f32;
        if let Some(table) = self.table {
            table.put(key, layers, value);
        }
        value
    }

    /// The value of a board to move on, with `layers` move layers to search
    /// (this one included), reached with `probability`.
    fn best(&mut self, board: Board, layers: u32, probability: f64) -> f32 {
        self.nodes += 1;
        let mut best: Option<f32> = None;
        for (_, afterstate) in board.afterstates().iter() {
            let chance = self.chance(afterstate.board, layers - 1, probability);
            let value = afterstate.reward as f32 + chance.max(0.0);
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
