//! Whole games: each move from an endgame table where one applies, else
//! from the search.

use std::sync::Mutex;

use board::{Board, Direction, SpawnRule, WideBoard};
use learn::{Agent, Outcome, Watch};
use rand_pcg::Pcg64Mcg;

use crate::cache::Cache;
use crate::search::{Search, Settings};
use crate::snake::Snake;
use crate::sources::{Source, Sources};
use crate::tables::Tables;

/// A player of whole games on the wide board (so that 65536 is made and
/// counted): the [`Tables`]' move where one applies with a good enough
/// rate, else the [`Search`]'s.
///
/// Once a 32768 is made, the search sees a copy of the board whose large
/// tiles moved down into the gaps among them ([`search_view`]), so that it
/// never meets a tile it cannot hold. The tables see the real tiles (every
/// one above their target is a large tile to them anyway).
#[derive(Debug)]
pub struct Player {
    snake: Snake,
    settings: Settings,
    tables: Tables,
    sources: Sources,
    /// The caches of games that ended, for the next ones.
    caches: Mutex<Vec<Cache>>,
}

impl Player {
    /// A player searching as `settings` say, with `tables` (which may be
    /// empty).
    pub fn new(settings: Settings, tables: Tables) -> Self {
        let sources = Sources::new(&tables);
        Self {
            snake: Snake::new(),
            settings,
            tables,
            sources,
            caches: Mutex::new(Vec::new()),
        }
    }

    /// The tables it plays with.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// Its tables, given back (to play them in another player).
    pub fn into_tables(self) -> Tables {
        self.tables
    }

    /// How many moves each source chose so far, over all games.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// A search for one game, with this player's settings and an empty
    /// cache.
    pub fn search(&self) -> Search<'_> {
        Search::new(&self.snake, self.settings)
    }

    /// The move for `board` and where it came from, or `None` if no move
    /// is legal; `search` is the game's ([`Player::search`]).
    ///
    /// Where a table advises ([`Tables::advise`]), its best move is
    /// played; if several moves come within 0.0001 of the best rate (a
    /// table whose target is nearly certain rates many moves alike), the
    /// search chooses among them, since the table has no reason to prefer
    /// one. Otherwise the search plays, on the board's [`search_view`].
    pub fn choose<'a>(
        &'a self,
        board: WideBoard,
        search: &mut Search<'a>,
    ) -> Option<(Direction, Source)> {
        self.analyze(board, search)
            .map(|analysis| (analysis.direction, analysis.source))
    }

    /// What the player makes of `board`: the move it plays
    /// ([`Player::choose`]), where it came from, and the value of every
    /// move by that source. `None` if no move is legal.
    pub fn analyze<'a>(&'a self, board: WideBoard, search: &mut Search<'a>) -> Option<Analysis> {
        let seen = search_view(board);
        let legal = Direction::ALL.map(|direction| board.slide(direction).is_some());
        let (source, allowed, rates) = match self.tables.advise(board) {
            Some((table, rates)) => {
                let best = rates.iter().flatten().copied().fold(f32::MIN, f32::max);
                let near = rates.map(|rate| rate.is_some_and(|rate| rate >= best - NEAR));
                (Source::Table(table), near, Some(rates))
            }
            None => (Source::Search, [true; 4], None),
        };
        let mut candidates = Direction::ALL
            .into_iter()
            .filter(|&direction| allowed[direction.index()] && legal[direction.index()]);
        if let (Some(rates), Some(only), None) = (rates, candidates.next(), candidates.next()) {
            return Some(Analysis {
                direction: only,
                source,
                values: rates,
            });
        }
        // The tables value the search's leaves only where it sees the
        // board's own tiles.
        search.consult((WideBoard::from(seen) == board).then_some(&self.tables));
        let values = search.values_among(seen, allowed);
        // The copy moves as the board does unless clamping made them differ:
        // then the board's first legal move.
        let direction = Direction::best_of(values)
            .filter(|&direction| legal[direction.index()])
            .or_else(|| Direction::ALL.into_iter().find(|d| legal[d.index()]))?;
        let values = rates.unwrap_or_else(|| {
            let mut values = values;
            for (value, legal) in values.iter_mut().zip(legal) {
                value.take_if(|_| !legal);
            }
            values
        });
        Some(Analysis {
            direction,
            source,
            values,
        })
    }
}

