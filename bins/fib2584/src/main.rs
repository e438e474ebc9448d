//! `fib2584`: trains n-tuple networks for 2584 Fibonacci by TD(0) afterstate
//! learning, evaluates them at 1-ply with the course framework's statistics
//! and episode records, and replays record files to check them.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use clap::Parser;
use cli::RecordFile;
use cli_game::{EpisodeBar, LearnArgs, RunArgs};
use fib2584::record::{Names, Record, play_recorded};
use fib2584::{Fibonacci, Network, default_radix, report, tile};
use learn::checkpoint::Settings;
use learn::session;
use learn::{Log, Plan, Stats, episode_rng, play, play_episodes, run_blocks};
use ntuple::parse_patterns;

/// Trains and evaluates n-tuple networks for 2584 Fibonacci, the game of
/// the Theory of Computer Games course: afterstate TD(0) learning, 1-ply
/// play, the course's statistics blocks and episode records.
///
/// Training saves a checkpoint every few blocks, so that running the same
/// command again after a kill resumes.
#[derive(Parser, Debug)]
#[command(name = "fib2584", version, arg_required_else_help = true)]
// The shared options' help names train's temporal coherence and eval's
// search, which this program has not.
#[command(mut_arg("alpha", |arg| arg.help(
    "Learning rate, divided by the number of features unless --norm is given [default: 0.1]"
)))]
#[command(mut_arg("mode", |arg| arg.help(
    "When afterstates are updated: online (the default), forward or backward (after the episode)"
)))]
#[command(mut_arg("memory", |arg| arg.help(
    "Refuse networks whose weights need more memory than this (e.g. 8G) [default: the memory available now]"
)))]
struct Args {
    /// The network: built-in names (8x4patt: rows and columns, 8 tables;
    /// 2x4patt: outer and inner lines shared by symmetry; 4x6patt) and/or
    /// patterns of hex cells; `!` after a pattern reads it without
    /// isomorphism [default: 8x4patt, or the network of --input]
    #[arg(short = 'n', long, num_args = 1.., value_name = "PATTERN")]
    network: Option<Vec<String>>,

    /// Tile kinds kept apart in table indices: tile indices from RADIX-1 up
    /// share one, so a pattern of n cells has RADIX^n weights [default: the
    /// largest, up to 32, whose tables fit the course's 2 GiB; 22 for
    /// 4x6patt]
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=32))]
    radix: Option<u32>,

    /// Training episodes: BLOCKS of 1000, or BLOCKSxSIZE
    #[arg(short = 't', long = "train", value_name = "EPISODES")]
    plan: Option<Plan>,

    /// Evaluate at 1-ply (after training, if any): BLOCKS or BLOCKSxSIZE games
    #[arg(short = 'e', long, value_name = "GAMES")]
    evaluate: Option<Plan>,

    /// Start from the weights in this file (a 2584 network saved by fib2584)
    #[arg(short = 'i', long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// Save the trained weights here [default: NETWORK.fib.nw]
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Write the evaluation games to this file as the course's episode records
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Replay the episode records in this file, check them against the rules
    /// and print their statistics; nothing else is done
    #[arg(long, value_name = "FILE", conflicts_with_all = ["plan", "evaluate", "input", "record"])]
    replay: Option<PathBuf>,

    #[command(flatten)]
    run: RunArgs,

    #[command(flatten)]
    learn: LearnArgs,
}

fn main() -> ExitCode {
    cli_game::main_with("fib2584", || run(Args::parse()))
}

fn run(args: Args) -> anyhow::Result<()> {
    let outputs = [
        ("-o", &args.output),
        ("--record", &args.record),
        ("--log", &args.run.log),
    ];
    let outputs: Vec<cli::Named> = outputs
        .iter()
        .filter_map(|(option, path)| Some(cli::Named::new(option, path.as_deref()?)))
        .collect();
    cli::refuse_overlaps(&inputs(&args), &outputs)?;
    let mut log = Log::open(args.run.log.as_deref())?;
    if let Some(path) = &args.replay {
        return replay(path, &mut log);
    }
    if args.plan.is_none() && args.evaluate.is_none() {
        anyhow::bail!(
            "nothing to do: give -t to train, -e to evaluate, or --replay to check records"
        );
    }
    let limit = args.run.memory_limit();
    let words = match (&args.network, &args.input) {
        (None, None) => Some(vec!["8x4patt".to_owned()]),
        (words, _) => words.clone(),
    };
    let patterns = words.as_deref().map(parse_patterns).transpose()?;
    let network = match &args.input {
        Some(path) => {
            let (network, _) = Network::load(path, patterns.as_deref(), limit)?;
            if let Some(radix) = args.radix.filter(|&radix| radix != network.radix()) {
                anyhow::bail!(
                    "{}: its tables have radix {}, not {radix}",
                    path.display(),
                    network.radix()
                );
            }
            network
        }
        None => {
            let patterns = patterns.expect("a network is named when none is loaded");
            let radix = args.radix.unwrap_or_else(|| default_radix(&patterns));
            Network::new(patterns, radix, limit)?
        }
    };
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| cli_game::default_output(words.as_deref(), ".fib.nw"));
    cli::refuse_overlaps(&inputs(&args), &[cli::Named::new("-o", &output)])?;
    // A training run given no seed resumes with its checkpoint's.
    let (seed_text, seed) = match args.plan {
        Some(_) => args.learn.seed(&args.run, &output)?,
        None => args.run.seed(),
    };
    log.write(&cli_game::header_for(
        "fib2584",
        &seed_text,
        args.run.threads,
        &network.describe(),
        &[],
    ))?;
    let network = match args.plan {
        Some(plan) => train(&args, network, plan, &output, (&seed_text, seed), &mut log)?,
        None => network,
    };
    if let Some(plan) = args.evaluate {
        let seed = learn::seed_from_text(&format!("{seed_text}/evaluate"));
        evaluate(&args, &network, plan, seed, &mut log)?;
    }
    Ok(())
}

