//! Statistics of episodes in blocks, and their text in TDL2048+'s layout so
//! that its users' log scripts keep working.

use std::fmt::Write as _;
use std::time::Duration;

use board::Board;
use serde::{Deserialize, Serialize};

use crate::Outcome;

/// The episodes that ended with one largest tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileRow {
    /// How many episodes ended with this largest tile.
    pub episodes: u64,
    /// Their total score.
    pub score: u64,
    /// Their total moves.
    pub moves: u64,
}

/// The tile kinds [`Stats`] counts games by: exponents up to 2^31 in 2048,
/// Fibonacci indices up to 31 in 2584.
pub const TILE_KINDS: usize = 32;

/// Totals over a set of episodes, mergeable across threads and blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// The number of episodes.
    pub episodes: u64,
    /// The number of moves in all of them.
    pub moves: u64,
    /// The sum of their scores.
    pub score: u64,
    /// The best score.
    pub max_score: u64,
    /// Episodes by the kind of the largest tile they reached: its exponent
    /// in 2048 (up to 2^19, for games on the wide board), its Fibonacci index
    /// in 2584.
    #[serde(deserialize_with = "tile_rows")]
    pub by_tile: [TileRow; TILE_KINDS],
    /// Search nodes visited choosing the moves (0 for the 1-ply player).
    #[serde(default)]
    pub nodes: u64,
}

impl Stats {
    /// Counts one episode.
    pub fn record(&mut self, outcome: Outcome) {
        self.episodes += 1;
        self.moves += outcome.moves;
        self.score += outcome.score;
        self.max_score = self.max_score.max(outcome.score);
        self.nodes += outcome.nodes;
        let row = &mut self.by_tile[usize::from(outcome.max_tile.min(TILE_KINDS as u8 - 1))];
        row.episodes += 1;
        row.score += outcome.score;
        row.moves += outcome.moves;
    }

    /// Adds the episodes of `other`.
    pub fn merge(&mut self, other: &Stats) {
        self.episodes += other.episodes;
        self.moves += other.moves;
        self.score += other.score;
        self.max_score = self.max_score.max(other.max_score);
        self.nodes += other.nodes;
        for (row, theirs) in self.by_tile.iter_mut().zip(&other.by_tile) {
            row.episodes += theirs.episodes;
            row.score += theirs.score;
            row.moves += theirs.moves;
        }
    }

    /// The mean score (0 without episodes).
    pub fn average(&self) -> f64 {
        self.score as f64 / self.episodes.max(1) as f64
    }

    /// The largest tile exponent any episode reached.
    pub fn max_tile(&self) -> u8 {
        self.by_tile
            .iter()
            .rposition(|row| row.episodes > 0)
            .unwrap_or(0) as u8
    }

    /// The number of episodes whose largest tile was `exponent` or more.
    pub fn reached(&self, exponent: u8) -> u64 {
        self.by_tile[usize::from(exponent.min(TILE_KINDS as u8 - 1))..]
            .iter()
            .map(|row| row.episodes)
            .sum()
    }

    /// The share of episodes (0 to 1) whose largest tile was `exponent` or
    /// more.
    pub fn reach_rate(&self, exponent: u8) -> f64 {
        self.reached(exponent) as f64 / self.episodes.max(1) as f64
    }

    /// `avg=7404 max=27088 tile=2048 win=0.30%`: the integer mean score, the
    /// best score, the largest tile and the share reaching `win_tile` (an
    /// exponent).
    pub fn brief(&self, win_tile: u8) -> String {
        format!(
            "avg={} max={} tile={} win={:.2}%",
            self.average() as u64,
            self.max_score,
            Board::tile_value(self.max_tile()),
            100.0 * self.reach_rate(win_tile)
        )
    }
}

/// Moves per second, as `1364722.07ops`.
/// Reads up to [`TILE_KINDS`] rows, so that checkpoints written when fewer
/// kinds were counted still resume.
fn tile_rows<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<[TileRow; TILE_KINDS], D::Error> {
    let rows = Vec::<TileRow>::deserialize(deserializer)?;
    if rows.len() > TILE_KINDS {
        return Err(serde::de::Error::invalid_length(
            rows.len(),
            &"at most 32 tile rows",
        ));
    }
    let mut all = [TileRow::default(); TILE_KINDS];
    all[..rows.len()].copy_from_slice(&rows);
    Ok(all)
}

fn ops(moves: u64, elapsed: Duration) -> String {
    format!("{:.2}ops", moves as f64 / elapsed.as_secs_f64().max(1e-9))
}

