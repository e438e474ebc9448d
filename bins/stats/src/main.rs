//! `stats`: what TDL2048+'s helper scripts do with its logs, for logs of
//! TDL2048+ and of 2048lab alike.

#![forbid(unsafe_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use clap::{Parser, Subcommand};
use logfile::{Brief, LogBlock, LogRun, parse_log};
use plotters::prelude::*;

/// Reads logs in TDL2048+'s layout (written by TDL2048+, or by 2048lab's
/// train and eval) and in the 2584 course's (written by fib2584): block
/// statistics, reach rates, coarser blocks, plots.
#[derive(Parser, Debug)]
#[command(name = "stats", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Prints every block as a tab-separated row: log, run, block,
    /// episodes so far, avg, max, tile, win (the block's own figures)
    Blocks {
        /// Log files
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// Episodes per block when a log does not say [default: 1000]
        #[arg(long)]
        block_size: Option<u64>,
    },
    /// Prints the reach rate of every tile from each summary table
    Summary {
        /// Log files
        #[arg(required = true)]
        logs: Vec<PathBuf>,
    },
    /// Merges every N blocks into one, printed in TDL2048+'s block layout
    /// (the logs one after another)
    Merge {
        /// Blocks to merge into one
        #[arg(value_parser = clap::value_parser!(u64).range(1..))]
        every: u64,
        /// Log files
        #[arg(required = true)]
        logs: Vec<PathBuf>,
    },
    /// Draws the training curves of one or more logs on the same axes:
    /// average score and win rate per block against episodes (SVG)
    Plot {
        /// Log files; each run with blocks is one curve
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// The SVG file to write
        #[arg(short = 'o', long, value_name = "FILE")]
        output: PathBuf,
        /// Episodes per block when a log does not say [default: 1000]
        #[arg(long)]
        block_size: Option<u64>,
        /// The title above the plot
        #[arg(long, default_value = "training curve")]
        title: String,
    },
}

fn main() -> ExitCode {
    cli::main_with("stats", || match Args::parse().command {
        Command::Blocks { logs, block_size } => blocks(&logs, block_size),
        Command::Summary { logs } => summary(&logs),
        Command::Merge { every, logs } => merge(every, &logs),
        Command::Plot {
            logs,
            output,
            block_size,
            title,
        } => plot(&logs, &output, block_size, &title),
    })
}

/// The longest log read: a TDL2048+ log of a million blocks is about 150 MB.
const MOST_LOG_BYTES: u64 = 1 << 30;

fn read(path: &Path) -> anyhow::Result<Vec<LogRun>> {
    let bytes = cli::read_bounded(path, MOST_LOG_BYTES, "a log")?;
    // Block lines are ASCII; a byte of another encoding elsewhere (a path
    // in Latin-1 in a header) must not make the whole log unreadable.
    let text = String::from_utf8_lossy(&bytes);
    let runs =
        parse_log(&text).map_err(|problem| anyhow::anyhow!("{}: {problem}", path.display()))?;
    if runs.iter().all(|run| run.blocks.is_empty()) {
        bail!(
            "{}: no block records (lines like `001/100 367ms 1364722.07ops`, or the 2584 \
             course's `1000<tab>avg = 13627, max = 59274, ops = 2055867`)",
            path.display()
        );
    }
    Ok(runs)
}

/// Episodes at the end of each block: the index times the block size.
fn episodes(run: &LogRun, block: &LogBlock, default: Option<u64>) -> u64 {
    block.index * run.block_size.or(default).unwrap_or(1000)
}

fn blocks(logs: &[PathBuf], block_size: Option<u64>) -> anyhow::Result<()> {
    let mut out = String::from("log\trun\tblock\tepisodes\tavg\tmax\ttile\twin\n");
    for path in logs {
        for (number, run) in read(path)?.iter().enumerate() {
            for block in &run.blocks {
                let Brief {
                    avg,
                    max,
                    tile,
                    win,
                } = block.local;
                out += &format!(
                    "{}\t{}\t{}\t{}\t{avg}\t{max}\t{tile}\t{win:.2}\n",
                    path.display(),
                    number + 1,
                    block.index,
                    episodes(run, block, block_size)
                );
            }
        }
    }
    print(&out)
}

