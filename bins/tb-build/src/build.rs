//! `tb-build build` and `tb-build set`: the threads and the allocator set
//! for a build, its progress lines, and its summary.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;
use tablebase::builder::{self, Event, Options, partitioned};
use tablebase::{Formation, Spec};

use crate::probe::bytes_per_position;
use crate::progress::BuildBar;

/// The tables the player of `eval --player` uses (docs/player.md): L3 (six
/// large tiles in a 3x2 block in a corner) and 4421 (five: three along an
/// edge, two beside them), each seeded with every arrangement (`L3x`,
/// `4421x`: the positions games meet), for the targets where they played
/// moves in the measured games.
const PLAYER_SET: &[&str] = &[
    "L3x-32",
    "L3x-64",
    "L3x-128",
    "L3x-256",
    "L3x-512",
    "4421x-32",
    "4421x-64",
    "4421x-128",
    "4421x-256",
];

/// Sets the allocator and the threads for builds with the memory budget
/// `memory` (if given) on `threads` threads (if given), and returns the
/// budget: the one given, or half the memory available now.
pub(crate) fn prepare_builds(
    memory: Option<u64>,
    threads: Option<u16>,
) -> anyhow::Result<Option<u64>> {
    tune_allocator(memory.is_some());
    if let Some(threads) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(threads))
            .build_global()
            .context("starting the threads")?;
    }
    Ok(memory.or_else(|| system::available_memory().map(|bytes| bytes / 2)))
}

/// Sets glibc's allocator for a build.
///
/// It keeps the memory a build frees for the next layer: by default it
/// unmaps large blocks when they are freed and trims the heap, so every
/// layer's buffers fault their pages in afresh (a tenth of an unbounded
/// build's CPU time). Blocks up to 32 MiB now come from a heap that is
/// never trimmed; larger ones are still mapped and unmapped. This takes
/// 7-10% off the CPU time of the fixed formations' tables for about a
/// quarter more peak memory (docs/tablebase-builder.md); either setting
/// alone raised the system time instead.
///
/// The threads share at most two heaps, as glibc would open one for each
/// thread, each keeping what its thread freed: L3-256 on 16 threads peaked
/// at 83-87 MiB with a heap each, 72-76 with two, against 66-72 on one
/// thread; on two threads it took the same CPU time (12.4-12.8 s) with two
/// heaps as with a heap each.
/// Within a budget the user gave (`bounded`), they share one: blocks freed
/// in one heap do not serve the next allocations of another, and
/// `--optimal-only` thinning of L3-256 within 64 MiB crept up to 92 MiB
/// with a heap each; in one heap it held 51 MiB, for 3-4% more CPU time.
fn tune_allocator(bounded: bool) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes the allocator's lock and only sets its
    // parameters; blocks already allocated are freed as before.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_ARENA_MAX, if bounded { 1 } else { 2 });
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = bounded;
}

