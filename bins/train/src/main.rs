//! `train`: trains an n-tuple network for 2048 by TD learning, as TDL2048+
//! does, and optionally evaluates it. With no arguments it trains 4x6patt for
//! 100,000 episodes and saves it as 4x6patt.nw.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use cli_game::{EpisodeBar, LearnArgs, PlayArgs};
use learn::checkpoint::Settings;
use learn::session;
use learn::{Carousel, Log, Mode, Plan, Player, Run, Target, Valued};
use ntuple::Source;

/// Trains an n-tuple network for 2048 by afterstate TD(0) learning, as
/// TDL2048+ does, printing its block statistics; saves a checkpoint every
/// few blocks, so that running the same command again after a kill resumes.
#[derive(Parser, Debug)]
#[command(name = "train", version)]
struct Args {
    /// The network: built-in names (4x6patt, 8x6patt, 2x4patt, ...) and/or
    /// patterns of hex cells (012345 456789), and TDL2048+'s statistic
    /// features (mono, num, merge); `!` after a pattern reads it without
    /// isomorphism; `=VALUE` starts its weights at VALUE
    /// (4x6patt=320000/norm: 320000 divided among the features, optimistic
    /// TD), `=+VALUE` adds VALUE to a loaded network's [default: 4x6patt,
    /// or the network of --input]
    #[arg(short = 'n', long, num_args = 1.., value_name = "PATTERN")]
    network: Option<Vec<String>>,

    /// Training episodes: BLOCKS of 1000, or BLOCKSxSIZE
    #[arg(
        short = 't',
        long = "train",
        default_value = "100",
        value_name = "EPISODES"
    )]
    plan: Plan,

    /// Evaluate the trained network at 1-ply afterwards: BLOCKS or BLOCKSxSIZE games
    #[arg(short = 'e', long, value_name = "GAMES")]
    evaluate: Option<Plan>,

    /// Start from the weights in these files (2048lab's format or TDL2048+'s
    /// .w); several are averaged table by table, and [0-3]|FILE takes only
    /// those tables of FILE
    #[arg(short = 'i', long, num_args = 1.., value_name = "FILE")]
    input: Vec<Source>,

    /// Save the trained weights here; a name ending in .w writes TDL2048+'s
    /// format, and [0-3]|FILE only those tables [default: NETWORK.nw]
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<Source>,

    /// Learn by temporal coherence (TC, TDL2048+'s `coherence`): a learning
    /// rate per weight from the agreement of its updates; histories take
    /// twice the weights' memory and are kept in checkpoints
    #[arg(long)]
    tc: bool,

    /// Learn the values of states (positions after the random tile, as the
    /// classic notes do) instead of afterstates: moves are chosen by the
    /// reward plus the value expected over every tile that may appear, some
    /// thirty estimates a move instead of four. With TD(0) online; the saved
    /// network says so, and eval plays it the same way
    #[arg(long)]
    states: bool,

    /// Carousel shaping (TDL2048+'s -b), with TD(0): after each game, play
    /// again from its last board that made a tile of BLOCK or more, its
    /// large tiles raised to the next combination (2048, 4096, 4096 and
    /// 2048, 8192, ...), until the combination would reach LIMIT; only the
    /// first game counts in the statistics [default when given alone: 2048
    /// 65536]
    #[arg(
        short = 'b',
        long,
        value_names = ["BLOCK", "LIMIT"],
        num_args = 0..=2,
        default_missing_value = "2048"
    )]
    block: Option<Vec<String>>,

    #[command(flatten)]
    learn: LearnArgs,

    #[command(flatten)]
    play: PlayArgs,
}

fn main() -> ExitCode {
    cli_game::main_with("train", || train(Args::parse()))
}

/// The carousel shaping of `-b BLOCK [LIMIT]`: BLOCK a tile from 2 to
/// 32768, LIMIT a combination above it, at most 65536 (the tiles a board
/// holds).
fn carousel(words: &[String]) -> anyhow::Result<Carousel> {
    let number = |word: &String| word.parse::<u32>().ok();
    let block = number(&words[0])
        .filter(|block| block.is_power_of_two() && (2..=32768).contains(block))
        .with_context(|| format!("-b {}: not a tile from 2 to 32768", words[0]))?;
    let limit = match words.get(1) {
        Some(word) => number(word)
            .filter(|&limit| limit > block && limit <= 65536)
            .with_context(|| {
                format!(
                    "-b {block} {word}: the limit is a sum of tiles above {block}, at most 65536"
                )
            })?,
        None => Carousel::default().limit,
    };
    Ok(Carousel { block, limit })
}

