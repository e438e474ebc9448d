//! `train`: trains an n-tuple network for 2048 by TD learning, as TDL2048+
//! does, and optionally evaluates it. With no arguments it trains 4x6patt for
//! 100,000 episodes and saves it as 4x6patt.nw.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use cli::PlayArgs;
use learn::checkpoint::{self, Settings};
use learn::session::{self, Checkpointing};
use learn::{Learning, Log, Mode, Plan, Player, Run};
use ntuple::{Metadata, Source, parse_patterns};

/// Trains an n-tuple network for 2048 by afterstate TD(0) learning, as
/// TDL2048+ does, printing its block statistics; saves a checkpoint every
/// few blocks, so that running the same command again after a kill resumes.
#[derive(Parser, Debug)]
#[command(name = "train", version)]
struct Args {
    /// The network: built-in names (4x6patt, 8x6patt, 2x4patt, ...) and/or
    /// patterns of hex cells (012345 456789); `!` after a pattern reads it
    /// without isomorphism [default: 4x6patt, or the network of --input]
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

    /// Learning rate, divided by the number of features unless --norm is given
    #[arg(short = 'a', long, default_value_t = 0.1, value_parser = parse_alpha)]
    alpha: f32,

    /// Divide the learning rate by this instead of the number of features
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    norm: Option<u32>,

    /// When afterstates are updated: online (TDL2048+'s default), forward or backward
    #[arg(short = 'm', long, default_value = "online")]
    mode: Mode,

    /// Start from the weights in these files (2048lab's format or TDL2048+'s
    /// .w); several are averaged table by table, and [0-3]|FILE takes only
    /// those tables of FILE
    #[arg(short = 'i', long, num_args = 1.., value_name = "FILE")]
    input: Vec<Source>,

    /// Save the trained weights here; a name ending in .w writes TDL2048+'s
    /// format, and [0-3]|FILE only those tables [default: NETWORK.nw]
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<Source>,

    /// Save a checkpoint (OUTPUT.checkpoint) after every this many blocks
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    checkpoint_every: u64,

    /// Ignore an existing checkpoint and start again
    #[arg(long)]
    restart: bool,

    #[command(flatten)]
    play: PlayArgs,
}

fn main() -> ExitCode {
    cli::main_with("train", || train(Args::parse()))
}

fn train(args: Args) -> anyhow::Result<()> {
    let limit = args.play.memory_limit();
    let words = match (&args.network, args.input.is_empty()) {
        (None, true) => Some(vec!["4x6patt".to_owned()]),
        (words, _) => words.clone(),
    };
    let network = cli::network(
        words.as_deref(),
        &args.input,
        args.play.stages.as_ref(),
        limit,
    )?;
    let output = args.output.clone().unwrap_or_else(|| Source {
        path: default_output(words.as_deref()),
        tables: None,
    });
    // Found out now, not after the first blocks of training.
    if let Some(folder) = output
        .path
        .parent()
        .filter(|f| !f.as_os_str().is_empty() && !f.is_dir())
    {
        anyhow::bail!(
            "{}: no such folder to save {} in",
            folder.display(),
            output.path.display()
        );
    }
    let checkpoint_path = with_suffix(&output.path, ".checkpoint");
    let (seed_text, seed) = args.play.seed();
    let learning = Learning {
        alpha: args.alpha,
        norm: args.norm,
        mode: args.mode,
    };
    let patterns: Vec<String> = network.patterns().iter().map(ToString::to_string).collect();
    let settings = Settings {
        network: patterns.join(" "),
        plan: args.plan,
        seed,
        learning,
        four_rate: args.play.four_rate,
    };
    let (network, progress) = if !args.restart && checkpoint_path.exists() {
        // The checkpoint holds the weights to go on with: free these first,
        // so that two networks never occupy memory at once.
        drop(network);
        let (network, progress) =
            checkpoint::load(&checkpoint_path, &settings)?.with_context(|| {
                format!("{}: disappeared while starting", checkpoint_path.display())
            })?;
        (network, Some(progress))
    } else {
        (network, None)
    };

    let mut log = Log::open(args.play.log.as_deref())?;
    let rate = learning.rate(network.feature_count());
    let extra = [format!(
        "alpha = {} (rate {rate:e} per feature), mode = {}",
        learning.alpha, learning.mode
    )];
    log.write(&cli::header(
        "train",
        &seed_text,
        args.play.threads,
        &network,
        &extra,
    ))?;
    if let Some(progress) = &progress {
        log.write(&format!(
            "resume: {} of {} blocks done, from {}\n\n",
            progress.blocks_done,
            args.plan.blocks,
            checkpoint_path.display()
        ))?;
    }
    log.write(&format!("train: {}\n\n", args.plan))?;
    let run = Run {
        player: Player::Greedy {
            network: &network,
            learning: Some(learning),
        },
        spawns: args.play.spawns(),
        seed,
        threads: usize::from(args.play.threads),
        plan: args.plan,
    };
    let checkpointing = Checkpointing {
        path: checkpoint_path.clone(),
        every: args.checkpoint_every,
        settings,
    };
    let total = session::train(
        &run,
        &mut log,
        args.play.win,
        Some(&checkpointing),
        progress,
    )?;

    let metadata = Metadata::from([
        ("trained_episodes".to_owned(), total.episodes.to_string()),
        ("alpha".to_owned(), learning.alpha.to_string()),
        ("mode".to_owned(), learning.mode.to_string()),
        ("seed".to_owned(), seed_text.clone()),
    ]);
    cli::save(&network, &output, &metadata)?;
    // The output now holds everything the checkpoint did.
    let _ = std::fs::remove_file(&checkpoint_path);
    log.write(&format!("saved {output}\n\n"))?;

    if let Some(plan) = args.evaluate {
        log.write(&format!("evaluate: {plan}\n\n"))?;
        let run = Run {
            player: Player::Greedy {
                network: &network,
                learning: None,
            },
            seed: learn::seed_from_text(&format!("{seed_text}/evaluate")),
            plan,
            ..run
        };
        session::evaluate(&run, &mut log, args.play.win)?;
    }
    Ok(())
}

fn parse_alpha(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(alpha) if alpha.is_finite() && alpha >= 0.0 => Ok(alpha),
        _ => Err(format!(
            "{text:?} is not a learning rate (a number, 0 or more)"
        )),
    }
}

/// `4x6patt.nw`, or the patterns joined by `-` for a custom network.
fn default_output(words: Option<&[String]>) -> PathBuf {
    let name = match words {
        Some(words) if parse_patterns(words).is_ok() => words.join("-").replace('!', ""),
        _ => "network".to_owned(),
    };
    PathBuf::from(format!("{name}.nw"))
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}
