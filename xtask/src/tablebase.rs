//! `cargo xtask tablebase`: whole table builds with the release `tb-build`,
//! measured as docs/tablebase.md quotes them: wall time, CPU time (user +
//! system) and peak memory of each build, beside the reference builder's
//! figures; with `--vs`, another build's `tb-build` right after each run,
//! its tables checked against this build's (`tb-build compare`: the same
//! positions at the same rates, whatever the files' format version), and
//! the paired ratios of CPU time, which are what a change's worth is judged
//! by on a machine whose speed drifts.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::measure::{
    in_scratch, median, peak_mib, programs, run_program, summarise, thread_counts,
};

/// The options of `cargo xtask tablebase`.
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// Tables to build, each FORMATION-TARGET (a built-in formation or a
    /// formation file)
    #[arg(long, value_delimiter = ',', default_value = "442-128,L3-128,L3-256")]
    pub tables: Vec<String>,
    /// Thread counts [default: 1 and all cores]
    #[arg(long, value_delimiter = ',', conflicts_with = "scaling", value_parser = crate::measure::thread_count)]
    pub threads: Vec<usize>,
    /// Builds on 1, 2, 4, ... threads up to all cores, and a table of each
    /// count's wall-time speed-up, CPU time and peak memory over one
    /// thread's
    #[arg(long)]
    pub scaling: bool,
    /// Rounds; each builds every table at every thread count once
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// How the rates are stored (tb-build's --precision)
    #[arg(long, default_value = "u32")]
    pub precision: String,
    /// A folder holding another build's tb-build, run right after each of
    /// this build's runs (in turns, the other first every other round)
    #[arg(long, value_name = "DIR")]
    pub vs: Option<PathBuf>,
    /// Measure the tb-build of this folder as it is, building nothing (for
    /// a machine without cargo) [default: this workspace's release build]
    #[arg(long, value_name = "DIR")]
    pub programs: Option<PathBuf>,
}

/// The reference builder's figures (../shared/docs/reference-figures.md):
/// CPU seconds (user + system) and peak MiB, on an idle 2-core machine of
/// the development machine's kind, 2 threads, `f64` rates.
const REFERENCE: [(&str, f64, u64); 5] = [
    ("L3-64", 7.0, 172),
    ("442-128", 11.5, 172),
    ("L3-128", 19.6, 194),
    ("L3-256", 45.0, 216),
    // 1.68 GiB.
    ("free8-128", 922.0, 1720),
];

/// One build's runs of one table at one thread count.
#[derive(Debug, Default)]
struct Runs {
    wall: Vec<f64>,
    cpu: Vec<f64>,
    peak: Vec<u64>,
}

/// A table at a thread count, with the runs of this build and of `--vs`'s.
#[derive(Debug)]
struct Row {
    /// As the user named it: FORMATION-TARGET.
    table: String,
    /// tb-build's arguments ([`split`]).
    formation: String,
    target: String,
    threads: usize,
    runs: [Runs; 2],
}

pub fn tablebase(options: &Options) -> Result<(), String> {
    let tables = options
        .tables
        .iter()
        .map(|table| split(table).map_err(|problem| format!("{problem} (--tables)")))
        .collect::<Result<Vec<_>, String>>()?;
    let other = options.vs.as_ref().map(|folder| folder.join("tb-build"));
    if let Some(other) = other.filter(|other| !other.is_file()) {
        return Err(format!("{}: no such program (--vs)", other.display()));
    }
    let this = programs(options.programs.as_deref(), &["tb-build"], "tb-build")?;
    let programs: Vec<PathBuf> = std::iter::once(this)
        .chain(options.vs.clone())
        .map(|folder| folder.join("tb-build"))
        .collect();
    let threads = thread_counts(&options.threads, options.scaling);
    let mut rows: Vec<Row> = tables
        .iter()
        .zip(&options.tables)
        .flat_map(|((formation, target), table)| {
            threads.iter().map(|&threads| Row {
                table: table.clone(),
                formation: formation.clone(),
                target: target.clone(),
                threads,
                runs: Default::default(),
            })
        })
        .collect();
    in_scratch("tablebase", |scratch| {
        measure(&mut rows, &programs, options, scratch)
    })?;
    print!(
        "{}",
        report(&rows, options.vs.is_some(), &options.precision)
    );
    print!("{}", scaling(&rows));
    Ok(())
}

/// tb-build's formation and target of `table`, FORMATION-TARGET: a
/// formation file made absolute, as tb-build runs in a scratch folder.
pub fn split(table: &str) -> Result<(String, String), String> {
    let (formation, target) = table
        .rsplit_once('-')
        .ok_or_else(|| format!("{table}: not FORMATION-TARGET"))?;
    let formation = match Path::new(formation).canonicalize() {
        Ok(file) if file.is_file() => file.display().to_string(),
        _ => formation.to_owned(),
    };
    Ok((formation, target.to_owned()))
}

