//! Reading logs in TDL2048+'s layout, written by TDL2048+ or by 2048lab:
//! what its users' scripts extract, as a library.

use std::str::FromStr;

/// One `local:` or `total:` line: `avg=7404 max=27088 tile=2048 win=0.30%`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Brief {
    /// The integer mean score.
    pub avg: u64,
    /// The best score.
    pub max: u64,
    /// The largest tile reached (its value).
    pub tile: u32,
    /// The share reaching the win tile, in percent.
    pub win: f64,
}

impl FromStr for Brief {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let field = |name: &str| {
            text.split_whitespace()
                .find_map(|word| word.strip_prefix(name)?.strip_prefix('='))
                .ok_or_else(|| format!("no {name}= in {text:?}"))
        };
        let number = |name: &str| -> Result<u64, String> {
            field(name)?
                .parse()
                .map_err(|_| format!("bad {name}= in {text:?}"))
        };
        Ok(Self {
            avg: number("avg")?,
            max: number("max")?,
            tile: number("tile")? as u32,
            win: field("win")?
                .trim_end_matches('%')
                .parse()
                .map_err(|_| format!("bad win= in {text:?}"))?,
        })
    }
}

/// A block record: `001/250 367ms 1364722.07ops` with its two lines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogBlock {
    /// Its number, from 1.
    pub index: u64,
    /// The number of blocks of its run.
    pub blocks: u64,
    /// Its time in milliseconds.
    pub millis: u64,
    /// Its moves per second.
    pub ops: f64,
    /// Its own episodes.
    pub local: Brief,
    /// The run's episodes so far.
    pub total: Brief,
}

/// A row of the summary table: the games that ended with one largest tile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SummaryRow {
    /// The tile (its value).
    pub tile: u32,
    /// Games ending with it.
    pub count: u64,
    /// Their mean score.
    pub score: u64,
    /// Their mean number of moves.
    pub moves: u64,
    /// Their share, in percent.
    pub rate: f64,
    /// The share reaching at least this tile, in percent.
    pub reach: f64,
}

/// One run found in a log: the block size its recipe line gave
/// (`train: 10x10000`, `evaluate: 2x1000`, or TDL2048+'s `optimize: 10x10000`
/// and `evaluate: 2 info`, meaning blocks of 1000), its blocks, and its
/// summary if it has one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogRun {
    /// `train` or `evaluate` (or empty when the log has no recipe line).
    pub kind: String,
    /// Episodes per block, when the recipe line says.
    pub block_size: Option<u64>,
    /// The block records in order.
    pub blocks: Vec<LogBlock>,
    /// The summary table rows, if the run ended with one.
    pub summary: Vec<SummaryRow>,
}

