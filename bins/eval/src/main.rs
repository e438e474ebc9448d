//! `eval`: plays games with a trained n-tuple network, or without one with a
//! hand-made heuristic, greedily or by expectimax search, and prints
//! TDL2048+'s block statistics and summary table.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use board::GameRecord;
use clap::Parser;
use cli::RecordFile;
use cli_game::{EpisodeBar, PlayArgs};
use learn::{Log, Plan, Player, Run, Valued, session};
use ntuple::Source;
use search::{Depth, Evaluator, Heuristic, Limits, Settings, TranspositionTable};

/// Plays games with a trained n-tuple network, greedily (1-ply: the move
/// with the largest reward + value of its afterstate) or by expectimax
/// search, and prints the statistics of every block and a summary by
/// largest tile, in TDL2048+'s layout. Without a network it plays with a
/// hand-made heuristic (the classic expectimax bots') at an adaptive depth.
#[derive(Parser, Debug)]
#[command(name = "eval", version)]
// The player's options leave no other way of playing to be ignored.
#[command(group(
    clap::ArgGroup::new("the_player")
        .args(["player", "player_depth", "tables", "min_rate", "leaf_rates"])
        .multiple(true)
        .conflicts_with_all(["input", "depth", "adaptive", "limit", "cache", "peek", "downgrade"])
))]
struct Args {
    /// The weights to play with (2048lab's format or TDL2048+'s .w); several
    /// files are averaged table by table (an ensemble), and [0-3]|FILE takes
    /// only those tables of FILE [default: no network: the heuristic]
    #[arg(short = 'i', long, num_args = 1.., value_name = "FILE")]
    input: Vec<Source>,

    /// The file's network (names or patterns, as for train): required to
    /// match it; for a .w file it also says which tables are read without
    /// isomorphism (8x4patt) [default: from the file]
    #[arg(short = 'n', long, num_args = 1.., value_name = "PATTERN", requires = "input")]
    network: Option<Vec<String>>,

    /// Games to play: BLOCKS of 1000, or BLOCKSxSIZE [default: 10, or 1x100
    /// for the heuristic]
    #[arg(short = 'e', long, value_name = "GAMES")]
    evaluate: Option<Plan>,

    /// Search depth in TDL2048+'s plies: 1p is greedy, Np adds N - 1 layers
    /// of spawns and moves (docs/search.md) [default: 1p, or 2p adaptive for
    /// the heuristic]
    #[arg(short = 'd', long, value_name = "PLIES")]
    depth: Option<Depth>,

    /// Search deeper on boards of many distinct tiles, as the classic bots
    /// do (on by default for the heuristic)
    #[arg(long)]
    adaptive: bool,

    /// Cap the search depth by the number of empty cells: depths for 0, 1,
    /// 2, ... empty cells, the last repeated (TDL2048+'s limit=)
    #[arg(long, value_name = "PLIES,...")]
    limit: Option<Limits>,

    /// A transposition table of this size shared by all threads (e.g. 1G;
    /// rounded down to a power of two; 0 for none) [default: none, or 256M
    /// for the heuristic]
    #[arg(short = 'c', long, value_name = "SIZE", value_parser = cli::parse_memory)]
    cache: Option<u64>,

    /// Let a deeper result in the table answer a shallower query
    #[arg(long)]
    peek: bool,

    /// Play on a board that holds 65536 and beyond, and let the search see a
    /// downgraded copy once a tile reaches this one (TDL2048+'s -h 32768):
    /// tiles above the smallest missing one move down to fill it
    #[arg(long, value_name = "TILE", value_parser = cli_game::parse_tile)]
    downgrade: Option<u8>,

