//! The `eval` program as a user runs it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn eval(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eval"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("eval runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A lightly trained 2x4patt network saved as `net.nw` in `dir`.
fn trained(dir: &Path) {
    let network = ntuple::Network::new(ntuple::parse_patterns(["2x4patt"]).unwrap()).unwrap();
    let run = learn::Run {
        network: &network,
        spawns: board::SpawnRule::STANDARD,
        learning: Some(learn::Learning::default()),
        seed: 1,
        threads: 1,
        plan: "1x200".parse().unwrap(),
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

#[test]
fn bad_files_and_networks_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    trained(dir.path());
    std::fs::write(dir.path().join("junk.nw"), b"not weights at all").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-i", "none.nw"], "eval: none.nw: No such file"),
        (
            &["-i", "junk.nw"],
            "eval: junk.nw: not a 2048lab weight file",
        ),
        (
            &["-i", "net.nw", "-n", "4x6patt"],
            "eval: net.nw: holds network 0123 4567, not 012345",
        ),
        (&["-i", "net.nw", "-e", "many"], "is not an episode count"),
        (&[], "--input <FILE>"),
    ];
    for (args, expected) in cases {
        let output = eval(args, dir.path());
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
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
