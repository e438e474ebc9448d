//! The working files of a build, in its `work/` folder: the generated
//! layers (`boards-NNNN`, sorted boards), the rates of the solved layers
//! that solving still needs (`rates-NNNN`, sorted pairs of board and rate
//! bits, in the type the table is solved in: [`crate::rate`]; none for a
//! layer solved whole whose layer file holds the same) and the
//! sorted runs of a layer generated in segments (`run-NNNN-NNNN`); while
//! thinning to optimal lines ([`crate::optimal`]), the boards reached
//! (`reached-NNNN` and its runs), the positions kept (`kept-NNNN`) and
//! child layers unpacked from their layer files (`unpacked-NNNN`), both as
//! rates.
//!
//! All are little-endian u64 words, written under a temporary name and
//! renamed when complete, and read whole or a piece at a time: a build
//! within a memory budget never needs a layer in memory whole.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::solve::Solved;
use crate::storage::{AtomicFile, LayerFile};
use crate::{Error, Rate};

/// The generated boards of layer `index`.
pub fn boards_path(work: &Path, index: usize) -> PathBuf {
    work.join(format!("boards-{index:04}"))
}

/// The solved rates of layer `index`.
pub fn rates_path(work: &Path, index: usize) -> PathBuf {
    work.join(format!("rates-{index:04}"))
}

/// Removes a file, if it is there.
pub fn remove_if_present(path: &Path) -> Result<(), Error> {
    match std::fs::remove_file(path) {
        Err(source) if source.kind() != io::ErrorKind::NotFound => Err(Error::Io {
            path: path.to_owned(),
            source,
        }),
        _ => Ok(()),
    }
}

/// A file of u64 words being written; it appears under its name when
/// [`WordWriter::finish`] is called, not before.
#[derive(Debug)]
pub struct WordWriter {
    file: AtomicFile,
    out: BufWriter<File>,
}

impl WordWriter {
    /// Starts writing `path`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn create(path: &Path) -> Result<Self, Error> {
        let file = AtomicFile::create(path)?;
        let out = BufWriter::with_capacity(1 << 20, file.handle()?);
        Ok(Self { file, out })
    }

    /// Appends words.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn extend(&mut self, words: &[u64]) -> Result<(), Error> {
        words
            .iter()
            .try_for_each(|word| self.out.write_all(&word.to_le_bytes()))
            .map_err(|source| self.file.error(source))
    }

    /// Appends the positions of a solved piece, board and rate bits in turn.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn extend_solved<R: Rate>(&mut self, boards: &[u64], rates: &[R]) -> Result<(), Error> {
        boards
            .iter()
            .zip(rates)
            .try_for_each(|(board, rate)| {
                self.out.write_all(&board.to_le_bytes())?;
                self.out.write_all(&rate.to_bits().to_le_bytes())
            })
            .map_err(|source| self.file.error(source))
    }

    /// Flushes the words and renames the file into place.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn finish(self) -> Result<(), Error> {
        let Self { file, out } = self;
        out.into_inner()
            .map_err(|error| file.error(error.into_error()))?;
        file.finish()
    }
}

/// Writes a whole solved layer's working rates.
///
/// # Errors
/// [`Error::Io`] naming the file.
pub fn write_solved<R: Rate>(path: &Path, solved: &Solved<R>) -> Result<(), Error> {
    let mut writer = WordWriter::create(path)?;
    writer.extend_solved(solved.boards(), solved.rates())?;
    writer.finish()
}

/// Writes a whole file of words.
///
/// # Errors
/// [`Error::Io`] naming the file.
pub fn write_words(path: &Path, words: &[u64]) -> Result<(), Error> {
    let mut writer = WordWriter::create(path)?;
    writer.extend(words)?;
    writer.finish()
}

