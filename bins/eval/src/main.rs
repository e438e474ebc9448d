//! `eval`: plays games with a trained n-tuple network at 1-ply and prints
//! TDL2048+'s block statistics and summary table.

use std::process::ExitCode;

use clap::Parser;
use cli::PlayArgs;
use learn::{Log, Plan, Run, session};
use ntuple::Source;
use search::{Depth, Limits, Settings, TranspositionTable};

/// Plays games greedily with a trained n-tuple network (1-ply: the move with
/// the largest reward + value of its afterstate) and prints the statistics of
/// every block and a summary by largest tile, in TDL2048+'s layout.
#[derive(Parser, Debug)]
#[command(name = "eval", version)]
struct Args {
    /// The weights to play with (2048lab's format or TDL2048+'s .w); several
    /// files are averaged table by table (an ensemble), and [0-3]|FILE takes
    /// only those tables of FILE
    #[arg(short = 'i', long, num_args = 1.., required = true, value_name = "FILE")]
    input: Vec<Source>,

    /// The file's network (names or patterns, as for train): required to
    /// match it; for a .w file it also says which tables are read without
    /// isomorphism (8x4patt) [default: from the file]
    #[arg(short = 'n', long, num_args = 1.., value_name = "PATTERN")]
    network: Option<Vec<String>>,

    /// Games to play: BLOCKS of 1000, or BLOCKSxSIZE
    #[arg(short = 'e', long, default_value = "10", value_name = "GAMES")]
    evaluate: Plan,

    /// Search depth in TDL2048+'s plies: 1p is greedy, Np adds N - 1 layers
    /// of spawns and moves (docs/search.md)
    #[arg(short = 'd', long, default_value = "1p", value_name = "PLIES")]
    depth: Depth,

    /// Cap the search depth by the number of empty cells: depths for 0, 1,
    /// 2, ... empty cells, the last repeated (TDL2048+'s limit=)
    #[arg(long, value_name = "PLIES,...")]
    limit: Option<Limits>,

    /// A transposition table of this size shared by all threads (e.g. 1G;
    /// rounded down to a power of two)
    #[arg(short = 'c', long, value_name = "SIZE", value_parser = parse_size)]
    cache: Option<u64>,

    /// Let a deeper result in the table answer a shallower query
    #[arg(long, requires = "cache")]
    peek: bool,

    /// Value chance nodes reached with a probability below this by the
    /// network instead of searching them (e.g. 0.0001)
    #[arg(long, value_name = "PROBABILITY")]
    cutoff: Option<f64>,

    #[command(flatten)]
    play: PlayArgs,
}

fn main() -> ExitCode {
    cli::main_with("eval", || evaluate(Args::parse()))
}

fn parse_size(text: &str) -> Result<u64, String> {
    ntuple::parse_bytes(text).ok_or_else(|| format!("{text:?} is not a size (e.g. 512M, 1G)"))
}

fn evaluate(args: Args) -> anyhow::Result<()> {
    let network = cli::network(
        args.network.as_deref(),
        &args.input,
        args.play.memory_limit(),
    )?;
    let (seed_text, seed) = args.play.seed();
    let mut log = Log::open(args.play.log.as_deref())?;
    let table = args
        .cache
        .map(|bytes| TranspositionTable::new(bytes, args.peek));
    let cache = table.as_ref().map_or("none".to_owned(), |t| {
        let peek = if args.peek { " peek" } else { "" };
        format!("{}{peek}", ntuple::format_bytes(t.bytes()))
    });
    let extra = [format!("search = {}, cache = {cache}", args.depth)];
    log.write(&cli::header(
        "eval",
        &seed_text,
        args.play.threads,
        &network,
        &extra,
    ))?;
    log.write(&format!("evaluate: {}\n\n", args.evaluate))?;
    let run = Run {
        network: &network,
        spawns: args.play.spawns(),
        learning: None,
        search: Some(Settings {
            limits: args.limit,
            cutoff: args.cutoff,
            ..Settings::new(args.depth)
        }),
        table: table.as_ref(),
        seed,
        threads: usize::from(args.play.threads),
        plan: args.evaluate,
    };
    let start = std::time::Instant::now();
    let stats = session::evaluate(&run, &mut log, args.play.win)?;
    if args.depth.plies() > 1 {
        let seconds = start.elapsed().as_secs_f64();
        let moves = stats.moves.max(1) as f64;
        log.write(&format!(
            "search: {}, {:.3} ms/move, {:.0} nodes/move, {:.2} M nodes/s (all threads)\n\n",
            args.depth,
            1000.0 * seconds * f64::from(args.play.threads) / moves,
            stats.nodes as f64 / moves,
            stats.nodes as f64 / seconds / 1e6,
        ))?;
    }
    Ok(())
}
