//! `cargo xtask profile`: where training, testing and search spend their
//! time, with perf (sampled, for flamegraphs) or callgrind (repeatable
//! instruction counts).

use std::path::Path;
use std::process::Command;

use crate::{run, run_cargo, trained_network, workspace_root};

/// What is profiled.
#[derive(Clone, Debug)]
pub enum Target {
    /// TD training of a fresh network.
    Train,
    /// 1-ply games with a trained network (trained briefly when none given).
    Test,
    /// Expectimax at this depth.
    Search(String),
}

/// The profiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `perf record` with the cpu-clock event (hardware counters are often
    /// missing in VMs), call graphs included.
    Perf,
    /// valgrind's callgrind: exact instruction counts, about 50 times slower.
    Callgrind,
}

/// The options of `cargo xtask profile`.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    pub tool: Tool,
    pub network: String,
    pub weights: Option<std::path::PathBuf>,
    pub episodes: u64,
}

pub fn profile(options: &Options) -> Result<(), String> {
    let root = workspace_root();
    run_cargo(&["build", "--release", "-p", "train", "-p", "eval"])?;
    let release = root.join("target/release");
    let out = root.join("target/profile");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let plan = format!("1x{}", options.episodes);
    let weights = match (&options.target, &options.weights) {
        (Target::Train, _) => None,
        (_, Some(path)) => Some(path.clone()),
        (_, None) => Some(trained_network(
            &release,
            std::slice::from_ref(&options.network),
            &out,
        )?),
    };
    let (program, args): (&str, Vec<String>) = match &options.target {
        Target::Train => (
            "train",
            [
                "-n",
                &options.network,
                "-t",
                &plan,
                "-s",
                "profile",
                "--restart",
                "-o",
            ]
            .into_iter()
            .map(String::from)
            .chain([out.join("trained.nw").display().to_string()])
            .collect(),
        ),
        Target::Test => (
            "eval",
            test_args(weights.as_deref(), &["-e", &plan, "-s", "profile"]),
        ),
        Target::Search(depth) => {
            let games = format!("1x{}", (options.episodes / 1000).max(1));
            (
                "eval",
                test_args(
                    weights.as_deref(),
                    &["-d", depth, "-e", &games, "-s", "profile"],
                ),
            )
        }
    };
    let binary = release.join(program);
    match options.tool {
        Tool::Perf => {
            let data = out.join("perf.data");
            run(Command::new("perf")
                .args(["record", "-e", "cpu-clock", "-g", "-o"])
                .arg(&data)
                .arg("--")
                .arg(&binary)
                .args(&args))?;
            let report = Command::new("perf")
                .args(["report", "--no-children", "--stdio", "-g", "none", "-i"])
                .arg(&data)
                .output()
                .map_err(|e| format!("could not run perf report: {e}"))?;
            print_top(&String::from_utf8_lossy(&report.stdout), 25);
            println!(
                "\nfull profile: perf report -i {0}\nflamegraph: perf script -i {0} | \
                 inferno-collapse-perf | inferno-flamegraph > flame.svg \
                 (cargo install inferno)",
                data.display()
            );
        }
        Tool::Callgrind => {
            let data = out.join("callgrind.out");
            run(Command::new("valgrind")
                .args(["--tool=callgrind", "--dump-instr=no"])
                .arg(format!("--callgrind-out-file={}", data.display()))
                .arg(&binary)
                .args(&args))?;
            let report = Command::new("callgrind_annotate")
                .arg(&data)
                .output()
                .map_err(|e| format!("could not run callgrind_annotate: {e}"))?;
            print_top(&String::from_utf8_lossy(&report.stdout), 40);
            println!("\nfull counts: callgrind_annotate {}", data.display());
        }
    }
    Ok(())
}

fn test_args(weights: Option<&Path>, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["-i".to_owned()];
    args.push(
        weights
            .expect("testing has a network")
            .display()
            .to_string(),
    );
    args.extend(extra.iter().map(|&a| a.to_owned()));
    args
}

/// The first `lines` lines of a report that carry figures: from callgrind's
/// program totals on, or perf's first sample line.
fn print_top(report: &str, lines: usize) {
    let figures = report
        .lines()
        .skip_while(|line| !line.contains("PROGRAM TOTALS") && !line.contains('%'))
        .filter(|line| {
            !line.trim().is_empty() && !line.starts_with('#') && !line.starts_with("--")
        });
    for line in figures.take(lines) {
        println!("{line}");
    }
}
