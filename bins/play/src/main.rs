//! `play`: serves 2048lab's web app on this machine: play with hints,
//! watch the AI, practise an endgame table, replay recorded games
//! (docs/web.md).

#![forbid(unsafe_code)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use ntuple::Source;
use search::{Depth, Heuristic, Settings};
use web::{Advisor, App, PracticeTable, RecordFolders};

/// Serves 2048lab's web app: play 2048 with hints from the player, a
/// network or the heuristic; watch the AI play; practise an endgame table
/// against its success rates; replay recorded games. Open the address it
/// prints in a browser.
#[derive(Parser, Debug)]
#[command(name = "play", version)]
struct Args {
    /// Endgame tables for the player's hints and for practice: folders
    /// built by `tb-build build`, or folders of them as `tb-build set`
    /// writes (a table that cannot be read is left out with a warning)
    #[arg(long, num_args = 1.., value_name = "DIR")]
    tables: Vec<PathBuf>,

    /// The player's depth: plies, then deeper where few cells are empty
    #[arg(long, value_name = "DEPTHS", default_value = "3p,4p@5,5p@1")]
    player_depth: player::Depths,

    /// A network to advise too (2048lab's format or TDL2048+'s .w; several
    /// files make an ensemble)
    #[arg(short = 'i', long, num_args = 1.., value_name = "FILE")]
    input: Vec<Source>,

    /// The network's patterns, as for eval [default: from the file]
    #[arg(short = 'n', long, num_args = 1.., value_name = "PATTERN", requires = "input")]
    network: Option<Vec<String>>,

    /// The network's search depth in plies (1p: greedy)
    #[arg(
        short = 'd',
        long,
        value_name = "PLIES",
        default_value = "2p",
        requires = "input"
    )]
    depth: Depth,

    /// Folders of game records (`eval --record`) that the replay mode may
    /// open; no other file is ever read
    #[arg(long, num_args = 1.., value_name = "DIR")]
    records: Vec<PathBuf>,

    /// The port to listen on (0: any free one)
    #[arg(long, default_value_t = 8048)]
    port: u16,

    /// The address to listen on: this machine only, unless told otherwise
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
}

fn main() -> ExitCode {
    cli_game::main_with("play", || serve(Args::parse()))
}

fn serve(args: Args) -> anyhow::Result<()> {
    let app = app(&args)?;
    let address = SocketAddr::new(args.host, args.port);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the server's threads")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        let address = listener.local_addr()?;
        if !address.ip().is_loopback() {
            eprintln!("play: warning: listening on {address}, open to other machines");
        }
        println!("play: open http://{address}/ in a browser (Ctrl-C stops)");
        axum::serve(listener, web::router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("the server stopped")
    })
}

/// The app `args` describe: the player (with the tables), the network if
/// one is given, and the heuristic.
fn app(args: &Args) -> anyhow::Result<App> {
    if !args.tables.is_empty() {
        eprintln!("play: reading the tables (a few seconds a gigabyte)");
    }
    let (tables, problems) = player::Tables::open(&args.tables);
    for problem in problems {
        eprintln!("play: warning: {problem}");
    }
    let mut advisors = vec![Advisor::Player(player::Player::new(
        player::Settings::new(args.player_depth),
        tables,
    ))];
    if !args.input.is_empty() {
        let network = cli_game::network(
            args.network.as_deref(),
            &args.input,
            (None, None),
            system::available_memory().unwrap_or(u64::MAX),
        )?;
        advisors.push(Advisor::Search {
            name: format!("network {}", args.depth),
            evaluator: Box::new(network),
            settings: Settings::new(args.depth),
        });
    }
    advisors.push(Advisor::Search {
        name: "heuristic 2p".to_owned(),
        evaluator: Box::new(Heuristic::new()),
        settings: Settings {
            adaptive: true,
            cutoff: Some(1e-4),
            ..Settings::new("2p".parse().expect("a depth"))
        },
    });
    // A table that cannot be read was named by the warnings above.
    let practice: Vec<PracticeTable> = args
        .tables
        .iter()
        .flat_map(|dir| tablebase::table_dirs(dir))
        .filter_map(|dir| PracticeTable::open(&dir).ok())
        .collect();
    if !args.tables.is_empty() {
        let names: Vec<&str> = practice.iter().map(PracticeTable::name).collect();
        eprintln!("play: tables to practise: {}", names.join(", "));
    }
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64);
    Ok(App::new(
        advisors,
        practice,
        RecordFolders::new(args.records.clone()),
        seed,
    ))
}
