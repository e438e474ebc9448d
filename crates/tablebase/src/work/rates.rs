//! The working rates of solved layers.

use std::path::Path;

use super::{WordReader, WordWriter};
use crate::solve::Solved;
use crate::storage::{LayerFile, Piece};
use crate::{Error, Rate};

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
        crate::storage::fetch(&self.fences, wanted, |piece, into: &mut Piece<R>| {
            let start = piece * FETCH;
            let count = FETCH.min(self.len() - start);
            into.bytes.resize(16 * count, 0);
            self.words.read_bytes(2 * start, &mut into.bytes)?;
            let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
            for position in into.bytes.chunks_exact(16) {
                let (board, rate) = position.split_at(8);
                into.boards.push(word(board));
                into.rates.push(R::from_bits(word(rate)));
            }
            Ok(())
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
}