/// The files `args` read: the network and the records to replay.
fn inputs(args: &Args) -> Vec<cli::Named<'_>> {
    let inputs = [("-i", &args.input), ("--replay", &args.replay)];
    inputs
        .into_iter()
        .filter_map(|(option, path)| Some(cli::Named::new(option, path.as_deref()?)))
        .collect()
}

/// Trains `network` by `plan`, resuming from a checkpoint of the same run,
/// and saves it to `output`; returns the trained network.
fn train(
    args: &Args,
    network: Network,
    plan: Plan,
    output: &Path,
    (seed_text, seed): (&str, u64),
    log: &mut Log,
) -> anyhow::Result<Network> {
    cli::check_output(output)?;
    let learning = args.learn.learning(false)?;
    let patterns: Vec<String> = network.patterns().iter().map(ToString::to_string).collect();
    let settings = Settings {
        network: format!("{} radix {}", patterns.join(" "), network.radix()),
        plan,
        seed,
        learning,
        four_rate: 0.1,
    };
    let checkpointing = args
        .learn
        .checkpointing("fib2584", output, settings, seed_text);
    let resumed = args.learn.resumed(checkpointing.as_ref());
    let (network, progress) = session::start(resumed, network)?;
    if let (Some(progress), Some(resumed)) = (&progress, resumed) {
        log.write(&resumed.resume_line(progress, plan.blocks))?;
    }
    let done = progress
        .as_ref()
        .map_or(0, |progress| progress.total.episodes);
    log.write(&format!(
        "train: {plan}, {}\n\n",
        cli_game::describe_learning(&learning, learning.rate(network.feature_count()))
    ))?;
    let bar = EpisodeBar::new(plan, done, log);
    let game = Fibonacci::STANDARD;
    let threads = usize::from(args.run.threads);
    let block = |index: u64| {
        let first = index * plan.block_size;
        play_episodes(plan.block_size, threads, |episode| {
            let mut rng = episode_rng(seed, first + episode);
            let outcome = play(&game, &network, Some(&learning), &mut rng, &mut ());
            bar.progress().inspect(|count| count(&outcome));
            outcome
        })
    };
    let total = session::train(
        plan,
        &network,
        (checkpointing.as_ref(), progress),
        block,
        |block| {
            log.write(&report::block(
                block.total.episodes,
                block.local,
                block.elapsed,
            ))
        },
    )?;
    drop(bar);
    cli::stop_at_once();
    let metadata = session::trained_metadata(&total, &learning, seed_text);
    session::finish(checkpointing.as_ref(), || network.save(output, &metadata))?;
    log.write(&format!(
        "trained {} episodes: 2584 reached in {:.2}%\nsaved {}\n\n",
        total.episodes,
        100.0 * total.reach_rate(tile::GOAL),
        output.display()
    ))?;
    Ok(network)
}

/// Plays `plan`'s games at 1-ply without learning, printing the course's
/// blocks and summary, and writing the records if asked.
fn evaluate(
    args: &Args,
    network: &Network,
    plan: Plan,
    seed: u64,
    log: &mut Log,
) -> anyhow::Result<()> {
    log.write(&format!("evaluate: {plan}\n\n"))?;
    let records = args.record.as_deref().map(RecordFile::create).transpose()?;
    let bar = EpisodeBar::new(plan, 0, log);
    let game = Fibonacci::STANDARD;
    let names = Names::default();
    let threads = usize::from(args.run.threads);
    let block = |index: u64| {
        let first = index * plan.block_size;
        play_episodes(plan.block_size, threads, |episode| {
            let mut rng = episode_rng(seed, first + episode);
            let outcome = match &records {
                Some(records) => {
                    let (outcome, record) = play_recorded(&game, network, &names, &mut rng);
                    records.write(&record);
                    outcome
                }
                None => play(&game, network, None, &mut rng, &mut ()),
            };
            bar.progress().inspect(|count| count(&outcome));
            outcome
        })
    };
    let mut total = Stats::default();
    let elapsed = run_blocks(plan, 0, &mut total, block, |block| {
        log.write(&report::block(
            block.total.episodes,
            block.local,
            block.elapsed,
        ))
    })?;
    log.write(&format!(
        "summary\n{}2584 reached in {} of {} games ({:.2}%)\n",
        report::block(total.episodes, &total, elapsed),
        total.reached(tile::GOAL),
        total.episodes,
        100.0 * total.reach_rate(tile::GOAL)
    ))?;
    if let Some(records) = records {
        log.write(&format!("{}\n", records.finish()?))?;
    }
    Ok(())
}

/// Replays every record of the file at `path`, printing their statistics.
fn replay(path: &Path, log: &mut Log) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut total = Stats::default();
    // A record line is a game: tens of kilobytes, a few MiB at the most.
    for (number, line) in cli::bounded_lines(path, 64 << 20, "an episode record")?.enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let replayed = Record::parse(&line, number + 1)
            .and_then(|record| record.replay(number + 1))
            .with_context(|| path.display().to_string())?;
        total.record(replayed.outcome());
    }
    if total.episodes == 0 {
        anyhow::bail!("{}: holds no records", path.display());
    }
    log.write(&report::block(total.episodes, &total, start.elapsed()))?;
    log.write(&format!(
        "{} records follow the rules; 2584 reached in {} ({:.2}%)\n",
        total.episodes,
        total.reached(tile::GOAL),
        100.0 * total.reach_rate(tile::GOAL)
    ))?;
    Ok(())
}