    /// Value chance nodes reached with a probability below this by the
    /// evaluator instead of searching them (e.g. 0.0001) [default: none, or
    /// 0.0001 for the heuristic]
    #[arg(
        long,
        value_name = "PROBABILITY",
        value_parser = parse_cutoff,
        allow_negative_numbers = true
    )]
    cutoff: Option<f64>,

    /// Play with the strong player: endgame tables where they apply, its
    /// own corner-anchored search elsewhere (docs/player.md)
    #[arg(long)]
    player: bool,

    /// The player's depth: plies, then deeper where few cells are empty;
    /// by default 3p,4p@5,5p@1 (3p, 4p with 5 empty cells or fewer, 5p with
    /// 1 or none)
    #[arg(long, value_name = "DEPTHS")]
    player_depth: Option<player::Depths>,

    /// The player's endgame tables: folders built by `tb-build build`, or
    /// folders of them as `tb-build set` writes (implies --player); a table
    /// that cannot be read is left out with a warning
    #[arg(long, num_args = 1.., value_name = "DIR")]
    tables: Vec<PathBuf>,

    /// The success rate from which a table's move is played (with --player)
    #[arg(long, value_name = "RATE", value_parser = parse_cutoff)]
    min_rate: Option<f64>,

    /// Values the player's search leaves that stand in a table by the
    /// table's rate too: K times the rate times the weight of the table's
    /// target is added to the evaluator's value (with --tables)
    #[arg(long, value_name = "K", value_parser = parse_scale)]
    leaf_rates: Option<f32>,

    /// Write every game, each move and spawn, to this file as game
    /// records (docs/records.md), which `play`'s replay mode opens
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    #[command(flatten)]
    play: PlayArgs,
}

fn main() -> ExitCode {
    cli_game::main_with("eval", || evaluate(Args::parse()))
}

fn parse_cutoff(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(probability) if (0.0..=1.0).contains(&probability) => Ok(probability),
        _ => Err(format!("{text:?} is not a probability (0 to 1)")),
    }
}

fn parse_scale(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(scale) if scale.is_finite() && scale >= 0.0 => Ok(scale),
        _ => Err(format!("{text:?} is not a scale (a number, 0 or more)")),
    }
}

