//! Whether two tables hold the same positions and rates, whatever their
//! bytes: tables built by two builds, with two zstd levels or by two
//! machines are compared by what a lookup reads.

use crate::format::layer_file::{BLOCK, LayerFile};
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
            positions += self.layer(index)?.header().positions;
        }
        Ok(Comparison::Same {
            layers: a.steps,
            positions,
        })
    }
}

/// The first difference between two layer files of the same table, if any.
fn layer_difference(a: &LayerFile, b: &LayerFile) -> Result<Option<String>, Error> {
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
        let pairs = boards_a
            .iter()
            .zip(&rates_a)
            .zip(boards_b.iter().zip(&rates_b));
        for (offset, ((&board_a, &rate_a), (&board_b, &rate_b))) in pairs.enumerate() {
            if board_a != board_b {
                return Ok(Some(format!(
                    "position number {} is {} in one table and {} in the other",
                    number * BLOCK + offset,
                    crate::base::hex::format(board_a),
                    crate::base::hex::format(board_b),
                )));
            }
            if rate_a.to_bits() != rate_b.to_bits() {
                return Ok(Some(format!(
                    "position {} reads {rate_a} in one table and {rate_b} in the other",
                    crate::base::hex::format(board_a)
                )));
            }
        }
    }
    Ok(None)
}
