//! Reading logs in TDL2048+'s layout, written by TDL2048+ or by 2048lab,
//! and in the 2584 course's (written by `fib2584`): what their users'
//! scripts extract, as a library.

#![forbid(unsafe_code)]

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

/// A block record: TDL2048+'s `001/250 367ms 1364722.07ops` with its
/// `local:` and `total:` lines, or the course's `1000\tavg = 13627, max =
/// 59274, ops = 2055867 (1027184|1028683)` with its tile rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogBlock {
    /// Its number, from 1.
    pub index: u64,
    /// The number of blocks of its run (0 where the log does not say).
    pub blocks: u64,
    /// Its time in milliseconds (the course's layout does not give it).
    pub millis: Option<u64>,
    /// Its moves per second (the course's: slides and placed tiles).
    pub ops: f64,
    /// Its own episodes. In the course's layout, `win` is the share that
    /// reached 2584.
    pub local: Brief,
    /// The run's episodes so far (the course's layout does not give them).
    pub total: Option<Brief>,
}

/// A row of the summary table: the games that ended with one largest tile.
/// The course's layout gives only the tile and the two shares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SummaryRow {
    /// The tile (its value).
    pub tile: u32,
    /// Games ending with it.
    pub count: Option<u64>,
    /// Their mean score.
    pub score: Option<u64>,
    /// Their mean number of moves.
    pub moves: Option<u64>,
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
/// TDL2048+, of 2048lab's `train` and `eval` and of `fib2584` all read.
///
/// # Errors
/// A message naming the line for a block record or summary row that starts
/// right but is malformed.
pub fn parse_log(text: &str) -> Result<Vec<LogRun>, String> {
    let mut runs: Vec<LogRun> = Vec::new();
    // The planned block count of the current run, from its recipe line.
    let mut planned = 0;
    // Whether the line before was the course's `summary`.
    let mut course_summary = false;
    let mut lines = text.lines().enumerate().peekable();
    while let Some((number, line)) = lines.next() {
        let at = |problem: String| format!("line {}: {problem}", number + 1);
        if let Some((kind, recipe)) = line
            .strip_prefix("train: ")
            .or_else(|| line.strip_prefix("optimize: "))
            .map(|r| ("train", r))
            .or_else(|| line.strip_prefix("evaluate: ").map(|r| ("evaluate", r)))
        {
            // `10x1000` (`10x1000,` in fib2584's), or TDL2048+'s `2 info`.
            let plan = recipe.split_whitespace().next().unwrap_or("");
            let plan = plan.trim_end_matches(',');
            let block_size = match plan.split_once('x') {
                Some((blocks, size)) => {
                    planned = blocks.parse().unwrap_or(0);
                    size.parse().ok()
                }
                None => {
                    planned = plan.parse().unwrap_or(0);
                    Some(1000)
                }
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
                millis: Some(millis),
                ops,
                local,
                total: Some(total),
            });
        } else if let Some(block) = course_block(line) {
            let (episodes, avg, max, ops) = block.map_err(at)?;
            let mut rows = Vec::new();
            while let Some(&(number, row)) = lines.peek() {
                let Some(row) = row.strip_prefix('\t') else {
                    break;
                };
                rows.push(
                    course_row(row).map_err(|problem| format!("line {}: {problem}", number + 1))?,
                );
                lines.next();
            }
            if runs.is_empty() {
                runs.push(LogRun::default());
            }
            let run = runs.last_mut().unwrap();
            if std::mem::take(&mut course_summary) {
                run.summary = rows;
            } else {
                let size = run.block_size.unwrap_or(1000).max(1);
                let local = Brief {
                    avg,
                    max,
                    tile: rows.last().map_or(0, |row| row.tile),
                    // The share reaching 2584: that of the first tile at
                    // or above it that some game ended with.
                    win: rows
                        .iter()
                        .find(|row| row.tile >= 2584)
                        .map_or(0.0, |row| row.reach),
                };
                run.blocks.push(LogBlock {
                    index: episodes / size,
                    blocks: planned,
                    millis: None,
                    ops,
                    local,
                    total: None,
                });
            }
        } else if line == "summary" {
            course_summary = true;
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
                    count: Some(int(1)?),
                    score: Some(int(2)?),
                    moves: Some(int(3)?),
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

/// The course's `1000\tavg = 13627, max = 59274, ops = 2055867
/// (1027184|1028683)` as (episodes, avg, max, ops); `None` when the line
/// is no such record.
fn course_block(line: &str) -> Option<Result<(u64, u64, u64, f64), String>> {
    let (episodes, rest) = line.split_once('\t')?;
    let episodes = episodes.parse::<u64>().ok()?;
    let rest = rest.strip_prefix("avg = ")?;
    let parsed = (|| {
        let (avg, rest) = rest.split_once(", max = ")?;
        let (max, rest) = rest.split_once(", ops = ")?;
        let ops = rest.split_whitespace().next()?;
        Some((
            episodes,
            avg.parse().ok()?,
            max.parse().ok()?,
            ops.parse().ok()?,
        ))
    })();
    Some(parsed.ok_or_else(|| format!("bad block record {line:?}")))
}

/// A tile row of the course's block, `2584\t23.8%\t(20.8%)` (after its
/// leading tab): the tile, the share reaching it and the share ending with
/// it.
fn course_row(row: &str) -> Result<SummaryRow, String> {
    let bad = || format!("bad tile row {row:?}");
    let fields: Vec<&str> = row.split('\t').collect();
    let [tile, reach, rate] = fields[..] else {
        return Err(bad());
    };
    let percent = |text: &str| text.strip_suffix('%')?.parse::<f64>().ok();
    Ok(SummaryRow {
        tile: tile.parse().map_err(|_| bad())?,
        count: None,
        score: None,
        moves: None,
        rate: rate
            .strip_prefix('(')
            .and_then(|rate| percent(rate.strip_suffix(')')?))
            .ok_or_else(bad)?,
        reach: percent(reach).ok_or_else(bad)?,
    })
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
        assert_eq!(runs[0].summary[0].count, Some(500));
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

    #[test]
    fn reads_the_courses_layout_of_fib2584() {
        let log = "2048lab fib2584 0.1.0\nseed = 1\n\n\
                   train: 2x1000, alpha = 0.1 (rate 3.125e-3 per feature), mode = online\n\n\
                   1000\tavg = 13627, max = 59274, ops = 2055867 (1027184|1028683)\n\
                   \t55\t100%\t(0.2%)\n\t1597\t21.2%\t(18.4%)\n\t4181\t0.1%\t(0.1%)\n\n\
                   2000\tavg = 22396, max = 69625, ops = 2019757 (1009400|1010357)\n\
                   \t89\t100%\t(87.1%)\n\t1597\t12.9%\t(12.9%)\n\n\
                   evaluate: 1x1000\n\n\
                   1000\tavg = 27106, max = 70065, ops = 1882944 (941094|941850)\n\
                   \t2584\t23.8%\t(23.8%)\n\n\
                   summary\n\
                   1000\tavg = 27106, max = 70065, ops = 1882944 (941094|941850)\n\
                   \t89\t100%\t(76.2%)\n\t2584\t23.8%\t(23.8%)\n\n\
                   2584 reached in 238 of 1000 games (23.80%)\n";
        let runs = parse_log(log).unwrap();
        let found: Vec<_> = runs
            .iter()
            .map(|run| (run.kind.as_str(), run.block_size, run.blocks.len()))
            .collect();
        assert_eq!(
            found,
            [("train", Some(1000), 2), ("evaluate", Some(1000), 1)]
        );
        let first = runs[0].blocks[0];
        assert_eq!((first.index, first.blocks, first.millis), (1, 2, None));
        assert_eq!(first.ops, 2_055_867.0);
        // 4181 reached by 0.1%: so was 2584.
        let win = |avg, max, tile, win| Brief {
            avg,
            max,
            tile,
            win,
        };
        assert_eq!(first.local, win(13627, 59274, 4181, 0.1));
        assert_eq!(runs[0].blocks[1].index, 2);
        assert_eq!(runs[0].blocks[1].local, win(22396, 69625, 1597, 0.0));
        assert_eq!(runs[1].blocks[0].local.win, 23.8);
        assert!(runs[0].summary.is_empty());
        let summary: Vec<_> = runs[1]
            .summary
            .iter()
            .map(|row| (row.tile, row.reach, row.rate, row.count))
            .collect();
        assert_eq!(summary, [(89, 100.0, 76.2, None), (2584, 23.8, 23.8, None)]);
        let error = parse_log("train: 1x1000\n1000\tavg = 1, max = 2, ops = 3\n\t89\t100\t(1%)\n")
            .unwrap_err();
        assert_eq!(error, "line 3: bad tile row \"89\\t100\\t(1%)\"");
        assert!(parse_log("1000\tavg = x, max = 2, ops = 3\n").is_err());
    }
}
