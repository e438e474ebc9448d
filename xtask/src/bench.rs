//! `cargo xtask bench`: the speed table a user would quote.

use std::process::Command;

use crate::{run_cargo, workspace_root};

/// One measured configuration: its runs' training and testing moves/s.
struct Measured {
    network: String,
    threads: usize,
    train: Vec<f64>,
    test: Vec<f64>,
}

pub fn bench(networks: &[String], episodes: u64, runs: usize) -> Result<(), String> {
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
pub fn block_speeds(log: &str) -> Vec<f64> {
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
pub fn summarise(values: &[f64]) -> String {
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
