//! The working rates of solved layers.

use std::path::Path;

use crate::base::layer::Solved;
use crate::format::layer_file::{LayerFile, Piece};
use crate::{Error, Rate};

use super::{WordReader, WordWriter};

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

/// Bytes of a position in a working file of rates: its board, then its
/// rate's bits, a word each.
const POSITION_BYTES: usize = 16;

/// Appends the positions of `bytes`, as a working file of rates stores
/// them, to `boards` and `rates`.
fn push_positions<R: Rate>(bytes: &[u8], boards: &mut Vec<u64>, rates: &mut Vec<R>) {
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    for position in bytes.chunks_exact(POSITION_BYTES) {
        let (board, rate) = position.split_at(8);
        boards.push(word(board));
        rates.push(R::from_bits(word(rate)));
    }
}

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
        // Through a buffer of one piece: a layer is never in memory twice.
        let mut bytes = vec![0u8; POSITION_BYTES * FETCH.min(count)];
        for at in (start..start + count).step_by(FETCH) {
            let piece = &mut bytes[..POSITION_BYTES * FETCH.min(start + count - at)];
            self.words.read_bytes(2 * at, piece)?;
            push_positions(piece, &mut boards, &mut rates);
        }
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
        let (boards, rates) = self.fetch_pairs(wanted)?;
        Ok(Solved::new(boards, rates))
    }

    /// [`RatesFile::fetch`]'s positions as they are, boards and rates,
    /// without the lookups a solved layer makes for them.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn fetch_pairs<R: Rate>(&self, wanted: &[u64]) -> Result<(Vec<u64>, Vec<R>), Error> {
        crate::format::layer_file::fetch(&self.fences, wanted, |piece, into: &mut Piece<R>| {
            let start = piece * FETCH;
            let count = FETCH.min(self.len() - start);
            into.bytes.resize(POSITION_BYTES * count, 0);
            self.words.read_bytes(2 * start, &mut into.bytes)?;
            push_positions(&into.bytes, &mut into.boards, &mut into.rates);
            Ok(())
        })
    }
}

/// The children a segment of a layer looks up, after a 2 and after a 4
/// (`wanted`, each sorted and without repeats), fetched from the working
/// rates of the two layers after it (`None` past the last: none there).
///
/// # Errors
/// [`Error::Io`] naming the file.
pub fn fetch_children<R: Rate>(
    files: &[Option<RatesFile>; 2],
    wanted: &[Vec<u64>; 2],
) -> Result<[Solved<R>; 2], Error> {
    let fetch = |side: usize| {
        files[side]
            .as_ref()
            .map_or(Ok(Solved::default()), |file| file.fetch(&wanted[side]))
    };
    Ok([fetch(0)?, fetch(1)?])
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
        // From inside a piece, across pieces, and to the end.
        for (start, count) in [(0, 0), (1, 1), (4095, 2), (7, 9000), (16_383, 3617)] {
            let read = file.read::<f64>(start, count).unwrap();
            let range = start..start + count;
            assert_eq!(
                read,
                (boards[range.clone()].to_vec(), rates[range].to_vec())
            );
        }

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
