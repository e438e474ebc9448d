//! The bench's results as tables: the main one (beside a second program,
//! with ratios), the thread-scaling one, and JSON for comparisons over
//! time.

use super::{Options, Row};
use crate::measure::{median, peak_mib, summarise};

/// The table of `rows`, in Markdown, with a line saying how it was measured.
pub(super) fn table(options: &Options, rows: &[Row]) -> String {
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
pub(super) fn scaling_table(options: &Options, rows: &[Row]) -> String {
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
pub(super) fn json(rows: &[Row]) -> String {
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
    use std::path::PathBuf;

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
            programs: None,
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
            programs: None,
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
    }
}
