//! Record files: those the server offers, and a game of one (or of a
//! file the page sent) to replay.

use axum::Json;
use axum::extract::{Query, State as Shared};
use serde::{Deserialize, Serialize};

use super::{Answer, ApiError, AppState, blocking};
use crate::replay::{Replay, read_text};

/// The record files the server offers.
pub(super) async fn list(Shared(app): AppState) -> Json<Vec<crate::RecordFile>> {
    Json(app.records.list())
}

/// Which file and which of its games to replay.
#[derive(Deserialize)]
pub(super) struct ReplayQuery {
    file: Option<String>,
    game: Option<usize>,
}

/// A game to replay, and where it stands among the file's.
#[derive(Serialize)]
pub(super) struct ReplayAnswer {
    /// The games in the file, and which of them this is (from 0).
    games: usize,
    game: usize,
    replay: Replay,
}

/// Game `game` (the first if none) of `games`, to replay.
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

/// A game of a record file the server offers.
pub(super) async fn replay_file(
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
pub(super) async fn replay_text(
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
