//! The `eval` program as a user runs it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use testkit::text;

fn eval(args: &[&str], dir: &Path) -> Output {
    testkit::run(env!("CARGO_BIN_EXE_eval"), args, dir)
}

/// A lightly trained 2x4patt network saved as `net.nw` in `dir`.
fn trained(dir: &Path) {
    let network = ntuple::Network::new(ntuple::parse_patterns(["2x4patt"]).unwrap()).unwrap();
    let run = learn::Run {
        player: learn::Player::Greedy {
            network: &network,
            valued: learn::Valued::Afterstates,
            learning: Some(learn::Learning::default()),
        },
        spawns: board::SpawnRule::STANDARD,
        seed: 1,
        threads: 1,
        plan: "1x200".parse().unwrap(),
        progress: None,
    };
    run.execute(0, &mut learn::Stats::default(), |_| Ok::<(), ()>(()))
        .unwrap();
    network
        .save(&dir.join("net.nw"), &ntuple::Metadata::new())
        .unwrap();
}

#[test]
fn plays_blocks_and_prints_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    let output = eval(
        &["-i", "net.nw", "-e", "2x50", "-s", "x", "-p", "2"],
        dir.path(),
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stdout.contains("evaluate: 2x50"));
    assert!(
        stdout.contains("\n002/002 ") && stdout.contains("\nsummary "),
        "{stdout}"
    );
    let rows = stdout
        .lines()
        .skip_while(|l| !l.starts_with("tile "))
        .skip(1);
    let games: u64 = rows
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(games, 100);
}

/// `--f16` plays an f32 network rounded to half precision, in half the
/// memory, and about as well.
#[test]
fn plays_a_network_in_half_precision() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    let args = ["-i", "net.nw", "-e", "1x200", "-s", "h"];
    let single = eval(&args, dir.path());
    let half = eval(&[&args[..], &["--f16"]].concat(), dir.path());
    assert!(half.status.success(), "{}", text(&half.stderr));
    let (single, half) = (text(&single.stdout), text(&half.stdout));
    assert!(single.contains("512 KiB of f32 weights"), "{single}");
    assert!(half.contains("256 KiB of f16 weights"), "{half}");
    let (single, half) = (summary_average(&single), summary_average(&half));
    assert!(
        (half - single).abs() < 0.2 * single,
        "{half} against {single}"
    );
}

