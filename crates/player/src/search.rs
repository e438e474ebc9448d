//! The player's search: expectimax over the [`Snake`] evaluator, cut off by
//! probability and pruned where the position has gone bad.

use ::search::Choice;
use board::{Board, Direction, SpawnRule};

use crate::Depths;
use crate::cache::{self, Cache};
use crate::snake::{Snake, weight};
use crate::tables::Tables;

/// How the player searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Move layers, counting the root (TDL2048+'s plies: `4` searches the
    /// root's moves, then three layers of spawns and moves), by the number
    /// of empty cells of the board to move on.
    pub depths: Depths,
    /// Chance nodes reached with a smaller probability than this (the
    /// product of the spawns' probabilities on the way, each cell's share
    /// included) are valued by the evaluator instead of searched; `None`:
    /// the classic bots' cutoff for the move's depth, `2^-(plies + 3)`, so
    /// that the likely lines are searched to the full depth and a 4
    /// spawned on a board of many empty cells hardly at all.
    pub cutoff: Option<f32>,
    /// How tiles spawn.
    pub spawns: SpawnRule,
    /// Endgame-table rates as leaf values: where a leaf (a chance node
    /// valued by the evaluator) is in one of the player's tables, it is
    /// worth this many times its rate times the weight of the table's
    /// target more. `None`: leaves are the evaluator's alone.
    pub leaf_rates: Option<f32>,
}

impl Settings {
    /// A search of `depths` with the classic cutoff and standard spawns.
    pub fn new(depths: Depths) -> Self {
        Self {
            depths,
            cutoff: None,
            spawns: SpawnRule::STANDARD,
            leaf_rates: None,
        }
    }
}

/// An expectimax search of the [`Snake`] evaluator, for one thread.
///
/// - A chance node (a board after a move, before the spawn) is worth the
///   evaluator's value when no move layer is left, when it was reached with
///   a probability below the cutoff ([`Settings::cutoff`]), or when its value is already
///   below the *pass* value (twice the weight of the root's largest tile,
///   when the root itself is not in trouble): a position that bad is not
///   worth the time, and searching its children only confirms it.
///   Otherwise it averages, over its empty cells, the value after a 2 and
///   after a 4, weighted by the spawn rule.
/// - A move node is worth its best move's chance node, or the *dead* value
///   (far below anything a live board scores) if no move is legal.
///
/// Rewards do not count: the evaluator's shape stands for the score to
/// come. Chance nodes are kept in a cache for the whole game.
#[derive(Clone, Debug)]
pub struct Search<'a> {
    snake: &'a Snake,
    /// The tables whose rates value leaves in this move's search, if
    /// [`Settings::leaf_rates`] asks for them.
    tables: Option<&'a Tables>,
    /// What the tables add to a leaf, by board ([`Search::table_value`]);
    /// empty until the tables are consulted. (An empty board is never a
    /// leaf, so a slot of board 0 holds nothing.)
    leaves: Vec<(u64, f32)>,
    settings: Settings,
    cache: Cache,
    pass: f32,
    dead: f32,
    /// The cutoff of the move being searched.
    cutoff: f32,
    nodes: u64,
}

impl<'a> Search<'a> {
    /// The size of the cache, in slots: 2^16 of 16 bytes, 1 MiB a game.
    /// A search's nodes are found again within the same move (a node of
    /// the move before was searched one layer shallower, too shallow to
    /// answer), and a move stores a few thousand: 10 games at the fast
    /// setting (`3p,4p@5,5p@1`, one thread) visited 7,357 nodes a move with
    /// 2^20 slots and 2^18, 7,360 with 2^16, 7,369 with 2^14, and ran 1.2
    /// times as fast with 2^16 as with 2^20 (14,452-14,671 moves a second
    /// against 12,018-12,381): a slot is read before the node is searched,
    /// and one from a table the caches hold costs far less.
    const CACHE_BITS: u32 = 16;

    /// A search of `snake` as `settings` say, with an empty cache.
    pub fn new(snake: &'a Snake, settings: Settings) -> Self {
        Self::with_cache(snake, settings, Cache::new(Self::CACHE_BITS))
    }

    /// The same with `cache` as its cache (empty it first for a new game):
    /// a player's games reuse their caches, where a new one faults in its
    /// pages afresh.
    pub(crate) fn with_cache(snake: &'a Snake, settings: Settings, cache: Cache) -> Self {
        Self {
            snake,
            tables: None,
            leaves: Vec::new(),
            settings,
            cache,
            pass: f32::MIN,
            dead: f32::MIN,
            cutoff: 0.0,
            nodes: 0,
        }
    }

