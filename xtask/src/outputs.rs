//! `cargo xtask outputs --vs DIR`: what the programs write, this build's
//! against another build's, file by file: every kind of table formation,
//! both weight file formats and precisions, logs, game records and both
//! games. A refactoring that is meant to change nothing is held to it.
//!
//! Tables, weight files and 2048 records must be the same bytes. Logs and
//! the 2584 course's records must be the same but for what a run cannot
//! repeat: the times and speeds of its blocks, the clock in its records,
//! and the command line that started it (the program's path).

use std::path::{Path, PathBuf};

use crate::measure::{in_scratch, run_program};
use crate::{run_cargo, workspace_root};

/// The options of `cargo xtask outputs`.
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// A folder holding the other build's programs (`train`, `eval`,
    /// `fib2584`, `tb-build`), such as another worktree's target/release
    #[arg(long, value_name = "DIR")]
    pub vs: PathBuf,
}

/// One run of a program, in a folder of its build's: its arguments (the
/// files it names are in that folder), and the files it writes there that
/// are compared.
struct Case {
    program: &'static str,
    args: &'static str,
    outputs: &'static [&'static str],
}

/// Runs that reach every kind of output: tables of a formation ranked as
/// fixed (L3, 442), of a free one ranked by class (free8), of one whose
/// large tiles move within masks (L3f), of a variant with walls (3x3), at
/// `f64` and thinned to optimal lines; networks saved in 2048lab's format
/// and TDL2048+'s, in `f16`, with TC histories, statistic features and
/// stages; their evaluation's log and records; the 2584 game's network,
/// log and records.
const CASES: [Case; 12] = [
    Case {
        program: "tb-build",
        args: "build L3 64 -p 2 -o L3-64",
        outputs: &["L3-64"],
    },
    Case {
        program: "tb-build",
        args: "build 442 64 -p 2 --precision f64 -o 442-64",
        outputs: &["442-64"],
    },
    Case {
        program: "tb-build",
        args: "build free8 16 -p 2 -o free8-16",
        outputs: &["free8-16"],
    },
    Case {
        program: "tb-build",
        args: "build L3f 32 -p 2 -o L3f-32",
        outputs: &["L3f-32"],
    },
    Case {
        program: "tb-build",
        args: "build 3x3 32 -p 2 --optimal-only -o 3x3-32",
        outputs: &["3x3-32"],
    },
    Case {
        program: "train",
        args: "-n 4x6patt -t 2x200 -s 1 -o td.nw --log td.x",
        outputs: &["td.nw", "td.x"],
    },
    Case {
        program: "train",
        args: "-n 4x6patt -t 1x200 -s 1 --f16 -o half.w",
        outputs: &["half.w"],
    },
    Case {
        program: "train",
        args: "-n 4x6patt mono num -t 1x200 -s 1 --tc --stages 0,2048 -o tc.nw",
        outputs: &["tc.nw"],
    },
    Case {
        program: "eval",
        args: "-i td.nw -e 2x50 -s 2 -d 2p --record games.txt --log eval.x",
        outputs: &["games.txt", "eval.x"],
    },
    Case {
        program: "fib2584",
        args: "-n 2x4patt -t 1x300 -s 1 -o fib.nw --log fib.x",
        outputs: &["fib.nw", "fib.x"],
    },
    Case {
        program: "fib2584",
        args: "-i fib.nw -e 1x50 -s 2 --record fib-games.txt",
        outputs: &["fib-games.txt"],
    },
    Case {
        program: "train",
        args: "-n 8x4patt -t 1x300 -s 1 -p 1 -N 3 -o step.w --log step.x",
        outputs: &["step.w", "step.x"],
    },
];

/// Runs every case with both builds and compares what they wrote.
pub fn outputs(options: &Options) -> Result<(), String> {
    run_cargo(&[
        "build",
        "--release",
        "-p",
        "train",
        "-p",
        "eval",
        "-p",
        "fib2584",
        "-p",
        "tb-build",
    ])?;
    let builds = [workspace_root().join("target/release"), options.vs.clone()];
    in_scratch("outputs", |scratch| {
        let folders = ["this", "other"].map(|name| scratch.join(name));
        for folder in &folders {
            std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        }
        let mut compared = 0;
        for case in &CASES {
            for (build, folder) in builds.iter().zip(&folders) {
                let args: Vec<String> = case.args.split_whitespace().map(str::to_owned).collect();
                run_program(&build.join(case.program), folder, &args)?;
            }
            for output in case.outputs {
                compared += same(&folders[0].join(output), &folders[1].join(output))?;
            }
            println!("{} {}: the same", case.program, case.args);
        }
        println!("{compared} files the same in both builds");
        Ok(())
    })
}

