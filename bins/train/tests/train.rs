//! The `train` program as a user runs it: options, errors, logs, and a run
//! killed and started again.

use std::path::Path;
use std::process::Output;

use testkit::text;

fn train(args: &[&str], dir: &Path) -> Output {
    testkit::run(env!("CARGO_BIN_EXE_train"), args, dir)
}

#[test]
fn help_explains_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let help = text(&train(&["--help"], dir.path()).stdout);
    for option in [
        "--network",
        "-n",
        "--train",
        "-t",
        "--evaluate",
        "-e",
        "--alpha",
        "-a",
        "--norm",
        "--mode",
        "--input",
        "-i",
        "--output",
        "-o",
        "--seed",
        "-s",
        "--threads",
        "-p",
        "--log",
        "--win",
        "--four-rate",
        "--memory",
        "--stages",
        "--checkpoint-every",
        "--restart",
        "--tc",
    ] {
        assert!(help.contains(option), "--help lacks {option}:\n{help}");
    }
}

#[test]
fn a_seed_is_any_text_a_negative_number_too() {
    let dir = tempfile::tempdir().unwrap();
    for seed in ["-5", "a seed"] {
        let output = train(&["-n", "0123", "-t", "1x10", "-s", seed], dir.path());
        assert!(output.status.success(), "{seed}: {}", text(&output.stderr));
        let stdout = text(&output.stdout);
        assert!(stdout.contains(&format!("seed = {seed}\n")), "{stdout}");
    }
}

#[test]
fn bad_input_is_one_clear_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-n", "01x5"], "pattern \"01x5\" is not valid"),
        (&["-n", "2x4patt", "-t", "0"], "is not an episode count"),
        (
            &["-n", "2x4patt", "-m", "sideways"],
            "is not a learning mode",
        ),
        (&["-n", "2x4patt", "--win", "3000"], "is not a tile"),
        (
            &["-n", "2x4patt", "--four-rate", "2"],
            "4-rate must be between 0 and 1",
        ),
        (
            &["-n", "4x8patt", "--memory", "1G"],
            "needs 64 GiB, more than the 1 GiB allowed",
        ),
        (&["-i", "missing.nw"], "missing.nw"),
        (&["-n", "2x4patt", "-a", "nan"], "is not a learning rate"),
        // Negative numbers reach the option's own check.
        (
            &["-n", "2x4patt", "-a", "-1"],
            "\"-1\" is not a learning rate",
        ),
        (
            &["-n", "2x4patt", "--four-rate", "-0.5"],
            "4-rate must be between 0 and 1, not -0.5",
        ),
        (
            &["-n", "2x4patt", "--norm", "0"],
            "invalid value '0' for '--norm",
        ),
        (
            &["-n", "2x4patt", "-o", "no/such/folder/x.nw"],
            "no/such/folder: no such folder to save",
        ),
        (
            &["-n", "2x4patt", "-o", "."],
            ".: a folder, not a file to save in",
        ),
        // An empty name trained, saved `.checkpoint` and failed at the end.
        (&["-n", "2x4patt", "-o", ""], "\"\": no file named"),
        // A new folder's name failed at the first checkpoint, `new/.checkpoint`.
        (
            &["-n", "2x4patt", "-o", "new/"],
            "new/: a folder, not a file to save in",
        ),
        (&["--frobnicate"], "unexpected argument"),
        (&["-b", "3000"], "-b 3000: not a tile from 2 to 32768"),
        (
            &["-b", "2048", "1024"],
            "-b 2048 1024: the limit is a sum of tiles above 2048, at most 65536",
        ),
        (
            &["-b", "-N", "3"],
            "-b learns by TD(0): not with -N, -l or --restarts",
        ),
    ];
    for (args, expected) in cases {
        let output = train(args, dir.path());
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // Weights of another network than the one named.
    let output = train(&["-n", "0123", "-t", "1x10", "-o", "small.nw"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let output = train(
        &["-n", "2x4patt", "-i", "small.nw", "-t", "1x10"],
        dir.path(),
    );
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("train: small.nw: holds network 0123, not 0123 4567"),
        "{stderr}"
    );
}

#[test]
fn trains_logs_saves_and_evaluates() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n", "2x4patt", "-t", "2x200", "-e", "1x100", "-s", "log", "--log", "run.log", "-o",
        "net.nw",
    ];
    let output = train(&args, dir.path());
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stdout.contains("network = 0123 4567 (2 tables, 16 features, 512 KiB of f32 weights)"));
    assert!(
        stdout.contains("\n001/002 ") && stdout.contains("\n002/002 "),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nsummary ")
            && stdout.contains("tile     count   score    move     rate      win")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("run.log")).unwrap(),
        stdout
    );
    assert!(dir.path().join("net.nw").exists());
    assert!(
        !dir.path().join("net.nw.checkpoint").exists(),
        "the checkpoint is removed at the end"
    );
    // Continuing from the saved weights starts better than from nothing.
    let output = train(
        &["-i", "net.nw", "-t", "1x200", "-s", "more", "-o", "more.nw"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
}

/// An output that is not a regular file (`-o /dev/null`; a named pipe
/// here, as a test must not touch `/dev`) is written in place, never
/// renamed over, and keeps no checkpoint beside it.
#[cfg(unix)]
#[test]
fn an_output_that_is_a_device_or_a_pipe_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let (pipe, reader) = testkit::named_pipe(dir.path(), "out.nw");
    let args = [
        "-n",
        "0123",
        "-t",
        "2x100",
        "--checkpoint-every",
        "1",
        "-s",
        "pipe",
        "-o",
        "out.nw",
    ];
    let output = train(&args, dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(testkit::is_named_pipe(&pipe), "still a pipe");
    assert!(reader.join().unwrap().starts_with(b"2048labW"));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["out.nw"], "no checkpoint, no temporary file");
}