/// Builds each table of `names` (or of the player's set, for `player`) in
/// its own folder of `dir`, one after another; a finished table is left as
/// it is, a half-built one is finished.
pub(crate) fn build_set(names: &[String], dir: &Path, memory: Option<u64>) -> anyhow::Result<()> {
    let names: Vec<&str> = names
        .iter()
        .flat_map(|name| match name.as_str() {
            "player" => PLAYER_SET.to_vec(),
            name => vec![name],
        })
        .collect();
    // Every name is checked before anything is built.
    let specs = names
        .iter()
        .map(|name| {
            let (formation, target) = name.rsplit_once('-').with_context(|| {
                format!("{name:?} is not a table's name (FORMATION-TARGET, as L3-256)")
            })?;
            let target = Spec::parse_target(target)
                .map_err(|problem| anyhow::anyhow!("{name:?}: {problem}"))?;
            Ok(Spec::new(Formation::find(formation)?, target, 0.1)?)
        })
        .collect::<anyhow::Result<Vec<Spec>>>()?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let start = std::time::Instant::now();
    for (index, spec) in specs.iter().enumerate() {
        let _ = writeln!(
            std::io::stdout(),
            "table {} of {}: {}",
            index + 1,
            specs.len(),
            spec.name()
        );
        build(spec, &dir.join(spec.name()), Options::default(), memory)?;
    }
    let _ = writeln!(
        std::io::stdout(),
        "set done: {} table{} in {} ({:.0} s)",
        specs.len(),
        if specs.len() == 1 { "" } else { "s" },
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Builds (or finishes building) `spec`'s table in `dir`, whole or in the
/// parts `options` name, with a line for each layer and a summary.
pub(crate) fn build(
    spec: &Spec,
    dir: &Path,
    options: Options,
    memory: Option<u64>,
) -> anyhow::Result<()> {
    // A closed output does not stop the build: its lines are dropped; only
    // the summary's write, once the table is done, fails, and
    // `cli::main_with` ends quietly on that.
    let threads = rayon::current_num_threads();
    let _ = writeln!(
        std::io::stdout(),
        "building {} in {} ({} layers, target possible from layer {}, 4-rate {}, {} rates, {threads} thread{}, {})",
        spec.name(),
        dir.display(),
        spec.steps(),
        spec.docheck(),
        spec.four_rate(),
        options.precision,
        if threads == 1 { "" } else { "s" },
        match options.partitions {
            Some(parts) => format!("{parts} parts a layer"),
            None => format!(
                "memory budget {}",
                memory.map_or_else(|| "none".to_owned(), system::format_bytes)
            ),
        }
    );
    let bar = BuildBar::new(spec.steps());
    let say = |line: String| bar.say(line);
    let mut report = |event: Event| {
        bar.advance(&event);
        match event {
            Event::Start {
                steps,
                generated,
                solved,
                complete,
            } => {
                if complete {
                    say("the table is already complete".to_owned());
                } else if generated > 0 || solved > 0 {
                    say(format!(
                        "resuming: {generated} of {steps} layers generated, {solved} solved"
                    ));
                }
            }
            Event::Generated {
                layer,
                positions,
                elapsed,
            } => {
                say(format!(
                    "generated layer {layer:4}: {positions:>11} positions  {}",
                    rate(positions, elapsed)
                ));
            }
            Event::Solved {
                layer,
                positions,
                stored,
                bytes,
                segments,
                fetched,
                elapsed,
            } => {
                say(format!(
                    "solved    layer {layer:4}: {positions:>11} positions, {stored:>11} stored, {bytes:>10} bytes  {}{}",
                    rate(positions, elapsed),
                    in_segments(segments, fetched)
                ));
            }
            Event::Thinned {
                layer,
                kept,
                bytes,
                segments,
                fetched,
                elapsed,
            } => {
                say(format!(
                    "thinned   layer {layer:4}: {kept:>11} positions on optimal lines, {bytes:>10} bytes  {}{}",
                    rate(kept, elapsed),
                    in_segments(segments, fetched)
                ));
            }
            Event::Solving { .. } => {}
        }
    };
    let summary = match options.partitions {
        None => builder::build(spec, dir, options, memory, &mut report)?,
        Some(_) => partitioned::build_local(spec, dir, options, &mut report)?,
    };
    bar.finish();
    if summary.generated == 0 && summary.stored == 0 {
        return Ok(());
    }
    // A budget below what the smallest segments need cannot be held: say
    // so rather than let the peak pass for one within it.
    let over = match (summary.peak_memory, memory) {
        (Some(peak), Some(budget)) if peak > budget => {
            format!(", over the budget of {}", system::format_bytes(budget))
        }
        _ => String::new(),
    };
    let per_position = bytes_per_position(summary.bytes, summary.stored)
        .map_or_else(String::new, |bytes| {
            format!(" ({bytes} bytes per position)")
        });
    writeln!(
        std::io::stdout(),
        "done: {} positions generated, {} stored in {} bytes{per_position}, {:.1} s, peak memory {}{over}",
        summary.generated,
        summary.stored,
        summary.bytes,
        summary.elapsed.as_secs_f64(),
        summary
            .peak_memory
            .map_or_else(|| "unknown".to_owned(), system::format_bytes)
    )?;
    Ok(())
}

/// How a layer was solved or thinned within the budget, for its line:
/// nothing when whole, or when it has no positions to cut.
fn in_segments(segments: usize, fetched: bool) -> String {
    match (segments, fetched) {
        (0, _) | (1, false) => String::new(),
        (1, true) => "  in 1 segment, children fetched from disk".to_owned(),
        (_, true) => format!("  in {segments} segments, children fetched from disk"),
        (_, false) => format!("  in {segments} segments"),
    }
}

/// A layer's time and positions per second, for its line.
fn rate(positions: usize, elapsed: Duration) -> String {
    format!(
        "{:8.3} s  {:7.2} M positions/s",
        elapsed.as_secs_f64(),
        positions as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
    )
}