/// Reads every run of a log. Lines that are not block records, summaries
/// or recipe lines (headers, network listings) are skipped, so logs of
/// TDL2048+ and of 2048lab both read.
///
/// # Errors
/// A message naming the line for a block record or summary row that starts
/// right but is malformed.
pub fn parse_log(text: &str) -> Result<Vec<LogRun>, String> {
    let mut runs: Vec<LogRun> = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((number, line)) = lines.next() {
        let at = |problem: String| format!("line {}: {problem}", number + 1);
        if let Some((kind, recipe)) = line
            .strip_prefix("train: ")
            .or_else(|| line.strip_prefix("optimize: "))
            .map(|r| ("train", r))
            .or_else(|| line.strip_prefix("evaluate: ").map(|r| ("evaluate", r)))
        {
            let block_size = match recipe.split_whitespace().next().unwrap_or("") {
                plan if plan.contains('x') => plan.split('x').nth(1).and_then(|s| s.parse().ok()),
                _ => Some(1000),
            };
            runs.push(LogRun {
                kind: kind.to_owned(),
                block_size,
                ..LogRun::default()
            });
        } else if let Some(block) = block_header(line) {
            let (index, blocks, millis, ops) = block.map_err(at)?;
            let mut brief = |prefix: &str| -> Result<Brief, String> {
                let (_, next) = lines
                    .next()
                    .ok_or_else(|| at(format!("missing {prefix} line")))?;
                next.strip_prefix(prefix)
                    .ok_or_else(|| at(format!("expected a {prefix} line, found {next:?}")))?
                    .parse()
                    .map_err(at)
            };
            let local = brief("local:")?;
            let total = brief("total:")?;
            if runs.is_empty() {
                runs.push(LogRun::default());
            }
            runs.last_mut().unwrap().blocks.push(LogBlock {
                index,
                blocks,
                millis,
                ops,
                local,
                total,
            });
        } else if line.starts_with("tile ") && line.contains("count") {
            let run = runs
                .last_mut()
                .ok_or_else(|| at("a summary before any run".into()))?;
            while let Some(&(number, row)) = lines.peek() {
                let fields: Vec<&str> = row.split_whitespace().collect();
                if fields.len() != 6 {
                    break;
                }
                let bad = || format!("line {}: bad summary row {row:?}", number + 1);
                let int = |i: usize| fields[i].parse::<u64>().map_err(|_| bad());
                let percent = |i: usize| {
                    fields[i]
                        .trim_end_matches('%')
                        .parse::<f64>()
                        .map_err(|_| bad())
                };
                run.summary.push(SummaryRow {
                    tile: int(0)? as u32,
                    count: int(1)?,
                    score: int(2)?,
                    moves: int(3)?,
                    rate: percent(4)?,
                    reach: percent(5)?,
                });
                lines.next();
            }
        }
    }
    Ok(runs)
}

/// `001/250 367ms 1364722.07ops` as (index, blocks, ms, ops); `None` when
/// the line is no block record.
fn block_header(line: &str) -> Option<Result<(u64, u64, u64, f64), String>> {
    let mut words = line.split_whitespace();
    let (index, blocks) = words.next()?.split_once('/')?;
    let index = index.parse::<u64>().ok()?;
    let blocks = blocks.parse::<u64>().ok()?;
    let parsed = (|| {
        let millis = words.next()?.strip_suffix("ms")?.parse().ok()?;
        let ops = words.next()?.strip_suffix("ops")?.parse().ok()?;
        Some((index, blocks, millis, ops))
    })();
    Some(parsed.ok_or_else(|| format!("bad block record {line:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_blocks_and_summaries() {
        let log = "train: 2x500\n\n001/002 10ms 5.00ops\nlocal:  avg=10 max=20 tile=16 win=0.00%\n\
                   total:  avg=10 max=20 tile=16 win=0.00%\n\n\
                   summary 10ms 5.00ops\ntotal:  avg=10 max=20 tile=16 win=0.00%\n\
                   tile     count   score    move     rate      win\n\
                   16          500      10       7  100.00%  100.00%\n\n";
        let runs = parse_log(log).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].block_size, Some(500));
        assert_eq!(runs[0].blocks[0].local.avg, 10);
        assert_eq!(runs[0].summary[0].count, 500);
        assert!(parse_log("001/002 10ms 5.00ops\nlocal: nonsense\n").is_err());
    }

    #[test]
    fn reads_the_recipe_lines_of_tdl2048() {
        let block = "001/001 10ms 5.00ops\nlocal:  avg=10 max=20 tile=16 win=0.00%\n\
                     total:  avg=10 max=20 tile=16 win=0.00%\n\n";
        let runs = parse_log(&format!(
            "optimize: 1x10000\n\n{block}evaluate: 2 info\n\n{block}"
        ))
        .unwrap();
        let found: Vec<_> = runs
            .iter()
            .map(|run| (run.kind.as_str(), run.block_size))
            .collect();
        assert_eq!(found, [("train", Some(10_000)), ("evaluate", Some(1000))]);
    }
}
