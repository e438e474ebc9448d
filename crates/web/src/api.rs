//! The HTTP API (docs/web.md): a board's moves valued by an advisor, moves
//! and spawns, table practice, record files; macroxue's `GET /move`.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Query, State as Shared};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use board::{Direction, SpawnRule};
use serde::{Deserialize, Serialize};

use crate::practice::{Rated, State, best_rate};
use crate::replay::{Replay, read_text};
use crate::text::{board_text, nibbles_text, parse_board, parse_move};
use crate::{App, PracticeTable, assets};

/// The app's routes: the page, its API, and macroxue's `GET /move`.
pub fn router(app: App) -> Router {
    let api = Router::new()
        .route("/info", get(info))
        .route("/new", get(new_game))
        .route("/step", get(step))
        .route("/analyze", get(analyze))
        .route("/practice/start", get(practice_start))
        .route("/practice/rate", get(practice_rate))
        .route("/practice/step", get(practice_step))
        .route("/records", get(records))
        .route("/replay", get(replay_file).post(replay_text))
        .fallback(|| async {
            ApiError(
                StatusCode::NOT_FOUND,
                "no such API call (docs/web.md lists them)".to_owned(),
            )
        });
    Router::new()
        .merge(assets::routes())
        .route("/move", get(suggest))
        .nest("/api", api)
        .layer(DefaultBodyLimit::max(crate::MOST_RECORD_BYTES as usize))
        .with_state(Arc::new(app))
}

type AppState = Shared<Arc<App>>;

/// A request refused or failed: its status and one line of text.
#[derive(Debug)]
struct ApiError(StatusCode, String);

impl ApiError {
    fn bad(message: impl Into<String>) -> Self {
        Self(StatusCode::BAD_REQUEST, message.into())
    }
}

impl From<String> for ApiError {
    fn from(message: String) -> Self {
        Self::bad(message)
    }
}

