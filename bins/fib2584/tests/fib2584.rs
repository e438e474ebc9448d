//! The `fib2584` program as a course student runs it: training, evaluation
//! with records, replaying them, a killed run resumed, and bad input.

use std::path::Path;
use std::process::Output;

use testkit::text;

fn fib2584(args: &[&str], dir: &Path) -> Output {
    testkit::run(env!("CARGO_BIN_EXE_fib2584"), args, dir)
}

#[test]
fn trains_evaluates_records_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n",
        "2x4patt",
        "-t",
        "2x500",
        "-e",
        "1x200",
        "-s",
        "1",
        "--record",
        "games.txt",
    ];
    let run = fib2584(&args, dir.path());
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(stdout.contains("\n1000\tavg = "), "{stdout}");
    assert!(stdout.contains("\n200\tavg = "), "{stdout}");
    assert!(stdout.contains("saved 2x4patt.fib.nw"), "{stdout}");
    assert!(
        stdout.contains("recorded 200 games in games.txt"),
        "{stdout}"
    );
    assert!(!dir.path().join("2x4patt.fib.nw.checkpoint").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let summary = stdout.split("summary\n").nth(1).expect("a summary");
    let first_line = |text: &str| text.lines().next().unwrap().to_owned();
    let stats = |line: String| line.split(", ops").next().unwrap().to_owned();

    // The records replay to the same scores, and so the same statistics.
    let replay = fib2584(&["--replay", "games.txt"], dir.path());
    let replayed = text(&replay.stdout);
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    assert!(
        replayed.contains("200 records follow the rules"),
        "{replayed}"
    );
    assert_eq!(stats(first_line(&replayed)), stats(first_line(summary)));
    let tiles = |text: &str| -> Vec<String> {
        text.lines()
            .skip(1)
            .take_while(|line| line.starts_with('\t'))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(tiles(&replayed), tiles(summary));

    // The saved network plays the same games again.
    let again = fib2584(
        &["-i", "2x4patt.fib.nw", "-e", "1x200", "-s", "1"],
        dir.path(),
    );
    let again = text(&again.stdout);
    let evaluation = |out: &str| {
        out.split("evaluate: ")
            .nth(1)
            .map(|s| stats(first_line(s.lines().nth(2).unwrap())))
    };
    assert_eq!(evaluation(&again), evaluation(&stdout));

    // A damaged record is refused, naming the record and the action.
    let records = std::fs::read_to_string(dir.path().join("games.txt")).unwrap();
    let tampered = records.replacen("#U", "#D", 1);
    std::fs::write(dir.path().join("bad.txt"), tampered).unwrap();
    let bad = fib2584(&["--replay", "bad.txt"], dir.path());
    let message = text(&bad.stderr);
    assert!(!bad.status.success());
    assert!(
        message.starts_with("fib2584: bad.txt: record "),
        "{message}"
    );
}

/// Outputs that are not regular files (`-o /dev/null --record /dev/null`;
/// named pipes here, as a test must not touch `/dev`) are written in
/// place, never renamed over.
#[cfg(unix)]
#[test]
fn outputs_that_are_devices_or_pipes_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let (network, network_reader) = testkit::named_pipe(dir.path(), "net.pipe");
    let (games, games_reader) = testkit::named_pipe(dir.path(), "games.pipe");
    let args = [
        "-n",
        "2x4patt",
        "-t",
        "1x100",
        "-e",
        "1x20",
        "-s",
        "1",
        "-o",
        "net.pipe",
        "--record",
        "games.pipe",
    ];
    let run = fib2584(&args, dir.path());
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(testkit::is_named_pipe(&network) && testkit::is_named_pipe(&games));
    assert!(network_reader.join().unwrap().starts_with(b"2048labW"));
    assert_eq!(text(&games_reader.join().unwrap()).lines().count(), 20);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 2, "no checkpoint, no temporary file");
}

#[test]
fn a_killed_run_resumes_and_ends_as_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n",
        "2x4patt",
        "-t",
        "8x300",
        "-s",
        "kill",
        "--checkpoint-every",
        "1",
    ];
    testkit::killed_run_resumes(env!("CARGO_BIN_EXE_fib2584"), &args, dir.path());
}