/// Writes a layer file's positions to `path` as working rates in `R`, and
/// opens them. `R` must hold the stored rates exactly
/// ([`Rate::from_probability`]): the type a layer was solved in, if it
/// was stored in its own precision (not `u16`), or `f64`.
///
/// # Errors
/// [`Error::Io`] naming the file; [`Error::File`] if a block of the layer
/// file cannot be read.
pub fn unpack<R: Rate>(layer: &LayerFile, path: &Path) -> Result<RatesFile, Error> {
    let mut out = WordWriter::create(path)?;
    layer.visit_blocks(|boards, rates| {
        let rates: Vec<R> = rates
            .iter()
            .map(|&rate| R::from_probability(rate))
            .collect();
        out.extend_solved(boards, &rates)
    })?;
    out.finish()?;
    RatesFile::open(path)
}

/// A file of u64 words opened to be read a piece at a time.
#[derive(Debug)]
pub struct WordReader {
    path: PathBuf,
    file: File,
    len: usize,
}

impl WordReader {
    /// Opens `path`.
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read; [`Error::File`] if its length is
    /// not a whole number of words.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let bytes = file.metadata().map_err(io)?.len();
        if bytes % 8 != 0 {
            return Err(Error::File {
                path: path.to_owned(),
                problem: "a working file of whole u64 values is cut short".to_owned(),
            });
        }
        Ok(Self {
            path: path.to_owned(),
            file,
            len: usize::try_from(bytes / 8).expect("a file that fits in memory's address space"),
        })
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The words `start..start + count`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn read(&self, start: usize, count: usize) -> Result<Vec<u64>, Error> {
        let mut words = Vec::with_capacity(count);
        self.visit(start, count, |word| words.push(word))?;
        Ok(words)
    }

    /// Calls `visit` with the words `start..start + count` in order, read
    /// through a small buffer (a layer is never in memory twice).
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn visit(
        &self,
        start: usize,
        count: usize,
        mut visit: impl FnMut(u64),
    ) -> Result<(), Error> {
        const PIECE: usize = 1 << 13;
        let mut bytes = vec![0u8; 8 * PIECE.min(count)];
        let mut at = start;
        while at < start + count {
            let piece = &mut bytes[..8 * PIECE.min(start + count - at)];
            self.file
                .read_exact_at(piece, 8 * at as u64)
                .map_err(|source| Error::Io {
                    path: self.path.clone(),
                    source,
                })?;
            for chunk in piece.chunks_exact(8) {
                visit(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
            }
            at += piece.len() / 8;
        }
        Ok(())
    }

    /// Every word.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn read_all(&self) -> Result<Vec<u64>, Error> {
        self.read(0, self.len)
    }
}

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
            let merged = crate::generate::merge(std::mem::take(&mut self.held));
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

    /// Writes the union of the runs, sorted and without repeats, to `out`
    /// and removes the spilled runs. Returns its length.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn finish(mut self, out: &Path) -> Result<usize, Error> {
        if self.spilled.is_empty() {
            let boards = crate::generate::merge(self.held);
            write_words(out, &boards)?;
            return Ok(boards.len());
        }
        self.spill()?;
        let positions = merge_runs(&self.spilled, out)?;
        for path in &self.spilled {
            remove_if_present(path)?;
        }
        Ok(positions)
    }
}

