//! The subcommands that read built tables: `query`, `info`, `compare`,
//! `verify` and `digest`.

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;
use board::Direction;
use tablebase::{Comparison, Position, Table};

/// Prints `board`'s rate as an afterstate and each of its moves' rates.
pub(crate) fn query(dir: &Path, board: &str) -> anyhow::Result<()> {
    let table = Table::open(dir)?;
    let given: Position = board.parse()?;
    let board = table.spec().with_large_tiles(given);
    let read =
        || Ok::<_, tablebase::Error>((table.move_rates(board)?, table.afterstate_rate(board)?));
    let (rates, afterstate) = if board == given {
        read()?
    } else {
        read().with_context(|| {
            format!("{given} read with its tiles above the target as large tiles")
        })?
    };
    let mut out = std::io::stdout().lock();
    let name = table.spec().name();
    if board == given {
        writeln!(out, "{board} in {name}")?;
    } else {
        writeln!(
            out,
            "{given} in {name}, read as {board} (tiles above the target are large tiles)"
        )?;
    }
    writeln!(
        out,
        "as an afterstate (after a move, before the spawn): {afterstate:.10}"
    )?;
    // Elsewhere a position the table does not hold is solved from it.
    let options = table.manifest().options;
    if options.optimal_only {
        writeln!(
            out,
            "(a table of optimal lines: positions off them are not stored and read as 0)"
        )?;
    }
    if options.prune > 0.0 {
        writeln!(
            out,
            "(pruned at {}: positions at or below it, or that the seeds never lead to, are not stored and read as 0)",
            options.prune
        )?;
    }
    if rates.read_as == board {
        writeln!(out, "its moves:")?;
    } else {
        let read_as = rates.read_as;
        writeln!(
            out,
            "its moves, read as {read_as} (turned into the formation's orientation):"
        )?;
    }
    for direction in Direction::ALL {
        match rates.rates[direction.index()] {
            Some(rate) => writeln!(out, "{:<6} {rate:.10}", direction.name())?,
            None => writeln!(out, "{:<6} not allowed", direction.name())?,
        }
    }
    match rates.best() {
        Some((direction, rate)) => writeln!(out, "best   {} {rate:.10}", direction.name())?,
        None => writeln!(out, "best   none: no move keeps the formation")?,
    }
    Ok(())
}

/// Prints the table's definition and each layer's positions and bytes.
pub(crate) fn info(dir: &Path) -> anyhow::Result<()> {
    let table = Table::open(dir)?;
    let mut out = std::io::stdout().lock();
    let manifest = table.manifest();
    writeln!(
        out,
        "table {} (formation {}, {} symmetry, target {}, 4-rate {})",
        table.spec().name(),
        manifest.formation.name,
        manifest.formation.canon,
        manifest.target,
        manifest.four_rate
    )?;
    writeln!(
        out,
        "{} layers, target from layer {}, {} rates, pruned at {}, zstd level {}",
        manifest.steps,
        manifest.docheck,
        manifest.options.precision,
        manifest.options.prune,
        manifest.options.level
    )?;
    writeln!(out, "layer   positions       bytes  bytes/position")?;
    let (mut positions, mut bytes) = (0u64, 0u64);
    for index in 0..manifest.steps {
        let layer = table.layer(index)?;
        let count = layer.positions();
        let size = layer.file_bytes();
        let per_position = bytes_per_position(size, count).unwrap_or_else(|| "-".to_owned());
        writeln!(out, "{index:5} {count:>11} {size:>11} {per_position:>15}")?;
        positions += count;
        bytes += size;
    }
    let per_position = bytes_per_position(bytes, positions).unwrap_or_else(|| "-".to_owned());
    writeln!(out, "total {positions:>11} {bytes:>11} {per_position:>15}")?;
    Ok(())
}

/// Says that the tables of `a` and `b` hold the same positions at the
/// same rates, or fails naming the first difference.
pub(crate) fn compare(a: &Path, b: &Path) -> anyhow::Result<()> {
    match Table::open(a)?.compare(&Table::open(b)?)? {
        Comparison::Same { layers, positions } => {
            writeln!(
                std::io::stdout(),
                "{} and {} are the same: {layers} layers, {positions} positions at the same rates",
                a.display(),
                b.display()
            )?;
            Ok(())
        }
        Comparison::Differs(difference) => {
            anyhow::bail!("{} and {} differ: {difference}", a.display(), b.display())
        }
    }
}

/// Bytes per position to two decimals; none for no positions (a layer,
/// or a table, of positions all lost stores none).
pub(crate) fn bytes_per_position(bytes: u64, positions: u64) -> Option<String> {
    (positions > 0).then(|| format!("{:.2}", bytes as f64 / positions as f64))
}

/// Checks every layer file and recomputes up to `samples` positions a
/// layer from their children.
pub(crate) fn verify(dir: &Path, samples: usize) -> anyhow::Result<()> {
    let table = Table::open(dir)?;
    let verified = table.verify(samples)?;
    writeln!(
        std::io::stdout(),
        "{}: {} layer files intact ({} positions read), {} positions recomputed from their \
         children",
        table.spec().name(),
        verified.layers,
        verified.positions,
        verified.recomputed
    )?;
    Ok(())
}

/// Each layer's position count and checksum, a line each.
pub(crate) fn digest(dir: &Path) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    for (index, layer) in Table::open(dir)?.digest()?.iter().enumerate() {
        writeln!(
            out,
            "layer {index:4} {:12} {:08x}",
            layer.positions, layer.crc
        )?;
    }
    Ok(())
}