fn summary(logs: &[PathBuf]) -> anyhow::Result<()> {
    let mut out = String::from("log\trun\ttile\treach\n");
    let mut found = false;
    for path in logs {
        let runs = read(path)?;
        if runs.iter().all(|run| run.summary.is_empty()) {
            // A log of a run stopped early: the others still count.
            eprintln!("stats: {}: no summary table, left out", path.display());
            continue;
        }
        found = true;
        for (number, run) in runs.iter().enumerate() {
            for row in &run.summary {
                out += &format!(
                    "{}\t{}\t{}\t{:.2}%\n",
                    path.display(),
                    number + 1,
                    row.tile,
                    row.reach
                );
            }
        }
    }
    if !found {
        bail!("no summary table in any of the logs");
    }
    print(&out)
}

fn merge(every: u64, logs: &[PathBuf]) -> anyhow::Result<()> {
    let mut out = String::new();
    let runs = logs
        .iter()
        .map(|path| read(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    for (path, runs) in logs.iter().zip(&runs) {
        let timed = |block: &LogBlock| block.millis.zip(block.total);
        if runs
            .iter()
            .flat_map(|run| &run.blocks)
            .any(|block| timed(block).is_none())
        {
            bail!(
                "{}: a log in the 2584 course's layout: merge writes TDL2048+'s, which needs \
                 each block's time and running totals, and the course's blocks have neither",
                path.display()
            );
        }
    }
    for run in runs.iter().flatten().filter(|run| !run.blocks.is_empty()) {
        let groups: Vec<&[LogBlock]> = run.blocks.chunks(every as usize).collect();
        for (number, group) in groups.iter().enumerate() {
            let millis: u64 = group.iter().filter_map(|b| b.millis).sum();
            let moves: f64 = group
                .iter()
                .filter_map(|b| Some(b.ops * b.millis? as f64 / 1000.0))
                .sum();
            let count = group.len() as f64;
            let local = Brief {
                avg: (group.iter().map(|b| b.local.avg as f64).sum::<f64>() / count) as u64,
                max: group.iter().map(|b| b.local.max).max().unwrap_or(0),
                tile: group.iter().map(|b| b.local.tile).max().unwrap_or(0),
                win: group.iter().map(|b| b.local.win).sum::<f64>() / count,
            };
            let total = group
                .last()
                .and_then(|block| block.total)
                .expect("chunks are not empty, and their blocks have totals");
            let width = groups.len().to_string().len().max(3);
            out += &format!(
                "{:0width$}/{:0width$} {millis}ms {:.2}ops\nlocal:  {}\ntotal:  {}\n\n",
                number + 1,
                groups.len(),
                moves / (millis.max(1) as f64 / 1000.0),
                brief(&local),
                brief(&total)
            );
        }
    }
    print(&out)
}

fn brief(b: &Brief) -> String {
    format!(
        "avg={} max={} tile={} win={:.2}%",
        b.avg, b.max, b.tile, b.win
    )
}

/// One curve: its label and (episodes, avg, win) per block.
type Curve = (String, Vec<(f64, f64, f64)>);

fn plot(
    logs: &[PathBuf],
    output: &Path,
    block_size: Option<u64>,
    title: &str,
) -> anyhow::Result<()> {
    cli::check_output(output)?;
    let inputs: Vec<cli::Named> = logs.iter().map(|log| cli::Named::new("LOG", log)).collect();
    cli::refuse_overlaps(&inputs, &[cli::Named::new("-o", output)])?;
    anyhow::ensure!(
        output
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("svg")),
        "-o {}: the plot is SVG; name the file .svg",
        output.display()
    );
    let mut curves: Vec<Curve> = Vec::new();
    for path in logs {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        curves.extend(curves_of(&read(path)?, &name, block_size));
    }
    let mut svg = String::new();
    draw(&curves, &mut svg, title)
        .map_err(|error| anyhow::anyhow!("{}: {error}", output.display()))?;
    // Drawn in memory and written under a temporary name, so that a plot
    // that fails leaves the file before it as it was.
    system::write_atomically(output, |mut file| {
        file.write_all(svg.as_bytes())?;
        Ok(file)
    })?;
    Ok(())
}

/// The curves of a log's runs with blocks, each labelled by `name` (and
/// its kind and number where the log has several). A training run's blocks
/// stand at the episodes trained; an evaluation that follows training
/// measures the trained network, so it is one point at the episodes
/// trained: the mean of its blocks.
fn curves_of(runs: &[LogRun], name: &str, block_size: Option<u64>) -> Vec<Curve> {
    let with_blocks: Vec<&LogRun> = runs.iter().filter(|run| !run.blocks.is_empty()).collect();
    let mut trained: Option<f64> = None;
    let mut curves = Vec::new();
    for (number, run) in with_blocks.iter().enumerate() {
        let label = match with_blocks.len() {
            1 => name.to_owned(),
            _ => format!("{name} ({} {})", run.kind, number + 1),
        };
        let points: Vec<(f64, f64, f64)> = run
            .blocks
            .iter()
            .map(|b| {
                (
                    episodes(run, b, block_size) as f64,
                    b.local.avg as f64,
                    b.local.win,
                )
            })
            .collect();
        let points = match (run.kind.as_str(), trained) {
            ("evaluate", Some(trained)) => {
                let count = points.len() as f64;
                let mean = |pick: fn(&(f64, f64, f64)) -> f64| {
                    points.iter().map(pick).sum::<f64>() / count
                };
                vec![(trained, mean(|p| p.1), mean(|p| p.2))]
            }
            _ => points,
        };
        if run.kind == "train" {
            trained = points.last().map(|point| point.0);
        }
        curves.push((label, points));
    }
    curves
}

fn draw(curves: &[Curve], svg: &mut String, title: &str) -> Result<(), Box<dyn std::error::Error>> {
    let episodes = curves
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold(1.0, f64::max);
    let best = curves
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(1.0, f64::max);
    let root = SVGBackend::with_string(svg, (900, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let (top, bottom) = root.split_vertically(380);
    let mut scores = ChartBuilder::on(&top)
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..episodes, 0.0..best * 1.1)?;
    scores
        .configure_mesh()
        .y_desc("average score per block")
        .x_label_formatter(&|x| format!("{}k", x / 1000.0))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    let mut rates = ChartBuilder::on(&bottom)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..episodes, 0.0..100.0)?;
    rates
        .configure_mesh()
        .x_desc("episodes")
        .y_desc("win rate per block (%)")
        .x_label_formatter(&|x| format!("{}k", x / 1000.0))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    for (number, (label, points)) in curves.iter().enumerate() {
        let color = Palette99::pick(number).to_rgba();
        scores
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.0, p.1)),
                color.stroke_width(2),
            ))?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        rates.draw_series(LineSeries::new(
            points.iter().map(|p| (p.0, p.2)),
            color.stroke_width(2),
        ))?;
        // Markers show where the blocks are, and so where a curve is only
        // drawn between sparse points.
        let marker = |x: f64, y: f64| Circle::new((x, y), 3, color.filled());
        scores.draw_series(points.iter().map(|p| marker(p.0, p.1)))?;
        rates.draw_series(points.iter().map(|p| marker(p.0, p.2)))?;
    }
    scores
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An evaluation after training is the trained network's: one point at
    /// the episodes trained, not a curve from episode 1000.
    #[test]
    fn an_evaluation_after_training_stands_at_its_end() {
        let log = "train: 2x1000\n\n\
                   001/002 10ms 100.00ops\nlocal:  avg=100 max=200 tile=16 win=0.00%\ntotal:  avg=100 max=200 tile=16 win=0.00%\n\n\
                   002/002 10ms 100.00ops\nlocal:  avg=300 max=600 tile=64 win=0.00%\ntotal:  avg=200 max=600 tile=64 win=0.00%\n\n\
                   evaluate: 2x500\n\n\
                   001/002 10ms 100.00ops\nlocal:  avg=400 max=800 tile=64 win=10.00%\ntotal:  avg=400 max=800 tile=64 win=10.00%\n\n\
                   002/002 10ms 100.00ops\nlocal:  avg=600 max=900 tile=64 win=30.00%\ntotal:  avg=500 max=900 tile=64 win=20.00%\n";
        let curves = curves_of(&parse_log(log).unwrap(), "run.x", None);
        assert_eq!(curves.len(), 2);
        assert_eq!(curves[0].1, [(1000.0, 100.0, 0.0), (2000.0, 300.0, 0.0)]);
        assert_eq!(curves[1].0, "run.x (evaluate 2)");
        assert_eq!(curves[1].1, [(2000.0, 500.0, 20.0)]);
        // An evaluation alone keeps its own episodes.
        let alone = &log[log.find("evaluate").unwrap()..];
        let curves = curves_of(&parse_log(alone).unwrap(), "eval.x", None);
        assert_eq!(curves[0].1, [(500.0, 400.0, 10.0), (1000.0, 600.0, 30.0)]);
    }
}