/// Runs every row's builds, round after round, in `scratch`.
fn measure(
    rows: &mut [Row],
    programs: &[PathBuf],
    options: &Options,
    scratch: &Path,
) -> Result<(), String> {
    let runs = options.runs.max(1);
    for round in 1..=runs {
        for row in rows.iter_mut() {
            let folder = |build: usize| scratch.join(format!("table-{build}"));
            // In turns: the other build first every other round.
            let mut order: Vec<usize> = (0..programs.len()).collect();
            if round % 2 == 0 {
                order.reverse();
            }
            for build in order {
                eprintln!(
                    "round {round}/{runs}: {} on {} thread(s), {}",
                    row.table,
                    row.threads,
                    programs[build].display()
                );
                let _ = std::fs::remove_dir_all(folder(build));
                let args = [
                    "build",
                    &row.formation,
                    &row.target,
                    "-p",
                    &row.threads.to_string(),
                    "--precision",
                    &options.precision,
                    "-o",
                    &folder(build).display().to_string(),
                ]
                .map(String::from);
                let start = Instant::now();
                let ran = run_program(&programs[build], scratch, &args)?;
                let wall = start.elapsed().as_secs_f64();
                let cpu = ran.cpu.ok_or("this system reports no CPU time")?;
                let runs = &mut row.runs[build];
                runs.wall.push(wall);
                runs.cpu.push(cpu);
                runs.peak.push(ran.peak);
            }
            if programs.len() > 1 {
                compare(&programs[0], &folder(0), &folder(1)).map_err(|problem| {
                    format!("the two builds' {} tables: {problem}", row.table)
                })?;
            }
        }
    }
    Ok(())
}

/// Fails unless the tables in `a` and `b` hold the same positions at the
/// same rates, as `tb-build compare` (run from this build) finds them: the
/// bytes may differ where the other build writes another format version.
fn compare(tb_build: &Path, a: &Path, b: &Path) -> Result<(), String> {
    let output = Command::new(tb_build)
        .arg("compare")
        .args([a, b])
        .output()
        .map_err(|e| format!("{}: {e}", tb_build.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
    }
}

/// The rows as a Markdown table, with a line saying how they were measured.
fn report(rows: &[Row], vs: bool, precision: &str) -> String {
    let mut lines = vec![
        "| table | threads | wall s | CPU s | peak MiB | reference: CPU s, peak MiB | CPU ratio to the reference |".to_owned(),
        "|---|---|---|---|---|---|---|".to_owned(),
    ];
    if vs {
        lines[0].push_str(" --vs CPU s | --vs peak MiB | CPU ratio, --vs over this |");
        lines[1].push_str("---|---|---|");
    }
    for row in rows {
        let [this, other] = &row.runs;
        let reference = REFERENCE.iter().find(|(name, ..)| *name == row.table);
        let mut line = format!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.table,
            row.threads,
            summarise(&this.wall),
            summarise(&this.cpu),
            peak_mib(&this.peak),
            reference.map_or("-".to_owned(), |(_, cpu, peak)| format!("{cpu:.1}, {peak}")),
            reference.map_or("-".to_owned(), |(_, cpu, _)| format!(
                "{:.2}",
                cpu / median(&this.cpu)
            )),
        );
        if vs {
            // Each run of the other build over this build's of the same round:
            // above 1 where this build took less CPU time.
            let ratios: Vec<f64> = this
                .cpu
                .iter()
                .zip(&other.cpu)
                .map(|(this, other)| other / this)
                .collect();
            line.push_str(&format!(
                " {} | {} | {} |",
                summarise(&other.cpu),
                peak_mib(&other.peak),
                summarise(&ratios)
            ));
        }
        lines.push(line);
    }
    let rounds = rows.first().map_or(0, |row| row.runs[0].cpu.len());
    lines.push(format!(
        "\n{rounds} round(s) in turns, `{precision}` rates; medians (min-max); CPU = user + system \
         time of the process and peak resident memory, from the kernel. The reference's figures \
         are at 2 threads with `f64` rates (../shared/docs/reference-figures.md).\n"
    ));
    lines.join("\n")
}

