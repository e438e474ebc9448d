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
    let threads: Vec<usize> = if all > 1 { vec![1, all] } else { vec![1] };
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
                        let speeds = block_speeds(&ran.stdout);
                        let [trained, tested] = speeds[..] else {
                            return Err(format!(
                                "{program} printed {} block lines, not 2",
                                speeds.len()
                            ));
                        };
                        for (what, value) in [("training", trained), ("1-ply testing", tested)] {
                            record(
                                &mut rows,
                                format!("{network} {what}, {threads} thread(s)"),
                                "M moves/s",
                                column,
                                value / 1e6,
                                ran.peak,
                            );
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
/// if there is none yet.
fn record(
    rows: &mut Vec<Row>,
    name: String,
    unit: &'static str,
    column: usize,
    value: f64,
    peak: u64,
) {
    let index = match rows.iter().position(|row| row.name == name) {
        Some(index) => index,
        None => {
            rows.push(Row {
                name,
                unit,
                values: Default::default(),
                peaks: Default::default(),
            });
            rows.len() - 1
        }
    };
    rows[index].values[column].push(value);
    rows[index].peaks[column].push(peak);
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

/// The rows as JSON, for comparisons over time.
fn json(rows: &[Row]) -> String {
    let entries: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            serde_json::json!({
                "measurement": row.name,
                "unit": row.unit,
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
        };
        let rows = [Row {
            name: "4x6patt training, 1 thread(s)".to_owned(),
            unit: "M moves/s",
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
