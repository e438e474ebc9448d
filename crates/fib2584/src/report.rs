//! The course framework's statistics block, so that 2584 results read as
//! the course's own programs print them.

use std::fmt::Write as _;
use std::time::Duration;

use learn::Stats;

use crate::tile;

/// The framework's summary of `stats` after `count` episodes in all:
///
/// ```text
/// 1000    avg = 62395, max = 188484, ops = 1883291 (941645|941646)
///     1597    100%    (0.2%)
///     2584    99.8%    (3.1%)
///     ...
/// ```
///
/// (tabs separate the fields). The first line gives the average (truncated)
/// and largest score and the speed in actions per second: slides and placed
/// tiles together, then each alone. The framework times each side separately; 2048lab times the games
/// as a whole, so the player's and the environment's figures are their
/// actions over the same elapsed time. Each further line is a tile value
/// that some game ended with as its largest, the share of games that reached
/// it and, in parentheses, the share that ended with it.
pub fn block(count: u64, stats: &Stats, elapsed: Duration) -> String {
    let games = stats.episodes.max(1);
    let seconds = elapsed.as_secs_f64().max(1e-9);
    let slides = stats.moves;
    let places = stats.moves + 2 * stats.episodes;
    let mut text = format!(
        "{count}\tavg = {}, max = {}, ops = {:.0} ({:.0}|{:.0})\n",
        stats.score / games,
        stats.max_score,
        (slides + places) as f64 / seconds,
        slides as f64 / seconds,
        places as f64 / seconds,
    );
    for (index, row) in stats.by_tile.iter().enumerate() {
        if row.episodes == 0 {
            continue;
        }
        let _ = writeln!(
            text,
            "\t{}\t{}%\t({}%)",
            tile::value(index as u8),
            general(100.0 * stats.reach_rate(index as u8)),
            general(100.0 * row.episodes as f64 / games as f64),
        );
    }
    text.push('\n');
    text
}

/// `x` as C++ streams print a `double` by default (`%g`, six significant
/// digits, no trailing zeros): `100`, `99.8`, `0.1`, `33.3333`.
fn general(x: f64) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (5 - magnitude).max(0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use learn::Outcome;

    #[test]
    fn numbers_print_as_cpp_streams_do() {
        assert_eq!(general(100.0), "100");
        assert_eq!(general(99.8), "99.8");
        assert_eq!(general(0.1), "0.1");
        assert_eq!(general(100.0 / 3.0), "33.3333");
        assert_eq!(general(2.0 / 3.0), "0.666667");
        assert_eq!(general(0.0), "0");
    }

    #[test]
    fn the_block_has_the_framework_layout() {
        let mut stats = Stats::default();
        for (score, moves, max_tile) in [(3000, 500, 17), (1000, 300, 15), (5000, 700, 18)] {
            stats.record(Outcome {
                score,
                moves,
                max_tile,
                nodes: 0,
            });
        }
        let text = block(3, &stats, Duration::from_secs(1));
        assert_eq!(
            text,
            "3\tavg = 3000, max = 5000, ops = 3006 (1500|1506)\n\
             \t987\t100%\t(33.3333%)\n\
             \t2584\t66.6667%\t(33.3333%)\n\
             \t4181\t33.3333%\t(33.3333%)\n\n"
        );
    }
}
