//! `cargo xtask bench`: the speed table a user would quote, measured on the
//! release programs as users run them: TD training and 1-ply testing,
//! expectimax, a tablebase build and 2584 Fibonacci, each with the peak
//! memory the operating system saw.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{run_cargo, workspace_root};

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
    #[arg(long, value_delimiter = ',', conflicts_with = "scaling", value_parser = crate::bench::thread_count)]
    pub threads: Vec<usize>,
    /// Training and testing on 1, 2, 4, ... threads up to all cores, and a
    /// table of the speed-up over one thread (TDL2048+'s beside, with
    /// `--tdl2048`)
    #[arg(long)]
    pub scaling: bool,
}

/// A thread count of `--threads`: a whole number from 1 (0 threads would
/// train nothing, and split no episodes among them).
pub(crate) fn thread_count(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(count) if count >= 1 => Ok(count),
        _ => Err(format!("{text:?} is not a thread count (1 or more)")),
    }
}

/// The thread counts a recipe measures: `threads` if given; with
/// `scaling`, 1, 2, 4, ... up to all cores (and all cores); else 1 and all
/// cores.
pub(crate) fn thread_counts(threads: &[usize], scaling: bool) -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let mut counts: Vec<usize> = if !threads.is_empty() {
        threads.to_vec()
    } else if scaling {
        std::iter::successors(Some(1), |&count| Some(count * 2))
            .take_while(|&count| count < all)
            .chain([all])
            .collect()
    } else {
        vec![1, all]
    };
    counts.dedup();
    counts
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

/// A program run and what it printed.
pub(crate) struct Ran {
    pub(crate) stdout: String,
    /// The largest resident size of the process, in bytes.
    pub(crate) peak: u64,
    /// The CPU time of the process (user + system), in seconds, where the
    /// system says.
    pub(crate) cpu: Option<f64>,
}

