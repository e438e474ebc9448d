//! Practising an endgame table: its positions, each move's success rate,
//! and the game's end (the target made, or no move left in the formation).

use std::path::Path;

use board::{Board, Direction, SpawnRule, Symmetry};
use rand::RngExt;
use rand_pcg::Pcg64Mcg;
use tablebase::{Mover, Position, Spec, Table};

/// A built table opened for practice: positions as the table holds them,
/// sixteen nibbles with 0xF for its large tiles (walls).
pub struct PracticeTable {
    name: String,
    table: Table,
    mover: Mover,
    spawns: SpawnRule,
    /// The positions of each layer.
    layers: Vec<u64>,
}

/// How a practice game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Moves are left, the target not yet made.
    Playing,
    /// The target stands in a target cell: success.
    Won,
    /// No move keeps the formation: failure.
    Lost,
}

/// A position's moves as the table rates them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rated {
    /// Each move's success rate in [`Direction::ALL`] order, `None` for a
    /// move that changes nothing or leaves the formation.
    pub rates: [Option<f64>; 4],
    /// How the game stands.
    pub state: State,
}

/// A practice move played: what the table said of it, and what followed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    /// The rate of the move played.
    pub rate: f64,
    /// The rate of the best move.
    pub best: f64,
    /// The board after the move, before the spawn.
    pub afterstate: u64,
    /// The board after the spawn.
    pub board: u64,
    /// The next position's rates and state.
    pub next: Rated,
}

/// Practice starts from positions whose best move succeeds with at least
/// this rate and at most [`MOST_START_RATE`] (where some are), so that a
/// game is neither lost nor won from the start.
const LEAST_START_RATE: f64 = 0.05;
const MOST_START_RATE: f64 = 0.995;

/// How many positions are drawn looking for one in that range.
const START_DRAWS: usize = 64;

impl PracticeTable {
    /// Opens the table built in `dir`, with every layer's file.
    ///
    /// # Errors
    /// What [`Table::open`] and [`Table::layer`] give.
    pub fn open(dir: &Path) -> Result<Self, tablebase::Error> {
        let table = Table::open(dir)?;
        let spec = table.spec();
        let layers = (0..spec.steps())
            .map(|index| Ok(table.layer(index)?.positions()))
            .collect::<Result<Vec<u64>, tablebase::Error>>()?;
        let spawns = SpawnRule::new(spec.four_rate()).map_err(|error| tablebase::Error::File {
            path: dir.to_owned(),
            problem: error.to_string(),
        })?;
        Ok(Self {
            name: spec.name(),
            mover: Mover::new(spec.formation().large()),
            spawns,
            layers,
            table,
        })
    }

    /// The table's name, `L3-512`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the table is.
    pub fn spec(&self) -> &Spec {
        self.table.spec()
    }

    /// The number of positions it holds.
    pub fn positions(&self) -> u64 {
        self.layers.iter().sum()
    }

    /// A position to start from: a stored position (drawn evenly from all
    /// the table's positions) with a tile spawned, preferring one whose
    /// best move succeeds with a rate from 5% to 99.5%.
    ///
    /// # Errors
    /// File errors reading the table; [`tablebase::Error::File`] if it
    /// holds no position.
    pub fn start(&self, rng: &mut Pcg64Mcg) -> Result<u64, tablebase::Error> {
        let total = self.positions();
        let mut fallback = None;
        for _ in 0..START_DRAWS.min(total as usize) {
            // Position `index` of all the layers' positions, in order.
            let (mut index, mut layer) = (rng.random_range(0..total), 0);
            while index >= self.layers[layer] {
                index -= self.layers[layer];
                layer += 1;
            }
            let Some((afterstate, _)) = self.table.layer(layer)?.position(index)? else {
                continue;
            };
            let Some(board) = self.spawn(afterstate, rng) else {
                continue;
            };
            let rated = self.rate(board)?;
            if rated.state != State::Playing {
                continue;
            }
            let best = best_rate(&rated.rates);
            if (LEAST_START_RATE..=MOST_START_RATE).contains(&best) {
                return Ok(board);
            }
            fallback = Some(board);
        }
        fallback.ok_or_else(|| tablebase::Error::File {
            path: self.name.clone().into(),
            problem: "no position to start from".to_owned(),
        })
    }

    /// `board` as this table reads a board given from outside: tiles above
    /// its target become large tiles, as in a game.
    pub fn reads(&self, board: u64) -> u64 {
        self.spec()
            .with_large_tiles(Position::from_bits(board))
            .bits()
    }

    /// The rates of the moves of `board` and how the game stands.
    ///
    /// # Errors
    /// [`tablebase::Error::Board`] if the board does not fit the table (no
    /// orientation holds its formation, or its tile sum is none of its
    /// layers'); file errors.
    pub fn rate(&self, board: u64) -> Result<Rated, tablebase::Error> {
        if self.is_won(board) {
            return Ok(Rated {
                rates: [None; 4],
                state: State::Won,
            });
        }
        let rates = self.table.move_rates(Position::from_bits(board))?.rates;
        let state = if rates.iter().any(Option::is_some) {
            State::Playing
        } else {
            State::Lost
        };
        Ok(Rated { rates, state })
    }

    /// Plays `direction` on `board`, then spawns a tile as the table's
    /// rule says. `Ok(None)` if the table does not allow the move.
    ///
    /// # Errors
    /// As [`PracticeTable::rate`].
    pub fn play(
        &self,
        board: u64,
        direction: Direction,
        rng: &mut Pcg64Mcg,
    ) -> Result<Option<Played>, tablebase::Error> {
        let rated = self.rate(board)?;
        let Some(rate) = rated.rates[direction.index()] else {
            return Ok(None);
        };
        let afterstate = self.mover.slide(board, direction);
        // The target made: the game is won before any spawn.
        let next = if self.is_won(afterstate) {
            afterstate
        } else {
            self.spawn(afterstate, rng).unwrap_or(afterstate)
        };
        Ok(Some(Played {
            rate,
            best: best_rate(&rated.rates),
            afterstate,
            board: next,
            next: self.rate(next)?,
        }))
    }

    /// `afterstate` with a tile spawned on an empty cell (never on a large
    /// tile), `None` if it has no empty cell.
    fn spawn(&self, afterstate: u64, rng: &mut Pcg64Mcg) -> Option<u64> {
        let board = Board::from_raw(afterstate);
        let (cell, exponent) = self.spawns.draw(board.empty_mask(), rng)?;
        Some(board.with_tile(cell, exponent).raw())
    }

    /// Whether `board` shows the target in a target cell, in an
    /// orientation that holds the formation, past the table's first layer
    /// where it counts.
    fn is_won(&self, board: u64) -> bool {
        let spec = self.spec();
        let Some(layer) = spec.layer_of_sum(Position::from_bits(board).tile_sum()) else {
            return false;
        };
        Symmetry::ALL.into_iter().any(|symmetry| {
            let seen = Board::from_raw(board).transform(symmetry).raw();
            spec.formation().holds(seen) && spec.is_won(seen, layer)
        })
    }
}

/// The best of `rates`, 0 if there is none.
pub fn best_rate(rates: &[Option<f64>; 4]) -> f64 {
    rates.iter().flatten().copied().fold(0.0, f64::max)
}
