//! 2048lab's local web app: play 2048 with hints, watch the AI play,
//! practise an endgame table against its rates, and replay recorded games
//! (docs/web.md).
//!
//! An [`App`] holds what the page can use: [`Advisor`]s (the player with
//! its tables, a search over a network or the heuristic), tables opened for
//! practice ([`PracticeTable`]) and the folders of record files it may
//! read ([`RecordFolders`]). [`router`] serves the page, shipped inside the
//! binary, and the HTTP API it uses (macroxue's `GET /move?board=` among
//! it), for any other front end too.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use web::{Advisor, App, RecordFolders};
//!
//! let player = player::Player::new(
//!     player::Settings::new("3p".parse().unwrap()),
//!     player::Tables::none(),
//! );
//! let app = App::new(vec![Advisor::Player(player)], Vec::new(), RecordFolders::default(), 1);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8048").await?;
//! axum::serve(listener, web::router(app)).await
//! # }
//! ```

#![forbid(unsafe_code)]

mod advisor;
mod api;
mod assets;
mod practice;
mod replay;
pub mod text;

use std::sync::Mutex;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

pub use advisor::{Advice, Advisor};
pub use api::router;
pub use practice::{Played, PracticeTable, Rated, State};
pub use replay::{MOST_RECORD_BYTES, RecordFile, RecordFolders, Replay};

/// Everything the page can use, shared by all requests.
pub struct App {
    advisors: Vec<Advisor>,
    tables: Vec<PracticeTable>,
    records: RecordFolders,
    /// Spawns for requests that bring no seed of their own.
    rng: Mutex<Pcg64Mcg>,
}

impl App {
    /// An app with these advisors (the first is the default, and answers
    /// `GET /move`), tables to practise and record folders; spawns that
    /// no request seeds come from `seed`.
    ///
    /// # Panics
    /// If `advisors` is empty.
    pub fn new(
        advisors: Vec<Advisor>,
        tables: Vec<PracticeTable>,
        records: RecordFolders,
        seed: u64,
    ) -> Self {
        assert!(!advisors.is_empty(), "an app needs an advisor");
        Self {
            advisors,
            tables,
            records,
            rng: Mutex::new(Pcg64Mcg::seed_from_u64(seed)),
        }
    }

    /// The advisors, the default first.
    pub fn advisors(&self) -> &[Advisor] {
        &self.advisors
    }

    /// The tables to practise.
    pub fn tables(&self) -> &[PracticeTable] {
        &self.tables
    }

    /// The record folders.
    pub fn records(&self) -> &RecordFolders {
        &self.records
    }

    /// A generator for one request: seeded by it, or drawn from the app's.
    fn rng(&self, seed: Option<u64>) -> Pcg64Mcg {
        use rand::Rng as _;
        let seed = seed.unwrap_or_else(|| self.rng.lock().expect("no request panics").next_u64());
        Pcg64Mcg::seed_from_u64(seed)
    }
}
