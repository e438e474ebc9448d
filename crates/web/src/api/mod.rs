//! The HTTP API (docs/web.md): a board's moves valued by an advisor, moves
//! and spawns, table practice, record files; macroxue's `GET /move`.

mod practice;
mod records;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Query, State as Shared};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use board::{Direction, SpawnRule};
use serde::{Deserialize, Serialize};

use crate::text::{board_text, parse_board, parse_move};
use crate::{App, assets};

/// The app's routes: the page, its API, and macroxue's `GET /move`.
pub fn router(app: App) -> Router {
    let api = Router::new()
        .route("/info", get(info))
        .route("/new", get(new_game))
        .route("/step", get(step))
        .route("/analyze", get(analyze))
        .route("/practice/start", get(practice::start))
        .route("/practice/rate", get(practice::rate))
        .route("/practice/step", get(practice::step))
        .route("/records", get(records::list))
        .route(
            "/replay",
            get(records::replay_file).post(records::replay_text),
        )
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
