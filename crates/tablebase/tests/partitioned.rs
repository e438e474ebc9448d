//! Partitioned builds (docs/distributed.md): the tasks over the parts of
//! each layer make the table the whole-file build makes, whatever the
//! number of parts, and a task run again, or after a kill left its files
//! half-written, changes nothing.

use std::path::Path;

use tablebase::builder::partitioned::{self, Task};
use tablebase::builder::{self, Options};
use tablebase::{Comparison, Formation, Partitions, Precision, Spec, Table};

/// The whole-file table of `spec` stored with `options`, in `dir`.
fn whole(spec: &Spec, dir: &Path, options: Options) -> Table {
    builder::build(spec, dir, options, None, &mut |_| {}).unwrap();
    Table::open(dir).unwrap()
}

/// Asserts that `a` and `b` hold the same positions at the same rates.
fn assert_same(a: &Table, b: &Table, what: &str) {
    match a.compare(b).unwrap() {
        Comparison::Same { positions, .. } => assert!(positions > 1_000, "{what}: {positions}"),
        Comparison::Differs(difference) => panic!("{what}: {difference}"),
    }
}

/// Fixed, symmetric, moving and free formations, each at two precisions,
/// pruned or not, split into 5 parts (L3 into 1, 3 and 16): by rank where
/// the layers' boards have ranks (L3, 3x3, free8), else by hash.
#[test]
fn partitioned_tables_are_the_whole_tables() {
    let tables = [
        ("L3", 8, 5, true),
        ("LL", 4, 5, false),
        ("L3f", 4, 4, false),
        ("3x3", 8, 5, true),
        ("free8", 0, 4, true),
    ];
    for (name, extra, target, ranked) in tables {
        let formation = Formation::builtin(name).unwrap().with_extra_steps(extra);
        let spec = Spec::new(formation, target, 0.1).unwrap();
        for (precision, prune) in [(Precision::U32, 0.0), (Precision::F64, 0.25)] {
            let options = Options {
                precision,
                prune,
                ..Options::default()
            };
            let dir = tempfile::tempdir().unwrap();
            let reference = whole(&spec, &dir.path().join("whole"), options);
            let counts: &[u32] = if name == "L3" { &[1, 3, 16] } else { &[5] };
            for &parts in counts {
                let what = format!(
                    "{} {precision} pruned at {prune}, {parts} parts",
                    spec.name()
                );
                let path = dir.path().join(format!("parts-{parts}"));
                let options = Options {
                    partitions: Some(parts),
                    ..options
                };
                partitioned::build_local(&spec, &path, options, &mut |_| {}).unwrap();
                let table = Table::open(&path).unwrap();
                assert_eq!(table.manifest().options.ranked_parts, ranked, "{what}");
                assert_same(&table, &reference, &what);
                assert!(
                    !path.join("work").exists(),
                    "{what}: the working files stay"
                );
                // Lookups route to the part that holds a board.
                let layer = reference.spec().steps() / 2;
                let held = reference.layer(layer).unwrap().read_all().unwrap();
                let stored = table.layer(layer).unwrap();
                for (&board, &rate) in held.boards().iter().zip(held.rates()).step_by(97) {
                    assert_eq!(stored.rate(board).unwrap(), rate, "{what}");
                }
                assert_eq!(
                    table.verify(50).unwrap().positions,
                    reference.verify(1).unwrap().positions
                );
            }
        }
    }
}

