//! Table practice: a position of a table to start from, its moves'
//! rates, and a move played with the spawn that follows.

use axum::Json;
use axum::extract::{Query, State as Shared};
use board::Direction;
use serde::{Deserialize, Serialize};

use super::{Answer, ApiError, AppState, blocking};
use crate::practice::{Rated, State, best_rate};
use crate::text::{nibbles_text, parse_board, parse_move};
use crate::{App, PracticeTable};

/// What the practice calls are asked: the table, and as each call needs
/// them a board, a move and a seed for the spawns.
#[derive(Deserialize)]
pub(super) struct PracticeQuery {
    table: String,
    board: Option<String>,
    #[serde(rename = "move")]
    direction: Option<String>,
    seed: Option<u64>,
}

/// A position of a table: its moves' rates, the best move while the
/// game goes on, and whether it is won or lost.
#[derive(Serialize)]
pub(super) struct PracticePosition {
    table: String,
    board: String,
    rates: [Option<f64>; 4],
    best: Option<&'static str>,
    state: &'static str,
}

impl PracticePosition {
    fn of(table: &PracticeTable, board: u64, rated: Rated) -> Self {
        let best = Direction::ALL
            .into_iter()
            .filter(|direction| rated.rates[direction.index()] == Some(best_rate(&rated.rates)))
            .map(Direction::name)
            .next();
        Self {
            table: table.name().to_owned(),
            board: nibbles_text(board),
            rates: rated.rates,
            best: best.filter(|_| rated.state == State::Playing),
            state: match rated.state {
                State::Playing => "playing",
                State::Won => "won",
                State::Lost => "lost",
            },
        }
    }
}

/// The practice table named `name`, or a line naming those there are.
fn practice_table<'a>(app: &'a App, name: &str) -> Result<&'a PracticeTable, ApiError> {
    app.tables
        .iter()
        .find(|table| table.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = app.tables.iter().map(PracticeTable::name).collect();
            ApiError::bad(if names.is_empty() {
                format!("no table {name:?}: the server was started without --tables")
            } else {
                format!("no table {name:?}: there are {}", names.join(", "))
            })
        })
}

/// A board given for a table: its tiles as in [`parse_board`], 32768 and
/// above (and, as in a game, every tile above the target) read as large
/// tiles.
fn table_board(table: &PracticeTable, text: &str) -> Result<u64, ApiError> {
    let board = parse_board(text)?;
    let nibbles = board
        .exponents()
        .iter()
        .enumerate()
        .fold(0u64, |raw, (cell, &exponent)| {
            raw | u64::from(exponent.min(0xF)) << (4 * cell)
        });
    Ok(table.reads(nibbles))
}

/// `GET /api/practice/start`: the position given, or one drawn from the
/// table's positions.
pub(super) async fn start(
    Shared(app): AppState,
    Query(query): Query<PracticeQuery>,
) -> Answer<PracticePosition> {
    blocking(app, move |app| {
        let table = practice_table(app, &query.table)?;
        let board = match &query.board {
            Some(text) => table_board(table, text)?,
            None => table.start(&mut app.rng(query.seed))?,
        };
        Ok(Json(PracticePosition::of(table, board, table.rate(board)?)))
    })
    .await
}

/// `GET /api/practice/rate`: the position given, rated.
pub(super) async fn rate(
    Shared(app): AppState,
    Query(query): Query<PracticeQuery>,
) -> Answer<PracticePosition> {
    blocking(app, move |app| {
        let table = practice_table(app, &query.table)?;
        let text = query
            .board
            .as_deref()
            .ok_or_else(|| ApiError::bad("no board= given"))?;
        let board = table_board(table, text)?;
        Ok(Json(PracticePosition::of(table, board, table.rate(board)?)))
    })
    .await
}

/// A move played: its rate beside the best one's, and the position after
/// the spawn.
#[derive(Serialize)]
pub(super) struct PracticeStep {
    /// The rate of the move played, and of the best move.
    rate: f64,
    best_rate: f64,
    afterstate: String,
    next: PracticePosition,
}

/// `GET /api/practice/step`: the move given played on the board given.
pub(super) async fn step(
    Shared(app): AppState,
    Query(query): Query<PracticeQuery>,
) -> Answer<PracticeStep> {
    blocking(app, move |app| {
        let table = practice_table(app, &query.table)?;
        let text = query.board.as_deref().ok_or_else(|| ApiError::bad("no board= given"))?;
        let board = table_board(table, text)?;
        let direction = parse_move(query.direction.as_deref().unwrap_or_default())?;
        let played = table
            .play(board, direction, &mut app.rng(query.seed))?
            .ok_or_else(|| {
                ApiError::bad(format!(
                    "{direction} is not a move of table {} on board {text}: it changes nothing or leaves the formation",
                    table.name()
                ))
            })?;
        Ok(Json(PracticeStep {
            rate: played.rate,
            best_rate: played.best,
            afterstate: nibbles_text(played.afterstate),
            next: PracticePosition::of(table, played.board, played.next),
        }))
    })
    .await
}