/// The number of files under `a` (a file or a folder), each the same as
/// its namesake under `b`; an error naming the first that differs.
fn same(a: &Path, b: &Path) -> Result<usize, String> {
    if a.is_dir() {
        let names = |folder: &Path| -> Result<Vec<_>, String> {
            let mut names: Vec<_> = std::fs::read_dir(folder)
                .map_err(|e| format!("{}: {e}", folder.display()))?
                .map(|entry| entry.map(|entry| entry.file_name()))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("{}: {e}", folder.display()))?;
            names.sort();
            Ok(names)
        };
        let (mine, theirs) = (names(a)?, names(b)?);
        if mine != theirs {
            return Err(format!(
                "{} and {} hold other files",
                a.display(),
                b.display()
            ));
        }
        return mine
            .iter()
            .map(|name| same(&a.join(name), &b.join(name)))
            .sum();
    }
    let read = |path: &Path| std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
    let (mine, theirs) = (read(a)?, read(b)?);
    let equal = match a.extension().and_then(|extension| extension.to_str()) {
        Some("x") => repeatable(&mine) == repeatable(&theirs),
        Some("txt") => without_ticks(&mine) == without_ticks(&theirs),
        _ => mine == theirs,
    };
    if equal {
        Ok(1)
    } else {
        Err(format!("{} and {} differ", a.display(), b.display()))
    }
}

/// A log without what no run repeats: the command line (its second line,
/// the program's path), each block's time and speed (`001/010 31040ms
/// 536272.07ops`, `summary 730ms 111051.94ops`; the 2584 course's `ops =
/// 1399083 (698084|700999)`) and a search's time and node rate.
fn repeatable(log: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(log)
        .lines()
        .enumerate()
        .map(|(number, line)| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                _ if number == 1 => "-".to_owned(),
                [block, time, speed, ..] if time.ends_with("ms") && speed.ends_with("ops") => {
                    format!("{block} -")
                }
                // `search: 0.0090 ms/move, 197 nodes/move, 21.83 M nodes/s`.
                ["search:", _, "ms/move,", nodes, "nodes/move,", ..] => {
                    format!("search: {nodes} nodes/move")
                }
                _ => match line.split_once(", ops = ") {
                    Some((kept, _)) => format!("{kept}, ops = -"),
                    None => line.to_owned(),
                },
            }
        })
        .collect()
}

/// Game records without the clock: the 2584 course's episodes
/// (`PLAYER:ENV@TICK|ACTIONS|WINNER@TOCK`) say when each began and ended,
/// in milliseconds, which become `-`. 2048 records hold no time.
fn without_ticks(records: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(records)
        .lines()
        .map(|line| {
            let parts: Vec<&str> = line.split('|').collect();
            match parts.as_slice() {
                [start, actions, end] => {
                    let tick = |part: &str| match part.rsplit_once('@') {
                        Some((name, time)) if time.bytes().all(|b| b.is_ascii_digit()) => {
                            format!("{name}@-")
                        }
                        _ => part.to_owned(),
                    };
                    format!("{}|{actions}|{}", tick(start), tick(end))
                }
                _ => line.to_owned(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_compare_without_ticks() {
        let a = b"player:rndenv@1796472267410|F102#RC1#R|rndenv@1796472267428\n";
        let b = b"player:rndenv@1796472267574|F102#RC1#R|rndenv@1796472267590\n";
        let c = b"player:rndenv@1796472267574|F102#RC1#L|rndenv@1796472267590\n";
        assert_eq!(without_ticks(a), without_ticks(b));
        assert_ne!(without_ticks(a), without_ticks(c));
    }

    #[test]
    fn logs_compare_without_times() {
        let a = b"2048lab train\n/a/train -n 4x6patt\nseed = 1\n001/002 310ms 5362.07ops\nlocal:  avg=3\n";
        let b = b"2048lab train\n/b/train -n 4x6patt\nseed = 1\n001/002 299ms 5400.00ops\nlocal:  avg=3\n";
        assert_eq!(repeatable(a), repeatable(b));
        let c = b"2048lab train\n/b/train -n 4x6patt\nseed = 1\n001/002 299ms 5400.00ops\nlocal:  avg=4\n";
        assert_ne!(repeatable(a), repeatable(c));
        let search = |line: &str| repeatable(format!("a\nb\n{line}\n").as_bytes());
        assert_eq!(
            search("search: 0.0090 ms/move, 197 nodes/move, 21.83 M nodes/s (all threads)"),
            search("search: 0.0087 ms/move, 197 nodes/move, 22.54 M nodes/s (all threads)")
        );
        assert_ne!(
            search("search: 0.0090 ms/move, 197 nodes/move, 21.83 M nodes/s"),
            search("search: 0.0090 ms/move, 198 nodes/move, 21.83 M nodes/s")
        );
        assert_eq!(
            search("summary 730ms 111051.94ops"),
            search("summary 707ms 114679.93ops")
        );
    }
}