/// The three lines and the blank line TDL2048+ prints after each block:
///
/// ```text
/// 001/250 367ms 1364722.07ops
/// local:  avg=7404 max=27088 tile=2048 win=0.30%
/// total:  avg=7404 max=27088 tile=2048 win=0.30%
/// ```
///
/// `index` counts from 1; `elapsed` and the moves/s are the block's own.
pub fn block_report(
    index: u64,
    blocks: u64,
    elapsed: Duration,
    local: &Stats,
    total: &Stats,
    win_tile: u8,
) -> String {
    let width = blocks.to_string().len().max(3);
    format!(
        "{index:0width$}/{blocks:0width$} {}ms {}\nlocal:  {}\ntotal:  {}\n\n",
        elapsed.as_millis(),
        ops(local.moves, elapsed),
        local.brief(win_tile),
        total.brief(win_tile),
    )
}

/// The summary TDL2048+ prints at the end of an evaluation: the totals, then
/// one row per largest tile reached (episodes ending with it, their mean
/// score and moves, their share, and the share reaching at least it).
pub fn summary(elapsed: Duration, stats: &Stats, win_tile: u8) -> String {
    let mut text = format!(
        "summary {}ms {}\ntotal:  {}\n{:<6}{:>8}{:>8}{:>8}{:>9}{:>9}\n",
        elapsed.as_millis(),
        ops(stats.moves, elapsed),
        stats.brief(win_tile),
        "tile",
        "count",
        "score",
        "move",
        "rate",
        "win"
    );
    let episodes = stats.episodes.max(1) as f64;
    for (exponent, row) in stats.by_tile.iter().enumerate() {
        if row.episodes == 0 {
            continue;
        }
        let _ = writeln!(
            text,
            "{:<6}{:>8}{:>8}{:>8}{:>8.2}%{:>8.2}%",
            Board::tile_value(exponent as u8),
            row.episodes,
            row.score / row.episodes,
            row.moves / row.episodes,
            100.0 * row.episodes as f64 / episodes,
            100.0 * stats.reach_rate(exponent as u8),
        );
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checkpoints written when 20 tile kinds were counted still resume.
    #[test]
    fn shorter_tile_rows_read_back() {
        let mut stats = Stats::default();
        stats.record(outcome(100, 10, 11));
        let json = serde_json::to_string(&stats).unwrap();
        let rows = serde_json::to_string(&stats.by_tile[..20]).unwrap();
        let all = serde_json::to_string(&stats.by_tile[..]).unwrap();
        let old = json.replace(&all, &rows);
        assert_ne!(old, json);
        assert_eq!(serde_json::from_str::<Stats>(&old).unwrap(), stats);
        let rows_33 = vec![TileRow::default(); 33];
        let too_many = json.replace(&all, &serde_json::to_string(&rows_33).unwrap());
        assert!(serde_json::from_str::<Stats>(&too_many).is_err());
    }

    fn outcome(score: u64, moves: u64, max_tile: u8) -> Outcome {
        Outcome {
            score,
            moves,
            max_tile,
            nodes: 0,
        }
    }

    #[test]
    fn block_lines_follow_tdl2048() {
        let mut local = Stats::default();
        local.record(outcome(7000, 500, 10));
        local.record(outcome(8009, 600, 11));
        let text = block_report(1, 250, Duration::from_millis(367), &local, &local, 11);
        assert_eq!(
            text,
            "001/250 367ms 2997.28ops\n\
             local:  avg=7504 max=8009 tile=2048 win=50.00%\n\
             total:  avg=7504 max=8009 tile=2048 win=50.00%\n\n"
        );
        assert!(
            block_report(12, 1000, Duration::ZERO, &local, &local, 11).starts_with("0012/1000 ")
        );
    }

    #[test]
    fn summary_rows_follow_tdl2048() {
        let mut stats = Stats::default();
        stats.record(outcome(584, 78, 6));
        for _ in 0..3 {
            stats.record(outcome(1411, 145, 7));
        }
        let text = summary(Duration::from_millis(223), &stats, 11);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "tile     count   score    move     rate      win");
        assert_eq!(lines[3], "64           1     584      78   25.00%  100.00%");
        assert_eq!(lines[4], "128          3    1411     145   75.00%   75.00%");
    }

    #[test]
    fn merging_equals_recording_together() {
        let outcomes = [outcome(10, 5, 3), outcome(40, 9, 5), outcome(20, 7, 4)];
        let mut together = Stats::default();
        outcomes.iter().for_each(|&o| together.record(o));
        let mut first = Stats::default();
        first.record(outcomes[0]);
        let mut rest = Stats::default();
        rest.record(outcomes[1]);
        rest.record(outcomes[2]);
        first.merge(&rest);
        assert_eq!(first, together);
        assert_eq!(together.max_tile(), 5);
        assert!((together.reach_rate(4) - 2.0 / 3.0).abs() < 1e-12);
    }
}
