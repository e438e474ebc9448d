//! Whether two tables hold the same positions and rates, whatever their
//! bytes: tables built by two builds, with two zstd levels or by two
//! machines are compared by what a lookup reads.

use crate::format::layer_file::{BLOCK, LayerFile};
use crate::probe::stored::StoredLayer;
use crate::{Error, Table};

/// What [`Table::compare`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    /// The same definition (formation, target, 4-rate, precision, pruning,
    /// thinning) and, in every layer, the same positions at the same rates
    /// to the bit.
    Same {
        /// The layers compared.
        layers: usize,
        /// The positions in each table.
        positions: u64,
    },
    /// The first difference found, in words (`layer 12: position 0x...
    /// reads 0.5 in one table and 0.25 in the other`).
    Differs(String),
}

impl Table {
    /// Compares this table with `other`, layer by layer, a block of each
    /// at a time: it holds two blocks in memory, not two layers. The zstd
    /// level and the files' format version may differ.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if a layer file of either cannot
    /// be read.
    pub fn compare(&self, other: &Table) -> Result<Comparison, Error> {
        let (a, b) = (self.manifest(), other.manifest());
        let definitions = [
            ("formation", a.formation != b.formation),
            ("target", a.target != b.target),
            ("4-rate", a.four_rate != b.four_rate),
            ("precision", a.options.precision != b.options.precision),
            ("pruning", a.options.prune != b.options.prune),
            (
                "optimal-only",
                a.options.optimal_only != b.options.optimal_only,
            ),
            ("layer count", a.steps != b.steps),
        ];
        if let Some((what, _)) = definitions.iter().find(|(_, differs)| *differs) {
            return Ok(Comparison::Differs(format!("the tables' {what} differs")));
        }
        let mut positions = 0;
        for index in 0..a.steps {
            if let Some(difference) = layer_difference(self.layer(index)?, other.layer(index)?)? {
                return Ok(Comparison::Differs(format!("layer {index}: {difference}")));
            }
            positions += self.layer(index)?.positions();
        }
        Ok(Comparison::Same {
            layers: a.steps,
            positions,
        })
    }
}

/// The first difference between two stored layers of the same table, if
/// any: file by file, a block at a time, for two whole layers; otherwise
/// (a partitioned table against a whole one, or two of other partitions)
/// by their positions read whole and sorted.
fn layer_difference(a: &StoredLayer, b: &StoredLayer) -> Result<Option<String>, Error> {
    if let (StoredLayer::Whole(a), StoredLayer::Whole(b)) = (a, b) {
        return file_difference(a, b);
    }
    let (count_a, count_b) = (a.positions(), b.positions());
    if count_a != count_b {
        return Ok(Some(format!(
            "{count_a} positions in one table, {count_b} in the other"
        )));
    }
    let (a, b) = (a.read_all()?, b.read_all()?);
    Ok(first_difference(
        0,
        a.boards().iter().zip(a.rates()),
        b.boards().iter().zip(b.rates()),
    ))
}

/// The first difference between two layer files of the same table, if any.
fn file_difference(a: &LayerFile, b: &LayerFile) -> Result<Option<String>, Error> {
    let (count_a, count_b) = (a.header().positions, b.header().positions);
    if count_a != count_b {
        return Ok(Some(format!(
            "{count_a} positions in one table, {count_b} in the other"
        )));
    }
    // The same count splits into the same blocks.
    let (mut decompress_a, mut decompress_b) = (a.decompressor()?, b.decompressor()?);
    for number in 0..a.block_count() {
        let (boards_a, rates_a) = a.block_with(number, &mut decompress_a)?;
        let (boards_b, rates_b) = b.block_with(number, &mut decompress_b)?;
        let difference = first_difference(
            number * BLOCK,
            boards_a.iter().zip(&rates_a),
            boards_b.iter().zip(&rates_b),
        );
        if difference.is_some() {
            return Ok(difference);
        }
    }
    Ok(None)
}

/// The first difference between two runs of positions with their rates,
/// the first numbered `first`.
fn first_difference<'a>(
    first: usize,
    a: impl Iterator<Item = (&'a u64, &'a f64)>,
    b: impl Iterator<Item = (&'a u64, &'a f64)>,
) -> Option<String> {
    for (offset, ((&board_a, &rate_a), (&board_b, &rate_b))) in a.zip(b).enumerate() {
        if board_a != board_b {
            return Some(format!(
                "position number {} is {} in one table and {} in the other",
                first + offset,
                crate::base::hex::format(board_a),
                crate::base::hex::format(board_b),
            ));
        }
        if rate_a.to_bits() != rate_b.to_bits() {
            return Some(format!(
                "position {} reads {rate_a} in one table and {rate_b} in the other",
                crate::base::hex::format(board_a)
            ));
        }
    }
    None
}
