//! Working files of u64 words, each ending in its checksum.

use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use system::AtomicFile;

use crate::base::layer::Solved;
use crate::format::page_writer::{self, PageWriter};
use crate::{Error, Rate};

/// The high half of a working file's last word, beside the checksum in
/// its low half: a file cut by whole words ends in a word without it.
const TAG: u64 = u64::from_le_bytes(*b"\0\0\0\0work");

/// A file of u64 words being written; it appears under its name, its
/// checksum last, when [`WordWriter::finish`] is called, not before.
#[derive(Debug)]
pub struct WordWriter {
    file: AtomicFile,
    out: PageWriter,
    checksum: crc32fast::Hasher,
}

impl WordWriter {
    /// Starts writing `path`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn create(path: &Path) -> Result<Self, Error> {
        let file = page_writer::create_atomic(path)?;
        let out = page_writer::page_writer(&file, 0)?;
        Ok(Self {
            file,
            out,
            checksum: crc32fast::Hasher::new(),
        })
    }

    /// Appends words.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn extend(&mut self, words: &[u64]) -> Result<(), Error> {
        self.append(words.iter().copied())
    }

    /// Appends the positions of a solved piece, board and rate bits in turn.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn extend_solved<R: Rate>(&mut self, boards: &[u64], rates: &[R]) -> Result<(), Error> {
        let pairs = boards.iter().zip(rates);
        self.append(pairs.flat_map(|(&board, rate)| [board, rate.to_bits()]))
    }

    /// Appends `words` and takes them into the checksum, 8 KiB at a time.
    fn append(&mut self, mut words: impl Iterator<Item = u64>) -> Result<(), Error> {
        let mut bytes = [0u8; 1 << 13];
        loop {
            let mut filled = 0;
            for (to, word) in bytes.chunks_exact_mut(8).zip(&mut words) {
                to.copy_from_slice(&word.to_le_bytes());
                filled += 8;
            }
            if filled == 0 {
                return Ok(());
            }
            self.checksum.update(&bytes[..filled]);
            self.out
                .write_all(&bytes[..filled])
                .map_err(|source| self.file.error(source))?;
        }
    }

    /// Appends the checksum, flushes the words and renames the file into
    /// place.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn finish(self) -> Result<(), Error> {
        let Self {
            file,
            mut out,
            checksum,
        } = self;
        let last = TAG | u64::from(checksum.finalize());
        out.write_all(&last.to_le_bytes())
            .and_then(|()| out.finish(&[]))
            .map_err(|source| file.error(source))?;
        Ok(file.commit()?)
    }
}

