//! The `stats` program on TDL2048+'s own log, on 2048lab's, and on the 2584
//! course's layout that `fib2584` writes.

use std::path::{Path, PathBuf};
use std::process::Output;

use testkit::text;

fn stats(args: &[&str], dir: &Path) -> Output {
    testkit::run(env!("CARGO_BIN_EXE_stats"), args, dir)
}

fn fixture_log() -> PathBuf {
    testkit::tdl2048_fixtures().join("eval-2x4patt-td.x")
}

/// The committed log of 2048lab's 4x6patt learning curve (docs/figures).
fn curve_log() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/figures/2048lab-4x6patt-td0.x")
}

#[test]
fn extracts_blocks_and_reach_rates_from_tdl2048s_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = fixture_log();
    let log = log.to_str().unwrap();
    let blocks = text(&stats(&["blocks", log], dir.path()).stdout);
    let rows: Vec<Vec<&str>> = blocks
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][2..], ["1", "1000", "7503", "21796", "2048", "0.10"]);
    assert_eq!(rows[1][2..], ["2", "2000", "7433", "16052", "1024", "0.00"]);
    let summary = text(&stats(&["summary", log], dir.path()).stdout);
    assert!(
        summary.lines().any(|l| l.ends_with("\t512\t84.10%")),
        "{summary}"
    );
    assert!(
        summary.lines().any(|l| l.ends_with("\t2048\t0.05%")),
        "{summary}"
    );
    // A header line in another encoding than UTF-8 (a path in Latin-1)
    // leaves the log readable (it failed as "stream did not contain valid
    // UTF-8").
    let mut latin = b"./2048 -n 2x4patt -o /home/m\xfcller/n.w\n".to_vec();
    latin.extend(std::fs::read(log).unwrap());
    std::fs::write(dir.path().join("latin.x"), latin).unwrap();
    let output = stats(&["blocks", "latin.x"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).replace("latin.x", log), blocks);
}

#[test]
fn merges_blocks_into_coarser_ones() {
    let dir = tempfile::tempdir().unwrap();
    let merged = text(&stats(&["merge", "5", curve_log().to_str().unwrap()], dir.path()).stdout);
    let lines: Vec<&str> = merged.lines().collect();
    assert!(lines[0].starts_with("001/002 "), "{merged}");
    // The first five blocks average 15662, 27021, 33970, 40624 and 46212.
    assert!(
        lines[1].starts_with("local:  avg=32697 max=170908 tile=8192 win=59.78%"),
        "{merged}"
    );
    assert!(lines[2].starts_with("total:  avg=32698 "), "{merged}");
    // Several logs, one after another.
    let curve = curve_log().to_str().unwrap().to_owned();
    let twice = text(&stats(&["merge", "5", &curve, &curve], dir.path()).stdout);
    assert_eq!(twice, format!("{merged}{merged}"));
}

/// A log without a summary (a run stopped early) is left out with a
/// warning; the others are summarised. A plot is SVG, whatever the name.
#[test]
fn summaries_skip_logs_without_one_and_plots_are_svg() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("stopped.x"),
        "001/001 10ms 1000.00ops\nlocal:  avg=10 max=20 tile=16 win=0.00%\ntotal:  avg=10 max=20 tile=16 win=0.00%\n",
    )
    .unwrap();
    let curve = curve_log().to_str().unwrap().to_owned();
    let evaluated = fixture_log().to_str().unwrap().to_owned();
    let output = stats(&["summary", "stopped.x", &evaluated], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("stopped.x: no summary table, left out"));
    assert!(text(&output.stdout).lines().count() > 2);
    let output = stats(&["summary", "stopped.x"], dir.path());
    assert!(!output.status.success());
    let output = stats(&["plot", &curve, "-o", "curve.png"], dir.path());
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("-o curve.png: the plot is SVG; name the file .svg"));
    assert!(!dir.path().join("curve.png").exists());
}

