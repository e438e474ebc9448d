//! `tb-build`: builds endgame tablebases, and queries and checks built ones.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tablebase::builder::{Options, partitioned};
use tablebase::{Formation, Large, Partitions, Precision, Spec};

use crate::build::{build, build_set, prepare_builds};
use crate::probe::{compare, digest, info, query, verify};

mod build;
mod probe;
mod progress;

/// Builds endgame tablebases as the 2048EndgameTablebase builder defines
/// them (same success rates), and queries and checks built tables.
///
/// Boards are written as the reference writes them: 16 hex digits in
/// reading order, the upper-left cell first (0x100000001fff2fff); `query`
/// also reads a grid of tile values.
#[derive(Parser, Debug)]
#[command(name = "tb-build", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Builds (or finishes building) a table: FORMATION played to TARGET
    Build {
        #[command(flatten)]
        table: Definition,
        /// Keep only the positions on optimal lines: those met by always
        /// playing a best move from the seeds (much smaller; every position
        /// it keeps has its exact rate and its best move)
        #[arg(long)]
        optimal_only: bool,
        /// Memory budget of the build (e.g. 4G): layers that would need
        /// more are generated, solved and thinned in segments through
        /// files on disk [default: half the memory available now]
        #[arg(long, value_name = "SIZE", value_parser = cli::parse_memory)]
        memory: Option<u64>,
        /// Split every layer into P parts (by rank where the formation ranks
        /// its boards, else by hash) and build it as tasks over the parts,
        /// a stage's tasks at once, as a cluster would run them
        /// (docs/distributed.md); the table is the same
        #[arg(long, value_name = "P", conflicts_with_all = ["optimal_only", "memory"])]
        partitions: Option<u32>,
        /// Threads, at most 4096; more than the cores only slow the build
        /// (L3-32 on 2 cores: 0.5 s at -p 2, 6 s at -p 512) [default: all
        /// cores]
        #[arg(short = 'p', long, value_parser = cli::threads_parser())]
        threads: Option<u16>,
    },
    /// Prepares a partitioned build to run as tasks on a cluster
    /// (docs/distributed.md): writes the table's manifest in its folder and
    /// prints the tasks, one stage a line as a JSON array of task names;
    /// every task of a stage may run at once, a stage once the one before
    /// has finished
    Plan {
        #[command(flatten)]
        table: Definition,
        /// The parts each layer is split into
        #[arg(long, value_name = "P")]
        partitions: u32,
    },
    /// Runs tasks of a partitioned build prepared by `tb-build plan` (or
    /// `build --partitions`), all at once: tasks of one stage; a task whose
    /// files are there already does nothing more
    Task {
        /// The table's folder
        #[arg(value_name = "TABLE")]
        table: PathBuf,
        /// Task names, as `plan` prints them (seed, expand/LAYER/PART,
        /// merge/LAYER/PART, ask/LAYER/PART, answer/LAYER/PART,
        /// solve/LAYER/PART, release/LAYER, finish)
        #[arg(value_name = "TASK", required = true)]
        tasks: Vec<String>,
        /// Threads [default: all cores]
        #[arg(short = 'p', long, value_parser = cli::threads_parser())]
        threads: Option<u16>,
    },
    /// Prints the success rate of each move of a position
    Query {
        #[command(flatten)]
        table: TableArg,
        /// The position to move from: in the reference's hex order
        /// (0x210000001fff2fff), or as a grid of tile values, upper-left
        /// first ("4 2 . . / . . . . / 2 f f f / 4 f f f"); tiles above the
        /// target are read as large tiles (f)
        #[arg(value_name = "BOARD", required_unless_present = "board_option")]
        board: Option<String>,
        /// The position, as an option
        #[arg(long = "board", value_name = "BOARD", conflicts_with = "board")]
        board_option: Option<String>,
    },
    /// Prints each layer's positions and the CRC-32 of its canonical dump
    /// (docs/distributed.md), one layer a line: builds of a table, whole or
    /// in parts, on one machine or many, have the same digest
    Digest {
        #[command(flatten)]
        table: TableArg,
    },
    /// Prints a table's definition and the statistics of each layer
    Info {
        #[command(flatten)]
        table: TableArg,
    },
    /// Reads every layer file through (checksum, blocks, order) and
    /// recomputes a sample of positions from their children
    Verify {
        #[command(flatten)]
        table: TableArg,
        /// Positions recomputed per layer, at most (drawn the same on every
        /// run)
        #[arg(long, default_value_t = 100)]
        samples: usize,
    },
    /// Compares two tables: the same definition and, in every layer, the
    /// same positions at the same rates (the bytes may differ: zstd level,
    /// format version). Exits with 1 where they differ, naming the first
    /// difference
    Compare {
        /// One table's folder
        #[arg(value_name = "TABLE")]
        a: PathBuf,
        /// The other's
        #[arg(value_name = "TABLE")]
        b: PathBuf,
    },
    /// Builds (or finishes building) a set of tables, one folder each in
    /// DIR: by default the player's (docs/player.md), for `eval --player
    /// --tables DIR`
    Set {
        /// Tables named FORMATION-TARGET (L3-256), or `player` for the
        /// player's set
        #[arg(default_value = "player")]
        tables: Vec<String>,
        /// The folder of the tables' folders
        #[arg(short = 'o', long, value_name = "DIR", default_value = "tables")]
        output: PathBuf,
        /// Memory budget of each build (e.g. 4G) [default: half the memory
        /// available now]
        #[arg(long, value_name = "SIZE", value_parser = cli::parse_memory)]
        memory: Option<u64>,
        /// Threads [default: all cores]
        #[arg(short = 'p', long, value_parser = cli::threads_parser())]
        threads: Option<u16>,
    },
    /// Lists the built-in formations, each with its first seed drawn (`#`
    /// a large tile or wall, `.` empty, else the tile's exponent)
    List,
}