#[test]
fn a_killed_run_resumes_and_ends_as_an_uninterrupted_one() {
    killed_run_resumes(&[]);
}

/// Temporal coherence too: its histories are in the checkpoints.
#[test]
fn a_killed_tc_run_resumes_and_ends_as_an_uninterrupted_one() {
    killed_run_resumes(&["--tc"]);
}

/// n-step TD and TD(lambda) too: their checkpoints name their target.
#[test]
fn killed_runs_of_longer_returns_resume_and_end_as_uninterrupted_ones() {
    killed_run_resumes(&["-N", "3"]);
    killed_run_resumes(&["-l", "0.5", "-m", "backward"]);
}

/// Carousel shaping too: its settings are in the checkpoints.
#[test]
fn a_killed_carousel_run_resumes_and_ends_as_an_uninterrupted_one() {
    killed_run_resumes(&["-b", "64", "1024"]);
}

/// Half-precision weights too, with TC's histories (which stay f32) beside
/// them in the checkpoints; the header and the file say f16.
#[test]
fn a_killed_half_precision_tc_run_resumes_and_ends_as_an_uninterrupted_one() {
    killed_run_resumes(&["--f16", "--tc"]);
    let dir = tempfile::tempdir().unwrap();
    let args = ["-n", "2x4patt", "-t", "1x100", "-s", "h", "-o"];
    let half = train(&[&args[..], &["h.nw", "--f16"]].concat(), dir.path());
    assert!(half.status.success(), "{}", text(&half.stderr));
    assert!(
        text(&half.stdout).contains("(2 tables, 16 features, 256 KiB of f16 weights)"),
        "{}",
        text(&half.stdout)
    );
    let single = train(&[&args[..], &["s.nw"]].concat(), dir.path());
    assert!(single.status.success());
    let size = |name: &str| std::fs::metadata(dir.path().join(name)).unwrap().len();
    assert!(
        size("h.nw") < size("s.nw") / 2 + 4096,
        "{} {}",
        size("h.nw"),
        size("s.nw")
    );
}