#[test]
fn bad_files_and_networks_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    std::fs::write(dir.path().join("junk.nw"), b"not weights at all").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-i", "none.nw"], "eval: none.nw: No such file"),
        (
            &["-i", "junk.nw"],
            "eval: junk.nw: neither a 2048lab nor a TDL2048+ weight file",
        ),
        (
            &["-i", "net.nw", "-n", "4x6patt"],
            "eval: net.nw: holds network 0123 4567, not 012345",
        ),
        (&["-i", "net.nw", "-e", "many"], "is not an episode count"),
        (&["--cutoff", "2"], "\"2\" is not a probability (0 to 1)"),
        (
            &["--cutoff", "NaN"],
            "\"NaN\" is not a probability (0 to 1)",
        ),
        (
            &["--cutoff", "-0.5"],
            "\"-0.5\" is not a probability (0 to 1)",
        ),
        // A network name only checks a file; without one there is nothing to check.
        (&["-n", "2x4patt"], "--input <FILE>"),
        // Nor are there stages to set (they were ignored).
        (
            &["--stages", "0,16384"],
            "eval: --stages: the heuristic has no stages",
        ),
        (
            &["-i", "net.nw", "-d", "2p", "--peek"],
            "eval: --peek: there is no transposition table to peek in",
        ),
        // More threads than the system can start aborted the process.
        (&["-p", "65535"], "65535 is not in 1..=4096"),
        // A table that does not fit is refused before it is allocated (a
        // terabyte aborted the process).
        (
            &["-c", "1T", "--memory", "1G"],
            "eval: --cache: a table of 1 TiB needs more than the 1 GiB of memory left (--memory)",
        ),
    ];
    for (args, expected) in cases {
        let output = eval(args, dir.path());
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    // The heuristic's own table is one to peek in.
    let output = eval(&["--peek", "-e", "1x1", "-s", "1", "-d", "2p"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("cache = 256 MiB peek"));
    // And -c 0 leaves it out (it was one slot of 16 bytes).
    let output = eval(&["-c", "0", "-e", "1x1", "-s", "1", "-d", "2p"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("search = 2p, cache = none, cutoff"));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_eval"))
        .args(["-i", "net.nw", "-e", "20x20"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("2048lab eval"));
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn plays_a_tdl2048_network_as_well_as_tdl2048() {
    // TDL2048+ evaluated 2x4patt-td.w over 2,000 games: mean 7468.342,
    // standard deviation 3089.8 (fixture README). Another 2,000 games land
    // within 3 standard errors of the difference of two such means: +-290.
    let dir = tempfile::tempdir().unwrap();
    let weights = testkit::tdl2048_fixtures().join("2x4patt-td.w");
    let weights = weights.to_str().unwrap();
    let output = eval(
        &[
            "-i", weights, "-n", "2x4patt", "-e", "2", "-s", "eval", "-p", "2",
        ],
        dir.path(),
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let summary = stdout
        .lines()
        .skip_while(|l| !l.starts_with("summary"))
        .nth(1)
        .unwrap();
    let average: f64 = summary
        .split_whitespace()
        .find_map(|field| field.strip_prefix("avg="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (average - 7468.0).abs() < 290.0,
        "average {average}: {summary}"
    );
}

#[test]
fn plays_ensembles_and_selected_tables() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = testkit::tdl2048_fixtures();
    let td = fixtures.join("2x4patt-td.w").display().to_string();
    let tc = fixtures.join("2x4patt-tc.w").display().to_string();
    let output = eval(
        &["-i", &td, &tc, "-n", "2x4patt", "-e", "1x20", "-s", "e"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("network = 0123 4567 "));
    let first = format!("[0]|{td}");
    let output = eval(&["-i", &first, "-e", "1x20"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("network = 0123 (1 tables"));
    let output = eval(&["-i", &format!("[7]|{td}")], dir.path());
    assert!(
        text(&output.stderr).contains("has 2 tables"),
        "{}",
        text(&output.stderr)
    );
}

/// The `avg=` of the summary's total line.
fn summary_average(stdout: &str) -> f64 {
    let total = stdout
        .lines()
        .skip_while(|l| !l.starts_with("summary"))
        .nth(1)
        .unwrap();
    total
        .split_whitespace()
        .find_map(|field| field.strip_prefix("avg="))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn searching_two_plies_plays_better_than_one() {
    // TDL2048+'s 2x4patt-td.w, these 60 seeded games: measured 1p 7,392,
    // 2p 15,684 (and 3p 21,442). With a standard deviation near 3,100 a
    // game, the means of 60 games are about 550 apart at one standard error
    // of their difference, so 2p must beat 1p by at least 3,000.
    let dir = tempfile::tempdir().unwrap();
    let weights = testkit::tdl2048_fixtures()
        .join("2x4patt-td.w")
        .display()
        .to_string();
    let play = |depth: &str| {
        let output = eval(
            &[
                "-i", &weights, "-e", "1x60", "-s", "depth", "-p", "2", "-d", depth,
            ],
            dir.path(),
        );
        assert!(output.status.success(), "{}", text(&output.stderr));
        text(&output.stdout)
    };
    let (greedy, searched) = (play("1p"), play("2p"));
    assert!(searched.contains("search = 2p, cache = none"), "{searched}");
    assert!(searched.contains(" ms/move, "), "{searched}");
    let (greedy, searched) = (summary_average(&greedy), summary_average(&searched));
    assert!(
        searched > greedy + 3000.0,
        "2p {searched} against 1p {greedy}"
    );
}

#[test]
fn plays_without_a_network_with_the_heuristic() {
    let dir = tempfile::tempdir().unwrap();
    let output = eval(&["-e", "1x3", "-d", "2p", "-s", "heuristic"], dir.path());
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        stdout.contains("network = the heuristic (no network)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("search = 2p, cache = 256 MiB, cutoff = 0.0001"),
        "{stdout}"
    );
    // Random play averages about 1,100; the heuristic at 2p about 28,000.
    let average = summary_average(&stdout);
    assert!(average > 5000.0, "average {average}");
}

#[test]
fn downgrading_plays_on_past_its_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let output = eval(
        &["-e", "1x2", "-d", "2p", "-s", "down", "--downgrade", "256"],
        dir.path(),
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    // The search sees boards whose largest tile stays below 256, the game
    // itself goes on to larger tiles.
    let largest: u32 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("total:"))
        .and_then(|l| l.split_whitespace().find_map(|f| f.strip_prefix("tile=")))
        .unwrap()
        .parse()
        .unwrap();
    assert!(largest >= 512, "{stdout}");
    let output = eval(&["--downgrade", "300"], dir.path());
    assert!(text(&output.stderr).contains("is not a tile"));
}

#[test]
fn the_player_plays_with_a_table_set_and_counts_its_sources() {
    let dir = tempfile::tempdir().unwrap();
    // A folder of tables as `tb-build set` writes it, with one small table.
    let spec = tablebase::Spec::new(tablebase::Formation::find("L3x").unwrap(), 5, 0.1).unwrap();
    let options = tablebase::builder::Options::default();
    tablebase::builder::build(
        &spec,
        &dir.path().join("tables/L3x-32"),
        options,
        None,
        &mut |_| {},
    )
    .unwrap();

    let output = eval(
        &[
            "--player",
            "--player-depth",
            "2p",
            "-e",
            "1x4",
            "-s",
            "p",
            "--tables",
            "tables",
            "missing",
        ],
        dir.path(),
    );
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // A table that cannot be read is one line, and the player goes on.
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("table missing left out"), "{stderr}");
    assert!(stdout.contains("tables = L3x-32 ("), "{stdout}");
    let sources = stdout
        .lines()
        .find(|line| line.starts_with("moves by source: search "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let count = |name: &str| -> u64 {
        let after = sources.split(&format!("{name} ")).nth(1).unwrap();
        after.split(['(', ')']).nth(1).unwrap().parse().unwrap()
    };
    assert!(count("L3x-32") > 0, "the table plays: {sources}");
    assert!(count("search") > 0, "{sources}");
    assert!(summary_average(&stdout) > 5000.0, "{stdout}");
    // Without tables the search plays every move.
    let output = eval(
        &["--player", "--player-depth", "2p", "-e", "1x1", "-s", "p"],
        dir.path(),
    );
    assert!(text(&output.stdout).contains("moves by source: search 100.0%"));
    // The tables may value the search's leaves too.
    let output = eval(
        &[
            "--player-depth",
            "2p",
            "-e",
            "1x1",
            "-s",
            "p",
            "--tables",
            "tables",
            "--leaf-rates",
            "1",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("moves by source: search "));
    // Its depths are its own.
    for (args, problem) in [
        (&["--player", "-d", "3p"][..], "cannot be used with"),
        (&["--tables", "t", "-c", "1G"][..], "cannot be used with"),
        (
            &["--player-depth", "3p", "--downgrade", "32768"][..],
            "cannot be used with",
        ),
        (
            &["--player", "--stages", "0,16384"][..],
            "the player has no stages",
        ),
        (&["--player-depth", "3p,4p"][..], "is not a depth"),
        (&["--player", "--leaf-rates", "1"][..], "add --tables"),
        (&["--player", "--leaf-rates=-1"][..], "is not a scale"),
    ] {
        let output = eval(args, dir.path());
        assert!(!output.status.success());
        assert!(
            text(&output.stderr).contains(problem),
            "{}",
            text(&output.stderr)
        );
    }
}

#[test]
fn records_every_game_of_every_player_as_it_was_played() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    let players: [(&[&str], usize); 3] = [
        (&["-i", "net.nw", "-e", "2x5"], 10),
        (&["-e", "1x3", "-d", "2p"], 3),
        (&["--player", "--player-depth", "2p", "-e", "1x2"], 2),
    ];
    for (index, (player, games)) in players.into_iter().enumerate() {
        let file = format!("games-{index}.txt");
        let mut args = player.to_vec();
        args.extend(["-s", "rec", "-p", "2"]);
        let plain = eval(&args, dir.path());
        args.extend(["--record", &file]);
        let output = eval(&args, dir.path());
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let written = std::fs::read_to_string(dir.path().join(&file)).unwrap();
        let records = board::record::read_records(&written).unwrap();
        // Every game in the order played, whole, and the same games as
        // without recording.
        let count = records.len();
        assert_eq!(count, games);
        for (episode, record) in records.iter().enumerate() {
            assert_eq!(record.tag("episode"), Some(episode.to_string().as_str()));
            assert!(record.is_over());
        }
        let average = records.iter().map(|r| r.score() as f64).sum::<f64>() / count as f64;
        assert!(
            (average - summary_average(&stdout)).abs() < 1.0,
            "{average} {stdout}"
        );
        assert_eq!(
            summary_average(&text(&plain.stdout)),
            summary_average(&stdout)
        );
        assert!(
            stdout.contains(&format!("recorded {count} games in {file}")),
            "{stdout}"
        );
    }
}

#[test]
fn no_output_goes_over_an_input_or_another_output() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    let before = std::fs::read(dir.path().join("net.nw")).unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["-i", "net.nw", "--log", "net.nw"],
            "--log net.nw: that is the file read with -i",
        ),
        (
            &["-i", "net.nw", "--record", "./net.nw"],
            "--record ./net.nw: that is the file read with -i",
        ),
        (
            &["-i", "net.nw", "--log", "a.txt", "--record", "a.txt"],
            "--log and --record both name a.txt",
        ),
    ];
    for (args, expected) in cases {
        let output = eval(args, dir.path());
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    assert_eq!(std::fs::read(dir.path().join("net.nw")).unwrap(), before);
}

/// On a terminal an evaluation shows a bar with its rate and ETA; into a
/// pipe, only the log's lines.
#[test]
fn an_evaluation_on_a_terminal_shows_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    let args = ["-i", "net.nw", "-e", "2x50", "-s", "x"];
    let shown = testkit::run_in_terminal(env!("CARGO_BIN_EXE_eval"), &args, dir.path());
    assert!(shown.contains("/100 episodes, "), "{shown}");
    assert!(shown.contains("/s, ETA "), "{shown}");
    let output = eval(&args, dir.path());
    testkit::assert_no_bar(&output);
}

/// A network of state values (`train --states` records it) is played by
/// them, at 1-ply only.
#[test]
fn networks_of_state_values_are_played_by_them() {
    let dir = tempfile::tempdir().unwrap();
    let network = ntuple::Network::new(ntuple::parse_patterns(["2x4patt"]).unwrap()).unwrap();
    let metadata = ntuple::Metadata::from([("values".to_owned(), "states".to_owned())]);
    network
        .save(&dir.path().join("states.nw"), &metadata)
        .unwrap();
    let output = eval(&["-i", "states.nw", "-e", "1x20", "-s", "v"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("search = 1p on state values, "),
        "{}",
        text(&output.stdout)
    );
    let output = eval(&["-i", "states.nw", "-d", "2p", "-e", "1x5"], dir.path());
    assert_eq!(
        text(&output.stderr),
        "eval: -i: a network of state values (train --states) is played greedily at 1-ply: leave \
         out -d, --adaptive and -h\n"
    );
}