/// Writes to `out` the sorted union, without repeats, of sorted runs of u64
/// in files. Returns its length.
fn merge_runs(paths: &[PathBuf], out: &Path) -> Result<usize, Error> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    use std::io::{BufReader, Read};
    let mut readers = paths
        .iter()
        .map(|path| {
            File::open(path)
                .map(|file| BufReader::with_capacity(1 << 16, file))
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
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
    let (mut last, mut positions) = (None, 0);
    while let Some(Reverse((board, run))) = heap.pop() {
        if last != Some(board) {
            writer.extend(&[board])?;
            (last, positions) = (Some(board), positions + 1);
        }
        if let Some(following) = next(run)? {
            heap.push(Reverse((following, run)));
        }
    }
    writer.finish()?;
    Ok(positions)
}

/// Positions per piece read when fetching from a [`RatesFile`] (64 KiB).
const FETCH: usize = 4096;

/// A solved layer's working file, opened to read it whole or to fetch the
/// rates of given boards, a piece at a time.
#[derive(Debug)]
pub struct RatesFile {
    words: WordReader,
    /// The first board of every piece of [`FETCH`] positions.
    fences: Vec<u64>,
}

impl RatesFile {
    /// Opens the rates of `path`.
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read; [`Error::File`] if it is cut short.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let words = WordReader::open(path)?;
        if words.len() % 2 != 0 {
            return Err(Error::File {
                path: path.to_owned(),
                problem: "a working file of rates is cut short".to_owned(),
            });
        }
        let fences = (0..words.len() / 2)
            .step_by(FETCH)
            .map(|position| Ok(words.read(2 * position, 1)?[0]))
            .collect::<Result<_, Error>>()?;
        Ok(Self { words, fences })
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.words.len() / 2
    }

    /// The positions `start..start + count`: boards and rates.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn read<R: Rate>(&self, start: usize, count: usize) -> Result<(Vec<u64>, Vec<R>), Error> {
        let (mut boards, mut rates) = (Vec::with_capacity(count), Vec::with_capacity(count));
        let mut board = true;
        self.words.visit(2 * start, 2 * count, |word| {
            if board {
                boards.push(word);
            } else {
                rates.push(R::from_bits(word));
            }
            board = !board;
        })?;
        Ok((boards, rates))
    }

    /// The whole layer.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn read_all<R: Rate>(&self) -> Result<Solved<R>, Error> {
        let (boards, rates) = self.read(0, self.len())?;
        Ok(Solved::new(boards, rates))
    }

    /// The positions of `wanted` (sorted, without repeats) that the layer
    /// holds, with their rates: read piece by piece, only the pieces where
    /// some wanted board would be.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn fetch<R: Rate>(&self, wanted: &[u64]) -> Result<Solved<R>, Error> {
        crate::storage::fetch(&self.fences, wanted, |piece| {
            let start = piece * FETCH;
            self.read(start, FETCH.min(self.len() - start))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_rates_round_trip_and_fetch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rates");
        let boards: Vec<u64> = (0..20_000u64).map(|i| 1000 + 7 * i).collect();
        let rates: Vec<f64> = (0..20_000).map(|i| f64::from(i) / 20_000.0).collect();
        let mut writer = WordWriter::create(&path).unwrap();
        for (boards, rates) in boards.chunks(3000).zip(rates.chunks(3000)) {
            writer.extend_solved(boards, rates).unwrap();
        }
        assert!(!path.exists(), "not under its name before it is finished");
        writer.finish().unwrap();
        let file = RatesFile::open(&path).unwrap();
        let all = file.read_all().unwrap();
        assert_eq!((all.boards(), all.rates()), (&boards[..], &rates[..]));

        // Boards before, between, on and after the stored ones, over
        // several pieces and none.
        let wanted: Vec<u64> = [0, 5, 1000, 1001, 1007, 29_000, 29_001, 100_000, 139_993]
            .into_iter()
            .chain((0..20_000u64).step_by(997).map(|i| 1000 + 7 * i))
            .chain([139_994, u64::MAX])
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let fetched = file.fetch::<f64>(&wanted).unwrap();
        let expected: Vec<u64> = wanted
            .iter()
            .copied()
            .filter(|board| boards.binary_search(board).is_ok())
            .collect();
        assert_eq!(fetched.boards(), &expected[..]);
        for (&board, &rate) in fetched.boards().iter().zip(fetched.rates()) {
            assert_eq!(rate, all.rate(board));
        }
        assert!(file.fetch::<f64>(&[]).unwrap().is_empty());
    }

    #[test]
    fn cut_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut");
        std::fs::write(&path, [0u8; 12]).unwrap();
        assert!(
            WordReader::open(&path)
                .unwrap_err()
                .to_string()
                .contains("cut short")
        );
        std::fs::write(&path, [0u8; 24]).unwrap();
        assert!(
            RatesFile::open(&path)
                .unwrap_err()
                .to_string()
                .contains("cut short")
        );
    }
}