fn evaluate(args: Args) -> anyhow::Result<()> {
    let inputs: Vec<cli::Named> = args
        .input
        .iter()
        .map(|source| cli::Named::new("-i", &source.path))
        .collect();
    let outputs = [("--log", &args.play.run.log), ("--record", &args.record)];
    let outputs: Vec<cli::Named> = outputs
        .iter()
        .filter_map(|(option, path)| Some(cli::Named::new(option, path.as_deref()?)))
        .collect();
    cli::refuse_overlaps(&inputs, &outputs)?;
    if args.player || !args.tables.is_empty() || args.player_depth.is_some() {
        return evaluate_player(&args);
    }
    anyhow::ensure!(
        args.min_rate.is_none() && args.leaf_rates.is_none(),
        "--min-rate, --leaf-rates: they are the player's; add --player or --tables"
    );
    let heuristic = args.input.is_empty();
    let network = if heuristic {
        anyhow::ensure!(
            args.play.stages.is_none(),
            "--stages: the heuristic has no stages; they are for a network read with -i"
        );
        None
    } else {
        let limit = args.play.run.memory_limit();
        Some(cli_game::network(
            args.network.as_deref(),
            &args.input,
            (args.play.stages.as_ref(), args.play.precision()),
            limit,
        )?)
    };
    let default_depth = if heuristic { "2p" } else { "1p" };
    let depth = args
        .depth
        .unwrap_or_else(|| default_depth.parse().expect("a valid depth"));
    let settings = Settings {
        limits: args.limit,
        cutoff: args.cutoff.or(heuristic.then_some(1e-4)),
        adaptive: args.adaptive || (heuristic && args.depth.is_none()),
        ..Settings::new(depth)
    };
    let plan = args.evaluate.unwrap_or(Plan {
        blocks: if heuristic { 1 } else { 10 },
        block_size: if heuristic { 100 } else { 1000 },
    });
    let cache = args
        .cache
        .or(heuristic.then_some(256 << 20))
        .filter(|&bytes| bytes > 0);
    anyhow::ensure!(
        cache.is_some() || !args.peek,
        "--peek: there is no transposition table to peek in; give one with -c"
    );
    if let Some(bytes) = cache.map(TranspositionTable::bytes_for) {
        let limit = args.play.run.memory_limit();
        let left = limit.saturating_sub(network.as_ref().map_or(0, ntuple::Network::memory_bytes));
        anyhow::ensure!(
            bytes <= left,
            "--cache: a table of {} needs more than the {} of memory left{} (--memory)",
            system::format_bytes(bytes),
            system::format_bytes(left),
            if network.is_some() {
                " beside the network"
            } else {
                ""
            }
        );
    }
    let table = cache.map(|bytes| TranspositionTable::new(bytes, args.peek));
    let heuristic_evaluator = heuristic.then(Heuristic::new);
    let evaluator: &(dyn Evaluator + Sync) = match (&network, &heuristic_evaluator) {
        (Some(network), _) => network,
        (None, Some(heuristic)) => heuristic,
        (None, None) => unreachable!("either a network or the heuristic"),
    };
    let greedy = depth.plies() == 1 && !settings.adaptive && args.downgrade.is_none();
    let valued = valued(&args.input);
    anyhow::ensure!(
        greedy || valued == Valued::Afterstates,
        "-i: a network of state values (train --states) is played greedily at 1-ply: leave \
         out -d, --adaptive and -h"
    );
    let player = match &network {
        Some(network) if greedy => Player::Greedy {
            network,
            valued,
            learning: None,
        },
        _ => Player::Search {
            evaluator,
            settings,
            table: table.as_ref(),
            downgrade: args.downgrade,
        },
    };

    let (seed_text, seed) = args.play.run.seed();
    let mut log = Log::open(args.play.run.log.as_deref())?;
    log.write(&header(
        &args,
        &seed_text,
        (network.as_ref(), valued),
        &settings,
        table.as_ref(),
    ))?;
    log.write(&format!("evaluate: {plan}\n\n"))?;
    let searched = matches!(player, Player::Search { .. });
    let (stats, seconds) = play(&args, player, plan, seed, &mut log)?;
    if searched {
        let moves = stats.moves.max(1) as f64;
        log.write(&format!(
            "search: {:.4} ms/move, {:.0} nodes/move, {:.2} M nodes/s (all threads)\n\n",
            1000.0 * seconds * f64::from(args.play.run.threads) / moves,
            stats.nodes as f64 / moves,
            stats.nodes as f64 / seconds / 1e6,
        ))?;
    }
    Ok(())
}

/// Plays the games of `plan` with `player` as `args` say, writing the
/// blocks' statistics to `log`; returns them and the seconds they took.
fn play(
    args: &Args,
    player: Player<'_>,
    plan: Plan,
    seed: u64,
    log: &mut Log,
) -> anyhow::Result<(learn::Stats, f64)> {
    let bar = EpisodeBar::new(plan, 0, log);
    let run = Run {
        player,
        spawns: args.play.spawns(),
        seed,
        threads: usize::from(args.play.run.threads),
        plan,
        progress: bar.progress(),
    };
    let records = args.record.as_deref().map(RecordFile::create).transpose()?;
    let mut write = |games: &[GameRecord]| {
        if let Some(records) = &records {
            games.iter().for_each(|game| records.write(game));
        }
    };
    let start = std::time::Instant::now();
    let record = records
        .is_some()
        .then_some(&mut write as &mut dyn FnMut(&[GameRecord]));
    let stats = session::evaluate(&run, log, args.play.win, record)?;
    let seconds = start.elapsed().as_secs_f64();
    drop(bar);
    if let Some(records) = records {
        log.write(&format!("{}\n\n", records.finish()?))?;
    }
    Ok((stats, seconds))
}

/// The player's depths unless told otherwise (docs/player.md).
const DEFAULT_DEPTHS: &str = "3p,4p@5,5p@1";