fn train(args: Args) -> anyhow::Result<()> {
    let limit = args.play.run.memory_limit();
    let words = match (&args.network, args.input.is_empty()) {
        (None, true) => Some(vec!["4x6patt".to_owned()]),
        (words, _) => words.clone(),
    };
    let network = cli_game::network(
        words.as_deref(),
        &args.input,
        (args.play.stages.as_ref(), args.play.precision()),
        limit,
    )?;
    let output = args.output.clone().unwrap_or_else(|| Source {
        path: cli_game::default_output(words.as_deref(), ".nw"),
        tables: None,
    });
    cli::check_output(&output.path)?;
    let inputs: Vec<cli::Named> = args
        .input
        .iter()
        .map(|source| cli::Named::new("-i", &source.path))
        .collect();
    let mut outputs = vec![cli::Named::new("-o", &output.path)];
    outputs.extend(
        args.play
            .run
            .log
            .as_deref()
            .map(|log| cli::Named::new("--log", log)),
    );
    cli::refuse_overlaps(&inputs, &outputs)?;
    let (seed_text, seed) = args.learn.seed(&args.play.run, &output.path)?;
    let mut learning = args.learn.learning(args.tc)?;
    learning.carousel = args.block.as_deref().map(carousel).transpose()?;
    anyhow::ensure!(
        learning.carousel.is_none()
            || (learning.target == Target::OneStep && learning.restart.is_none()),
        "-b learns by TD(0): not with -N, -l or --restarts"
    );
    let valued = if args.states {
        anyhow::ensure!(
            learning.mode == Mode::Online
                && learning.target == Target::OneStep
                && learning.restart.is_none()
                && learning.carousel.is_none(),
            "--states learns by TD(0) online: not with -m, -N, -l, --restarts or -b"
        );
        Valued::States
    } else {
        Valued::Afterstates
    };
    let patterns: Vec<String> = network.patterns().iter().map(ToString::to_string).collect();
    let tc = if args.tc { " (TC)" } else { "" };
    let states = if args.states { " (states)" } else { "" };
    let half = if args.play.f16 { " (f16)" } else { "" };
    let settings = Settings {
        network: format!("{}{tc}{states}{half}", patterns.join(" ")),
        plan: args.plan,
        seed,
        learning,
        four_rate: args.play.four_rate,
    };
    let checkpointing = args
        .learn
        .checkpointing("train", &output.path, settings, &seed_text);
    let resumed = args.learn.resumed(checkpointing.as_ref());
    let (mut network, progress) = session::start(resumed, network)?;
    if args.tc {
        network.enable_coherence(limit.saturating_sub(network.memory_bytes()))?;
    }

    let mut log = Log::open(args.play.run.log.as_deref())?;
    let rate = learning.rate(network.feature_count());
    let extra = [format!(
        "{}{}{}",
        cli_game::describe_learning(&learning, rate),
        if args.tc { ", temporal coherence" } else { "" },
        if args.states { ", state values" } else { "" }
    )];
    log.write(&cli_game::header(
        "train",
        &seed_text,
        args.play.run.threads,
        &network,
        &extra,
    ))?;
    if let (Some(progress), Some(resumed)) = (&progress, resumed) {
        log.write(&resumed.resume_line(progress, args.plan.blocks))?;
    }
    log.write(&format!("train: {}\n\n", args.plan))?;
    let done = progress
        .as_ref()
        .map_or(0, |progress| progress.total.episodes);
    let bar = EpisodeBar::new(args.plan, done, &mut log);
    let spawns = args.play.spawns();
    let run = Run {
        player: Player::Greedy {
            network: &network,
            valued,
            learning: Some(learning),
        },
        spawns,
        seed,
        threads: usize::from(args.play.run.threads),
        plan: args.plan,
        progress: bar.progress(),
    };
    let total = session::train(
        args.plan,
        &network,
        (checkpointing.as_ref(), progress),
        |index| run.block(index),
        |block| log.write(&block.report(args.plan.blocks, args.play.win)),
    )?;
    // The bar goes before the output is saved; so does Ctrl-C's safe stop.
    drop(bar);
    cli::stop_at_once();

    let mut metadata = session::trained_metadata(&total, &learning, &seed_text);
    metadata.insert("values".to_owned(), valued.to_string());
    // The histories only matter for going on with TC training, which a
    // checkpoint resumes; the trained network is its weights.
    network.disable_coherence();
    session::finish(checkpointing.as_ref(), || {
        cli_game::save(&network, &output, &metadata)
    })?;
    log.write(&format!("saved {output}\n\n"))?;

    if let Some(plan) = args.evaluate {
        log.write(&format!("evaluate: {plan}\n\n"))?;
        let bar = EpisodeBar::new(plan, 0, &mut log);
        let run = Run {
            player: Player::Greedy {
                network: &network,
                valued,
                learning: None,
            },
            spawns,
            seed: learn::seed_from_text(&format!("{seed_text}/evaluate")),
            threads: usize::from(args.play.run.threads),
            plan,
            progress: bar.progress(),
        };
        session::evaluate(&run, &mut log, args.play.win, None)?;
    }
    Ok(())
}