/// Writes a whole solved layer's working rates.
///
/// # Errors
/// [`Error::Io`] naming the file.
pub fn write_solved<R: Rate>(path: &Path, solved: &Solved<R>) -> Result<(), Error> {
    let mut writer = WordWriter::create(path)?;
    let (boards, rates) = solved.sorted();
    writer.extend_solved(&boards, &rates)?;
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

/// Words per piece read (64 KiB).
const READ_PIECE: usize = 1 << 13;

/// A file of u64 words opened to be read a piece at a time.
#[derive(Debug)]
pub struct WordReader {
    path: PathBuf,
    file: File,
    /// The words before the checksum.
    len: usize,
    checksum: u32,
}

impl WordReader {
    /// Opens `path`.
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read; [`Error::File`] if it is not a
    /// whole number of words ending in a checksum.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let bytes = file.metadata().map_err(io)?.len();
        let mut last = [0u8; 8];
        if bytes % 8 == 0 && bytes >= 8 {
            file.read_exact_at(&mut last, bytes - 8).map_err(io)?;
        }
        let last = u64::from_le_bytes(last);
        if last & !u64::from(u32::MAX) != TAG {
            return Err(Error::File {
                path: path.to_owned(),
                problem: "a working file of whole u64 values is cut short (it does not end in \
                          its checksum)"
                    .to_owned(),
            });
        }
        Ok(Self {
            path: path.to_owned(),
            file,
            len: usize::try_from(bytes / 8 - 1)
                .expect("a file that fits in memory's address space"),
            checksum: last as u32,
        })
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Reads the file through and compares its checksum.
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read; [`Error::File`] if the words do
    /// not have the checksum written after them.
    pub fn check(&self) -> Result<(), Error> {
        const PIECE: u64 = 1 << 20;
        let mut checksum = crc32fast::Hasher::new();
        let mut bytes = vec![0u8; PIECE as usize];
        let (mut at, end) = (0, 8 * self.len as u64);
        while at < end {
            let piece = &mut bytes[..PIECE.min(end - at) as usize];
            self.file
                .read_exact_at(piece, at)
                .map_err(|source| Error::Io {
                    path: self.path.clone(),
                    source,
                })?;
            checksum.update(piece);
            at += piece.len() as u64;
        }
        if checksum.finalize() != self.checksum {
            let problem = "checksum mismatch: the working file is corrupt; remove the table's \
                           folder to build it anew";
            return Err(Error::File {
                path: self.path.clone(),
                problem: problem.to_owned(),
            });
        }
        Ok(())
    }

    /// The words `start..start + count`, read in pieces on all threads,
    /// each through a buffer that stays in the caches: read a word at a
    /// time on one thread, the generated layers read to be solved took
    /// 0.6 s of `free8 32 -p 2`'s wall time on the development machine,
    /// which more threads did not shorten.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn read(&self, start: usize, count: usize) -> Result<Vec<u64>, Error> {
        use rayon::prelude::*;
        let mut words = vec![0; count];
        words
            .par_chunks_mut(READ_PIECE)
            .enumerate()
            .try_for_each_init(
                || vec![0u8; 8 * READ_PIECE],
                |bytes, (piece, words)| {
                    let bytes = &mut bytes[..8 * words.len()];
                    let at = 8 * (start + piece * READ_PIECE) as u64;
                    self.file
                        .read_exact_at(bytes, at)
                        .map_err(|source| Error::Io {
                            path: self.path.clone(),
                            source,
                        })?;
                    for (word, bytes) in words.iter_mut().zip(bytes.chunks_exact(8)) {
                        *word = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
                    }
                    Ok::<(), Error>(())
                },
            )?;
        Ok(words)
    }

    /// Reads the words from `start` on into `bytes`, as stored (8
    /// little-endian bytes each), as many as it holds.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn read_bytes(&self, start: usize, bytes: &mut [u8]) -> Result<(), Error> {
        self.file
            .read_exact_at(bytes, 8 * start as u64)
            .map_err(|source| Error::Io {
                path: self.path.clone(),
                source,
            })
    }

    /// Every word.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn read_all(&self) -> Result<Vec<u64>, Error> {
        self.read(0, self.len)
    }

    /// The words' bytes in order, through a buffer of 64 KiB, up to the
    /// checksum (which is not a word of the file's).
    pub fn stream(self) -> impl Read {
        BufReader::with_capacity(1 << 16, self.file).take(8 * self.len as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::work::RatesFile;

    /// Words read in pieces on all threads come back in order, from any
    /// start, within a piece, across pieces and to the end.
    #[test]
    fn words_read_in_pieces_are_the_words_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words");
        let words: Vec<u64> = (0..3 * READ_PIECE as u64 + 5)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        write_words(&path, &words).unwrap();
        let file = WordReader::open(&path).unwrap();
        assert_eq!(file.read_all().unwrap(), words);
        for (start, count) in [
            (0, 0),
            (1, 1),
            (READ_PIECE - 1, 2),
            (7, 2 * READ_PIECE + 3),
            (READ_PIECE, READ_PIECE),
            (words.len() - 3, 3),
        ] {
            assert_eq!(
                file.read(start, count).unwrap(),
                &words[start..start + count],
                "{start} {count}"
            );
        }
    }

    #[test]
    fn cut_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut");
        let cut = |error: Error| error.to_string().contains("cut short");
        std::fs::write(&path, [0u8; 12]).unwrap();
        assert!(cut(WordReader::open(&path).unwrap_err()));
        // Whole words, but the last is not a checksum.
        std::fs::write(&path, [0u8; 24]).unwrap();
        assert!(cut(WordReader::open(&path).unwrap_err()));
        write_words(&path, &[1, 2, 3]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
        assert!(cut(WordReader::open(&path).unwrap_err()));
        // Pairs of board and rate, one short.
        write_words(&path, &[1, 2, 3]).unwrap();
        assert!(cut(RatesFile::open(&path).unwrap_err()));
    }
}
