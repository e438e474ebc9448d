//! `cargo xtask bench`: the speed table a user would quote, measured on the
//! release programs as users run them: TD training and 1-ply testing,
//! expectimax, a tablebase build and 2584 Fibonacci, each with the peak
//! memory the operating system saw.

pub(crate) mod logs;
mod report;

use std::path::{Path, PathBuf};

use crate::measure::{in_scratch, programs, run_program, thread_counts};
use logs::{block_speeds, course_speeds, phase_speeds, search_millis, table_rate};
use report::{json, scaling_table, table};

/// The options of `cargo xtask bench`.
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// Networks to measure
    #[arg(long, value_delimiter = ',', default_value = "4x6patt,8x6patt")]
    pub networks: Vec<String>,
    /// Episodes trained, then games tested, per run
    #[arg(long, default_value_t = 20_000)]
    pub episodes: u64,
    /// Rounds; each round runs every measurement once
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// A smoke test: 500 episodes, small searches and table, one round
    #[arg(long)]
    pub quick: bool,
    /// Also write the results to this file as JSON
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// A folder of another build's programs (such as target/pgo/bin),
    /// measured interleaved with this build's, ratios printed
    #[arg(long, value_name = "DIR")]
    pub vs: Option<PathBuf>,
    /// TDL2048+'s program (its `2048`), run with the same training and
    /// testing recipe right after each of this build's runs; its figures
    /// fill the second column
    #[arg(long, value_name = "FILE", conflicts_with = "vs")]
    pub tdl2048: Option<PathBuf>,
    /// Also measure each learning method's training speed: 4x6patt, one
    /// thread, TDL2048+'s options for the same method in its column
    #[arg(long)]
    pub methods: bool,
    /// Thread counts of training and testing [default: 1 and all cores]
    #[arg(long, value_delimiter = ',', conflicts_with = "scaling", value_parser = crate::measure::thread_count)]
    pub threads: Vec<usize>,
    /// Training and testing on 1, 2, 4, ... threads up to all cores, and a
    /// table of the speed-up over one thread (TDL2048+'s beside, with
    /// `--tdl2048`)
    #[arg(long)]
    pub scaling: bool,
    /// Measure the programs of this folder as they are, building nothing
    /// (for a machine without cargo): train, and those of eval, tb-build
    /// and fib2584 it holds [default: this workspace's release build]
    #[arg(long, value_name = "DIR")]
    pub programs: Option<PathBuf>,
}

/// A learning method `--methods` measures.
struct Method {
    name: &'static str,
    /// `train`'s options.
    ours: &'static [&'static str],
    /// TDL2048+'s options for the same method, where it has it.
    theirs: Option<&'static [&'static str]>,
}

/// The learning methods `--methods` measures.
const METHODS: &[Method] = &[
    Method {
        name: "TD(0) online",
        ours: &[],
        theirs: Some(&[]),
    },
    Method {
        name: "TD(0) backward",
        ours: &["-m", "backward"],
        theirs: Some(&["-tt", "backward"]),
    },
    Method {
        name: "5-step TD",
        ours: &["-N", "5"],
        theirs: Some(&["-N", "5"]),
    },
    Method {
        name: "TD(0.5) over the episode",
        ours: &["-l", "0.5"],
        theirs: Some(&["-l", "0.5"]),
    },
    Method {
        name: "TD(0.5) over 5 moves",
        ours: &["-l", "0.5", "5"],
        theirs: Some(&["-l", "0.5", "5"]),
    },
    Method {
        name: "temporal coherence",
        ours: &["--tc"],
        theirs: Some(&["-a", "1.0"]),
    },
    Method {
        name: "optimistic start",
        ours: &["-n", "4x6patt=320000/norm"],
        theirs: Some(&["-n", "4x6patt=320000/norm"]),
    },
    Method {
        name: "restarts",
        ours: &["--restarts"],
        theirs: Some(&["-tt", "restart"]),
    },
    Method {
        name: "carousel shaping",
        ours: &["-b", "2048"],
        theirs: Some(&["-b", "2048"]),
    },
    Method {
        name: "statistic features",
        ours: &["-n", "4x6patt", "mono", "num"],
        theirs: Some(&["-n", "4x6patt", "mono", "num"]),
    },
    Method {
        name: "state values",
        ours: &["--states"],
        theirs: None,
    },
];

