//! A table's digest: for each layer, its positions and the CRC-32 of its
//! canonical dump, so that two builds of a table, one of them on other
//! machines or long gone, are compared by a few lines of text.
//!
//! A layer's canonical dump is its positions in ascending order of board,
//! each as 16 bytes: the board (the reference's bits, as the layer files
//! store it), then the rate as an `f64` probability (what a lookup
//! reads), both little-endian. Whole and partitioned layers, any zstd
//! level and any format version of the same positions and rates have the
//! same dump. The CRC is zlib's (`zlib.crc32` in Python).

use crate::probe::stored::StoredLayer;
use crate::{Error, Table};

/// One layer's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerDigest {
    /// The positions stored.
    pub positions: u64,
    /// The CRC-32 of the layer's canonical dump.
    pub crc: u32,
}

impl Table {
    /// The digest of every layer, in order (see the module's page): a
    /// whole layer read a block at a time, a partitioned one read whole
    /// and its parts merged.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if a layer file cannot be read.
    pub fn digest(&self) -> Result<Vec<LayerDigest>, Error> {
        (0..self.manifest().steps)
            .map(|index| layer_digest(self.layer(index)?))
            .collect()
    }
}

/// The digest of one stored layer.
fn layer_digest(layer: &StoredLayer) -> Result<LayerDigest, Error> {
    let mut crc = crc32fast::Hasher::new();
    let mut add = |boards: &[u64], rates: &[f64]| {
        let mut bytes = Vec::with_capacity(16 * boards.len());
        for (board, rate) in boards.iter().zip(rates) {
            bytes.extend_from_slice(&board.to_le_bytes());
            bytes.extend_from_slice(&rate.to_bits().to_le_bytes());
        }
        crc.update(&bytes);
    };
    match layer {
        StoredLayer::Whole(_) => layer.visit_blocks(|boards, rates| {
            add(boards, rates);
            Ok(())
        })?,
        StoredLayer::Parts(..) => {
            let all = layer.read_all()?;
            for (boards, rates) in all
                .boards()
                .chunks(1 << 16)
                .zip(all.rates().chunks(1 << 16))
            {
                add(boards, rates);
            }
        }
    }
    Ok(LayerDigest {
        positions: layer.positions(),
        crc: crc.finalize(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{Options, build, partitioned};
    use crate::{Formation, Spec};

    /// A table's digest is zlib's CRC of the dump the module's page
    /// describes, and whole and partitioned builds have the same.
    #[test]
    fn digests_are_of_the_canonical_dump_whatever_the_parts() {
        let spec = Spec::new(Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (whole, parts) = (dir.path().join("whole"), dir.path().join("parts"));
        build(&spec, &whole, Options::default(), None, &mut |_| ()).unwrap();
        let options = Options {
            partitions: Some(3),
            ..Options::default()
        };
        partitioned::build_local(&spec, &parts, options, &mut |_| ()).unwrap();
        let (whole, parts) = (Table::open(&whole).unwrap(), Table::open(&parts).unwrap());
        let digest = whole.digest().unwrap();
        assert_eq!(digest, parts.digest().unwrap());
        for (index, layer) in digest.iter().enumerate() {
            let solved = whole.layer(index).unwrap().read_all().unwrap();
            let mut dump = Vec::new();
            for (board, rate) in solved.boards().iter().zip(solved.rates()) {
                dump.extend(board.to_le_bytes());
                dump.extend(rate.to_bits().to_le_bytes());
            }
            assert_eq!(layer.positions, solved.len() as u64);
            assert_eq!(layer.crc, crc32fast::hash(&dump), "layer {index}");
        }
        assert!(digest.iter().any(|layer| layer.positions > 100));
    }
}