impl From<tablebase::Error> for ApiError {
    fn from(error: tablebase::Error) -> Self {
        let status = match error {
            tablebase::Error::Board { .. } => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self(status, error.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.0,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            self.1,
        )
            .into_response()
    }
}

type Answer<T> = Result<Json<T>, ApiError>;

/// Runs `work` on a thread for blocking work: searches and table reads
/// take milliseconds, which the server's own threads must not wait on.
async fn blocking<T: Send + 'static>(
    app: Arc<App>,
    work: impl FnOnce(&App) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(move || work(&app))
        .await
        .map_err(|error| ApiError(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?
}

#[derive(Serialize)]
struct Info {
    advisors: Vec<String>,
    tables: Vec<TableInfo>,
    records: Vec<crate::RecordFile>,
}

#[derive(Serialize)]
struct TableInfo {
    name: String,
    positions: u64,
    four_rate: f64,
}

async fn info(Shared(app): AppState) -> Json<Info> {
    Json(Info {
        advisors: app.advisors.iter().map(|a| a.name().to_owned()).collect(),
        tables: app
            .tables
            .iter()
            .map(|table| TableInfo {
                name: table.name().to_owned(),
                positions: table.positions(),
                four_rate: table.spec().four_rate(),
            })
            .collect(),
        records: app.records.list(),
    })
}

#[derive(Deserialize)]
struct Seeded {
    seed: Option<u64>,
}

#[derive(Serialize)]
struct NewGame {
    board: String,
}

async fn new_game(Shared(app): AppState, Query(query): Query<Seeded>) -> Json<NewGame> {
    let board = SpawnRule::STANDARD.initial(&mut app.rng(query.seed));
    Json(NewGame {
        board: board_text(board.into()),
    })
}

#[derive(Deserialize)]
struct StepQuery {
    board: String,
    #[serde(rename = "move")]
    direction: String,
    seed: Option<u64>,
}

#[derive(Serialize)]
struct Stepped {
    afterstate: String,
    reward: u32,
    board: String,
    spawn: Spawn,
    over: bool,
}

#[derive(Serialize)]
struct Spawn {
    cell: usize,
    tile: u32,
}

async fn step(Shared(app): AppState, Query(query): Query<StepQuery>) -> Answer<Stepped> {
    let board = parse_board(&query.board)?;
    let direction = parse_move(&query.direction)?;
    let afterstate = board.slide(direction).ok_or_else(|| {
        ApiError::bad(format!(
            "{direction} changes nothing on board {}",
            query.board
        ))
    })?;
    let (cell, exponent) = SpawnRule::STANDARD
        .draw(afterstate.board.empty_mask(), &mut app.rng(query.seed))
        .expect("a move that changes the board leaves an empty cell");
    let next = afterstate.board.with_tile(cell, exponent);
    Ok(Json(Stepped {
        afterstate: board_text(afterstate.board),
        reward: afterstate.reward,
        board: board_text(next),
        spawn: Spawn {
            cell,
            tile: 1 << exponent,
        },
        over: next.is_game_over(),
    }))
}

#[derive(Deserialize)]
struct AnalyzeQuery {
    board: String,
    advisor: Option<String>,
}

#[derive(Serialize)]
struct Analysis {
    board: String,
    advisor: String,
    values: [Option<f32>; 4],
    best: Option<&'static str>,
    source: String,
    rates: bool,
    over: bool,
}

async fn analyze(Shared(app): AppState, Query(query): Query<AnalyzeQuery>) -> Answer<Analysis> {
    let board = parse_board(&query.board)?;
    let advisor = advisor_index(&app, query.advisor.as_deref())?;
    blocking(app, move |app| {
        let advisor = &app.advisors[advisor];
        let advice = advisor.advise(board);
        Ok(Json(Analysis {
            board: board_text(board),
            advisor: advisor.name().to_owned(),
            values: advice.values,
            best: advice.best.map(Direction::name),
            source: advice.source,
            rates: advice.rates,
            over: board.is_game_over(),
        }))
    })
    .await
}

fn advisor_index(app: &App, name: Option<&str>) -> Result<usize, ApiError> {
    let Some(name) = name else { return Ok(0) };
    app.advisors
        .iter()
        .position(|advisor| advisor.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = app.advisors.iter().map(|a| a.name()).collect();
            ApiError::bad(format!(
                "no advisor {name:?}: there are {}",
                names.join(", ")
            ))
        })
}

#[derive(Deserialize)]
struct BoardQuery {
    board: String,
}

/// macroxue's protocol: the default advisor's move as one letter, `u`,
/// `l`, `r` or `d`, or `g` when the game is over; any web page may ask.
async fn suggest(Shared(app): AppState, Query(query): Query<BoardQuery>) -> Response {
    let answer = match parse_board(&query.board) {
        Ok(board) => blocking(app, move |app| {
            let best = app.advisors[0].advise(board).best;
            Ok(best.map_or("g", |direction| &direction.name()[..1]))
        })
        .await
        .map(str::to_owned),
        Err(problem) => Err(ApiError::bad(problem)),
    };
    let cors = [(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")];
    match answer {
        Ok(letter) => (cors, letter).into_response(),
        Err(error) => (cors, error).into_response(),
    }
}

#[derive(Deserialize)]
struct PracticeQuery {
    table: String,
    board: Option<String>,
    #[serde(rename = "move")]
    direction: Option<String>,
    seed: Option<u64>,
}

#[derive(Serialize)]
struct PracticePosition {
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

async fn practice_start(
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

async fn practice_rate(
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

#[derive(Serialize)]
struct PracticeStep {
    /// The rate of the move played, and of the best move.
    rate: f64,
    best_rate: f64,
    afterstate: String,
    next: PracticePosition,
}

async fn practice_step(
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

async fn records(Shared(app): AppState) -> Json<Vec<crate::RecordFile>> {
    Json(app.records.list())
}

#[derive(Deserialize)]
struct ReplayQuery {
    file: Option<String>,
    game: Option<usize>,
}

#[derive(Serialize)]
struct ReplayAnswer {
    /// The games in the file, and which of them this is (from 0).
    games: usize,
    game: usize,
    replay: Replay,
}

fn replay_of(games: &[board::GameRecord], game: Option<usize>) -> Result<ReplayAnswer, ApiError> {
    let index = game.unwrap_or(0);
    let record = games.get(index).ok_or_else(|| {
        ApiError::bad(format!(
            "game={index}: the file holds games 0 to {}",
            games.len() - 1
        ))
    })?;
    Ok(ReplayAnswer {
        games: games.len(),
        game: index,
        replay: Replay::of(record),
    })
}

async fn replay_file(
    Shared(app): AppState,
    Query(query): Query<ReplayQuery>,
) -> Answer<ReplayAnswer> {
    blocking(app, move |app| {
        let name = query
            .file
            .as_deref()
            .ok_or_else(|| ApiError::bad("no file= given"))?;
        let games = app.records.read(name)?;
        replay_of(&games, query.game).map(Json)
    })
    .await
}

/// A record file's text sent by the page (a file the user opened).
async fn replay_text(
    Shared(app): AppState,
    Query(query): Query<ReplayQuery>,
    text: String,
) -> Answer<ReplayAnswer> {
    blocking(app, move |_| {
        let games = read_text(&text)?;
        replay_of(&games, query.game).map(Json)
    })
    .await
}
