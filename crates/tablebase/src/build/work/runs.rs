//! Sorted runs of boards, merged in memory or on disk.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::Error;

use super::{WordReader, WordWriter, remove_if_present, write_words};

/// Sorted runs of boards bound for one sorted file without repeats: held
/// in memory while they fit, spilled each to a file of its own past that,
/// and merged into the file in the end.
#[derive(Debug)]
pub struct Runs {
    /// The spilled runs are named after it: `STEM-NNNN`.
    stem: PathBuf,
    /// The words that may be held in memory.
    limit: usize,
    held: Vec<Vec<u64>>,
    spilled: Vec<PathBuf>,
}

impl Runs {
    /// No runs yet; those spilled will be `STEM-NNNN`, and at most `limit`
    /// words are held in memory.
    pub fn new(stem: PathBuf, limit: usize) -> Self {
        Self {
            stem,
            limit,
            held: Vec::new(),
            spilled: Vec::new(),
        }
    }

    /// Adds a sorted run without repeats. When the runs held outgrow the
    /// limit they are merged into one, and spilled only if that still takes
    /// over half of it: the runs of different segments share many boards
    /// (the runs of free8-32's largest layers within 400M come to about
    /// four times their positions), so merged they often fit, and a layer
    /// that fits half the limit never goes to disk.
    ///
    /// Merging holds the runs and their union: up to twice the limit.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file of a run spilled.
    pub fn push(&mut self, run: Vec<u64>) -> Result<(), Error> {
        self.held.push(run);
        if self.held.iter().map(Vec::len).sum::<usize>() > self.limit {
            let merged = crate::build::generate::merge(std::mem::take(&mut self.held));
            let spill = merged.len() > self.limit / 2;
            self.held.push(merged);
            if spill {
                self.spill()?;
            }
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<(), Error> {
        for run in self.held.drain(..) {
            let mut name = self.stem.file_name().unwrap_or_default().to_os_string();
            name.push(format!("-{:04}", self.spilled.len()));
            let path = self.stem.with_file_name(name);
            write_words(&path, &run)?;
            self.spilled.push(path);
        }
        Ok(())
    }

    /// The union of the runs, sorted and without repeats, if none was
    /// spilled; else the runs, for [`Runs::finish`].
    pub fn union(self) -> Result<Vec<u64>, Self> {
        if self.spilled.is_empty() {
            Ok(crate::build::generate::merge(self.held))
        } else {
            Err(self)
        }
    }

    /// Writes the union of the runs, sorted and without repeats, to `out`
    /// and removes the spilled runs. Returns its length.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn finish(self, out: &Path) -> Result<usize, Error> {
        let mut runs = match self.union() {
            Ok(boards) => {
                write_words(out, &boards)?;
                return Ok(boards.len());
            }
            Err(runs) => runs,
        };
        runs.spill()?;
        let positions = merge_runs(&runs.spilled, out)?;
        for path in &runs.spilled {
            remove_if_present(path)?;
        }
        Ok(positions)
    }
}

/// Boards merged before they are written: one call of the writer a board
/// cost more than the merge.
const MERGED_PIECE: usize = 1 << 13;

/// Writes to `out` the sorted union, without repeats, of sorted runs of u64
/// in files. Returns its length.
fn merge_runs(paths: &[PathBuf], out: &Path) -> Result<usize, Error> {
    let mut readers = paths
        .iter()
        .map(|path| WordReader::open(path).map(WordReader::stream))
        .collect::<Result<Vec<_>, Error>>()?;
    let mut next = |run: usize| -> Result<Option<u64>, Error> {
        let mut bytes = [0u8; 8];
        match readers[run].read_exact(&mut bytes) {
            Ok(()) => Ok(Some(u64::from_le_bytes(bytes))),
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(source) => Err(Error::Io {
                path: paths[run].clone(),
                source,
            }),
        }
    };
    let mut heap = BinaryHeap::new();
    for run in 0..paths.len() {
        if let Some(board) = next(run)? {
            heap.push(Reverse((board, run)));
        }
    }
    let mut writer = WordWriter::create(out)?;
    let mut merged = Vec::with_capacity(MERGED_PIECE);
    let (mut last, mut positions) = (None, 0);
    // The least board is replaced by the next of its run in place: one
    // sift down, where a pop and a push take two.
    while let Some(mut least) = heap.peek_mut() {
        let Reverse((board, run)) = *least;
        if last != Some(board) {
            merged.push(board);
            last = Some(board);
            if merged.len() == MERGED_PIECE {
                writer.extend(&merged)?;
                positions += merged.len();
                merged.clear();
            }
        }
        match next(run)? {
            Some(following) => *least = Reverse((following, run)),
            None => {
                PeekMut::pop(least);
            }
        }
    }
    writer.extend(&merged)?;
    writer.finish()?;
    Ok(positions + merged.len())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;
    use crate::build::work::WordReader;

    /// Spilled runs whose union fills several pieces of the merge
    /// ([`MERGED_PIECE`]) come out whole, in order, without repeats.
    #[test]
    fn spilled_runs_merge_across_pieces() {
        let piece = MERGED_PIECE as u64;
        // Multiples of 2, 3 and 5 below 4 pieces: shared, and not.
        let runs: Vec<Vec<u64>> = [2, 3, 5]
            .iter()
            .map(|step| (0..4 * piece).step_by(*step).collect())
            .collect();
        let union: Vec<u64> = (0..4 * piece)
            .filter(|n| n % 2 == 0 || n % 3 == 0 || n % 5 == 0)
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let mut held = Runs::new(dir.path().join("run"), 0);
        for run in runs {
            held.push(run).unwrap();
        }
        let out = dir.path().join("out");
        assert_eq!(held.finish(&out).unwrap(), union.len());
        assert_eq!(WordReader::open(&out).unwrap().read_all().unwrap(), union);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// However many runs, whatever they share and whatever the limit,
        /// the runs come out as their sorted union without repeats, in
        /// memory or merged from the files they were spilled to, and no
        /// spilled run is left behind.
        #[test]
        fn runs_come_out_as_their_union(
            runs in prop::collection::vec(prop::collection::btree_set(0u64..2_000, 0..300), 0..8),
            limit in 0usize..1_000,
            high in any::<bool>(),
        ) {
            // Boards over 2^63 too, so that the merge's order is unsigned.
            let runs: Vec<Vec<u64>> = runs
                .iter()
                .map(|run| run.iter().map(|&board| board | u64::from(high) << 63).collect())
                .collect();
            let union: Vec<u64> = runs.iter().flatten().copied().collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let dir = tempfile::tempdir().unwrap();
            let collect = |runs: &[Vec<u64>]| {
                let mut held = Runs::new(dir.path().join("run"), limit);
                for run in runs {
                    held.push(run.clone()).unwrap();
                }
                held
            };
            let out = dir.path().join("out");
            prop_assert_eq!(collect(&runs).finish(&out).unwrap(), union.len());
            prop_assert_eq!(WordReader::open(&out).unwrap().read_all().unwrap(), &union[..]);
            std::fs::remove_file(&out).unwrap();
            prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
            if let Ok(merged) = collect(&runs).union() {
                prop_assert_eq!(merged, union);
            }
        }
    }
}
