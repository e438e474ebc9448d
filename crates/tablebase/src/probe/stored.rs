//! A solved layer as a table stores it: one layer file, or one for each
//! part of a partitioned table ([`crate::Partitions`]), read alike.

use crate::base::layer::Solved;
use crate::base::sort::sort_with_values;
use crate::format::partition::LayerParts;
use crate::{Error, LayerFile};

/// A stored layer: its file, or its parts' files.
#[derive(Debug)]
pub enum StoredLayer {
    /// One layer file, its boards in order.
    Whole(LayerFile),
    /// One layer file for each part, each holding the boards of its part
    /// in order.
    Parts(LayerParts, Vec<LayerFile>),
}

impl StoredLayer {
    /// The layer files: one, or one for each part.
    pub fn files(&self) -> &[LayerFile] {
        match self {
            Self::Whole(file) => std::slice::from_ref(file),
            Self::Parts(_, files) => files,
        }
    }

    /// The positions stored.
    pub fn positions(&self) -> u64 {
        self.files()
            .iter()
            .map(|file| file.header().positions)
            .sum()
    }

    /// The bytes of its files.
    pub fn file_bytes(&self) -> u64 {
        self.files().iter().map(LayerFile::file_bytes).sum()
    }

    /// The file that holds `board`, a canonical board, if the layer does:
    /// `None` if no part of a layer split by rank can hold it.
    pub fn file_of(&self, board: u64) -> Option<&LayerFile> {
        match self {
            Self::Whole(file) => Some(file),
            Self::Parts(parts, files) => Some(&files[parts.of(board)?]),
        }
    }

    /// The stored rate of `board`, a canonical board; 0 if absent.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if the block cannot be read.
    pub fn rate(&self, board: u64) -> Result<f64, Error> {
        self.file_of(board).map_or(Ok(0.0), |file| file.rate(board))
    }

    /// Position number `index`, counted over the parts in turn, with its
    /// rate; `None` past the last.
    ///
    /// # Errors
    /// As [`StoredLayer::rate`].
    pub fn position(&self, mut index: u64) -> Result<Option<(u64, f64)>, Error> {
        for file in self.files() {
            let positions = file.header().positions;
            if index < positions {
                return file.position(index);
            }
            index -= positions;
        }
        Ok(None)
    }

    /// The positions of `wanted` (sorted, canonical) that the layer
    /// holds, with their rates, sorted.
    ///
    /// # Errors
    /// As [`StoredLayer::rate`].
    pub fn fetch(&self, wanted: &[u64]) -> Result<Solved, Error> {
        match self {
            Self::Whole(file) => file.fetch(wanted),
            Self::Parts(parts, files) => {
                let wanted = parts.split(wanted);
                let found = files
                    .iter()
                    .zip(&wanted)
                    .map(|(file, wanted)| file.fetch(wanted))
                    .collect::<Result<Vec<_>, Error>>()?;
                Ok(merged(
                    found.iter().map(|solved| (solved.boards(), solved.rates())),
                ))
            }
        }
    }

    /// Every position, sorted.
    ///
    /// # Errors
    /// As [`StoredLayer::rate`].
    pub fn read_all(&self) -> Result<Solved, Error> {
        match self {
            Self::Whole(file) => file.read_all(),
            Self::Parts(_, files) => {
                let parts = files
                    .iter()
                    .map(LayerFile::read_all)
                    .collect::<Result<Vec<_>, Error>>()?;
                Ok(merged(
                    parts.iter().map(|solved| (solved.boards(), solved.rates())),
                ))
            }
        }
    }

    /// Calls `visit` with every block of every file in turn, checked
    /// ([`LayerFile::visit_blocks`]): the boards ascend within a file, so
    /// throughout a whole layer, and within each part of a partitioned
    /// one.
    ///
    /// # Errors
    /// As [`LayerFile::visit_blocks`], and `visit`'s.
    pub fn visit_blocks(
        &self,
        mut visit: impl FnMut(&[u64], &[f64]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.files()
            .iter()
            .try_for_each(|file| file.visit_blocks(&mut visit))
    }
}

/// Sorted runs of positions with their rates, merged into one sorted
/// layer.
fn merged<'a>(runs: impl Iterator<Item = (&'a [u64], &'a [f64])>) -> Solved {
    let (mut boards, mut rates) = (Vec::new(), Vec::new());
    for (run_boards, run_rates) in runs {
        boards.extend_from_slice(run_boards);
        rates.extend_from_slice(run_rates);
    }
    sort_with_values(&mut boards, &mut rates);
    Solved::new(boards, rates)
}