/// A checkpoint of another target is refused, and says so.
#[test]
fn a_checkpoint_of_another_target_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-n", "2x4patt", "-t", "40x500", "-s", "t", "-o", "t.nw"];
    let first = [&args[..], &["-N", "3", "--checkpoint-every", "1"]].concat();
    let program = env!("CARGO_BIN_EXE_train");
    testkit::kill_at_checkpoint(program, &first, dir.path(), "t.nw.checkpoint", "t.nw");
    let output = train(&[&args[..], &["-l", "0.5"]].concat(), dir.path());
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "was written by another run: mode online, not backward; target 3-step, not lambda \
             0.5 over the episode; delete it or pass --restart"
        ),
        "{stderr}"
    );
}

/// The README's main command at a terminal: Ctrl-C stops it at a block's
/// end with a checkpoint, however far the next one was, and the same
/// command (no seed given) resumes and ends as an uninterrupted run.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_at_a_block_and_the_same_command_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n",
        "2x4patt",
        "-t",
        "20x50",
        "--checkpoint-every",
        "100000",
    ];
    let (stderr, resumed) =
        testkit::interrupted_run_resumes(env!("CARGO_BIN_EXE_train"), &args, dir.path(), "002/");
    assert!(
        stderr.contains("train: stopping after the block under way"),
        "{stderr}"
    );
    assert!(stderr.contains("train: stopped after block "), "{stderr}");
    assert!(
        resumed.contains(" of 20 blocks done, from stopped.nw.checkpoint"),
        "{resumed}"
    );
}

fn killed_run_resumes(extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "-n",
        "2x4patt",
        "-t",
        "8x400",
        "-s",
        "kill",
        "--checkpoint-every",
        "1",
    ];
    args.extend(extra);
    let (whole, resumed) =
        testkit::killed_run_resumes(env!("CARGO_BIN_EXE_train"), &args, dir.path());
    let last_total = |out: &str| {
        out.lines()
            .rfind(|l| l.starts_with("total:"))
            .map(str::to_owned)
    };
    assert_eq!(last_total(&resumed), last_total(&whole));
}