/// One figure, measured over the rounds, for this build and maybe another.
#[derive(Debug)]
struct Row {
    name: String,
    unit: &'static str,
    /// For a speed measured at several thread counts: what was measured
    /// and on how many threads, for the scaling table.
    scaling: Option<(String, usize)>,
    /// Per program (this build's, then `--vs`'s or `--tdl2048`'s): the
    /// values and peak memories.
    values: [Vec<f64>; 2],
    peaks: [Vec<u64>; 2],
}

pub fn bench(options: &Options) -> Result<(), String> {
    // Said now rather than after this build's first run.
    if let Some(tdl2048) = options.tdl2048.as_ref().filter(|path| !path.is_file()) {
        return Err(format!(
            "{}: no such program (--tdl2048)",
            tdl2048.display()
        ));
    }
    let this = programs(
        options.programs.as_deref(),
        &["train", "eval", "tb-build", "fib2584"],
        "train",
    )?;
    let builds: Vec<PathBuf> = std::iter::once(this).chain(options.vs.clone()).collect();
    let rows = in_scratch("bench", |scratch| measure(options, &builds, scratch))?;
    print!("{}", table(options, &rows));
    print!("{}", scaling_table(options, &rows));
    if let Some(path) = &options.json {
        // Written beside, then renamed: an interrupted write never leaves a
        // truncated file under the name.
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(format!(".tmp-{}", std::process::id()));
        std::fs::write(&temporary, json(&rows))
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&temporary);
                format!("{}: {e}", path.display())
            })?;
        println!("\nwritten to {}", path.display());
    }
    Ok(())
}

fn measure(options: &Options, builds: &[PathBuf], scratch: &Path) -> Result<Vec<Row>, String> {
    let (episodes, runs) = if options.quick {
        (500, 1)
    } else {
        (options.episodes, options.runs.max(1))
    };
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = thread_counts(&options.threads, options.scaling);
    let plan = format!("1x{episodes}");
    let mut rows: Vec<Row> = Vec::new();
    for round in 1..=runs {
        for (build, folder) in builds.iter().enumerate() {
            let label = if build == 0 {
                "this build"
            } else {
                "--vs build"
            };
            let has = |program: &str| folder.join(program).is_file();
            for network in &options.networks {
                for &threads in &threads {
                    eprintln!("round {round}/{runs}, {label}: {network} on {threads} thread(s)");
                    // A block for each thread: TDL2048+ gives each of its
                    // processes whole blocks.
                    let plan = format!("{threads}x{}", (episodes / threads as u64).max(1));
                    // TDL2048+'s options; train also takes them.
                    let recipe = ["-n", network, "-t", &plan, "-e", &plan, "-s", "1", "-p"]
                        .into_iter()
                        .map(String::from)
                        .chain([threads.to_string()]);
                    let ran = run_program(
                        &folder.join("train"),
                        scratch,
                        &recipe
                            .clone()
                            .chain(["--restart", "-o", &format!("{network}.nw")].map(String::from))
                            .collect::<Vec<_>>(),
                    )?;
                    let mut outputs = vec![(build, "train", ran)];
                    // Only with this build: `--tdl2048` and `--vs` exclude each other.
                    if let Some(tdl2048) = &options.tdl2048 {
                        eprintln!(
                            "round {round}/{runs}, TDL2048+: {network} on {threads} thread(s)"
                        );
                        let ran = run_program(tdl2048, scratch, &recipe.collect::<Vec<_>>())?;
                        outputs.push((1, "TDL2048+", ran));
                    }
                    for (column, program, ran) in outputs {
                        let [trained, tested] = phase_speeds(&ran.stdout)
                            .map_err(|problem| format!("{program}: {problem}"))?;
                        for (what, value) in [("training", trained), ("1-ply testing", tested)] {
                            record(
                                &mut rows,
                                format!("{network} {what}, {threads} thread(s)"),
                                "M moves/s",
                                column,
                                value / 1e6,
                                ran.peak,
                            )
                            .scaling = Some((format!("{network} {what}"), threads));
                        }
                    }
                }
            }
            if options.methods {
                measure_methods(
                    options,
                    (build, folder),
                    (round, runs, &plan),
                    scratch,
                    &mut rows,
                )?;
            }
            if let Some(network) = options.networks.first().filter(|_| has("eval")) {
                let weights = format!("{network}.nw");
                for (depth, games) in [("2p", if options.quick { 1 } else { 10 }), ("3p", 1)] {
                    eprintln!("round {round}/{runs}, {label}: expectimax {depth}");
                    let games = format!("1x{games}");
                    let ran = run_program(
                        &folder.join("eval"),
                        scratch,
                        &["-i", &weights, "-d", depth, "-e", &games, "-s", "1"].map(String::from),
                    )?;
                    let millis = search_millis(&ran.stdout)
                        .ok_or("eval printed no search line (ms/move)")?;
                    record(
                        &mut rows,
                        format!("{network} expectimax {depth}, 1 thread"),
                        "ms/move",
                        build,
                        millis,
                        ran.peak,
                    );
                }
            }
            if has("tb-build") {
                let (formation, target) = if options.quick {
                    ("L3", "64")
                } else {
                    ("442", "128")
                };
                eprintln!("round {round}/{runs}, {label}: tablebase {formation}-{target}");
                let table = scratch.join("table");
                let _ = std::fs::remove_dir_all(&table);
                let ran = run_program(
                    &folder.join("tb-build"),
                    scratch,
                    &[
                        "build",
                        formation,
                        target,
                        "-o",
                        &table.display().to_string(),
                    ]
                    .map(String::from),
                )?;
                let rate = table_rate(&ran.stdout).ok_or("tb-build printed no summary")?;
                record(
                    &mut rows,
                    format!("tablebase {formation}-{target} build, {all} thread(s)"),
                    "M positions/s",
                    build,
                    rate / 1e6,
                    ran.peak,
                );
            }
            if has("fib2584") {
                eprintln!("round {round}/{runs}, {label}: 2584 8x4patt");
                let ran = run_program(
                    &folder.join("fib2584"),
                    scratch,
                    &[
                        "-n", "8x4patt", "-t", &plan, "-e", &plan, "-s", "1", "-o", "fib.nw",
                    ]
                    .map(String::from),
                )?;
                let speeds = course_speeds(&ran.stdout);
                let [trained, tested, ..] = speeds[..] else {
                    return Err("fib2584 printed no course blocks".to_owned());
                };
                for (what, value) in [("training", trained), ("1-ply testing", tested)] {
                    record(
                        &mut rows,
                        format!("2584 8x4patt {what}, 1 thread"),
                        "M actions/s",
                        build,
                        value / 1e6,
                        ran.peak,
                    );
                }
            }
        }
    }
    Ok(rows)
}

