//! `tb-build` as a user runs it: build, query, info, verify, a killed
//! build resumed, and bad input.

use std::path::Path;
use std::process::Output;

use testkit::text;

fn tb_build(args: &[&str], dir: &Path) -> Output {
    testkit::run(env!("CARGO_BIN_EXE_tb-build"), args, dir)
}

/// L3 with a near horizon: a table of some 100,000 positions.
const SMALL_L3: &str = r#"{ "name": "L3near", "masks": ["0xfff0fff"],
  "target_cells": "0xffffffffffffffff", "canon": "identity",
  "seeds": ["0x100000001fff2fff", "0x000000012fff1fff"], "extra_steps": 16 }"#;

/// What `tb-build query` prints for `board` in the table in `dir/table`,
/// which it must answer: the same with options and with positions.
fn query(dir: &Path, table: &str, board: &str) -> String {
    let output = tb_build(&["query", "--table", table, "--board", board], dir);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let positional = tb_build(&["query", table, board], dir);
    assert_eq!(positional.stdout, output.stdout);
    text(&output.stdout)
}

fn layer_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "tbl"))
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                bytes,
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn builds_queries_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    let output = tb_build(
        &["build", "l3.json", "32", "-o", "t", "--precision", "f64"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(out.contains("building L3near-32"), "{out}");
    assert!(out.contains("solved    layer    0"), "{out}");
    let done = out.lines().find(|line| line.starts_with("done: ")).unwrap();
    let built_bytes = done.split(" stored in ").nth(1).unwrap();
    let built_bytes = built_bytes.split(' ').next().unwrap().to_owned();
    assert!(
        !dir.path().join("t/work").exists(),
        "the working files are removed"
    );

    // The seed, as stored (an afterstate), and a position to move from.
    let out = query(dir.path(), "t", "0x100000001fff2fff");
    let rate: f64 = out
        .lines()
        .find_map(|line| line.strip_prefix("as an afterstate (after a move, before the spawn): "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(rate > 0.5 && rate < 1.0, "{out}");
    // Its own moves go where the seeds never lead (nothing spawned): they
    // are solved from the table, where a table alone reads 0.
    let best: f64 = out
        .lines()
        .find_map(|line| line.strip_prefix("best   "))
        .and_then(|best| best.split_whitespace().nth(1))
        .unwrap()
        .parse()
        .unwrap();
    assert!(best > 0.5, "{out}");
    let out = query(dir.path(), "t", "0x110000001fff2fff");
    assert!(
        out.contains("up     not allowed") && out.contains("best   "),
        "{out}"
    );
    // Padded hex is still the reference's, never read as `board`'s.
    assert_eq!(query(dir.path(), "t", " 0x110000001fff2fff "), out);
    // Written with its real tiles, it reads the same.
    let real = query(dir.path(), "t", "0x110000001bcd2a98");
    assert!(
        real.starts_with("0x110000001bcd2a98 in L3near-32, read as 0x110000001fff2fff (tiles"),
        "{real}"
    );
    assert_eq!(
        real.lines().skip(1).collect::<Vec<_>>(),
        out.lines().skip(1).collect::<Vec<_>>()
    );
    // And as a grid of tile values, upper-left first, as read off a game.
    let grid = query(
        dir.path(),
        "t",
        "2 2 . . / . . . . / 2 2048 1024 512 / 4 256 128 64",
    );
    assert_eq!(
        grid,
        real.replace("0x110000001bcd2a98", "0x110000001ba92876")
    );
    // `f` stands for a large tile (or a wall) in a grid too.
    let with_f = query(dir.path(), "t", "2 2 . . / . . . . / 2 f f F / 4 f f f");
    assert_eq!(with_f, out);
    // The same position mirrored is read in the formation's orientation,
    // and its moves are mirrored back.
    let mirrored = query(dir.path(), "t", "0x00110000fff1fff2");
    assert!(
        mirrored.contains("its moves, read as 0x110000001fff2fff (turned into"),
        "{mirrored}"
    );
    let rate_of = |out: &str, direction: &str| {
        let line = out.lines().find(|line| line.starts_with(direction));
        line.unwrap().split_whitespace().nth(1).unwrap().to_owned()
    };
    for (direction, mirror) in [
        ("up", "up"),
        ("right", "left"),
        ("down", "down"),
        ("left", "right"),
    ] {
        assert_eq!(
            rate_of(&mirrored, direction),
            rate_of(&out, mirror),
            "{mirrored}"
        );
    }

    let output = tb_build(&["info", "t"], dir.path());
    assert!(output.status.success());
    let out = text(&output.stdout);
    assert!(
        out.contains("table L3near-32 (formation L3near, identity symmetry, target 32"),
        "{out}"
    );
    // Layers are counted by their files' sizes, as the build counted them.
    let total = out.lines().last().unwrap().split_whitespace().nth(2);
    assert_eq!(total, Some(&built_bytes[..]), "{out}");
    // Formations listed as a formation file would define them.
    let out = text(&tb_build(&["list"], dir.path()).stdout);
    for line in [
        "L3       1... / .... / 1### / 2###  identity symmetry, 2 seeds, 48 extra steps",
        "3x3      ...# / ...# / ...# / ####  min33 symmetry, walls, 1 seed, 60 extra steps",
    ] {
        assert!(out.lines().any(|listed| listed == line), "{out}");
    }
    let output = tb_build(&["verify", "t"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("positions recomputed from their children"));

    // A damaged layer is found by verify and by a query that reads it.
    let layer = dir.path().join("t/layer-0000.tbl");
    let mut bytes = std::fs::read(&layer).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&layer, bytes).unwrap();
    for args in [
        &["verify", "t"][..],
        &["query", "--table", "t", "--board", "0x100000001fff2fff"],
    ] {
        let output = tb_build(args, dir.path());
        assert!(!output.status.success());
        let err = text(&output.stderr);
        assert!(err.contains("layer-0000.tbl: checksum mismatch"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// Builds `formation` (a file in `dir`) to 32 into `killed` with
/// `options`, killed once it has printed a line starting with `line`.
fn kill_at(dir: &Path, formation: &str, options: &[&str], line: &str) {
    let args = [&["build", formation, "32", "-o", "killed"], options].concat();
    testkit::kill_at_line(env!("CARGO_BIN_EXE_tb-build"), &args, dir, line);
    let manifest = std::fs::read_to_string(dir.join("killed/table.json")).unwrap();
    assert!(
        manifest.contains("\"complete\": false"),
        "killed before the end"
    );
}

/// Runs the build that [`kill_at`] killed again, with what a kill in the
/// middle of writing a file leaves behind, and returns its layer files.
fn resume(dir: &Path, formation: &str, options: &[&str]) -> Vec<(String, Vec<u8>)> {
    let stale = dir.join("killed/layer-0003.tbl.tmp-999999");
    std::fs::write(&stale, b"half a file").unwrap();
    let resumed = tb_build(
        &[&["build", formation, "32", "-o", "killed"], options].concat(),
        dir,
    );
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert!(text(&resumed.stdout).contains("resuming: "));
    assert!(
        !stale.exists(),
        "a killed build's temporary file is removed"
    );
    layer_files(&dir.join("killed"))
}

#[test]
fn a_killed_build_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    for (folder, options) in [
        ("whole", &[][..]),
        ("f32", &["--precision", "f32"]),
        ("optimal", &["--optimal-only"]),
    ] {
        let args = [&["build", "l3.json", "32", "-o", folder], options].concat();
        let built = tb_build(&args, dir.path());
        assert!(built.status.success(), "{}", text(&built.stderr));
    }
    // Killed while generating, then while solving, whole (`u32` and `f32`)
    // and in segments (fetching their children, and against the layers
    // after them in memory: layers 30 to 19 within 23 MiB), then while
    // thinning to optimal lines in segments.
    let segments: &[&str] = &["--memory", "1K"];
    for (line, options, whole) in [
        ("generated layer   20", &[][..], "whole"),
        ("solved    layer   30", &[], "whole"),
        ("solved    layer   30", &["--precision", "f32"], "f32"),
        ("solved    layer   30", segments, "whole"),
        ("solved    layer   25", &["--memory", "23M"], "whole"),
        (
            "thinned   layer   10",
            &["--memory", "1K", "--optimal-only"],
            "optimal",
        ),
    ] {
        let _ = std::fs::remove_dir_all(dir.path().join("killed"));
        kill_at(dir.path(), "l3.json", options, line);
        if !options.contains(&"--memory") {
            // Solved whole, no layer keeps working rates beside its file:
            // the resumed build unpacks them from the layer files.
            let rates = std::fs::read_dir(dir.path().join("killed/work"))
                .unwrap()
                .filter(|entry| {
                    let name = entry.as_ref().unwrap().file_name();
                    name.to_string_lossy().starts_with("rates-")
                })
                .count();
            assert_eq!(rates, 0, "killed at {line:?} {options:?}");
        }
        assert_eq!(
            resume(dir.path(), "l3.json", options),
            layer_files(&dir.path().join(whole)),
            "killed at {line:?}"
        );
    }
}

/// t's masks with a near horizon (28 layers, 1.3 million positions): a
/// formation whose large tiles move, so its layers are generated by
/// sorting, within a small budget in runs spilled to disk.
const SMALL_T: &str = r#"{ "name": "tnear",
  "masks": ["0xf0fff0ff", "0xf000f0ff00ff", "0xf000f00000ff00ff"],
  "target_cells": "0xff0f000f00", "canon": "identity",
  "seeds": ["0x10000000f1fff2ff", "0x00000001f2fff1ff"], "extra_steps": 12 }"#;

#[test]
fn a_killed_build_of_a_moving_formation_resumes_to_the_same_files() {
    let segments: &[&str] = &["--memory", "1K"];
    killed_builds_resume_to_the_whole_build(
        "t.json",
        SMALL_T,
        &[
            ("generated layer   15", segments),
            ("solved    layer   20", &[]),
            ("solved    layer   20", segments),
        ],
    );
}

/// Builds the formation of `json` (written to `file`) to 32 whole, then
/// kills a build at each of `kills` (the line it has printed, its
/// options) and checks that the build resumed makes the same layer files.
fn killed_builds_resume_to_the_whole_build(file: &str, json: &str, kills: &[(&str, &[&str])]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(file), json).unwrap();
    let built = tb_build(&["build", file, "32", "-o", "whole"], dir.path());
    assert!(built.status.success(), "{}", text(&built.stderr));
    for &(line, options) in kills {
        let _ = std::fs::remove_dir_all(dir.path().join("killed"));
        kill_at(dir.path(), file, options, line);
        assert_eq!(
            resume(dir.path(), file, options),
            layer_files(&dir.path().join("whole")),
            "killed at {line:?} {options:?}"
        );
    }
}

#[test]
fn a_resumed_build_refuses_a_corrupt_working_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    kill_at(dir.path(), "l3.json", &[], "solved    layer   30");
    // A byte changed in the middle of the largest working file, which
    // keeps its size.
    let work = dir.path().join("killed/work");
    let largest = std::fs::read_dir(&work)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .max_by_key(|path| std::fs::metadata(path).unwrap().len())
        .unwrap();
    let mut bytes = std::fs::read(&largest).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&largest, bytes).unwrap();
    let resumed = tb_build(&["build", "l3.json", "32", "-o", "killed"], dir.path());
    assert!(!resumed.status.success());
    let err = text(&resumed.stderr);
    let name = largest.file_name().unwrap().to_string_lossy();
    assert!(err.contains(&format!("{name}: checksum mismatch")), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_budget_between_mixes_the_ways_of_solving_a_layer() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    let build = |folder: &str, budget: &[&str]| {
        let args = [&["build", "l3.json", "64", "-o", folder][..], budget].concat();
        let output = tb_build(&args, dir.path());
        assert!(output.status.success(), "{}", text(&output.stderr));
        text(&output.stdout)
    };
    build("whole", &[]);
    // Within 27 MiB, L3near-64's last layer (about 200,000 positions) is
    // solved whole (W), and the layers below it in segments against the
    // two layers after them held in memory (H) where those fit beside a
    // segment, else in segments fetching their children from the working
    // rates of those two (F), until its first layers fit whole again.
    // Every change of plan is met: W to H (the whole layer's rates taken
    // from memory), H to F (the working rates of a layer held in memory
    // written then), F to H (both read back whole), H to W.
    let printed = build("mixed", &["--memory", "27M"]);
    let plan = |layer: usize| {
        let start = format!("solved    layer {layer:4}:");
        let line = printed.lines().find(|line| line.starts_with(&start));
        let line = line.expect("a line a layer");
        if line.ends_with(", children fetched from disk") {
            'F'
        } else if line.ends_with(" segments") {
            'H'
        } else {
            'W'
        }
    };
    assert_eq!(
        [47, 46, 37, 36, 35, 34, 26, 25, 0].map(plan),
        ['W', 'H', 'H', 'F', 'F', 'H', 'H', 'W', 'W'],
        "{printed}"
    );
    assert_eq!(
        layer_files(&dir.path().join("mixed")),
        layer_files(&dir.path().join("whole"))
    );
}

#[test]
fn a_closed_output_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    let board = "0x110000001fff2fff";
    for args in [
        &["build", "l3.json", "32", "-o", "t"][..],
        &["query", "--table", "t", "--board", board],
        &["info", "t"],
        &["verify", "t", "--samples", "10"],
        &["list"],
    ] {
        let output =
            testkit::run_with_closed_output(env!("CARGO_BIN_EXE_tb-build"), args, dir.path());
        let err = text(&output.stderr);
        assert!(output.status.success(), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
    // The build went on to the end without its output.
    query(dir.path(), "t", board);
}

#[test]
fn bad_input_is_one_clear_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.json"),
        SMALL_L3.replace("0xfff0fff", "0xfff0ff1"),
    )
    .unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    std::fs::write(
        dir.path().join("turned.json"),
        SMALL_L3.replace("identity", "diagonal"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.toml"),
        "name = \"L3near\"\nmasks = [\"0xfff0fff\"]\ncanon = \"identity\"\n",
    )
    .unwrap();
    for (args, message) in [
        (
            &["build", "L9", "64"][..],
            "formation L9: unknown formation; built in: L3, ",
        ),
        (
            &["build", "fREE8", "64"][..],
            "formation fREE8: unknown formation (names are case-sensitive: free8?)",
        ),
        (
            &["build", "L3", "65536"],
            "\"65536\" is not a target (8, 16, 32, ..., 16384)",
        ),
        (
            &["build", "L3", "4"],
            "\"4\" is not a target (8, 16, 32, ..., 16384)",
        ),
        (
            &["build", "bad.json", "64"],
            "must mark cells with whole F digits",
        ),
        (
            &["build", "turned.json", "64"],
            "formation turned.json: L3near: its diagonal symmetry does not keep its masks",
        ),
        (
            &["build", "bad.toml", "64"],
            "formation bad.toml: missing field `target_cells`",
        ),
        (
            &["build", "missing.toml", "64"],
            "formation missing.toml: No such file",
        ),
        (
            &["query", "--table", "nowhere", "--board", "0x1"],
            "nowhere: no table here (no table.json)",
        ),
        (&["info", "nowhere"], "nowhere: no table here"),
        (
            &["info", "l3.json"],
            "l3.json: a file, not a table's folder",
        ),
        (&["verify", "nowhere"], "nowhere: no table here"),
        (
            &["build", "L3", "64", "-o", "l3.json/t"],
            "l3.json/t: Not a directory",
        ),
        (
            &["build", "L3", "64", "-p", "4097"],
            "4097 is not in 1..=4096",
        ),
        (
            &["build", "L3", "64", "-o", "l3.json"],
            "l3.json: not a folder: a table is built in a folder of its own",
        ),
        (
            &["build", "L3", "64", "--prune", "NaN"],
            "is not a rate from 0 up to 1",
        ),
        (
            &["build", "L3", "64", "--four-rate", "1.5"],
            "4-rate 1.5 is not a probability",
        ),
        // Negative numbers reach the options' own checks.
        (
            &["build", "L3", "64", "--prune", "-1"],
            "\"-1\" is not a rate from 0 up to 1",
        ),
        (
            &["build", "L3", "64", "--four-rate", "-0.1"],
            "4-rate -0.1 is not a probability",
        ),
    ] {
        let output = tb_build(args, dir.path());
        assert!(!output.status.success(), "{args:?}");
        let err = text(&output.stderr);
        // The first line says it; clap adds a pointer to --help after its own.
        let first = err.lines().next().unwrap_or_default();
        assert!(first.contains(message), "{args:?}: {err}");
        assert!(first.matches("os error").count() <= 1, "{args:?}: {err}");
        assert!(
            first.starts_with("error: invalid value") || err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    let output = tb_build(&["build", "l3.json", "32", "-o", "t"], dir.path());
    assert!(output.status.success());
    for (board, message) in [
        (
            "0x123",
            "it holds 0 large tiles (f) where the positions of L3near-32 hold 6",
        ),
        (
            "0x000000001fff2fff",
            "its tiles other than large ones sum to 6, where the layers of L3near-32 hold \
             sums of 8 to 70 in steps of 2",
        ),
        (
            "0xffffff0000000112",
            "no orientation of it fits formation L3near",
        ),
        ("0x1g", "not a hex number"),
        (
            "2 2 . . / . . . . / 2 . . .",
            "board \"2 2 . . / . . . . / 2 . . .\": 12 cells, a board has 16",
        ),
        (
            "2 2 . . / . . . . / 2 f f g / 4 f f f",
            "board \"2 2 . . / . . . . / 2 f f g / 4 f f f\": \"g\" is not a tile",
        ),
        (
            "0x117000001bcd2a98",
            "0x117000001bcd2a98 read with its tiles above the target as large tiles: \
             board 0x11f000001fff2fff: it holds 7 large tiles",
        ),
    ] {
        let output = tb_build(&["query", "--table", "t", "--board", board], dir.path());
        assert!(!output.status.success());
        let err = text(&output.stderr);
        assert!(err.contains(message), "{board}: {err}");
    }
    let output = tb_build(&["build", "L3", "64", "-o", "t"], dir.path());
    assert!(text(&output.stderr).contains("holds another table"));
    // A finished table that has lost a layer file is not taken for whole.
    let layer = dir.path().join("t/layer-0005.tbl");
    let kept = dir.path().join("layer-0005.kept");
    std::fs::rename(&layer, &kept).unwrap();
    let output = tb_build(&["build", "l3.json", "32", "-o", "t"], dir.path());
    assert!(!output.status.success());
    let err = text(&output.stderr);
    assert!(
        err.starts_with("tb-build: t/layer-0005.tbl: missing from this finished table"),
        "{err}"
    );
    std::fs::rename(&kept, &layer).unwrap();
    let output = tb_build(&["build", "l3.json", "32", "-o", "t"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("the table is already complete"));

    // The u32 table holds the rates it was solved in: recomputed exactly.
    let output = tb_build(&["verify", "t", "--samples", "200"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    // A table of manifest version 1 (solved in f64 whatever its precision)
    // is still read and verified, within its precision, but not built on.
    let manifest = dir.path().join("t/table.json");
    let text_of = std::fs::read_to_string(&manifest).unwrap();
    assert!(text_of.contains("\"version\": 2"), "{text_of}");
    let mut version_1: serde_json::Value = serde_json::from_str(&text_of).unwrap();
    version_1["version"] = 1.into();
    // Written before manifests kept a checksum.
    version_1.as_object_mut().unwrap().remove("checksum");
    std::fs::write(&manifest, version_1.to_string()).unwrap();
    let output = tb_build(&["verify", "t"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let output = tb_build(&["build", "l3.json", "32", "-o", "t"], dir.path());
    assert!(!output.status.success());
    let err = text(&output.stderr);
    assert!(err.contains("a table of manifest version 1"), "{err}");
    // A manifest edited into one that defines no table is named.
    std::fs::write(
        &manifest,
        text_of.replace("\"four_rate\": 0.1", "\"four_rate\": 1.5"),
    )
    .unwrap();
    let output = tb_build(&["info", "t"], dir.path());
    assert!(!output.status.success());
    let err = text(&output.stderr);
    assert!(
        err.contains("table.json: ") && err.contains("4-rate 1.5 is not a probability"),
        "{err}"
    );
}

/// A table whose every position is lost (the whole board, two 2s played
/// to 16 with no steps to spare: the target shows only in the horizon, as
/// a board of one 16, which no move makes) stores none: it still builds,
/// reads, and answers 0.
#[test]
fn a_table_of_lost_positions_stores_none_and_answers_0() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("open.json"),
        r#"{ "name": "open", "masks": [], "target_cells": "0xffffffffffffffff",
             "canon": "full", "seeds": ["0x11"], "extra_steps": 0 }"#,
    )
    .unwrap();
    let output = tb_build(&["build", "open.json", "16", "-o", "t"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    let summary = out.lines().last().unwrap();
    assert!(
        summary.contains(" positions generated, 0 stored in "),
        "{summary}"
    );
    assert!(!summary.contains("per position"), "{summary}");
    // The layer files, holding no position, are headers and checksums.
    let built_bytes = summary.split(" stored in ").nth(1).unwrap();
    let built_bytes = built_bytes.split(' ').next().unwrap();
    let output = tb_build(&["info", "t"], dir.path());
    let out = text(&output.stdout);
    let total: Vec<&str> = out.lines().last().unwrap().split_whitespace().collect();
    assert_eq!(total, ["total", "0", built_bytes, "-"], "{out}");
    let out = query(dir.path(), "t", "0x1100000000000000");
    assert!(out.contains("best   right 0.0000000000"), "{out}");
    let output = tb_build(&["verify", "t"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
}

/// A new table is built in a new or empty folder: one that holds other
/// files is refused and left as it was (a build in it removed files whose
/// names looked like its temporary ones, and would have removed a `work/`
/// of the user's with its own at the end). What a build killed before its
/// manifest leaves is no obstacle.
#[test]
fn a_new_table_is_not_built_among_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("mine");
    std::fs::create_dir_all(folder.join("work")).unwrap();
    for file in ["notes.tmp-1", "work/results.txt"] {
        std::fs::write(folder.join(file), "the user's").unwrap();
    }
    let output = tb_build(&["build", "L3", "16", "-o", "mine"], dir.path());
    assert!(!output.status.success());
    let err = text(&output.stderr);
    assert_eq!(
        err,
        "tb-build: mine: holds no table but other files (notes.tmp-1 and 1 more): build a \
         new table in a new or empty folder\n"
    );
    let mut left: Vec<_> = walk(&folder);
    left.sort();
    assert_eq!(left, ["notes.tmp-1", "work", "work/results.txt"]);

    let killed = dir.path().join("killed");
    std::fs::create_dir_all(killed.join("work")).unwrap();
    for file in ["work/lock", "table.json.tmp-7"] {
        std::fs::write(killed.join(file), "").unwrap();
    }
    let output = tb_build(&["build", "L3", "16", "-o", "killed"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        walk(&killed)
            .iter()
            .all(|name| name.starts_with("layer-") || name == "table.json")
    );
}

/// The names under `folder`, as paths relative to it.
fn walk(folder: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            names.extend(
                walk(&path)
                    .into_iter()
                    .map(|inner| format!("{name}/{inner}")),
            );
        }
        names.push(name);
    }
    names
}

/// Two builds in one folder would write and remove each other's files:
/// while one runs (here, its lock held by the test, and a file it is
/// writing in `work/`), another stops, and leaves the file be.
#[test]
fn a_second_build_of_the_same_folder_stops() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    std::fs::create_dir_all(dir.path().join("t/work")).unwrap();
    let lock = std::fs::File::create(dir.path().join("t/work/lock")).unwrap();
    lock.lock().unwrap();
    let writing = dir.path().join("t/work/boards-0001.tmp-1");
    std::fs::write(&writing, b"half").unwrap();
    let output = tb_build(&["build", "l3.json", "32", "-o", "t"], dir.path());
    assert!(!output.status.success());
    let err = text(&output.stderr);
    assert!(
        err.starts_with("tb-build: t/work/lock: another build is writing this table"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(writing.exists(), "the running build's file is left be");
    assert!(
        !dir.path().join("t/table.json").exists(),
        "nor is its manifest written"
    );
    drop(lock);
    let output = tb_build(
        &["build", "l3.json", "32", "-o", "t", "-p", "1"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(out.contains(" rates, 1 thread, memory budget "), "{out}");
    assert!(
        !dir.path().join("t/work").exists(),
        "the lock goes with work/"
    );
    // A build of the finished table, or of another table in its folder,
    // takes the lock in a `work/` of its own, and leaves none behind.
    for args in [
        &["build", "l3.json", "32", "-o", "t"][..],
        &["build", "L3", "64", "-o", "t"],
    ] {
        tb_build(args, dir.path());
        assert!(!dir.path().join("t/work").exists(), "{args:?}");
    }
}

#[test]
fn a_small_memory_budget_builds_the_same_table_in_segments() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    // Plain, pruned, thinned to optimal lines and at u16 (solved in f64,
    // stored rounded): the segments count and store what the whole layer
    // would, and `verify` passes each (exactly, at most as stored where
    // pruned, within the precision at u16).
    for (name, options) in [
        ("plain", &[][..]),
        ("pruned", &["--prune", "0.5"][..]),
        ("optimal", &["--optimal-only"][..]),
        ("u16", &["--precision", "u16"][..]),
    ] {
        let build = |folder: &str, budget: &[&str]| {
            let args = [&["build", "l3.json", "32", "-o", folder], options, budget].concat();
            let output = tb_build(&args, dir.path());
            assert!(output.status.success(), "{}", text(&output.stderr));
            output
        };
        let whole = format!("{name}-whole");
        let segmented = format!("{name}-segmented");
        let output = build(&whole, &[]);
        assert!(!text(&output.stdout).contains("over the budget"));
        let output = build(&segmented, &["--memory", "1K"]);
        let printed = text(&output.stdout);
        assert!(printed.contains("memory budget 1 KiB"), "{printed}");
        // No build fits in 1 KiB, and the summary says so.
        let summary = printed.lines().last().unwrap();
        assert!(summary.ends_with("over the budget of 1 KiB"), "{summary}");
        // The largest layers hold over 60,000 positions: 4,096 a segment.
        assert!(text(&output.stdout).contains(" segments"));
        let files = layer_files(&dir.path().join(&segmented));
        assert_eq!(files, layer_files(&dir.path().join(&whole)), "{name}");
        let output = tb_build(&["verify", &segmented, "--samples", "300"], dir.path());
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        if name == "pruned" {
            for (file, _) in &files {
                let path = dir.path().join(&segmented).join(file);
                let layer = tablebase::LayerFile::open(&path).unwrap();
                let rates = layer.read_all().unwrap();
                assert!(rates.rates().iter().all(|&rate| rate > 0.5), "{file}");
            }
            let bytes = |files: &[(String, Vec<u8>)]| -> usize {
                files.iter().map(|(_, bytes)| bytes.len()).sum()
            };
            let plain = layer_files(&dir.path().join("plain-whole"));
            assert!(bytes(&files) < bytes(&plain), "pruning stores less");
            // A pruned table cannot tell a pruned position from one the
            // seeds never lead to, such as where a seed's moves go: both
            // read 0, and a query says so.
            let out = query(dir.path(), &segmented, "0x100000001fff2fff");
            assert!(
                out.contains("(pruned at 0.5: positions at or below it"),
                "{out}"
            );
            assert!(out.contains("best   right 0.0000000000"), "{out}");
        }
    }
    // `compare` reads them alike, and tells another definition.
    let output = tb_build(&["compare", "u16-whole", "u16-segmented"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).starts_with("u16-whole and u16-segmented are the same: "),
        "{}",
        text(&output.stdout)
    );
    let output = tb_build(&["compare", "plain-whole", "pruned-whole"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "tb-build: plain-whole and pruned-whole differ: the tables' pruning differs\n"
    );
}

/// A free formation of six cells for small tiles (ten large tiles that go
/// anywhere; 0.8 million positions to 32): its layers are generated and
/// solved by class of symmetric boards, and within a budget listed in
/// order and solved in segments.
const SMALL_FREE: &str = r#"{ "name": "free6",
  "target_cells": "0xffffffffffffffff", "canon": "full",
  "seeds": ["0x011111ffffffffff"], "extra_steps": 8, "free": true }"#;

#[test]
fn a_killed_build_of_a_free_formation_resumes_to_the_same_files() {
    let segments: &[&str] = &["--memory", "24M"];
    killed_builds_resume_to_the_whole_build(
        "free6.json",
        SMALL_FREE,
        &[
            ("generated layer   12", &[]),
            ("solved    layer   14", &[]),
            ("solved    layer   14", segments),
        ],
    );
}

#[test]
fn a_set_builds_each_table_in_its_folder_once() {
    let dir = tempfile::tempdir().unwrap();
    let output = tb_build(
        &["set", "L3x-32", "L3-32", "-o", "set", "-p", "1"],
        dir.path(),
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(stdout.contains("table 1 of 2: L3x-32") && stdout.contains("table 2 of 2: L3-32"));
    assert!(stdout.contains("set done: 2 tables in set"), "{stdout}");
    for table in ["set/L3x-32", "set/L3-32"] {
        assert!(
            tb_build(&["verify", table, "--samples", "5"], dir.path())
                .status
                .success()
        );
    }
    // Run again, the finished tables are left as they are.
    let again = tb_build(&["set", "L3x-32", "-o", "set"], dir.path());
    assert!(text(&again.stdout).contains("the table is already complete"));
    // Every name is checked before anything is built.
    for (name, problem) in [
        ("L3-33", "\"33\" is not a target (8, 16, 32, ..., 16384)"),
        (
            "L3-32768",
            "\"32768\" is not a target (8, 16, 32, ..., 16384)",
        ),
        ("L3", "FORMATION-TARGET"),
        ("Lx-32", "unknown formation"),
    ] {
        let output = tb_build(&["set", "L3-64", name, "-o", "bad"], dir.path());
        assert!(!output.status.success());
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains(problem) && stderr.lines().count() == 1,
            "{name}: {stderr}"
        );
        assert!(
            !dir.path().join("bad/L3-64").exists(),
            "{name}: nothing built"
        );
    }
}

/// On a terminal a build shows the layers it generates, then a bar over the
/// positions it solves with an ETA; into a pipe, only its lines.
#[test]
fn a_build_on_a_terminal_shows_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    let args = ["build", "l3.json", "32", "-o", "shown"];
    let shown = testkit::run_in_terminal(env!("CARGO_BIN_EXE_tb-build"), &args, dir.path());
    assert!(shown.contains("generating layer "), "{shown}");
    assert!(
        shown.contains("solving: ") && shown.contains(" positions, ETA "),
        "{shown}"
    );
    let output = tb_build(&["build", "l3.json", "32", "-o", "piped"], dir.path());
    testkit::assert_no_bar(&output);
}

/// A layer file deleted after the build solved it (and removed its working
/// files) is named, with what to do, when the build is run again.
#[test]
fn a_solved_layer_deleted_before_resuming_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("l3.json"), SMALL_L3).unwrap();
    kill_at(dir.path(), "l3.json", &[], "solved    layer   30");
    let folder = dir.path().join("killed");
    let solved: Vec<String> = layer_files(&folder)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    // The layer solved last, then one among the others.
    for name in [&solved[0], &solved[solved.len() / 2]] {
        let path = folder.join(name);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let output = tb_build(&["build", "l3.json", "32", "-o", "killed"], dir.path());
        assert!(!output.status.success());
        assert_eq!(
            text(&output.stderr),
            format!(
                "tb-build: killed/{name}: missing, and the build removed its working files once \
                 it had solved it: restore the file, or build the table again in an empty folder\n"
            )
        );
        std::fs::write(&path, bytes).unwrap();
    }
    let resumed = tb_build(&["build", "l3.json", "32", "-o", "killed"], dir.path());
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
}

/// A formation asking for far more layers than its tiles can fill is
/// refused once its positions run out, its files removed, so that the
/// corrected definition builds in the same folder.
#[test]
fn extra_steps_past_the_last_position_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let endless = SMALL_L3.replace("\"extra_steps\": 16", "\"extra_steps\": 100000");
    std::fs::write(dir.path().join("l3.json"), endless).unwrap();
    let output = tb_build(&["build", "l3.json", "32", "-o", "t"], dir.path());
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert_eq!(
        error,
        "tb-build: formation L3near: layers 57 and 58 are empty, and so would be the 99957 \
         layers after them: lower its extra steps (100000) by 99893\n"
    );
    assert!(!dir.path().join("t").exists());
    // Lowered by that much it builds, with 64 empty layers at its end.
    let lowered = SMALL_L3.replace("\"extra_steps\": 16", "\"extra_steps\": 107");
    std::fs::write(dir.path().join("l3.json"), lowered).unwrap();
    let output = tb_build(&["build", "l3.json", "32", "-o", "t"], dir.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed = text(&output.stdout);
    assert!(
        printed.contains("generated layer  122:           0 positions"),
        "{printed}"
    );
    assert!(!printed.contains("generated layer  123:"), "{printed}");
}