#[test]
fn reads_and_writes_tdl2048_weight_files() {
    let dir = tempfile::tempdir().unwrap();
    let output = train(
        &["-n", "2x4patt", "-t", "1x50", "-s", "w", "-o", "net.w"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let saved = std::fs::read(dir.path().join("net.w")).unwrap();
    assert_eq!(
        saved.len(),
        524_335,
        "the layout of TDL2048+'s 2x4patt files"
    );
    assert_eq!(saved[..5], [0, 2, 0, 0, 0], "no type byte, then two tables");
    let patterns = ntuple::parse_patterns(["2x4patt"]).unwrap();
    ntuple::Network::open(&dir.path().join("net.w"), Some(&patterns), u64::MAX).unwrap();
    // And training goes on from a .w file, saving 2048lab's format.
    let output = train(
        &["-i", "net.w", "-t", "1x50", "-s", "on", "-o", "more.nw"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("network = 0123 4567 "));
}

#[test]
fn trains_multistage_networks_and_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n", "2x4patt", "--stages", "0,256", "-t", "1x200", "-s", "m", "-o", "staged.w",
    ];
    let output = train(&args, dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("x 2 stages from tile sums 0,256 (4 tables"));
    let path = dir.path().join("staged.w");
    let stages: ntuple::Stages = "0,256".parse().unwrap();
    let source: ntuple::Source = path.display().to_string().parse().unwrap();
    let network = ntuple::Network::open_sources(&[source], None, Some(&stages), u64::MAX).unwrap();
    // Games of 200 episodes pass tile sum 256: both stages learned.
    let per_stage = network.patterns().len();
    let learned = |stage: usize| {
        network.tables()[stage * per_stage..(stage + 1) * per_stage]
            .iter()
            .any(|table| (0..table.len()).any(|index| table.get(index) != 0.0))
    };
    assert!(learned(0) && learned(1));
    // Without the thresholds a multistage .w file is refused, saying why.
    let output = train(&["-i", "staged.w", "-t", "1x10", "-s", "m"], dir.path());
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("--stages"),
        "{}",
        text(&output.stderr)
    );
    let output = train(
        &[
            "-i", "staged.w", "--stages", "0,256", "-t", "1x10", "-s", "m",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    // A third stage is promoted: it starts as the second, and one episode
    // changes few of its weights.
    let output = train(
        &[
            "-i",
            "staged.w",
            "--stages",
            "0,256,512",
            "-t",
            "1x1",
            "-s",
            "m",
            "-o",
            "three.nw",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let three = ntuple::Network::open(&dir.path().join("three.nw"), None, u64::MAX).unwrap();
    let tables = three.network.tables();
    assert_eq!(tables.len(), 3 * per_stage);
    for (second, third) in tables[per_stage..2 * per_stage]
        .iter()
        .zip(&tables[2 * per_stage..])
    {
        let learnt = (0..second.len()).filter(|&index| second.get(index) != 0.0);
        let kept = learnt
            .clone()
            .filter(|&index| second.get(index) == third.get(index));
        assert!(kept.count() * 10 > learnt.count() * 9);
    }
}

#[test]
fn no_output_goes_over_an_input_or_another_output() {
    let dir = tempfile::tempdir().unwrap();
    let made = train(&["-n", "2x4patt", "-t", "1x10", "-o", "net.nw"], dir.path());
    assert!(made.status.success(), "{}", text(&made.stderr));
    let before = std::fs::read(dir.path().join("net.nw")).unwrap();
    let cases: [(&[&str], &str); 2] = [
        (
            &["-i", "net.nw", "-t", "1x10", "-o", "net.nw"],
            "-o net.nw: that is the file read with -i",
        ),
        (
            &["-n", "2x4patt", "-t", "1x10", "-o", "x.nw", "--log", "x.nw"],
            "-o and --log both name x.nw",
        ),
    ];
    for (args, expected) in cases {
        let output = train(args, dir.path());
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read(dir.path().join("net.nw")).unwrap(), before);
}

/// Temporary files that a run killed while saving left (of a process no
/// longer running) are removed by the next run; one of a running process
/// stays.
#[cfg(target_os = "linux")]
#[test]
fn a_run_removes_the_temporary_files_killed_runs_left() {
    let dir = tempfile::tempdir().unwrap();
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = [
        format!("out.nw.tmp-{dead}"),
        format!("out.nw.checkpoint.tmp-{dead}"),
    ];
    let running = format!("out.nw.tmp-{}", std::process::id());
    for name in stale.iter().chain([&running]) {
        std::fs::write(dir.path().join(name), "half a file").unwrap();
    }
    let output = train(
        &["-n", "2x4patt", "-t", "2x10", "-o", "out.nw", "--restart"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["out.nw".to_owned(), running]);
}

/// Once training is over and saved, Ctrl-C stops the evaluation after it
/// at once: there is nothing left to save.
#[cfg(unix)]
#[test]
fn ctrl_c_during_the_evaluation_stops_at_once() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_train"))
        .args([
            "-n", "2x4patt", "-t", "1x10", "-e", "1000x100", "-o", "net.nw",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert!(lines.any(|line| line.unwrap().starts_with("evaluate: ")));
    // SAFETY: the child was started here and not waited for yet.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    // Read on, so that the evaluation never meets a closed pipe.
    lines.for_each(drop);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(text(&output.stderr), "train: stopped\n");
    assert!(dir.path().join("net.nw").exists());
}

/// On a terminal a run shows a bar with its rate and ETA over the episodes
/// of each phase; into a pipe or a file it prints only the log's lines.
#[test]
fn a_run_on_a_terminal_shows_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n", "2x4patt", "-t", "2x200", "-e", "1x100", "-s", "bar", "-o", "net.nw",
    ];
    let shown = testkit::run_in_terminal(env!("CARGO_BIN_EXE_train"), &args, dir.path());
    for phase in ["/400 episodes, ", "/100 episodes, "] {
        assert!(shown.contains(phase), "{phase}: {shown}");
    }
    assert!(shown.contains("/s, ETA "), "{shown}");
    let output = train(&[&args[..8], &["-o", "piped.nw"]].concat(), dir.path());
    testkit::assert_no_bar(&output);
}

/// Optimistic TD: `=VALUE/norm` starts every weight at VALUE divided among
/// the features; `=+VALUE` adds to a loaded network's, and a plain value
/// that would replace them is refused.
#[test]
fn networks_start_at_a_given_value_or_move_by_one() {
    let dir = tempfile::tempdir().unwrap();
    // One episode touches a few hundred of the 2 x 65,536 weights; the last
    // (four 32768s in a row) is never reached.
    let weight = |file: &str| {
        let path = dir.path().join(file);
        let loaded = ntuple::Network::open(&path, None, u64::MAX).unwrap();
        let tables = loaded.network.tables();
        (tables[0].get(0xffff), tables[1].get(0xffff))
    };
    let output = train(
        &[
            "-n",
            "2x4patt=1600/norm",
            "-t",
            "1x1",
            "-s",
            "o",
            "-o",
            "otd.nw",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(weight("otd.nw"), (100.0, 100.0));
    let more = [
        "-i",
        "otd.nw",
        "-n",
        "0123=+5 4567=-0.5",
        "-t",
        "1x1",
        "-s",
        "o",
    ];
    let output = train(&[&more[..], &["-o", "more.nw"]].concat(), dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(weight("more.nw"), (105.0, 99.5));
    let output = train(
        &[
            "-i",
            "otd.nw",
            "-n",
            "2x4patt=5",
            "-t",
            "1x1",
            "-o",
            "no.nw",
        ],
        dir.path(),
    );
    assert_eq!(
        text(&output.stderr),
        "train: 0123=5: would replace the loaded weights: write =+5 to add to them\n"
    );
}

/// Restarts learn from more games than the run counts (the library's tests
/// check that the statistics are the first games'); the header says so.
#[test]
fn restarts_learn_from_more_games() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n",
        "2x4patt",
        "-t",
        "1x200",
        "-s",
        "r",
        "--restarts",
        "0.5",
        "20",
    ];
    let output = train(&[&args[..], &["-o", "r.nw"]].concat(), dir.path());
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        stdout.contains("mode = online, restarts at 0.5 while 20 moves or more"),
        "{stdout}"
    );
    assert!(stdout.contains("\n001/001 "), "{stdout}");
    // The same run without restarts learns from fewer positions.
    let plain = train(
        &["-n", "2x4patt", "-t", "1x200", "-s", "r", "-o", "p.nw"],
        dir.path(),
    );
    assert!(plain.status.success());
    assert_ne!(
        std::fs::read(dir.path().join("r.nw")).unwrap(),
        std::fs::read(dir.path().join("p.nw")).unwrap()
    );
}

/// Carousel shaping learns from more games than the run counts (the
/// library's tests check the updates and the statistics); the header says
/// so.
#[test]
fn carousel_shaping_learns_from_more_games() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-n", "2x4patt", "-t", "1x200", "-s", "b", "-o"];
    let output = train(
        &[&args[..], &["b.nw", "-b", "128", "2048"]].concat(),
        dir.path(),
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        stdout.contains("mode = online, carousel from 128 up to 2048"),
        "{stdout}"
    );
    let plain = train(&[&args[..], &["p.nw"]].concat(), dir.path());
    assert!(plain.status.success());
    assert_ne!(
        std::fs::read(dir.path().join("b.nw")).unwrap(),
        std::fs::read(dir.path().join("p.nw")).unwrap()
    );
}

/// State-value TD: the header and the saved network say so (eval's tests
/// play such a network), and it goes with TD(0) online only.
#[test]
fn state_values_are_learnt_and_saved_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n", "2x4patt", "--states", "-t", "2x100", "-e", "1x20", "-s", "v",
    ];
    let output = train(&[&args[..], &["-o", "states.nw"]].concat(), dir.path());
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stdout.contains("mode = online, state values"), "{stdout}");
    assert!(stdout.contains("\nevaluate: 1x20"), "{stdout}");
    let metadata = ntuple::read_metadata(&dir.path().join("states.nw")).unwrap();
    assert_eq!(metadata.get("values").map(String::as_str), Some("states"));
    let output = train(
        &["-n", "2x4patt", "--states", "-N", "3", "-t", "1x10"],
        dir.path(),
    );
    assert_eq!(
        text(&output.stderr),
        "train: --states learns by TD(0) online: not with -m, -N, -l, --restarts or -b\n"
    );
}
