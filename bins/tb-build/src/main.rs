//! `tb-build`: builds endgame tablebases, and queries and checks built ones.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use board::Direction;
use clap::{Parser, Subcommand};
use tablebase::builder::{self, Event, Options, partitioned};
use tablebase::{Comparison, Formation, Large, Partitions, Position, Precision, Spec, Table};

use crate::progress::BuildBar;

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

/// The tables the player of `eval --player` uses (docs/player.md): L3 (six
/// large tiles in a 3x2 block in a corner) and 4421 (five: three along an
/// edge, two beside them), each seeded with every arrangement (`L3x`,
/// `4421x`: the positions games meet), for the targets where they played
/// moves in the measured games.
const PLAYER_SET: &[&str] = &[
    "L3x-32",
    "L3x-64",
    "L3x-128",
    "L3x-256",
    "L3x-512",
    "4421x-32",
    "4421x-64",
    "4421x-128",
    "4421x-256",
];

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
        Command::Digest { table } => {
            let mut out = std::io::stdout().lock();
            for (index, layer) in Table::open(table.dir())?.digest()?.iter().enumerate() {
                writeln!(
                    out,
                    "layer {index:4} {:12} {:08x}",
                    layer.positions, layer.crc
                )?;
            }
            Ok(())
        }
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

/// Sets the allocator and the threads for builds with the memory budget
/// `memory` (if given) on `threads` threads (if given), and returns the
/// budget: the one given, or half the memory available now.
fn prepare_builds(memory: Option<u64>, threads: Option<u16>) -> anyhow::Result<Option<u64>> {
    tune_allocator(memory.is_some());
    if let Some(threads) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(threads))
            .build_global()
            .context("starting the threads")?;
    }
    Ok(memory.or_else(|| system::available_memory().map(|bytes| bytes / 2)))
}

/// Sets glibc's allocator for a build.
///
/// It keeps the memory a build frees for the next layer: by default it
/// unmaps large blocks when they are freed and trims the heap, so every
/// layer's buffers fault their pages in afresh (a tenth of an unbounded
/// build's CPU time). Blocks up to 32 MiB now come from a heap that is
/// never trimmed; larger ones are still mapped and unmapped. This takes
/// 7-10% off the CPU time of the fixed formations' tables for about a
/// quarter more peak memory (docs/tablebase-builder.md); either setting
/// alone raised the system time instead.
///
/// The threads share at most two heaps, as glibc would open one for each
/// thread, each keeping what its thread freed: L3-256 on 16 threads peaked
/// at 83-87 MiB with a heap each, 72-76 with two, against 66-72 on one
/// thread; on two threads it took the same CPU time (12.4-12.8 s) with two
/// heaps as with a heap each.
/// Within a budget the user gave (`bounded`), they share one: blocks freed
/// in one heap do not serve the next allocations of another, and
/// `--optimal-only` thinning of L3-256 within 64 MiB crept up to 92 MiB
/// with a heap each; in one heap it held 51 MiB, for 3-4% more CPU time.
fn tune_allocator(bounded: bool) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes the allocator's lock and only sets its
    // parameters; blocks already allocated are freed as before.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_ARENA_MAX, if bounded { 1 } else { 2 });
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = bounded;
}

fn parse_prune(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if (0.0..1.0).contains(&rate) => Ok(rate),
        _ => Err(format!("{text:?} is not a rate from 0 up to 1")),
    }
}