/// What a player makes of a position ([`Player::analyze`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Analysis {
    /// The move it plays.
    pub direction: Direction,
    /// Where the move came from.
    pub source: Source,
    /// Each move's value in [`Direction::ALL`] order, `None` for a move
    /// that is not legal or that the advising table does not allow: the
    /// table's success rate (0 to 1) where a table advises, else the
    /// search's value (the evaluator's scale: compare moves, not boards).
    pub values: [Option<f32>; 4],
}

/// How close to a table's best rate a move must come to count as just as
/// good.
const NEAR: f32 = 1e-4;

/// The board as the search sees it: the board itself below 32768; from
/// 32768 on, [`WideBoard::downgraded_from_top`]: the tiles above the
/// largest gap move down until none is 32768, so that the search never
/// meets a tile it cannot hold, while the small tiles keep their values and
/// the spawns the search tries merge as they would.
///
/// TDL2048+'s downgrade ([`WideBoard::downgraded`]) fills the smallest gap
/// instead, which suits a network's statistics but not a search: on a
/// board with no 2, every tile moves down and the copy's spawned 2s merge
/// with what are 4s. (With that copy, 200 games at the fast setting that
/// made 32768 averaged 546,863, dying soon after it.)
pub fn search_view(board: WideBoard) -> Board {
    board.downgraded_from_top(Board::MAX_EXPONENT)
}

impl Agent for Player {
    fn play(
        &self,
        spawns: SpawnRule,
        rng: &mut Pcg64Mcg,
        watch: &mut dyn Watch<WideBoard>,
    ) -> Outcome {
        let settings = Settings {
            spawns,
            ..self.settings
        };
        let cache = self.caches.lock().expect("no game panics").pop();
        let mut search = match cache {
            Some(mut cache) => {
                cache.clear();
                Search::with_cache(&self.snake, settings, cache)
            }
            None => Search::new(&self.snake, settings),
        };
        let outcome = learn::play_wide(spawns, rng, watch, |board| {
            let (direction, source) = self.choose(board, &mut search)?;
            self.sources.count(source);
            Some((direction, board.slide(direction)?))
        });
        let nodes = search.nodes();
        self.caches
            .lock()
            .expect("no game panics")
            .push(search.into_cache());
        Outcome { nodes, ..outcome }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_sees_large_tiles_moved_down_and_small_ones_as_they_are() {
        let seen = |text: &str| search_view(text.parse().unwrap());
        let board = |text: &str| -> Board { text.parse().unwrap() };
        // Below 32768, the board itself.
        let small = "16384 8192 4 . / . . . . / . . . . / . . . 4";
        assert_eq!(seen(small), board(small));
        // No 2 and no 16384: the 32768 alone moves down; the 4s stay 4s.
        assert_eq!(
            seen("32768 8192 4 . / . . . . / . . . . / . . . 4"),
            board("16384 8192 4 . / . . . . / . . . . / . . . 4")
        );
        // 8192 missing: the 32768 and the 16384 move down.
        assert_eq!(
            seen("32768 16384 4096 . / . . . . / . . . . / . . 2 4"),
            board("16384 8192 4096 . / . . . . / . . . . / . . 2 4")
        );
        // Two gaps needed for a 65536.
        assert_eq!(
            seen("65536 32768 2 . / . . . . / . . . . / . . . 4"),
            board("16384 8192 2 . / . . . . / . . . . / . . . 4")
        );
    }
}
