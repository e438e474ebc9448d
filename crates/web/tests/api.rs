//! The HTTP API, in process: every mode's calls with good and bad input.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use board::Direction;
use serde_json::Value;
use tower::ServiceExt as _;
use web::text::{board_text, parse_board};

/// The app's files, kept between runs (building the table takes seconds).
fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-api")
}

fn router() -> Router {
    static ROUTER: OnceLock<Router> = OnceLock::new();
    ROUTER
        .get_or_init(|| web::router(common::app(&dir())))
        .clone()
}

struct Answer {
    status: StatusCode,
    kind: String,
    cors: bool,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// A refusal: 400 and one line that says `what`.
    fn refused(&self, what: &str) {
        assert_eq!(self.status, StatusCode::BAD_REQUEST, "{}", self.body);
        assert!(self.body.contains(what), "{:?} lacks {what:?}", self.body);
        assert_eq!(self.body.lines().count(), 1, "{}", self.body);
    }
}

async fn send(request: Request<Body>) -> Answer {
    let response = router().oneshot(request).await.unwrap();
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|value: &header::HeaderValue| value.to_str().unwrap().to_owned())
    };
    let (kind, cors) = (
        header(header::CONTENT_TYPE).unwrap_or_default(),
        header(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_some(),
    );
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 30)
        .await
        .unwrap();
    Answer {
        status,
        kind,
        cors,
        body: String::from_utf8(bytes.to_vec()).unwrap(),
    }
}

async fn get(uri: &str) -> Answer {
    send(Request::get(uri).body(Body::empty()).unwrap()).await
}

fn values(json: &Value) -> [Option<f32>; 4] {
    std::array::from_fn(|i| json["values"][i].as_f64().map(|v| v as f32))
}

#[tokio::test]
async fn the_page_is_served_from_the_binary() {
    for (path, kind, holds) in [
        ("/", "text/html", "<div id=\"board\""),
        ("/app.js", "text/javascript", "async function api("),
        ("/app.css", "text/css", ".board"),
    ] {
        let answer = get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert!(answer.kind.starts_with(kind), "{path}: {}", answer.kind);
        assert!(answer.body.contains(holds), "{path}");
    }
    // No page or file reaches out to the network.
    for path in ["/", "/app.js", "/app.css"] {
        let body = get(path).await.body;
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{path}"
        );
    }
    assert_eq!(get("/nothing").await.status, StatusCode::NOT_FOUND);
    let answer = get("/api/nothing").await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(answer.body.contains("no such API call"));
}

#[tokio::test]
async fn analysis_gives_the_libraries_values_and_the_source() {
    let info = get("/api/info").await.json();
    assert_eq!(
        info["advisors"],
        serde_json::json!(["player", "heuristic 2p"])
    );
    assert_eq!(info["tables"][0]["name"], common::TABLE);

    // The heuristic's values, as the library gives them.
    let board = "1123000000000001";
    let answer = get(&format!(
        "/api/analyze?board={board}&advisor=heuristic%202p"
    ))
    .await
    .json();
    let heuristic = web::Advisor::Search {
        name: "heuristic 2p".to_owned(),
        evaluator: Box::new(search::Heuristic::new()),
        settings: search::Settings::new("2p".parse().unwrap()),
    };
    let advice = heuristic.advise(parse_board(board).unwrap());
    assert_eq!(values(&answer), advice.values);
    assert_eq!(answer["best"], advice.best.unwrap().name());
    assert_eq!(answer["source"], "heuristic 2p");
    assert_eq!(answer["rates"], false);

    // Where the table applies, the player's values are its rates: the
    // first such position of the recorded games.
    let tables = player::Tables::open(&[dir().join("tables")]).0;
    let game = common::recorded_games()
        .iter()
        .flat_map(|record| record.turns().map(|turn| turn.board).collect::<Vec<_>>())
        .find(|&board| tables.advise(board).is_some())
        .expect("the games reach a position of the table");
    let answer = get(&format!("/api/analyze?board={}", board_text(game)))
        .await
        .json();
    assert_eq!(answer["advisor"], "player");
    assert_eq!(answer["source"], format!("table {}", common::TABLE));
    assert_eq!(answer["rates"], true);
    assert_eq!(values(&answer), tables.books()[0].move_rates(game));
    let best = Direction::best_of(values(&answer)).unwrap();
    assert_eq!(answer["best"], best.name());

    // A board with no move left.
    let over = get("/api/analyze?board=1212212112122121").await.json();
    assert_eq!(
        (over["over"].as_bool(), &over["best"]),
        (Some(true), &Value::Null)
    );
}

#[tokio::test]
async fn bad_boards_moves_and_advisors_get_one_clear_line() {
    get("/api/analyze?board=12").await.refused("16 characters");
    get("/api/analyze?board=123456789abcdefz")
        .await
        .refused("cell 15 is 'z'");
    get("/api/analyze?board=12%203456789123456")
        .await
        .refused("cell 2 is ' '");
    get("/api/analyze?board=0000000000000011&advisor=x")
        .await
        .refused("no advisor \"x\": there are player, heuristic 2p");
    get("/api/analyze").await.refused("board");
    get("/api/step?board=1100000000000000&move=north")
        .await
        .refused("move \"north\"");
    get("/api/step?board=1000000000000000&move=up")
        .await
        .refused("up changes nothing");
    get("/move?board=nonsense").await.refused("16 characters");
    get("/api/new?seed=-1").await.refused("seed");
}