/// Builds each table of `names` (or of the player's set, for `player`) in
/// its own folder of `dir`, one after another; a finished table is left as
/// it is, a half-built one is finished.
fn build_set(names: &[String], dir: &Path, memory: Option<u64>) -> anyhow::Result<()> {
    let names: Vec<&str> = names
        .iter()
        .flat_map(|name| match name.as_str() {
            "player" => PLAYER_SET.to_vec(),
            name => vec![name],
        })
        .collect();
    // Every name is checked before anything is built.
    let specs = names
        .iter()
        .map(|name| {
            let (formation, target) = name.rsplit_once('-').with_context(|| {
                format!("{name:?} is not a table's name (FORMATION-TARGET, as L3-256)")
            })?;
            let target = Spec::parse_target(target)
                .map_err(|problem| anyhow::anyhow!("{name:?}: {problem}"))?;
            Ok(Spec::new(Formation::find(formation)?, target, 0.1)?)
        })
        .collect::<anyhow::Result<Vec<Spec>>>()?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let start = std::time::Instant::now();
    for (index, spec) in specs.iter().enumerate() {
        let _ = writeln!(
            std::io::stdout(),
            "table {} of {}: {}",
            index + 1,
            specs.len(),
            spec.name()
        );
        build(spec, &dir.join(spec.name()), Options::default(), memory)?;
    }
    let _ = writeln!(
        std::io::stdout(),
        "set done: {} table{} in {} ({:.0} s)",
        specs.len(),
        if specs.len() == 1 { "" } else { "s" },
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn build(spec: &Spec, dir: &Path, options: Options, memory: Option<u64>) -> anyhow::Result<()> {
    // A closed output does not stop the build: its lines are dropped; only
    // the summary's write, once the table is done, fails, and
    // `cli::main_with` ends quietly on that.
    let threads = rayon::current_num_threads();
    let _ = writeln!(
        std::io::stdout(),
        "building {} in {} ({} layers, target possible from layer {}, 4-rate {}, {} rates, {threads} thread{}, {})",
        spec.name(),
        dir.display(),
        spec.steps(),
        spec.docheck(),
        spec.four_rate(),
        options.precision,
        if threads == 1 { "" } else { "s" },
        match options.partitions {
            Some(parts) => format!("{parts} parts a layer"),
            None => format!(
                "memory budget {}",
                memory.map_or_else(|| "none".to_owned(), system::format_bytes)
            ),
        }
    );
    let bar = BuildBar::new(spec.steps());
    let say = |line: String| bar.say(line);
    let mut report = |event: Event| {
        bar.advance(&event);
        match event {
            Event::Start {
                steps,
                generated,
                solved,
                complete,
            } => {
                if complete {
                    say("the table is already complete".to_owned());
                } else if generated > 0 || solved > 0 {
                    say(format!(
                        "resuming: {generated} of {steps} layers generated, {solved} solved"
                    ));
                }
            }
            Event::Generated {
                layer,
                positions,
                elapsed,
            } => {
                say(format!(
                    "generated layer {layer:4}: {positions:>11} positions  {}",
                    rate(positions, elapsed)
                ));
            }
            Event::Solved {
                layer,
                positions,
                stored,
                bytes,
                segments,
                fetched,
                elapsed,
            } => {
                say(format!(
                    "solved    layer {layer:4}: {positions:>11} positions, {stored:>11} stored, {bytes:>10} bytes  {}{}",
                    rate(positions, elapsed),
                    in_segments(segments, fetched)
                ));
            }
            Event::Thinned {
                layer,
                kept,
                bytes,
                segments,
                fetched,
                elapsed,
            } => {
                say(format!(
                    "thinned   layer {layer:4}: {kept:>11} positions on optimal lines, {bytes:>10} bytes  {}{}",
                    rate(kept, elapsed),
                    in_segments(segments, fetched)
                ));
            }
            Event::Solving { .. } => {}
        }
    };
    let summary = match options.partitions {
        None => builder::build(spec, dir, options, memory, &mut report)?,
        Some(_) => partitioned::build_local(spec, dir, options, &mut report)?,
    };
    bar.finish();
    if summary.generated == 0 && summary.stored == 0 {
        return Ok(());
    }
    // A budget below what the smallest segments need cannot be held: say
    // so rather than let the peak pass for one within it.
    let over = match (summary.peak_memory, memory) {
        (Some(peak), Some(budget)) if peak > budget => {
            format!(", over the budget of {}", system::format_bytes(budget))
        }
        _ => String::new(),
    };
    let per_position = bytes_per_position(summary.bytes, summary.stored)
        .map_or_else(String::new, |bytes| {
            format!(" ({bytes} bytes per position)")
        });
    writeln!(
        std::io::stdout(),
        "done: {} positions generated, {} stored in {} bytes{per_position}, {:.1} s, peak memory {}{over}",
        summary.generated,
        summary.stored,
        summary.bytes,
        summary.elapsed.as_secs_f64(),
        summary
            .peak_memory
            .map_or_else(|| "unknown".to_owned(), system::format_bytes)
    )?;
    Ok(())
}

/// How a layer was solved or thinned within the budget, for its line:
/// nothing when whole, or when it has no positions to cut.
fn in_segments(segments: usize, fetched: bool) -> String {
    match (segments, fetched) {
        (0, _) | (1, false) => String::new(),
        (1, true) => "  in 1 segment, children fetched from disk".to_owned(),
        (_, true) => format!("  in {segments} segments, children fetched from disk"),
        (_, false) => format!("  in {segments} segments"),
    }
}

fn rate(positions: usize, elapsed: Duration) -> String {
    format!(
        "{:8.3} s  {:7.2} M positions/s",
        elapsed.as_secs_f64(),
        positions as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
    )
}

fn query(dir: &Path, board: &str) -> anyhow::Result<()> {
    let table = Table::open(dir)?;
    let given: Position = board.parse()?;
    let board = table.spec().with_large_tiles(given);
    let read =
        || Ok::<_, tablebase::Error>((table.move_rates(board)?, table.afterstate_rate(board)?));
    let (rates, afterstate) = if board == given {
        read()?
    } else {
        read().with_context(|| {
            format!("{given} read with its tiles above the target as large tiles")
        })?
    };
    let mut out = std::io::stdout().lock();
    let name = table.spec().name();
    if board == given {
        writeln!(out, "{board} in {name}")?;
    } else {
        writeln!(
            out,
            "{given} in {name}, read as {board} (tiles above the target are large tiles)"
        )?;
    }
    writeln!(
        out,
        "as an afterstate (after a move, before the spawn): {afterstate:.10}"
    )?;
    // Elsewhere a position the table does not hold is solved from it.
    let options = table.manifest().options;
    if options.optimal_only {
        writeln!(
            out,
            "(a table of optimal lines: positions off them are not stored and read as 0)"
        )?;
    }
    if options.prune > 0.0 {
        writeln!(
            out,
            "(pruned at {}: positions at or below it, or that the seeds never lead to, are not stored and read as 0)",
            options.prune
        )?;
    }
    if rates.read_as == board {
        writeln!(out, "its moves:")?;
    } else {
        let read_as = rates.read_as;
        writeln!(
            out,
            "its moves, read as {read_as} (turned into the formation's orientation):"
        )?;
    }
    for direction in Direction::ALL {
        match rates.rates[direction.index()] {
            Some(rate) => writeln!(out, "{:<6} {rate:.10}", direction.name())?,
            None => writeln!(out, "{:<6} not allowed", direction.name())?,
        }
    }
    match rates.best() {
        Some((direction, rate)) => writeln!(out, "best   {} {rate:.10}", direction.name())?,
        None => writeln!(out, "best   none: no move keeps the formation")?,
    }
    Ok(())
}

fn info(dir: &Path) -> anyhow::Result<()> {
    let table = Table::open(dir)?;
    let mut out = std::io::stdout().lock();
    let manifest = table.manifest();
    writeln!(
        out,
        "table {} (formation {}, {} symmetry, target {}, 4-rate {})",
        table.spec().name(),
        manifest.formation.name,
        manifest.formation.canon,
        manifest.target,
        manifest.four_rate
    )?;
    writeln!(
        out,
        "{} layers, target from layer {}, {} rates, pruned at {}, zstd level {}",
        manifest.steps,
        manifest.docheck,
        manifest.options.precision,
        manifest.options.prune,
        manifest.options.level
    )?;
    writeln!(out, "layer   positions       bytes  bytes/position")?;
    let (mut positions, mut bytes) = (0u64, 0u64);
    for index in 0..manifest.steps {
        let layer = table.layer(index)?;
        let count = layer.positions();
        let size = layer.file_bytes();
        let per_position = bytes_per_position(size, count).unwrap_or_else(|| "-".to_owned());
        writeln!(out, "{index:5} {count:>11} {size:>11} {per_position:>15}")?;
        positions += count;
        bytes += size;
    }
    let per_position = bytes_per_position(bytes, positions).unwrap_or_else(|| "-".to_owned());
    writeln!(out, "total {positions:>11} {bytes:>11} {per_position:>15}")?;
    Ok(())
}

fn compare(a: &Path, b: &Path) -> anyhow::Result<()> {
    match Table::open(a)?.compare(&Table::open(b)?)? {
        Comparison::Same { layers, positions } => {
            writeln!(
                std::io::stdout(),
                "{} and {} are the same: {layers} layers, {positions} positions at the same rates",
                a.display(),
                b.display()
            )?;
            Ok(())
        }
        Comparison::Differs(difference) => {
            anyhow::bail!("{} and {} differ: {difference}", a.display(), b.display())
        }
    }
}

/// Bytes per position to two decimals; none for no positions (a layer,
/// or a table, of positions all lost stores none).
fn bytes_per_position(bytes: u64, positions: u64) -> Option<String> {
    (positions > 0).then(|| format!("{:.2}", bytes as f64 / positions as f64))
}

fn verify(dir: &Path, samples: usize) -> anyhow::Result<()> {
    let table = Table::open(dir)?;
    let verified = table.verify(samples)?;
    writeln!(
        std::io::stdout(),
        "{}: {} layer files intact ({} positions read), {} positions recomputed from their \
         children",
        table.spec().name(),
        verified.layers,
        verified.positions,
        verified.recomputed
    )?;
    Ok(())
}