/// Each table built on one thread and on more, as a Markdown table of
/// this build's medians on each thread count over those on one: the
/// wall time's speed-up, the CPU time's and the peak memory's growth.
/// Empty where no table was built on one thread and on more.
fn scaling(rows: &[Row]) -> String {
    let one_thread = |table: &str| {
        rows.iter()
            .find(|row| row.table == table && row.threads == 1 && !row.runs[0].wall.is_empty())
    };
    let scaled: Vec<(&Row, &Row)> = rows
        .iter()
        .filter_map(|row| Some((row, one_thread(&row.table)?)))
        .collect();
    if !scaled.iter().any(|(row, _)| row.threads > 1) {
        return String::new();
    }
    let mut lines = vec![
        "\n| table | threads | wall s | speed-up | CPU s | CPU over 1 thread's | peak MiB | peak over 1 thread's |".to_owned(),
        "|---|---|---|---|---|---|---|---|".to_owned(),
    ];
    let peak = |runs: &Runs| runs.peak.iter().max().map_or(0.0, |&peak| peak as f64);
    for (row, one) in scaled {
        let [this, one] = [&row.runs[0], &one.runs[0]];
        lines.push(format!(
            "| {} | {} | {} | {:.2} | {} | {:.2} | {} | {:.2} |",
            row.table,
            row.threads,
            summarise(&this.wall),
            median(&one.wall) / median(&this.wall),
            summarise(&this.cpu),
            median(&this.cpu) / median(&one.cpu),
            peak_mib(&this.peak),
            peak(this) / peak(one),
        ));
    }
    lines.push(
        "\nSpeed-up: the median wall time on one thread over that on this many; CPU time \
         and peak memory over one thread's (medians; peaks the largest)\n"
            .to_owned(),
    );
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of `cpu` seconds each (half as long on the wall), at a peak of
    /// `mib`.
    fn runs(cpu: &[f64], mib: u64) -> Runs {
        Runs {
            wall: cpu.iter().map(|cpu| cpu / 2.0).collect(),
            cpu: cpu.to_vec(),
            peak: vec![mib << 20; cpu.len()],
        }
    }

    fn row(table: &str, threads: usize, runs: [Runs; 2]) -> Row {
        let (formation, target) = split(table).unwrap();
        Row {
            table: table.to_owned(),
            formation,
            target,
            threads,
            runs,
        }
    }

    #[test]
    fn tables_are_split_into_formation_and_target() {
        assert_eq!(
            split("L3-128").unwrap(),
            ("L3".to_owned(), "128".to_owned())
        );
        assert!(split("L3").unwrap_err().contains("not FORMATION-TARGET"));
    }

    /// A formation file named from where the recipe runs (up to the root,
    /// then down to the temporary folder) is given to tb-build whole.
    #[cfg(unix)]
    #[test]
    fn formation_files_are_named_whole() {
        let file = std::env::temp_dir().join(format!("formation{}.json", std::process::id()));
        std::fs::write(&file, "{}").unwrap();
        let whole = file.canonicalize().unwrap();
        let up = std::env::current_dir().unwrap().components().count() - 1;
        let relative = Path::new(&"../".repeat(up)).join(whole.strip_prefix("/").unwrap());
        let split = split(&format!("{}-256", relative.display()));
        std::fs::remove_file(&file).unwrap();
        assert!(relative.is_relative());
        assert_eq!(
            split.unwrap(),
            (whole.display().to_string(), "256".to_owned())
        );
    }

    #[test]
    fn the_scaling_table_divides_by_one_thread() {
        let rows = [
            row(
                "L3-256",
                1,
                [runs(&[20.0, 22.0, 24.0], 40), Runs::default()],
            ),
            row(
                "L3-256",
                4,
                [runs(&[24.0, 26.0, 25.0], 48), Runs::default()],
            ),
            // No one-thread build: left out.
            row("442-128", 2, [runs(&[5.0], 20), Runs::default()]),
        ];
        let table = scaling(&rows);
        let lines: Vec<&str> = table
            .lines()
            .filter(|line| line.starts_with("| L"))
            .collect();
        // Wall times are half the CPU times: 11 over 12.5 s on 4 threads.
        assert_eq!(
            lines,
            [
                "| L3-256 | 1 | 11.00 (10.00-12.00) | 1.00 | 22.00 (20.00-24.00) | 1.00 | 40 | 1.00 |",
                "| L3-256 | 4 | 12.50 (12.00-13.00) | 0.88 | 25.00 (24.00-26.00) | 1.14 | 48 | 1.20 |",
            ],
            "{table}"
        );
        assert!(!table.contains("442-128"));
        assert_eq!(scaling(&rows[..1]), "");
    }

    #[test]
    fn the_report_sets_each_table_beside_the_reference() {
        let rows = [
            row(
                "L3-128",
                2,
                [runs(&[10.0, 9.8, 10.2], 42), runs(&[11.0, 9.8, 9.0], 43)],
            ),
            row("LL-64", 1, [runs(&[3.0], 20), Runs::default()]),
        ];
        let alone = report(&rows, false, "u32");
        assert!(
            alone.contains("| L3-128 | 2 | 5.000 (4.900-5.100) | 10.00 (9.800-10.20) | 42 | 19.6, 194 | 1.96 |\n"),
            "{alone}"
        );
        // A table the reference's figures lack.
        assert!(
            alone.contains(
                "| LL-64 | 1 | 1.500 (1.500-1.500) | 3.000 (3.000-3.000) | 20 | - | - |\n"
            ),
            "{alone}"
        );
        assert!(alone.contains("3 round(s) in turns, `u32` rates"));
        let vs = report(&rows[..1], true, "f64");
        // Paired ratios: 11/10, 9.8/9.8, 9/10.2.
        assert!(
            vs.contains("| 1.96 | 9.800 (9.000-11.00) | 43 | 1.000 (0.8824-1.100) |\n"),
            "{vs}"
        );
    }
}