#[tokio::test]
async fn macroxues_protocol_answers_one_letter() {
    let answer = get("/move?board=EDC1BA9187611111").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(
        ["u", "l", "r", "d"].contains(&answer.body.as_str()),
        "{}",
        answer.body
    );
    assert!(answer.cors, "a clone on another site may ask");
    assert_eq!(get("/move?board=1212212112122121").await.body, "g");
}

#[tokio::test]
async fn games_spawn_by_the_rules_and_reproduce_from_a_seed() {
    let first = get("/api/new?seed=5").await.json();
    assert_eq!(get("/api/new?seed=5").await.json(), first);
    let board = parse_board(first["board"].as_str().unwrap()).unwrap();
    assert_eq!(board.empty_count(), 14);

    let step = get("/api/step?board=1100000000000000&move=left&seed=9")
        .await
        .json();
    assert_eq!(step["afterstate"], "2000000000000000");
    assert_eq!(step["reward"], 4);
    let cell = step["spawn"]["cell"].as_u64().unwrap() as usize;
    let tile = step["spawn"]["tile"].as_u64().unwrap();
    assert!(cell != 0 && (tile == 2 || tile == 4));
    let next = parse_board(step["board"].as_str().unwrap()).unwrap();
    assert_eq!(next.tile(cell), tile.trailing_zeros() as u8);
    assert_eq!(
        get("/api/step?board=1100000000000000&move=left&seed=9")
            .await
            .json(),
        step
    );
}

#[tokio::test]
async fn practice_plays_a_table_and_scores_each_move_against_the_best() {
    let table = common::TABLE;
    let start = get(&format!("/api/practice/start?table={table}&seed=3"))
        .await
        .json();
    assert_eq!(start["state"], "playing");
    let board = start["board"].as_str().unwrap().to_owned();
    assert_eq!(
        board.matches('f').count(),
        6,
        "L3's six large tiles: {board}"
    );
    let rates: Vec<Option<f64>> = (0..4).map(|i| start["rates"][i].as_f64()).collect();
    let best = start["best"].as_str().unwrap();
    let top = rates.iter().flatten().copied().fold(0.0, f64::max);
    assert!(top > 0.0);
    assert_eq!(
        get(&format!("/api/practice/rate?table={table}&board={board}"))
            .await
            .json(),
        start
    );

    // Every allowed move: its rate and the best one's, and a next position.
    for (index, direction) in ["up", "right", "down", "left"].into_iter().enumerate() {
        let uri = format!("/api/practice/step?table={table}&board={board}&move={direction}&seed=4");
        match rates[index] {
            Some(rate) => {
                let step = get(&uri).await.json();
                assert_eq!(step["rate"].as_f64(), Some(rate));
                assert_eq!(step["best_rate"].as_f64(), Some(top));
                assert!(
                    ["playing", "won", "lost"].contains(&step["next"]["state"].as_str().unwrap())
                );
            }
            None => get(&uri).await.refused("is not a move of table"),
        }
    }
    assert!(
        rates[["up", "right", "down", "left"]
            .iter()
            .position(|&d| d == best)
            .unwrap()]
            == Some(top)
    );

    // A board of one's own, with real tiles: those above the target are
    // large tiles, as in a game.
    let own = board.replacen('f', "a", 1);
    let answer = get(&format!("/api/practice/start?table={table}&board={own}"))
        .await
        .json();
    assert_eq!(answer["board"], board.as_str());
    get("/api/practice/start?table=L9-2&seed=1")
        .await
        .refused(&format!("no table \"L9-2\": there are {table}"));
    get(&format!(
        "/api/practice/rate?table={table}&board=1111111111111111"
    ))
    .await
    .refused("");
}

#[tokio::test]
async fn replays_open_only_the_record_folders_files() {
    let files = get("/api/records").await.json();
    assert_eq!(files[0]["name"], "games.txt");
    let games = common::recorded_games();
    let answer = get("/api/replay?file=games.txt&game=1").await.json();
    assert_eq!(
        (answer["games"].as_u64(), answer["game"].as_u64()),
        (Some(2), Some(1))
    );
    let replay = &answer["replay"];
    let record = &games[1];
    assert_eq!(replay["score"].as_u64(), Some(record.score()));
    let boards = replay["boards"].as_array().unwrap();
    assert_eq!(boards.len(), record.steps().len() + 1);
    for (turn, (board, played)) in record
        .turns()
        .zip(boards.iter().zip(replay["moves"].as_array().unwrap()))
    {
        assert_eq!(board.as_str(), Some(board_text(turn.board).as_str()));
        assert_eq!(played.as_str(), Some(turn.direction.name()));
    }
    assert_eq!(
        boards.last().unwrap().as_str(),
        Some(board_text(record.last()).as_str())
    );

    for outside in ["../outside.txt", "%2Fetc%2Fpasswd", "outside.txt", ".."] {
        get(&format!("/api/replay?file={outside}"))
            .await
            .refused("no record file");
    }
    get("/api/replay?file=games.txt&game=2")
        .await
        .refused("holds games 0 to 1");

    // A file the page sends: checked line by line.
    let post = |text: &str| {
        Request::post("/api/replay?game=0")
            .body(Body::from(text.to_owned()))
            .unwrap()
    };
    let sent = send(post(&games[0].to_string())).await.json();
    assert_eq!(sent["replay"]["score"].as_u64(), Some(games[0].score()));
    send(post("# a game\n0111#L21#R31\n"))
        .await
        .refused("line 2: move 2 (right)");
    send(post("")).await.refused("holds no game records");
}