/// The table a build makes, and how it stores it.
#[derive(clap::Args, Debug)]
struct Definition {
    /// A built-in formation (see `tb-build list`) or a formation file,
    /// JSON or TOML (docs/tablebase.md)
    formation: String,
    /// The target tile: 8 to 16384
    #[arg(value_parser = Spec::parse_target)]
    target: u8,
    /// The table's folder: new, empty, or the table's own to finish
    /// [default: FORMATION-TARGET]
    #[arg(short = 'o', long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Probability that a new tile is a 4
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true)]
    four_rate: f64,
    /// How rates are stored, and solved: f64, f32, u32 (fixed point,
    /// the reference's default) or u16 (solved in f64)
    #[arg(long, default_value = "u32")]
    precision: Precision,
    /// Do not store positions whose rate is at or below this (0 to 1)
    #[arg(
        long,
        default_value_t = 0.0,
        value_parser = parse_prune,
        allow_negative_numbers = true
    )]
    prune: f64,
    /// zstd compression level of the layer files (1 to 19): of their
    /// boards, their rates two levels below
    #[arg(
        long,
        default_value_t = Options::default().level,
        value_parser = clap::value_parser!(i32).range(1..=19)
    )]
    level: i32,
}

impl Definition {
    /// The table's definition.
    fn spec(&self) -> anyhow::Result<Spec> {
        let formation = Formation::find(&self.formation)?;
        Ok(Spec::new(formation, self.target, self.four_rate)?)
    }

    /// The table's folder: as given, or named after the table.
    fn dir(&self, spec: &Spec) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| PathBuf::from(spec.name()))
    }

    /// How the table is stored.
    fn options(&self, optimal_only: bool, partitions: Option<u32>) -> Options {
        Options {
            precision: self.precision,
            prune: self.prune,
            level: self.level,
            optimal_only,
            partitions,
            ..Options::default()
        }
    }
}