/// Every task run twice, stage by stage, and every working and layer file
/// of a stage damaged as a killed task leaves it (a temporary file beside
/// it, or the file itself missing) and the stage run again: the same
/// table.
#[test]
fn tasks_run_again_make_the_same_table() {
    let spec = Spec::new(
        Formation::builtin("L3").unwrap().with_extra_steps(6),
        5,
        0.1,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let options = Options::default();
    let reference = whole(&spec, &dir.path().join("whole"), options);
    let path = dir.path().join("tasks");
    let options = Options {
        partitions: Some(4),
        ..options
    };
    partitioned::prepare(&spec, &path, options).unwrap();
    let plan = partitioned::plan(&spec, Partitions::new(4).unwrap());
    for (number, stage) in plan.iter().enumerate() {
        for task in stage {
            task.run(&path).unwrap();
        }
        // A killed rerun of the stage's first task: its outputs removed
        // (a layer part) or left with a temporary file beside them.
        if let Task::Solve { layer, part } = stage[0] {
            let file = path
                .join(format!("layer-{layer:04}"))
                .join(format!("part-{part:04}.tbl"));
            if number % 2 == 0 {
                std::fs::remove_file(&file).unwrap();
            } else {
                std::fs::write(file.with_extension("tbl.tmp-1"), b"half").unwrap();
            }
        }
        for task in stage.iter().rev() {
            task.run(&path).unwrap();
        }
    }
    let table = Table::open(&path).unwrap();
    assert_same(&table, &reference, "tasks run twice");
    let leftovers: Vec<_> = (0..spec.steps())
        .flat_map(|layer| std::fs::read_dir(path.join(format!("layer-{layer:04}"))).unwrap())
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let names: Vec<String> = plan.iter().flatten().map(ToString::to_string).collect();
    for name in &names {
        assert_eq!(&name.parse::<Task>().unwrap().to_string(), name);
    }
    for bad in [
        "",
        "solve",
        "solve/1",
        "solve/1/x",
        "merge/0/0/0",
        "grow/1/1",
    ] {
        assert!(bad.parse::<Task>().is_err(), "{bad}");
    }
}

/// A small L3 table, a folder for it, and options that split it in two.
fn small_in_two_parts() -> (Spec, tempfile::TempDir, Options) {
    let formation = Formation::builtin("L3").unwrap().with_extra_steps(4);
    let options = Options {
        partitions: Some(2),
        ..Options::default()
    };
    let spec = Spec::new(formation, 5, 0.1).unwrap();
    (spec, tempfile::tempdir().unwrap(), options)
}

/// A task of an earlier stage not run, or one past the table's layers or
/// parts, is one clear error; so is a task given a table that is not
/// partitioned.
#[test]
fn tasks_out_of_order_or_out_of_range_are_refused() {
    let (spec, dir, options) = small_in_two_parts();
    partitioned::prepare(&spec, dir.path(), options).unwrap();
    let message = |task: Task| task.run(dir.path()).unwrap_err().to_string();
    assert!(
        message(Task::Merge { layer: 1, part: 0 }).contains("run the tasks of the stages before")
    );
    assert!(message(Task::Solve { layer: 99, part: 0 }).contains("which has layers 0 to"));
    assert!(message(Task::Expand { layer: 1, part: 2 }).contains("in 2 parts"));
    // Asks and answers are for layers solved from the two after them,
    // not the horizon's.
    let horizon = spec.steps() - 1;
    for task in [
        Task::Ask {
            layer: horizon,
            part: 0,
        },
        Task::Answer {
            layer: horizon - 1,
            part: 0,
        },
    ] {
        assert!(message(task).contains("not one of the table's"), "{task}");
    }
    assert!(
        message(Task::Answer { layer: 0, part: 1 }).contains("run the tasks of the stages before")
    );
    let whole_dir = tempfile::tempdir().unwrap();
    whole(&spec, whole_dir.path(), Options::default());
    assert!(
        Task::Seed
            .run(whole_dir.path())
            .unwrap_err()
            .to_string()
            .contains("not a partitioned table")
    );
    let other = Spec::new(Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
    assert!(
        partitioned::prepare(&other, dir.path(), options).is_err(),
        "another table's folder"
    );
}

/// In a table split by rank, a part's working rates swapped with another
/// part's (boards of another range of ranks) are one clear error when
/// they are asked for, not rates of 0.
#[test]
fn working_rates_of_another_part_are_refused() {
    let (spec, dir, options) = small_in_two_parts();
    let manifest = partitioned::prepare(&spec, dir.path(), options).unwrap();
    assert!(manifest.options.ranked_parts);
    for stage in partitioned::plan(&spec, Partitions::new(2).unwrap()) {
        if let Task::Answer { layer, .. } = stage[0] {
            let rates = dir
                .path()
                .join("work")
                .join(format!("rates-{:04}", layer + 1));
            let [zero, one] = ["part-0000", "part-0001"].map(|name| rates.join(name));
            if layer + 1 < spec.steps() / 2 && zero.exists() && one.exists() {
                std::fs::rename(&zero, rates.join("kept")).unwrap();
                std::fs::rename(&one, &zero).unwrap();
                std::fs::rename(rates.join("kept"), &one).unwrap();
                let error = stage[0].run(dir.path()).unwrap_err().to_string();
                assert!(error.contains("in order of rank"), "{error}");
                return;
            }
        }
        for task in stage {
            task.run(dir.path()).unwrap();
        }
    }
    panic!("no layer's working rates to swap");
}
