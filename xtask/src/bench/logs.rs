//! The figures each program prints, read from its output: train's and
//! TDL2048+'s block lines, eval's search line, tb-build's summary and
//! fib2584's course blocks.

/// The moves/s of every block line (`001/001 367ms 1364722.07ops`).
pub(crate) fn block_speeds(log: &str) -> Vec<f64> {
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
pub(crate) fn phase_speeds(log: &str) -> Result<[f64; 2], String> {
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
pub(super) fn search_millis(log: &str) -> Option<f64> {
    log.lines()
        .find_map(|line| line.strip_prefix("search: "))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Positions generated per second, from tb-build's last line
/// (`done: 18084453 positions generated, ..., 12.9 s, peak memory 29 MiB`).
pub(super) fn table_rate(log: &str) -> Option<f64> {
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
pub(super) fn course_speeds(log: &str) -> Vec<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