/// A table's folder, given as `TABLE` or `--table TABLE` alike.
#[derive(clap::Args, Debug)]
struct TableArg {
    /// The table's folder
    #[arg(value_name = "TABLE", required_unless_present = "table_option")]
    table: Option<PathBuf>,
    /// The table's folder, as an option
    #[arg(long = "table", value_name = "TABLE", conflicts_with = "table")]
    table_option: Option<PathBuf>,
}

impl TableArg {
    fn dir(&self) -> &Path {
        self.table
            .as_deref()
            .or(self.table_option.as_deref())
            .expect("clap asks for one")
    }
}

fn main() -> ExitCode {
    cli::main_with("tb-build", || match Args::parse().command {
        Command::Build {
            table,
            optimal_only,
            memory,
            partitions,
            threads,
        } => {
            let memory = prepare_builds(memory, threads)?;
            let spec = table.spec()?;
            let options = table.options(optimal_only, partitions);
            build(&spec, &table.dir(&spec), options, memory)
        }
        Command::Plan { table, partitions } => {
            let spec = table.spec()?;
            let dir = table.dir(&spec);
            let options = table.options(false, Some(partitions));
            partitioned::prepare(&spec, &dir, options)?;
            let mut out = std::io::stdout().lock();
            for stage in partitioned::plan(&spec, Partitions::new(partitions)?) {
                // Task names hold letters, digits and `/` only: quoted as
                // they are, they are JSON strings.
                let names: Vec<String> = stage.iter().map(|task| format!("\"{task}\"")).collect();
                writeln!(out, "[{}]", names.join(","))?;
            }
            Ok(())
        }
        Command::Task {
            table,
            tasks,
            threads,
        } => {
            prepare_builds(None, threads)?;
            let tasks = tasks
                .iter()
                .map(|name| name.parse::<partitioned::Task>())
                .collect::<Result<Vec<_>, _>>()?;
            partitioned::run_all(&tasks, &table)?;
            Ok(())
        }
        Command::Set {
            tables,
            output,
            memory,
            threads,
        } => {
            let memory = prepare_builds(memory, threads)?;
            build_set(&tables, &output, memory)
        }
        Command::Query {
            table,
            board,
            board_option,
        } => query(
            table.dir(),
            &board.or(board_option).expect("clap asks for one"),
        ),
        Command::Info { table } => info(table.dir()),
        Command::Verify { table, samples } => verify(table.dir(), samples),
        Command::Compare { a, b } => compare(&a, &b),
        Command::Digest { table } => digest(table.dir()),
        Command::List => {
            let mut out = std::io::stdout().lock();
            for name in Formation::builtin_names() {
                let formation = Formation::builtin(name)?;
                let seeds = formation.seeds().len();
                writeln!(
                    out,
                    "{name:<8} {}  {} symmetry, {}{seeds} seed{}, {} extra steps",
                    drawn(formation.seeds()[0]),
                    formation.canon(),
                    if formation.large() == Large::Wall {
                        "walls, "
                    } else {
                        ""
                    },
                    if seeds == 1 { "" } else { "s" },
                    formation.extra_steps()
                )?;
            }
            Ok(())
        }
    })
}

/// A board drawn on one line, row by row from the top: `#` for a large
/// tile or wall, `.` for an empty cell, else the tile's exponent in hex
/// (`1` for 2): `.... / .... / 1### / 2###`.
fn drawn(board: u64) -> String {
    let rows: Vec<String> = (0..4)
        .map(|row| {
            (0..4)
                .map(|column| match board >> (4 * (4 * row + column)) & 0xF {
                    0 => '.',
                    0xF => '#',
                    exponent => char::from_digit(exponent as u32, 16).expect("a nibble"),
                })
                .collect()
        })
        .collect();
    rows.join(" / ")
}

/// A `--prune` rate: from 0 up to, not including, 1.
fn parse_prune(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if (0.0..1.0).contains(&rate) => Ok(rate),
        _ => Err(format!("{text:?} is not a rate from 0 up to 1")),
    }
}
