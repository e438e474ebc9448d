//! `cargo xtask`: recipes that build or measure 2048lab in ways plain cargo
//! commands do not, so users run one documented command instead of copying
//! flags from the docs.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

/// Build and measurement recipes for 2048lab.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Args {
    #[command(subcommand)]
    recipe: Recipe,
}

#[derive(Subcommand)]
enum Recipe {
    /// Measures training and 1-ply testing speed (moves/s) of the release
    /// `train` binary, on one thread and on all, for each network: TDL2048+'s
    /// recipe `-t 1xN -e 1xN -s 1`, rounds interleaved, medians and ranges
    /// printed as a Markdown table.
    Bench {
        /// Networks to measure
        #[arg(long, value_delimiter = ',', default_value = "4x6patt,8x6patt")]
        networks: Vec<String>,
        /// Episodes trained, then games tested, per run
        #[arg(long, default_value_t = 20_000)]
        episodes: u64,
        /// Rounds; each round runs every configuration once
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// A smoke test: 500 episodes, one round
        #[arg(long)]
        quick: bool,
    },
    /// Builds release binaries for this machine's CPU (`-C target-cpu=native`)
    /// into target/native, apart from the portable x86-64-v3 build.
    ///
    /// Native builds can use instructions beyond x86-64-v3 (AVX-512 on recent
    /// CPUs): faster here, but they crash on older CPUs and under valgrind.
    Native {
        /// Further arguments for `cargo build`, such as `-p board --examples`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        cargo_args: Vec<OsString>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.recipe {
        Recipe::Native { cargo_args } => native(&cargo_args),
        Recipe::Bench {
            networks,
            episodes,
            runs,
            quick,
        } => {
            let (episodes, runs) = if quick { (500, 1) } else { (episodes, runs) };
            bench(&networks, episodes, runs)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("cargo xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: xtask lives one folder below it.
fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits inside the workspace")
        .to_path_buf()
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Runs `cargo ARGS` in the workspace root.
fn run_cargo(args: &[&str]) -> Result<(), String> {
    let status = Command::new(cargo())
        .current_dir(workspace_root())
        .args(args)
        .status()
        .map_err(|error| format!("could not run cargo: {error}"))?;
    if !status.success() {
        return Err(format!("cargo {} failed ({status})", args.join(" ")));
    }
    Ok(())
}

/// One measured configuration: its runs' training and testing moves/s.
struct Measured {
    network: String,
    threads: usize,
    train: Vec<f64>,
    test: Vec<f64>,
}

fn bench(networks: &[String], episodes: u64, runs: usize) -> Result<(), String> {
    run_cargo(&["build", "--release", "-p", "train"])?;
    let train = workspace_root().join("target/release/train");
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let mut threads = vec![1];
    if all > 1 {
        threads.push(all);
    }
    let mut measured: Vec<Measured> = networks
        .iter()
        .flat_map(|network| {
            threads.iter().map(|&threads| Measured {
                network: network.clone(),
                threads,
                train: Vec::new(),
                test: Vec::new(),
            })
        })
        .collect();
    let scratch = std::env::temp_dir().join(format!("2048lab-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let plan = format!("1x{episodes}");
    for round in 1..=runs {
        for entry in &mut measured {
            eprintln!(
                "round {round}/{runs}: {} on {} thread(s)",
                entry.network, entry.threads
            );
            let output = Command::new(&train)
                .current_dir(&scratch)
                .args(["-n", &entry.network, "-t", &plan, "-e", &plan, "-s", "1"])
                .args([
                    "-p",
                    &entry.threads.to_string(),
                    "--restart",
                    "-o",
                    "bench.nw",
                ])
                .output()
                .map_err(|error| format!("could not run {}: {error}", train.display()))?;
            if !output.status.success() {
                return Err(format!(
                    "train failed: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
            let speeds = block_speeds(&String::from_utf8_lossy(&output.stdout));
            let [trained, tested] = speeds[..] else {
                return Err(format!(
                    "expected two block lines from train, found {}",
                    speeds.len()
                ));
            };
            entry.train.push(trained);
            entry.test.push(tested);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!("| network | threads | training moves/s | testing moves/s |");
    println!("|---|---|---|---|");
    for entry in &measured {
        println!(
            "| {} | {} | {} | {} |",
            entry.network,
            entry.threads,
            summarise(&entry.train),
            summarise(&entry.test)
        );
    }
    println!(
        "\n{runs} round(s) of {episodes} episodes; median (min-max) in millions of moves per second."
    );
    Ok(())
}

/// The moves/s of every block line (`001/001 367ms 1364722.07ops`).
fn block_speeds(log: &str) -> Vec<f64> {
    log.lines()
        .filter(|line| line.starts_with(|c: char| c.is_ascii_digit()) && line.contains('/'))
        .filter_map(|line| {
            line.split_whitespace()
                .nth(2)?
                .strip_suffix("ops")?
                .parse()
                .ok()
        })
        .collect()
}

/// `2.41 M (2.30-2.59)`: the median and range, in millions.
fn summarise(values: &[f64]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    format!(
        "{:.2} M ({:.2}-{:.2})",
        median / 1e6,
        sorted[0] / 1e6,
        sorted[sorted.len() - 1] / 1e6
    )
}

fn native(cargo_args: &[OsString]) -> Result<(), String> {
    let root = workspace_root();
    let target_dir = root.join("target/native");
    let cargo = cargo();
    let status = Command::new(&cargo)
        .current_dir(&root)
        // RUSTFLAGS replaces the x86-64-v3 flags of .cargo/config.toml.
        .env("RUSTFLAGS", "-C target-cpu=native")
        .args(["build", "--release", "--target-dir"])
        .arg(&target_dir)
        .args(cargo_args)
        .status()
        .map_err(|error| format!("could not run {}: {error}", cargo.to_string_lossy()))?;
    if !status.success() {
        return Err(format!("the native build failed ({status})"));
    }
    println!(
        "native binaries are in {}",
        target_dir.join("release").display()
    );
    Ok(())
}