#[test]
fn plots_several_logs_on_the_same_axes() {
    let dir = tempfile::tempdir().unwrap();
    let curve = curve_log();
    let fixture = fixture_log();
    let output = stats(
        &[
            "plot",
            curve.to_str().unwrap(),
            fixture.to_str().unwrap(),
            "-o",
            "curve.svg",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let svg = std::fs::read_to_string(dir.path().join("curve.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("2048lab-4x6patt-td0.x") && svg.contains("eval-2x4patt-td.x"));
    // Written under a temporary name and renamed: nothing else is left.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["curve.svg"]);
    for (output, expected) in [
        (
            "none/curve.svg",
            "stats: none: no such folder to save none/curve.svg in",
        ),
        // A folder said "Device or resource busy" (a rename over it).
        (".", "stats: .: a folder, not a file to save in"),
    ] {
        let output = stats(&["plot", curve.to_str().unwrap(), "-o", output], dir.path());
        assert!(!output.status.success());
        let err = text(&output.stderr);
        assert!(err.starts_with(expected), "{err}");
    }
}

#[test]
fn bad_logs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.x"), "no blocks here\n").unwrap();
    std::fs::write(
        dir.path().join("broken.x"),
        "001/002 12ms 5.0ops\nlocal: what\n",
    )
    .unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["blocks", "none.x"],
            "stats: none.x: cannot open: No such file",
        ),
        (&["blocks", "empty.x"], "stats: empty.x: no block records"),
        (
            &["blocks", "broken.x"],
            "stats: broken.x: line 1: no avg= in",
        ),
        (&["merge", "0", "empty.x"], "invalid value '0'"),
        (&["summary", "broken.x"], "stats: broken.x"),
    ];
    for (args, expected) in cases {
        let output = stats(args, dir.path());
        assert!(!output.status.success(), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn a_plot_never_goes_over_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = "001/001 10ms 1000.00ops\nlocal:  avg=10 max=20 tile=16 win=0.00%\ntotal:  avg=10 max=20 tile=16 win=0.00%\n";
    std::fs::write(dir.path().join("run.x"), log).unwrap();
    let output = stats(&["plot", "-o", "run.x", "run.x"], dir.path());
    let stderr = text(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("-o run.x: that is the file read with LOG"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("run.x")).unwrap(),
        log
    );
}

/// A log as `fib2584` writes it: a training run of two blocks of two games,
/// then an evaluation of one block and its summary, each block printed by
/// the course's report.
fn fib2584_log() -> String {
    use fib2584::{report, tile::GOAL};
    use learn::{Outcome, Stats};
    use std::time::Duration;

    let stats = |tiles: &[(u64, u8)]| {
        let mut stats = Stats::default();
        for &(score, max_tile) in tiles {
            stats.record(Outcome {
                score,
                moves: score / 10,
                max_tile,
                nodes: 0,
            });
        }
        stats
    };
    let second = Duration::from_secs(1);
    let evaluation = stats(&[(9000, GOAL), (7000, GOAL), (5000, GOAL - 1)]);
    format!(
        "2048lab fib2584 0.1.0\nseed = 1\n\ntrain: 2x2, alpha = 0.1, mode = online\n\n{}{}\
         trained 4 episodes: 2584 reached in 25.00%\n\nevaluate: 1x3\n\n{}summary\n{}\
         2584 reached in 2 of 3 games (66.67%)\n",
        report::block(2, &stats(&[(8000, GOAL), (4000, GOAL - 1)]), second),
        report::block(4, &stats(&[(3000, GOAL - 1), (1000, GOAL - 2)]), second),
        report::block(3, &evaluation, second),
        report::block(3, &evaluation, second),
    )
}

#[test]
fn reads_the_logs_of_fib2584() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fib.log"), fib2584_log()).unwrap();
    let output = stats(&["blocks", "fib.log"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "log\trun\tblock\tepisodes\tavg\tmax\ttile\twin\n\
         fib.log\t1\t1\t2\t6000\t8000\t2584\t50.00\n\
         fib.log\t1\t2\t4\t2000\t3000\t1597\t0.00\n\
         fib.log\t2\t1\t3\t7000\t9000\t2584\t66.67\n"
    );
    let output = stats(&["summary", "fib.log"], dir.path());
    assert_eq!(
        text(&output.stdout),
        "log\trun\ttile\treach\nfib.log\t2\t1597\t100.00%\nfib.log\t2\t2584\t66.67%\n"
    );
    let output = stats(&["plot", "fib.log", "-o", "fib.svg"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let svg = std::fs::read_to_string(dir.path().join("fib.svg")).unwrap();
    assert!(svg.contains("fib.log (train 1)") && svg.contains("fib.log (evaluate 2)"));
    // Merging writes TDL2048+'s layout, which needs what the course's
    // blocks do not give.
    let output = stats(&["merge", "2", "fib.log"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).starts_with("stats: fib.log: a log in the 2584 course's layout"),
        "{}",
        text(&output.stderr)
    );
}