/// The training speed of every method of [`METHODS`] for `build`, and of
/// TDL2048+'s after each where it is given and has the method.
fn measure_methods(
    options: &Options,
    (build, folder): (usize, &Path),
    (round, runs, plan): (usize, usize, &str),
    scratch: &Path,
    rows: &mut Vec<Row>,
) -> Result<(), String> {
    for &Method {
        name: method,
        ours,
        theirs,
    } in METHODS
    {
        let recipe = |extra: &[&str]| {
            ["-n", "4x6patt", "-t", plan, "-s", "1"]
                .iter()
                .chain(extra)
                .map(|&word| word.to_owned())
                .collect::<Vec<_>>()
        };
        eprintln!("round {round}/{runs}: 4x6patt training by {method}");
        let mut args = recipe(ours);
        args.extend(["--restart", "-o", "method.nw"].map(String::from));
        let mut outputs = vec![(
            build,
            "train",
            run_program(&folder.join("train"), scratch, &args)?,
        )];
        if let (Some(tdl2048), Some(theirs)) = (&options.tdl2048, theirs) {
            eprintln!("round {round}/{runs}: TDL2048+, 4x6patt training by {method}");
            outputs.push((
                1,
                "TDL2048+",
                run_program(tdl2048, scratch, &recipe(theirs))?,
            ));
        }
        for (column, program, ran) in outputs {
            let [trained] = block_speeds(&ran.stdout)[..] else {
                return Err(format!("{program} printed no single block line ({method})"));
            };
            record(
                rows,
                format!("4x6patt training by {method}, 1 thread"),
                "M moves/s",
                column,
                trained / 1e6,
                ran.peak,
            );
        }
    }
    Ok(())
}

/// Adds a value and a peak to `column` of the row named `name`, a new row
/// if there is none yet, and returns the row.
fn record<'a>(
    rows: &'a mut Vec<Row>,
    name: String,
    unit: &'static str,
    column: usize,
    value: f64,
    peak: u64,
) -> &'a mut Row {
    let index = match rows.iter().position(|row| row.name == name) {
        Some(index) => index,
        None => {
            rows.push(Row {
                name,
                unit,
                scaling: None,
                values: Default::default(),
                peaks: Default::default(),
            });
            rows.len() - 1
        }
    };
    let row = &mut rows[index];
    row.values[column].push(value);
    row.peaks[column].push(peak);
    row
}