/// Ctrl-C stops training at a block's end with a checkpoint, and the same
/// command, with no seed given, resumes it.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_at_a_block_and_the_same_command_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n",
        "2x4patt",
        "-t",
        "20x100",
        "--checkpoint-every",
        "100000",
    ];
    let (stderr, resumed) =
        testkit::interrupted_run_resumes(env!("CARGO_BIN_EXE_fib2584"), &args, dir.path(), "200\t");
    assert!(stderr.contains("fib2584: stopped after block "), "{stderr}");
    assert!(resumed.contains(" of 20 blocks done"), "{resumed}");
}

#[test]
fn bad_input_is_one_clear_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("junk.nw"), b"not weights").unwrap();
    std::fs::write(dir.path().join("empty.txt"), "player:rndenv@1||rndenv@2\n").unwrap();
    let cases: [(&[&str], &str); 15] = [
        // No output over an input, or over another output.
        (
            &["-i", "junk.nw", "-e", "1", "--record", "junk.nw"],
            "--record junk.nw: that is the file read with -i",
        ),
        (
            &[
                "-n", "2x4patt", "-t", "1x10", "-o", "a.nw", "--record", "a.nw",
            ],
            "-o and --record both name a.nw",
        ),
        // Records that are no whole game, and input that never ends.
        (
            &["--replay", "empty.txt"],
            "record 1, after action 0: a game starts with two placed tiles",
        ),
        (
            &["--replay", "/dev/zero"],
            "/dev/zero: line 1 is over 64 MiB, too long for an episode record",
        ),
        (&["-n", "2x4patt"], "nothing to do"),
        (&["-n", "01z", "-e", "1"], "01z"),
        (&["-n", "0123", "merge", "-e", "1"], "the merge feature"),
        (&["-n", "0123", "num", "-e", "1"], "the num@lt feature"),
        (
            &["-n", "4x6patt", "-e", "1", "--memory", "1G"],
            "more than the 1 GiB allowed",
        ),
        (&["-i", "junk.nw", "-e", "1"], "junk.nw: only 11 bytes"),
        (&["-i", "missing.nw", "-e", "1"], "missing.nw"),
        (&["--replay", "missing.txt"], "missing.txt: cannot open"),
        // Outputs that cannot be written are refused before the work.
        (
            &["-n", "2x4patt", "-t", "1x10", "-o", "."],
            ".: a folder, not a file to save in",
        ),
        (
            &["-n", "2x4patt", "-e", "1", "--record", "."],
            ".: a folder, not a file to save in",
        ),
        (
            &["-n", "2x4patt", "-e", "1", "--record", "no/such/games.txt"],
            "no/such: no such folder to save no/such/games.txt in",
        ),
    ];
    for (args, expected) in cases {
        let run = fib2584(args, dir.path());
        let message = text(&run.stderr);
        assert!(!run.status.success(), "{args:?}");
        assert!(message.contains(expected), "{args:?}: {message}");
        assert_eq!(message.lines().count(), 1, "{args:?}: {message}");
    }
    let radix = fib2584(&["--radix", "40", "-e", "1"], dir.path());
    assert!(!radix.status.success());
}

/// The help speaks of this program only: no temporal coherence, no search.
/// With no arguments it is printed, as tb-build's and stats' are.
#[test]
fn the_help_names_only_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let bare = fib2584(&[], dir.path());
    assert!(
        text(&bare.stderr).contains("Usage: fib2584 [OPTIONS]"),
        "{}",
        text(&bare.stderr)
    );
    let help = text(&fib2584(&["--help"], dir.path()).stdout);
    assert!(
        help.contains("--alpha") && help.contains("--memory"),
        "{help}"
    );
    for absent in ["--tc", "coherence", "search", "transposition"] {
        assert!(!help.contains(absent), "{absent}: {help}");
    }
}

/// On a terminal a run shows a bar with its rate and ETA over the episodes
/// of each phase; into a pipe, only the course's lines.
#[test]
fn a_run_on_a_terminal_shows_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n", "2x4patt", "-t", "2x100", "-e", "1x50", "-s", "bar", "-o", "net.fnw",
    ];
    let shown = testkit::run_in_terminal(env!("CARGO_BIN_EXE_fib2584"), &args, dir.path());
    for phase in ["/200 episodes, ", "/50 episodes, "] {
        assert!(shown.contains(phase), "{phase}: {shown}");
    }
    assert!(shown.contains("/s, ETA "), "{shown}");
    let output = fib2584(&[&args[..8], &["-o", "piped.fnw"]].concat(), dir.path());
    testkit::assert_no_bar(&output);
}
