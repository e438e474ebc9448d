//! An app as a user would start it: the player with a small table, the
//! heuristic, that table to practise, and a folder with a recorded game.

use std::path::Path;

use board::{GameRecord, SpawnRule};
use web::{Advisor, App, PracticeTable, RecordFolders};

/// The table the tests build and practise.
pub const TABLE: &str = "L3-64";

/// Builds the app's files in `dir` (a table in `tables/`, a record file
/// `records/games.txt` of two games) and opens the app over them.
pub fn app(dir: &Path) -> App {
    let spec = tablebase::Spec::new(tablebase::Formation::find("L3").unwrap(), 6, 0.1).unwrap();
    // A table built by an earlier run is left as it is; one whose build
    // was killed is finished.
    let table = dir.join("tables").join(TABLE);
    tablebase::builder::build(&spec, &table, Default::default(), None, &mut |_| {}).unwrap();
    let records = dir.join("records");
    std::fs::create_dir_all(&records).unwrap();
    let games: Vec<String> = recorded_games().iter().map(ToString::to_string).collect();
    std::fs::write(records.join("games.txt"), games.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("outside.txt"), &games[0]).unwrap();

    let (tables, problems) = player::Tables::open(&[dir.join("tables")]);
    assert!(problems.is_empty(), "{problems:?}");
    let player = player::Player::new(player::Settings::new("2p".parse().unwrap()), tables);
    let heuristic = Advisor::Search {
        name: "heuristic 2p".to_owned(),
        evaluator: Box::new(search::Heuristic::new()),
        settings: search::Settings::new("2p".parse().unwrap()),
    };
    App::new(
        vec![Advisor::Player(player), heuristic],
        vec![PracticeTable::open(&table).unwrap()],
        RecordFolders::new(vec![records]),
        1,
    )
}

/// Two games of the player at 2p, recorded as `eval --record` records them.
pub fn recorded_games() -> Vec<GameRecord> {
    let player = player::Player::new(
        player::Settings::new("2p".parse().unwrap()),
        player::Tables::none(),
    );
    let run = learn::Run {
        player: learn::Player::Agent(&player),
        spawns: SpawnRule::STANDARD,
        seed: 7,
        threads: 1,
        plan: "1x2".parse().unwrap(),
        progress: None,
    };
    run.recorded_block(0).1
}
