//! The page in a real headless Chromium, used as a person would: keys,
//! hints, the AI playing, a table practised, a game replayed; screenshots
//! of each mode, looked at.
//!
//! Needs Debian's `chromium` and `chromium-driver` (./.ci/run installs
//! them). `WEB_SCREENSHOTS=DIR` writes the screenshots there too (docs/web.md
//! shows them: `WEB_SCREENSHOTS=$PWD/docs/figures cargo test -p web --test browser`).

mod common;

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use board::{Direction, WideBoard};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use web::text::{board_text, parse_board};

const CHROMIUM: &str = "/usr/bin/chromium";
const DRIVER: &str = "/usr/bin/chromedriver";

/// A ChromeDriver on a free port of this machine, stopped on drop.
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start() -> Self {
        for program in [CHROMIUM, DRIVER] {
            assert!(
                Path::new(program).exists(),
                "{program} is missing: the browser test needs Debian's chromium and \
                 chromium-driver (apt-get install chromium chromium-driver; ./.ci/run installs them)"
            );
        }
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(DRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { child, port }
    }

    /// A browser with a fresh profile in `profile`, saving downloads in
    /// `downloads`.
    async fn browser(&self, profile: &Path, downloads: &Path) -> Client {
        let options = json!({
            "binary": CHROMIUM,
            "prefs": {
                "download.default_directory": downloads,
                "download.prompt_for_download": false,
            },
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--window-size=1000,760", "--hide-scrollbars",
                format!("--user-data-dir={}", profile.display()),
            ],
        });
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".to_owned(), options);
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("chromedriver starts chromium")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The page in a browser, with helpers a person's actions map onto.
struct Page {
    client: Client,
    shots: Vec<PathBuf>,
}

impl Page {
    /// The value of a JavaScript expression.
    async fn eval(&self, expression: &str) -> Value {
        self.client
            .execute(&format!("return {expression};"), Vec::new())
            .await
            .unwrap()
    }

    /// Waits until `expression` is true, for at most 30 seconds.
    async fn until(&self, expression: &str) {
        let started = Instant::now();
        while self.eval(expression).await != Value::Bool(true) {
            let status = self
                .eval("document.getElementById('status').textContent")
                .await;
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "waited in vain for {expression} (status: {status})"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn text(&self, id: &str) -> String {
        let value = self
            .eval(&format!("document.getElementById('{id}').textContent"))
            .await;
        value.as_str().unwrap().to_owned()
    }

    async fn board(&self) -> String {
        let value = self
            .eval("document.getElementById('board').dataset.board")
            .await;
        value.as_str().unwrap().to_owned()
    }

    async fn click_tab(&self, tab: &str) {
        let button = self
            .client
            .find(Locator::Css(&format!("#tabs button[data-tab='{tab}']")))
            .await
            .unwrap();
        button.click().await.unwrap();
    }

    async fn click(&self, id: &str) {
        self.client
            .find(Locator::Id(id))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }

    async fn key(&self, key: &str) {
        let body = self.client.find(Locator::Css("body")).await.unwrap();
        body.send_keys(key).await.unwrap();
    }

    async fn type_into(&self, id: &str, text: &str) {
        let input = self.client.find(Locator::Id(id)).await.unwrap();
        input.clear().await.unwrap();
        input.send_keys(text).await.unwrap();
    }

    /// The values the hints show, as the page got them.
    async fn hints(&self) -> ([Option<f32>; 4], Option<String>) {
        let rows = self
            .eval("[...document.querySelectorAll('#hint-table tr')].map(r => [r.dataset.value, r.classList.contains('best')])")
            .await;
        let rows = rows.as_array().unwrap();
        let values = std::array::from_fn(|i| rows[i][0].as_str().unwrap().parse::<f32>().ok());
        let best = (0..4)
            .find(|&i| rows[i][1] == Value::Bool(true))
            .map(|i| Direction::ALL[i].name().to_owned());
        (values, best)
    }

    /// A screenshot of the window, kept as `name`.png.
    async fn shoot(&mut self, name: &str) -> Vec<u8> {
        let png = self.client.screenshot().await.unwrap();
        let mut dirs = vec![PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")];
        dirs.extend(std::env::var_os("WEB_SCREENSHOTS").map(PathBuf::from));
        for dir in dirs {
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("web-{name}.png"));
            std::fs::write(&path, &png).unwrap();
            self.shots.push(path);
        }
        png
    }
}

/// The pixels of a PNG, as RGB triples.
fn pixels(png: &[u8]) -> Vec<[u8; 3]> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|pixel| [pixel[0], pixel[1], pixel[2]])
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_watches_practises_and_replays_in_the_browser() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-browser");
    let app = common::app(&dir);
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, web::router(app)).await.unwrap() });

    let driver = Driver::start();
    let profile = tempfile::tempdir().unwrap();
    let downloads = tempfile::tempdir().unwrap();
    let mut page = Page {
        client: driver.browser(profile.path(), downloads.path()).await,
        shots: Vec::new(),
    };
    page.client
        .goto(&format!("http://{address}/?seed=11"))
        .await
        .unwrap();
    page.until("document.body.dataset.ready === 'true'").await;

    // Play: set a board from a recorded game, move with the keys.
    let games = common::recorded_games();
    let start = games[0].turns().nth(150).unwrap().board;
    page.type_into("board-text", &board_text(start)).await;
    page.click("set-board").await;
    page.until(&format!(
        "document.getElementById('board').dataset.board === '{}'",
        board_text(start)
    ))
    .await;
    let direction = start.afterstates().iter().next().unwrap().0;
    let key = match direction {
        Direction::Up => "w".to_owned(),
        Direction::Right => "d".to_owned(),
        Direction::Down => char::from(Key::Down).to_string(),
        Direction::Left => char::from(Key::Left).to_string(),
    };
    page.key(&key).await;
    page.until("document.getElementById('moves').textContent === '1'")
        .await;
    let moved = parse_board(&page.board().await).unwrap();
    let afterstate = start.slide(direction).unwrap();
    let spawned: Vec<usize> = (0..16)
        .filter(|&c| moved.tile(c) != afterstate.board.tile(c))
        .collect();
    assert_eq!(spawned.len(), 1, "one tile spawned after {direction}");
    assert!(afterstate.board.tile(spawned[0]) == 0 && moved.tile(spawned[0]) <= 2);
    assert_eq!(page.text("score").await, afterstate.reward.to_string());
    page.key("z").await;
    page.until("document.getElementById('moves').textContent === '0'")
        .await;
    assert_eq!(page.board().await, board_text(start));
    page.key(&key).await;
    page.until("document.getElementById('moves').textContent === '1'")
        .await;

    // Hints, one key away: the player's four values, as the library gives
    // them for the board shown.
    page.key("h").await;
    page.until("!document.getElementById('hints').classList.contains('hidden') && document.querySelector('#hint-table tr').dataset.value !== undefined").await;
    let board = parse_board(&page.board().await).unwrap();
    let (shown, best) = page.hints().await;
    let (tables, _) = player::Tables::open(&[dir.join("tables")]);
    let player = player::Player::new(player::Settings::new("2p".parse().unwrap()), tables);
    let advice = web::Advisor::Player(player).advise(board);
    assert_eq!(shown, advice.values, "hints on {}", board_text(board));
    assert_eq!(best.as_deref(), advice.best.map(Direction::name));
    let play_png = page.shoot("play").await;

    // The board is drawn: the grid and each tile's colour fill their
    // squares on the screen.
    let colours = pixels(&play_png);
    let count = |rgb: [u8; 3]| colours.iter().filter(|&&pixel| pixel == rgb).count();
    assert!(count([0xbb, 0xad, 0xa0]) > 10_000, "the grid");
    let tiles = page
        .eval("[...document.querySelectorAll('#board .cell')].filter(c => c.textContent).map(c => getComputedStyle(c).backgroundColor)")
        .await;
    for tile in tiles.as_array().unwrap() {
        let rgb: Vec<u8> = tile
            .as_str()
            .unwrap()
            .trim_start_matches("rgb(")
            .trim_end_matches(')')
            .split(", ")
            .map(|part| part.parse().unwrap())
            .collect();
        assert!(count([rgb[0], rgb[1], rgb[2]]) > 2_000, "a tile of {tile}");
    }

    // Watch: the AI plays a few moves, and says where each came from.
    page.click("watch").await;
    page.until("Number(document.getElementById('moves').textContent) >= 5")
        .await;
    page.click("watch").await;
    assert_ne!(page.text("last-source").await, "none yet");
    page.shoot("watch").await;

    // The game saved as a record: the game on the screen, from the board
    // set, move by move.
    page.click("save-game").await;
    let saved = downloaded(downloads.path()).await;
    let records = board::record::read_records(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record.start(), start);
    assert_eq!(board_text(record.last()), page.board().await);
    assert_eq!(record.steps().len().to_string(), page.text("moves").await);
    assert_eq!(record.score().to_string(), page.text("score").await);

    // Practise: a random position of the table, its rates shown; the best
    // move keeps the match rate at 100%.
    page.click_tab("practise").await;
    page.click("practise-random").await;
    page.until("document.querySelectorAll('#board .wall').length === 6")
        .await;
    page.key("h").await;
    page.until("!document.getElementById('hints').classList.contains('hidden')")
        .await;
    let (rates, best) = page.hints().await;
    assert!(
        rates
            .iter()
            .flatten()
            .all(|rate| (0.0..=1.0).contains(rate))
    );
    let best = best.expect("a best move");
    page.key(&char::from(arrow(&best)).to_string()).await;
    page.until("document.getElementById('practise-moves').textContent === '1'")
        .await;
    assert_eq!(page.text("match-rate").await, "100.0%");
    page.shoot("practise").await;
    // The table's best move played for one: shown, not scored.
    if page
        .eval("document.getElementById('status').textContent === ''")
        .await
        == Value::Bool(true)
    {
        page.key("b").await;
        page.until("document.getElementById('practise-last').textContent.startsWith('Demo: ')")
            .await;
        assert_eq!(page.text("practise-moves").await, "1");
    }
    // A worse move, where the next position has one, is a mistake listed.
    let (rates, best) = page.hints().await;
    let worse = (0..4).find(|&i| {
        rates[i].is_some()
            && Some(Direction::ALL[i].name().to_owned()) != best
            && rates[i] < rates.iter().flatten().copied().reduce(f32::max)
    });
    if let Some(worse) = worse {
        page.key(&char::from(arrow(Direction::ALL[worse].name())).to_string())
            .await;
        page.until("document.getElementById('practise-moves').textContent === '2'")
            .await;
        assert_eq!(page.text("match-rate").await, "50.0%");
        page.until("document.querySelectorAll('#mistakes li').length === 1")
            .await;
    }

    // Replays: the recorded game, stepped through with the arrow keys.
    page.click_tab("replay").await;
    page.click("open-record").await;
    page.until("document.getElementById('position-text').textContent.startsWith('0 of')")
        .await;
    for _ in 0..40 {
        page.key(&char::from(Key::Right).to_string()).await;
    }
    page.until("document.getElementById('position-text').textContent.startsWith('40 of')")
        .await;
    let fortieth: WideBoard = games[0].turns().nth(40).unwrap().board;
    assert_eq!(page.board().await, board_text(fortieth));
    page.until("document.querySelector('#hint-table tr.played') !== null")
        .await;
    // A file of one's own, sent by the page: the game saved above.
    let upload = page
        .client
        .find(Locator::Id("upload-record"))
        .await
        .unwrap();
    upload.send_keys(saved.to_str().unwrap()).await.unwrap();
    page.until(&format!(
        "document.getElementById('position-text').textContent === '0 of {}'",
        record.steps().len()
    ))
    .await;
    assert_eq!(page.board().await, board_text(start));
    page.click("open-record").await;
    page.until("document.getElementById('position-text').textContent.startsWith('0 of')")
        .await;
    page.key(&char::from(Key::Home).to_string()).await;

    // The end of the game, then the position before it.
    page.key(&char::from(Key::End).to_string()).await;
    let last = board_text(games[0].last());
    page.until(&format!(
        "document.getElementById('board').dataset.board === '{last}'"
    ))
    .await;
    page.key(&char::from(Key::Left).to_string()).await;
    let before = board_text(games[0].turns().last().unwrap().board);
    page.until(&format!(
        "document.getElementById('board').dataset.board === '{before}'"
    ))
    .await;
    page.until("document.querySelector('#hint-table tr.played') !== null")
        .await;
    page.shoot("replay").await;

    page.client.close().await.unwrap();
    drop(driver);
    eprintln!("screenshots: {:?}", page.shots);
}

/// The file the browser downloaded into `dir`, once it is whole.
async fn downloaded(dir: &Path) -> PathBuf {
    let started = Instant::now();
    loop {
        let files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        // Chromium writes under a temporary name, then renames.
        if let [file] = files.as_slice()
            && file.extension().is_some_and(|extension| extension == "txt")
        {
            return file.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no download in {dir:?}: {files:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn arrow(direction: &str) -> Key {
    match direction {
        "up" => Key::Up,
        "right" => Key::Right,
        "down" => Key::Down,
        _ => Key::Left,
    }
}