pub fn bench(options: &Options) -> Result<(), String> {
    // Said now rather than after this build's first run.
    if let Some(tdl2048) = options.tdl2048.as_ref().filter(|path| !path.is_file()) {
        return Err(format!(
            "{}: no such program (--tdl2048)",
            tdl2048.display()
        ));
    }
    let mut build = vec!["build", "--release"];
    for program in ["train", "eval", "tb-build", "fib2584"] {
        build.extend(["-p", program]);
    }
    run_cargo(&build)?;
    let root = workspace_root();
    let builds: Vec<PathBuf> = std::iter::once(root.join("target/release"))
        .chain(options.vs.clone())
        .collect();
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

/// What `work` returns, given a scratch folder of its own (named for
/// `recipe`), which is removed afterwards whatever the outcome.
pub(crate) fn in_scratch<T>(
    recipe: &str,
    work: impl FnOnce(&Path) -> Result<T, String>,
) -> Result<T, String> {
    let scratch = std::env::temp_dir().join(format!("2048lab-{recipe}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let result = work(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Runs `binary args` in `scratch`, and the peak resident size and CPU
/// time the kernel recorded for it.
pub(crate) fn run_program(binary: &Path, scratch: &Path, args: &[String]) -> Result<Ran, String> {
    // A program named relative to here, not to `scratch`, where it runs.
    let binary = &std::path::absolute(binary).map_err(|e| format!("{}: {e}", binary.display()))?;
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(scratch)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", binary.display()))?;
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut stdout)
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let (success, peak, cpu) = wait_with_usage(child)?;
    if !success {
        return Err(format!(
            "{} {} failed: {}",
            binary.display(),
            args.join(" "),
            stderr.trim()
        ));
    }
    Ok(Ran { stdout, peak, cpu })
}

/// Waits for `child` and reads its peak resident size and CPU time from the
/// kernel's accounting of that one process (`wait4`).
#[cfg(unix)]
fn wait_with_usage(child: std::process::Child) -> Result<(bool, u64, Option<f64>), String> {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; the pid is our
    // child, not yet waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to a status and a rusage on this stack.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != pid {
        return Err(format!("waiting for process {pid} failed"));
    }
    let success = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 * 1e-6;
    let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    // Linux reports kibibytes.
    Ok((success, usage.ru_maxrss as u64 * 1024, Some(cpu)))
}

#[cfg(not(unix))]
fn wait_with_usage(mut child: std::process::Child) -> Result<(bool, u64, Option<f64>), String> {
    let status = child.wait().map_err(|e| e.to_string())?;
    Ok((status.success(), 0, None))
}

/// The moves/s of every block line (`001/001 367ms 1364722.07ops`).
pub fn block_speeds(log: &str) -> Vec<f64> {
    log.lines()
        .filter(|line| line.starts_with(|c: char| c.is_ascii_digit()) && line.contains('/'))
        .filter_map(|line| {
            line.split_whitespace()
                .nth(2)?
                .strip_suffix("ops")?
                .parse()
                .ok()
        })
        .collect()
}

/// The training and the testing speed (moves/s) of a log of as many
/// blocks of each: the first half of its block lines, then the second.
/// Blocks one after another (train's, or one thread's) make moves over
/// their time together; blocks tagged with a thread (`[1]`, TDL2048+'s
/// processes) run at once, so their speeds add up, as TDL2048+'s own
/// summary adds them.
pub fn phase_speeds(log: &str) -> Result<[f64; 2], String> {
    let blocks: Vec<(f64, f64, bool)> = log
        .lines()
        .filter(|line| line.starts_with(|c: char| c.is_ascii_digit()) && line.contains('/'))
        .filter_map(|line| {
            let mut words = line.split_whitespace().skip(1);
            let millis = words.next()?.strip_suffix("ms")?.parse().ok()?;
            let speed = words.next()?.strip_suffix("ops")?.parse().ok()?;
            Some((
                millis,
                speed,
                words.next().is_some_and(|tag| tag.starts_with('[')),
            ))
        })
        .collect();
    if blocks.is_empty() || !blocks.len().is_multiple_of(2) {
        return Err(format!(
            "{} block lines, not as many for testing as for training",
            blocks.len()
        ));
    }
    let speed = |blocks: &[(f64, f64, bool)]| {
        if blocks.iter().any(|&(.., tagged)| tagged) {
            blocks.iter().map(|&(_, speed, _)| speed).sum()
        } else {
            let moves: f64 = blocks
                .iter()
                .map(|&(millis, speed, _)| millis * speed)
                .sum();
            moves / blocks.iter().map(|&(millis, ..)| millis).sum::<f64>()
        }
    };
    let (trained, tested) = blocks.split_at(blocks.len() / 2);
    Ok([speed(trained), speed(tested)])
}

/// The `ms/move` of eval's search line (`search: 0.028 ms/move, ...`).
fn search_millis(log: &str) -> Option<f64> {
    log.lines()
        .find_map(|line| line.strip_prefix("search: "))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Positions generated per second, from tb-build's last line
/// (`done: 18084453 positions generated, ..., 12.9 s, peak memory 29 MiB`).
fn table_rate(log: &str) -> Option<f64> {
    let done = log.lines().find_map(|line| line.strip_prefix("done: "))?;
    let generated: f64 = done.split_whitespace().next()?.parse().ok()?;
    let seconds: f64 = done
        .split(", ")
        .find_map(|part| part.strip_suffix(" s"))?
        .parse()
        .ok()?;
    Some(generated / seconds.max(1e-9))
}

/// The actions/s of every course block (`1000\tavg = 1, max = 2, ops = 3 (...)`).
fn course_speeds(log: &str) -> Vec<f64> {
    log.lines()
        .filter(|line| line.contains("\tavg = "))
        .filter_map(|line| {
            line.split("ops = ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

/// The median of `values` (the upper one of an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// `2.412 (2.301-2.590)`: the median and range, to four significant digits.
pub fn summarise(values: &[f64]) -> String {
    if values.is_empty() {
        return "-".to_owned();
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    format!(
        "{} ({}-{})",
        significant(median(values)),
        significant(sorted[0]),
        significant(sorted[sorted.len() - 1])
    )
}

/// `x` to four significant digits: `2.412`, `0.01732`, `412.0`.
fn significant(x: f64) -> String {
    let magnitude = if x == 0.0 {
        0
    } else {
        x.abs().log10().floor() as i32
    };
    let decimals = (3 - magnitude).max(0) as usize;
    format!("{x:.decimals$}")
}

/// The largest of `peaks`, in MiB.
pub(crate) fn peak_mib(peaks: &[u64]) -> String {
    peaks
        .iter()
        .max()
        .map_or_else(|| "-".to_owned(), |&peak| format!("{}", peak >> 20))
}

/// The table of `rows`, in Markdown, with a line saying how it was measured.
fn table(options: &Options, rows: &[Row]) -> String {
    // The second column's heading, and what the rounds interleaved.
    let other = match (&options.tdl2048, &options.vs) {
        (Some(_), _) => Some(("TDL2048+", "this build and TDL2048+")),
        (None, Some(_)) => Some(("--vs build", "the two builds")),
        (None, None) => None,
    };
    let mut lines = match other {
        Some((other, _)) => vec![
            format!(
                "| measurement | unit | this build | peak MiB | {other} | peak MiB | {other} / this |"
            ),
            "|---|---|---|---|---|---|---|".to_owned(),
        ],
        None => vec![
            "| measurement | unit | median (min-max) | peak MiB |".to_owned(),
            "|---|---|---|---|".to_owned(),
        ],
    };
    for row in rows {
        let this = summarise(&row.values[0]);
        let peak = peak_mib(&row.peaks[0]);
        lines.push(if other.is_some() {
            let ratio = if row.values[1].is_empty() {
                "-".to_owned()
            } else {
                format!("{:.3}", median(&row.values[1]) / median(&row.values[0]))
            };
            format!(
                "| {} | {} | {this} | {peak} | {} | {} | {ratio} |",
                row.name,
                row.unit,
                summarise(&row.values[1]),
                peak_mib(&row.peaks[1]),
            )
        } else {
            format!("| {} | {} | {this} | {peak} |", row.name, row.unit)
        });
    }
    let rounds = rows.first().map_or(0, |row| row.values[0].len());
    lines.push(format!(
        "\n{rounds} round(s), {} interleaved; medians (min-max); peak resident memory from the kernel.\n",
        other.map_or("measurements", |(_, both)| both)
    ));
    lines.join("\n")
}

/// The speeds measured at several thread counts as a Markdown table, each
/// beside its speed-up over one thread (the ratio of the medians), for
/// this build and the second column's program; empty unless some speed
/// was measured on one thread and on more.
fn scaling_table(options: &Options, rows: &[Row]) -> String {
    let mut scaled: Vec<(&Row, &str, usize)> = rows
        .iter()
        .filter_map(|row| {
            let (what, threads) = row.scaling.as_ref()?;
            Some((row, what.as_str(), *threads))
        })
        .collect();
    // Each measurement's thread counts together, in the order measured.
    let whats: Vec<&str> = scaled.iter().map(|&(_, what, _)| what).collect();
    scaled.sort_by_key(|&(_, what, threads)| (whats.iter().position(|&of| of == what), threads));
    let one_thread = |what: &str, column: usize| {
        scaled
            .iter()
            .find(|&&(row, of, threads)| {
                of == what && threads == 1 && !row.values[column].is_empty()
            })
            .map(|(row, ..)| median(&row.values[column]))
    };
    let compared = scaled
        .iter()
        .any(|&(_, what, threads)| threads > 1 && one_thread(what, 0).is_some());
    if !compared {
        return String::new();
    }
    let other = match (&options.tdl2048, &options.vs) {
        (Some(_), _) => Some("TDL2048+"),
        (None, Some(_)) => Some("--vs build"),
        (None, None) => None,
    };
    let mut lines = vec![
        "\n| measurement | threads | this build, M moves/s | speed-up |".to_owned(),
        "|---|---|---|---|".to_owned(),
    ];
    if let Some(other) = other {
        lines[0].push_str(&format!(" {other}, M moves/s | speed-up |"));
        lines[1].push_str("---|---|");
    }
    for &(row, what, threads) in &scaled {
        let columns = if other.is_some() { 0..2 } else { 0..1 };
        let cells: Vec<String> = columns
            .map(|column| {
                let values = &row.values[column];
                let speed_up = match one_thread(what, column) {
                    Some(one) if !values.is_empty() => format!("{:.2}", median(values) / one),
                    _ => "-".to_owned(),
                };
                format!(" {} | {speed_up} |", summarise(values))
            })
            .collect();
        lines.push(format!("| {what} | {threads} |{}", cells.concat()));
    }
    lines.push("\nSpeed-up: the median on that many threads over the median on one.\n".to_owned());
    lines.join("\n")
}

/// The rows as JSON, for comparisons over time.
fn json(rows: &[Row]) -> String {
    let entries: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            serde_json::json!({
                "measurement": row.name,
                "unit": row.unit,
                "threads": row.scaling.as_ref().map(|(_, threads)| threads),
                "median": median_or_null(&row.values[0]),
                "values": row.values[0],
                "peak_bytes": row.peaks[0].iter().max(),
                "vs_median": median_or_null(&row.values[1]),
                "vs_values": row.values[1],
                "vs_peak_bytes": row.peaks[1].iter().max(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&entries).expect("plain values serialise")
}

fn median_or_null(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| median(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_column_names_the_program_compared() {
        let options = |vs: Option<&str>, tdl2048: Option<&str>| Options {
            networks: Vec::new(),
            episodes: 1,
            runs: 1,
            quick: false,
            json: None,
            vs: vs.map(PathBuf::from),
            tdl2048: tdl2048.map(PathBuf::from),
            methods: false,
            threads: Vec::new(),
            scaling: false,
        };
        let rows = [Row {
            name: "4x6patt training, 1 thread(s)".to_owned(),
            unit: "M moves/s",
            scaling: None,
            values: [vec![2.0], vec![1.5]],
            peaks: [vec![1 << 20], vec![2 << 20]],
        }];
        let tdl = table(&options(None, Some("2048")), &rows);
        assert!(
            tdl.contains("| TDL2048+ | peak MiB | TDL2048+ / this |"),
            "{tdl}"
        );
        assert!(tdl.contains("| 2.000 (2.000-2.000) | 1 | 1.500 (1.500-1.500) | 2 | 0.750 |"));
        assert!(tdl.contains("this build and TDL2048+ interleaved"));
        let vs = table(&options(Some("target/pgo/bin"), None), &rows);
        assert!(
            vs.contains("| --vs build | peak MiB | --vs build / this |"),
            "{vs}"
        );
        let alone = table(&options(None, None), &rows);
        assert!(
            alone.contains(
                "| 4x6patt training, 1 thread(s) | M moves/s | 2.000 (2.000-2.000) | 1 |\n"
            )
        );
    }

    /// Speeds at several thread counts are set over their one-thread
    /// figure, measurement by measurement, for both programs.
    #[test]
    fn the_scaling_table_divides_by_one_thread() {
        let options = Options {
            networks: Vec::new(),
            episodes: 1,
            runs: 1,
            quick: false,
            json: None,
            vs: None,
            tdl2048: Some(PathBuf::from("2048")),
            methods: false,
            threads: Vec::new(),
            scaling: true,
        };
        let row = |what: &str, threads: usize, ours: Vec<f64>, theirs: Vec<f64>| Row {
            name: format!("{what}, {threads} thread(s)"),
            unit: "M moves/s",
            scaling: Some((what.to_owned(), threads)),
            values: [ours, theirs],
            peaks: Default::default(),
        };
        let rows = [
            row("4x6patt training", 1, vec![2.0, 2.2, 1.8], vec![2.5]),
            row("4x6patt 1-ply testing", 1, vec![3.0], vec![]),
            row("4x6patt training", 4, vec![7.0, 6.0, 8.0], vec![5.0]),
            row("4x6patt 1-ply testing", 4, vec![12.0], vec![4.0]),
        ];
        let table = scaling_table(&options, &rows);
        let lines: Vec<&str> = table
            .lines()
            .filter(|line| line.starts_with("| 4x6"))
            .collect();
        assert_eq!(
            lines,
            [
                "| 4x6patt training | 1 | 2.000 (1.800-2.200) | 1.00 | 2.500 (2.500-2.500) | 1.00 |",
                "| 4x6patt training | 4 | 7.000 (6.000-8.000) | 3.50 | 5.000 (5.000-5.000) | 2.00 |",
                "| 4x6patt 1-ply testing | 1 | 3.000 (3.000-3.000) | 1.00 | - | - |",
                "| 4x6patt 1-ply testing | 4 | 12.00 (12.00-12.00) | 4.00 | 4.000 (4.000-4.000) | - |",
            ],
            "{table}"
        );
        assert!(
            table.contains("| TDL2048+, M moves/s | speed-up |"),
            "{table}"
        );
        // One thread only: nothing to scale.
        assert_eq!(scaling_table(&options, &rows[..2]), "");
        assert_eq!(thread_counts(&[3, 3, 5], true), [3, 5]);
        assert_eq!(thread_count("16"), Ok(16));
        for bad in ["0", "-1", "two"] {
            assert!(
                thread_count(bad)
                    .unwrap_err()
                    .contains("not a thread count")
            );
        }
        let all = std::thread::available_parallelism().map_or(1, usize::from);
        let scaling = thread_counts(&[], true);
        assert_eq!((scaling[0], scaling.last()), (1, Some(&all)));
        assert!(
            scaling
                .windows(2)
                .all(|pair| pair[1] <= 2 * pair[0] && pair[1] > pair[0])
        );
    }

    /// A program named relative to where the recipe runs is found there,
    /// though it runs in a scratch folder deeper down.
    #[cfg(unix)]
    #[test]
    fn programs_are_named_from_where_the_recipe_runs() {
        let up = std::env::current_dir().unwrap().components().count() - 1;
        let shell = Path::new(&"../".repeat(up)).join("bin/sh");
        let scratch = (0..=up).fold(
            std::env::temp_dir().join(format!("2048lab-xtask-run-{}", std::process::id())),
            |folder, depth| folder.join(depth.to_string()),
        );
        std::fs::create_dir_all(&scratch).unwrap();
        let ran = run_program(&shell, &scratch, &["-c", "echo ran"].map(String::from));
        std::fs::remove_dir_all(scratch.ancestors().nth(up + 1).unwrap()).unwrap();
        let ran = ran.unwrap();
        assert_eq!(ran.stdout, "ran\n");
        assert!(ran.cpu.is_some_and(|cpu| cpu >= 0.0));
    }

    #[test]
    fn figures_are_read_from_each_program() {
        let train = "001/001 367ms 1364722.07ops\nlocal: ...\n001/001 10ms 2000000.5ops\n";
        assert_eq!(block_speeds(train), [1_364_722.07, 2_000_000.5]);
        // train's blocks one after another: moves over time.
        let train = "001/002 100ms 4000000.0ops\n002/002 300ms 2000000.0ops\n\
                     001/002 100ms 6000000.0ops\n002/002 100ms 8000000.0ops\n\
                     summary 200ms 7000000.0ops\n";
        assert_eq!(phase_speeds(train), Ok([2_500_000.0, 7_000_000.0]));
        // TDL2048+'s processes at once: speeds added.
        let tdl = "001/001 208ms 2595317.31ops [0]\nlocal:  avg=8151\n\
                   001/001 358ms 1837318.44ops [1]\n\
                   001/001 222ms 3326103.60ops [0]\n001/001 230ms 3128008.70ops [1]\n\
                   summary 226ms 6450606.19ops (2x)\n";
        let [trained, tested] = phase_speeds(tdl).unwrap();
        assert!((trained - 4_432_635.75).abs() < 1e-3, "{trained}");
        assert!((tested - 6_454_112.30).abs() < 1e-3, "{tested}");
        assert!(
            phase_speeds("001/001 1ms 5.0ops\n")
                .unwrap_err()
                .contains("1 block lines")
        );
        let eval = "summary 59ms 35238.25ops\nsearch: 0.028 ms/move, 210 nodes/move\n";
        assert_eq!(search_millis(eval), Some(0.028));
        let table = "done: 1000 positions generated, 900 stored in 4 bytes (1 bytes per \
                     position), 0.5 s, peak memory 29 MiB\n";
        assert_eq!(table_rate(table), Some(2000.0));
        let fib = "1000\tavg = 5, max = 9, ops = 3771051 (1884971|1886080)\n\t144\t100%\t(0.1%)\n";
        assert_eq!(course_speeds(fib), [3_771_051.0]);
        assert_eq!(summarise(&[2.4123, 2.301, 2.59]), "2.412 (2.301-2.590)");
        assert_eq!(summarise(&[0.017_321]), "0.01732 (0.01732-0.01732)");
    }
}