/// Plays with the strong player of the `player` crate, then prints which
/// source chose the moves.
fn evaluate_player(args: &Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.play.stages.is_none(),
        "--stages: the player has no stages; they are for a network read with -i"
    );
    let depths = args
        .player_depth
        .unwrap_or_else(|| DEFAULT_DEPTHS.parse().expect("a valid depth"));
    anyhow::ensure!(
        args.leaf_rates.is_none() || !args.tables.is_empty(),
        "--leaf-rates: the leaves are valued by tables; add --tables"
    );
    let settings = player::Settings {
        spawns: args.play.spawns(),
        leaf_rates: args.leaf_rates,
        ..player::Settings::new(depths)
    };
    let (tables, problems) = player::Tables::open(&args.tables);
    for problem in problems {
        eprintln!("eval: warning: {problem}");
    }
    let tables = match args.min_rate {
        Some(rate) => tables.with_min_rate(rate as f32),
        None => tables,
    };
    let described: Vec<String> = tables
        .books()
        .iter()
        .map(|book| format!("{} ({} positions)", book.name(), book.positions()))
        .collect();
    let player = player::Player::new(settings, tables);
    let plan = args.evaluate.unwrap_or(Plan {
        blocks: 1,
        block_size: 100,
    });
    let (seed_text, seed) = args.play.run.seed();
    let mut log = Log::open(args.play.run.log.as_deref())?;
    let tables_line = if described.is_empty() {
        "tables = none".to_owned()
    } else {
        format!(
            "tables = {}, min rate = {}",
            described.join(", "),
            player.tables().min_rate()
        )
    };
    log.write(&cli_game::header_for(
        "eval",
        &seed_text,
        args.play.run.threads,
        "the player (no network)",
        &[
            format!("search = {depths}, cutoff = 2^-(plies + 3)"),
            tables_line,
        ],
    ))?;
    log.write(&format!("evaluate: {plan}\n\n"))?;
    let (stats, seconds) = play(args, Player::Agent(&player), plan, seed, &mut log)?;
    log.write(&format!(
        "player: {:.0} moves per second ({} threads), {:.0} search nodes per move\n{}\n\n",
        stats.moves as f64 / seconds,
        args.play.run.threads,
        stats.nodes as f64 / stats.moves.max(1) as f64,
        player.sources(),
    ))?;
    Ok(())
}

fn header(
    args: &Args,
    seed: &str,
    (network, valued): (Option<&ntuple::Network>, Valued),
    settings: &Settings,
    table: Option<&TranspositionTable>,
) -> String {
    let cache = table.map_or("none".to_owned(), |table| {
        let peek = if args.peek { " peek" } else { "" };
        format!("{}{peek}", system::format_bytes(table.bytes()))
    });
    let adaptive = if settings.adaptive { " adaptive" } else { "" };
    let cutoff = settings
        .cutoff
        .map_or(String::new(), |p| format!(", cutoff = {p}"));
    let states = match valued {
        Valued::States => " on state values",
        Valued::Afterstates => "",
    };
    let search = format!(
        "search = {}{adaptive}{states}, cache = {cache}{cutoff}",
        settings.depth
    );
    match network {
        Some(network) => cli_game::header("eval", seed, args.play.run.threads, network, &[search]),
        None => cli_game::header_for(
            "eval",
            seed,
            args.play.run.threads,
            "the heuristic (no network)",
            &[search],
        ),
    }
}

/// What the networks of `inputs` value: states if one says it was trained
/// on them (`train --states` records it), else afterstates, as TDL2048+'s
/// files, which record nothing, always are.
fn valued(inputs: &[Source]) -> Valued {
    let states = inputs.iter().any(|source| {
        ntuple::read_metadata(&source.path).is_ok_and(|metadata| {
            metadata
                .get("values")
                .is_some_and(|values| values == "states")
        })
    });
    if states {
        Valued::States
    } else {
        Valued::Afterstates
    }
}