    /// Values the leaves of the searches to come by `tables` too, as
    /// [`Settings::leaf_rates`] says (`None`: by the evaluator alone, as
    /// on a board the search sees with its tiles moved down).
    pub fn consult(&mut self, tables: Option<&'a Tables>) {
        self.tables = tables.filter(|_| self.settings.leaf_rates.is_some());
    }

    /// Its cache, for another game.
    pub(crate) fn into_cache(self) -> Cache {
        self.cache
    }

    /// The nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The best move on `board`, or `None` if no move is legal; the first
    /// of equals in the order up, right, down, left.
    pub fn choose(&mut self, board: Board) -> Option<Choice> {
        self.choose_among(board, [true; 4])
    }

    /// The best of the legal moves of `board` that `allowed` allows (in
    /// [`Direction::ALL`] order), or `None` if there is none.
    pub fn choose_among(&mut self, board: Board, allowed: [bool; 4]) -> Option<Choice> {
        let values = self.values_among(board, allowed);
        let direction = Direction::best_of(values)?;
        Some(Choice {
            direction,
            afterstate: board.slide(direction).expect("a valued move is legal"),
            value: values[direction.index()].expect("the best move has a value"),
        })
    }

    /// The searched value of each legal move of `board` that `allowed`
    /// allows, in [`Direction::ALL`] order (`None` for the others).
    pub fn values_among(&mut self, board: Board, allowed: [bool; 4]) -> [Option<f32>; 4] {
        let largest = weight(board.max_tile()) as f32;
        self.pass = if self.snake.value(board) >= 0 {
            2.0 * largest
        } else {
            f32::MIN
        };
        self.dead = -(2.0 * largest).max(131_072.0);
        let plies = self.settings.depths.plies(board.empty_count());
        self.cutoff = self
            .settings
            .cutoff
            .unwrap_or_else(|| (-f32::from(plies) - 3.0).exp2());
        let layers = u32::from(plies) - 1;
        let mut values = [None; 4];
        for (direction, afterstate) in board.afterstates().iter() {
            if allowed[direction.index()] {
                values[direction.index()] = Some(self.chance(afterstate.board, layers, 1.0));
            }
        }
        values
    }

    /// The value of an afterstate with `layers` move layers below it,
    /// reached with `probability`.
    fn chance(&mut self, afterstate: Board, layers: u32, probability: f32) -> f32 {
        self.nodes += 1;
        let value = self.snake.value(afterstate) as f32;
        if layers == 0 || probability < self.cutoff || value < self.pass {
            return value + self.table_value(afterstate);
        }
        if let Some(value) = self.cache.get(afterstate, layers, probability) {
            return value;
        }
        let empty = afterstate.empty_mask();
        let cells = empty.count_ones() as f32;
        let four = self.settings.spawns.four_rate() as f32;
        let two = 1.0 - four;
        // The probability of reaching each child: a cell's share of a spawn.
        let (reach_two, reach_four) = (probability * two / cells, probability * four / cells);
        let mut sum = 0.0;
        let mut left = empty;
        while left != 0 {
            let cell = left.trailing_zeros() as usize;
            left &= left - 1;
            sum += two * self.best(afterstate.with_tile(cell, 1), layers, reach_two);
            if four > 0.0 {
                sum += four * self.best(afterstate.with_tile(cell, 2), layers, reach_four);
            }
        }
        let value = sum / cells;
        self.cache.put(afterstate, layers, probability, value);
        value
    }

    /// What a leaf's place in the tables adds to its value.
    ///
    /// Leaves recur within a search (the same tiles spawned in another
    /// order), and a table's lookup costs a few hundred nanoseconds, so
    /// the values found are kept in a table of their own.
    fn table_value(&mut self, afterstate: Board) -> f32 {
        let (Some(tables), Some(scale)) = (self.tables, self.settings.leaf_rates) else {
            return 0.0;
        };
        if self.leaves.is_empty() {
            self.leaves = vec![(0, 0.0); 1 << Self::CACHE_BITS];
        }
        let slot = cache::slot(afterstate, Self::CACHE_BITS);
        let (board, value) = self.leaves[slot];
        if board == afterstate.raw() {
            return value;
        }
        let value = tables
            .leaf_rate(afterstate.into())
            .map_or(0.0, |(rate, target)| scale * rate * weight(target) as f32);
        self.leaves[slot] = (afterstate.raw(), value);
        value
    }

    /// The value of `board` to move on, with `layers` move layers to search
    /// (this one included).
    fn best(&mut self, board: Board, layers: u32, probability: f32) -> f32 {
        self.nodes += 1;
        board
            .afterstates()
            .iter()
            .map(|(_, afterstate)| self.chance(afterstate.board, layers - 1, probability))
            .fold(None, |best: Option<f32>, value| {
                Some(best.map_or(value, |best| best.max(value)))
            })
            .unwrap_or(self.dead)
    }
}
