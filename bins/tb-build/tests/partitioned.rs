//! Partitioned builds from the command line (docs/distributed.md):
//! `build --partitions`, and `plan` with `task` as an engine runs them,
//! make the whole build's table, answer queries alike, and a killed one
//! resumes.

use std::path::Path;
use std::process::Output;

use testkit::text;

fn tb_build(args: &[&str], dir: &Path) -> Output {
    testkit::run(env!("CARGO_BIN_EXE_tb-build"), args, dir)
}

/// Runs `args`, which must succeed; returns what it printed.
fn succeed(args: &[&str], dir: &Path) -> String {
    let output = tb_build(args, dir);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

fn assert_same(a: &str, b: &str, dir: &Path) {
    let compared = succeed(&["compare", a, b], dir);
    assert!(compared.contains("are the same"), "{compared}");
}

#[test]
fn planned_tasks_make_the_whole_table() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    succeed(&["build", "L3", "32", "-o", "whole"], dir);
    succeed(
        &["build", "L3", "32", "-o", "local", "--partitions", "4"],
        dir,
    );
    assert_same("whole", "local", dir);
    // The stages as a cluster's driver reads them: one JSON array a line.
    let plan = succeed(
        &["plan", "L3", "32", "-o", "planned", "--partitions", "4"],
        dir,
    );
    let stages: Vec<Vec<String>> = plan
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(stages[0], ["seed"]);
    assert_eq!(
        stages[1],
        ["expand/1/0", "expand/1/1", "expand/1/2", "expand/1/3"]
    );
    assert_eq!(stages.last().unwrap(), &["finish"]);
    for stage in &stages {
        let mut args = vec!["task", "planned"];
        args.extend(stage.iter().map(String::as_str));
        succeed(&args, dir);
    }
    assert_same("whole", "planned", dir);
    // Queries, info and verify read the parts as the whole layer.
    for board in [
        "0x100000001fff2fff",
        "2 . . . / 2 . . . / 2 f f f / 4 f f f",
    ] {
        let whole = succeed(&["query", "whole", board], dir);
        assert_eq!(succeed(&["query", "planned", board], dir), whole);
    }
    let info = succeed(&["info", "planned"], dir);
    assert!(info.lines().last().unwrap().contains("total"), "{info}");
    assert!(succeed(&["verify", "planned"], dir).contains("positions recomputed"));
    // The digest: the same for both builds, a line a layer with the
    // positions `info` counts and a CRC of 8 hex digits.
    let digest = succeed(&["digest", "whole"], dir);
    assert_eq!(succeed(&["digest", "planned"], dir), digest);
    let info = succeed(&["info", "whole"], dir);
    let counted: Vec<(&str, &str)> = info
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|fields| fields.len() == 4 && fields[0].parse::<usize>().is_ok())
        .map(|fields| (fields[0], fields[1]))
        .collect();
    let digested: Vec<(&str, &str)> = digest
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert!(fields[3].len() == 8 && u32::from_str_radix(fields[3], 16).is_ok());
            (fields[1], fields[2])
        })
        .collect();
    assert_eq!(digested, counted);
    // A task that is not one is one line; so is a table that is not
    // partitioned.
    for (args, says) in [
        (
            &["task", "planned", "solve/1"][..],
            "write seed, expand/LAYER/PART",
        ),
        (&["task", "whole", "seed"], "not a partitioned table"),
        (
            &["plan", "L3", "32", "-o", "whole", "--partitions", "4"],
            "another table",
        ),
    ] {
        let output = tb_build(args, dir);
        assert!(!output.status.success());
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains(says) && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
    }
}

/// Killed while generating and again while solving, the local build run
/// again ends with the whole build's table.
#[test]
fn a_killed_partitioned_build_resumes_to_the_whole_table() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    succeed(&["build", "L3", "32", "-o", "whole"], dir);
    let args = ["build", "L3", "32", "-o", "killed", "--partitions", "3"];
    for line in ["generated layer   20", "solved    layer   30"] {
        testkit::kill_at_line(env!("CARGO_BIN_EXE_tb-build"), &args, dir, line);
    }
    succeed(&args, dir);
    assert_same("whole", "killed", dir);
}
