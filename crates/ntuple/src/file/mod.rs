//! 2048lab's weight files: a small header describing the network, then the
//! tables as raw little-endian `f32`, then a checksum (docs/weights.md).

mod header;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use system::{available_memory, write_atomically};

use crate::coherence::Coherence;
use crate::{Error, GAME_2048, Network, Pattern, Precision, Stages, Table, Weights};
use header::{Header, read_header};

/// The first eight bytes of every 2048lab weight file.
pub const MAGIC: [u8; 8] = *b"2048labW";

/// The format version this build writes and the newest it reads.
pub const VERSION: u32 = 3;

/// Free-form facts stored with the weights (episodes trained, settings),
/// as key-value text.
pub type Metadata = BTreeMap<String, String>;

/// A network read from a file, with the metadata saved beside it.
#[derive(Debug)]
pub struct Loaded {
    /// The network and its weights.
    pub network: Network,
    /// What was stored with them.
    pub metadata: Metadata,
}

/// Passes bytes through while computing their CRC-32.
struct Checksummed<T> {
    inner: T,
    hasher: crc32fast::Hasher,
}

impl<R: Read> Read for Checksummed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.hasher.update(&buf[..read]);
        Ok(read)
    }
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.hasher.update(&buf[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Whether `path` is a 2048lab weight file (it starts with [`MAGIC`]).
pub(crate) fn is_2048lab_file(path: &Path) -> Result<bool, Error> {
    let mut start = [0u8; 8];
    let read = File::open(path)
        .and_then(|mut file| file.read(&mut start))
        .map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
    Ok(read == 8 && start == MAGIC)
}

impl Weights {
    /// Writes the weights and `metadata` to `path`: first to a temporary
    /// file beside it, then renamed into place, so an interrupted save never
    /// leaves a half-written file under the real name.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file if writing fails.
    pub fn save(&self, path: &Path, metadata: &Metadata) -> Result<(), Error> {
        save(
            path,
            &self.game,
            &self.patterns,
            self.radix,
            &self.stages,
            [&self.tables, &self.coherence],
            metadata,
        )
    }

    /// Reads the weights of a `game` network from `path`, and the metadata
    /// stored with them. With `expected`,
    /// the file must hold exactly those patterns. Tables needing more than
    /// `limit` bytes are refused before they are allocated.
    ///
    /// The tables are read in one bulk read each, straight into their
    /// memory, and the checksum over the whole file is verified.
    ///
    /// # Errors
    /// [`Error::File`] naming the file and the problem for anything that is
    /// not a complete, intact 2048lab weight file of `game` of a version this
    /// build reads; [`Error::WrongNetwork`] for another network than
    /// `expected`; [`Error::Io`], [`Error::TooLarge`] and [`Error::Memory`]
    /// as they come.
    pub fn load(
        path: &Path,
        game: &str,
        expected: Option<&[Pattern]>,
        limit: u64,
    ) -> Result<(Self, Metadata), Error> {
        let (io_error, bad) = (io_error(path), bad(path));
        let file = File::open(path).map_err(&io_error)?;
        let size = file.metadata().map_err(&io_error)?.len();
        let mut input = Checksummed {
            inner: BufReader::with_capacity(1 << 16, file),
            hasher: crc32fast::Hasher::new(),
        };
        let (header_len, header) = read_header(path, &mut input, size)?;
        if header.game != game {
            return Err(bad(format!(
                "weights for the game {}, not {game}",
                header.game
            )));
        }
        let stages = Stages::new(header.stages.clone())
            .map_err(|error| bad(format!("corrupt header: {error}")))?;
        let patterns = header
            .patterns
            .iter()
            .map(|text| text.parse::<Pattern>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| bad(format!("corrupt header: {error}")))?;
        let precision = header.element.parse::<Precision>().map_err(|_| {
            bad(format!(
                "tables of {:?}, this build reads f32 and f16",
                header.element
            ))
        })?;
        if !(2..=256).contains(&header.radix) {
            return Err(bad(format!("corrupt header: radix {}", header.radix)));
        }
        let entries: Vec<u64> = patterns
            .iter()
            .map(|p| p.entries(header.radix) as u64)
            .collect();
        if header.entries != entries {
            return Err(bad(
                "corrupt header: table sizes do not match the patterns".into()
            ));
        }
        // TC histories are two f32 a weight, whatever the weights' precision.
        let per_entry = precision.bytes() as u64 + if header.coherence { 8 } else { 0 };
        let complete = 16
            + u64::from(header_len)
            + entries.iter().sum::<u64>() * per_entry * stages.len() as u64
            + 4;
        if size != complete {
            let what = if size < complete {
                "truncated"
            } else {
                "too long"
            };
            return Err(bad(format!(
                "{what}: {size} bytes, but network {} needs exactly {complete}",
                header.patterns.join(" ")
            )));
        }
        if let Some(expected) = expected.filter(|expected| *expected != patterns.as_slice()) {
            return Err(Error::WrongNetwork {
                path: path.to_owned(),
                found: header.patterns.join(" "),
                expected: expected
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
        let histories = if header.coherence {
            Coherence::bytes_for(entries.iter().sum::<u64>() * stages.len() as u64)
        } else {
            0
        };
        let mut weights = Self::zeroed_as(
            game,
            patterns,
            (header.radix, precision),
            stages,
            limit.saturating_sub(histories),
        )?;
        if header.coherence {
            weights.coherence = weights
                .tables
                .iter()
                .map(|table| Table::zeroed(2 * table.len()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|source| Error::Memory {
                    needed: histories,
                    source,
                })?;
        }
        for table in weights.tables.iter_mut().chain(&mut weights.coherence) {
            table.read_from(&mut input).map_err(&io_error)?;
        }
        let computed = input.hasher.clone().finalize();
        let mut stored = [0u8; 4];
        input.inner.read_exact(&mut stored).map_err(&io_error)?;
        if u32::from_le_bytes(stored) != computed {
            return Err(bad("checksum mismatch: the file is corrupt".into()));
        }
        Ok((weights, header.metadata))
    }
}

/// Writes a weight file of the current version (see [`Weights::save`]).
fn save(
    path: &Path,
    game: &str,
    patterns: &[Pattern],
    radix: u32,
    stages: &Stages,
    [tables, coherence]: [&[Table]; 2],
    metadata: &Metadata,
) -> Result<(), Error> {
    let header = Header {
        patterns: patterns.iter().map(ToString::to_string).collect(),
        element: tables
            .first()
            .map_or(Precision::F32, Table::precision)
            .to_string(),
        entries: patterns.iter().map(|p| p.entries(radix) as u64).collect(),
        metadata: metadata.clone(),
        stages: stages.thresholds().to_vec(),
        game: game.to_owned(),
        radix,
        coherence: !coherence.is_empty(),
    };
    let header = header.encode();
    write_atomically(path, |file| {
        let mut out = Checksummed {
            inner: BufWriter::with_capacity(1 << 20, file),
            hasher: crc32fast::Hasher::new(),
        };
        out.write_all(&MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(header.len() as u32).to_le_bytes())?;
        out.write_all(&header)?;
        for table in tables.iter().chain(coherence) {
            table.write_to(&mut out)?;
        }
        let checksum = out.hasher.clone().finalize();
        let mut inner = out.inner;
        inner.write_all(&checksum.to_le_bytes())?;
        inner.into_inner().map_err(io::IntoInnerError::into_error)
    })
    .map_err(Error::from)
}

impl Network {
    /// Writes the network and `metadata` to `path`: first to a temporary
    /// file beside it, then renamed into place, so an interrupted save never
    /// leaves a half-written file under the real name.
    ///
    /// ```
    /// use board::Board;
    /// use ntuple::{Metadata, Network, parse_patterns};
    ///
    /// let network = Network::new(parse_patterns(["0123 4567"])?)?;
    /// let board: Board = "2 4 8 16 / . . . . / . . . . / . . . .".parse()?;
    /// network.update(board, 1.0);
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("net.nw");
    /// let metadata = Metadata::from([("seed".to_owned(), "1".to_owned())]);
    /// network.save(&path, &metadata)?;
    ///
    /// // Loading checks the patterns when asked to (and the checksum always).
    /// let loaded = Network::load(&path, Some(network.patterns()))?;
    /// assert_eq!(loaded.network.estimate(board), network.estimate(board));
    /// assert_eq!(loaded.metadata["seed"], "1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Io`] naming the file if writing fails.
    pub fn save(&self, path: &Path, metadata: &Metadata) -> Result<(), Error> {
        save(
            path,
            GAME_2048,
            self.patterns(),
            16,
            self.stages(),
            [self.tables(), self.coherence_tables()],
            metadata,
        )
    }

    /// Reads a network from `path`, a file in 2048lab's format. With
    /// `expected`, the file must hold exactly those patterns.
    /// [`Network::open`] reads TDL2048+'s `.w` files too: it is the one to
    /// use for a file a user names.
    ///
    /// The tables are read in one bulk read each, straight into their
    /// memory, and the checksum over the whole file is verified.
    ///
    /// # Errors
    /// [`Error::File`] naming the file and the problem for anything that is
    /// not a complete, intact 2048lab weight file of a 2048 network of a
    /// version this build reads; [`Error::WrongNetwork`] for another network
    /// than `expected`; [`Error::Io`], [`Error::TooLarge`] and
    /// [`Error::Memory`] as they come.
    pub fn load(path: &Path, expected: Option<&[Pattern]>) -> Result<Loaded, Error> {
        Self::load_with_limit(path, expected, available_memory().unwrap_or(u64::MAX))
    }

    /// [`Network::load`], refusing a network whose tables need more than
    /// `limit` bytes before allocating them.
    ///
    /// # Errors
    /// As [`Network::load`].
    pub fn load_with_limit(
        path: &Path,
        expected: Option<&[Pattern]>,
        limit: u64,
    ) -> Result<Loaded, Error> {
        if !is_2048lab_file(path)? {
            return Err(Error::File {
                path: path.to_owned(),
                problem: "not a 2048lab weight file (it does not start with \"2048labW\"): \
                          a TDL2048+ .w file is read by Network::open"
                    .to_owned(),
            });
        }
        let (weights, metadata) = Weights::load(path, GAME_2048, expected, limit)?;
        if weights.radix != 16 {
            return Err(Error::File {
                path: path.to_owned(),
                problem: format!("corrupt header: radix {} for a 2048 network", weights.radix),
            });
        }
        let network = Network::from_parts(weights.patterns, weights.stages, weights.tables);
        let network = match weights.coherence {
            histories if histories.is_empty() => network,
            histories => network.with_coherence_tables(histories),
        };
        Ok(Loaded { network, metadata })
    }
}

/// Reads a 2048lab weight file's metadata alone: what a checkpoint says of
/// its run, without reading its tables.
///
/// # Errors
/// As [`Weights::load`] for the file's start and header.
pub fn read_metadata(path: &Path) -> Result<Metadata, Error> {
    let io_error = io_error(path);
    let file = File::open(path).map_err(&io_error)?;
    let size = file.metadata().map_err(&io_error)?.len();
    let mut input = BufReader::new(file);
    Ok(read_header(path, &mut input, size)?.1.metadata)
}

/// An I/O error on the file at `path`.
fn io_error(path: &Path) -> impl Fn(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// A problem with the contents of the file at `path`.
fn bad(path: &Path) -> impl Fn(String) -> Error + '_ {
    move |problem| Error::File {
        path: path.to_owned(),
        problem,
    }
}

#[cfg(test)]
mod tests {
    use board::Board;
    use serde::Serialize;

    use super::header::{HeaderV1, HeaderV2, bincode_config};
    use super::*;
    use crate::parse_patterns;

    /// Writes a file of format `version` with `header` to `path`, holding a
    /// network of "0123 45" with distinct weights, and returns the network.
    fn old_file(version: u32, header: &impl Serialize, path: &Path) -> Network {
        let network = Network::new(parse_patterns(["0123 45"]).unwrap()).unwrap();
        for (number, table) in network.tables().iter().enumerate() {
            for index in 0..table.len() {
                table.set(index, (number * 7 + index % 101) as f32);
            }
        }
        let header = bincode::serde::encode_to_vec(header, bincode_config()).unwrap();
        let mut bytes = MAGIC.to_vec();
        bytes.extend(version.to_le_bytes());
        bytes.extend((header.len() as u32).to_le_bytes());
        bytes.extend(&header);
        for table in network.tables() {
            table.write_to(&mut bytes).unwrap();
        }
        bytes.extend(crc32fast::hash(&bytes).to_le_bytes());
        std::fs::write(path, &bytes).unwrap();
        network
    }

    #[test]
    fn version_2_files_are_read_as_2048_networks() {
        let header = HeaderV2 {
            patterns: vec!["0123".into(), "45".into()],
            element: "f32".into(),
            entries: vec![65536, 256],
            metadata: Metadata::new(),
            stages: vec![0],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.nw");
        let network = old_file(2, &header, &path);
        let loaded = Network::load(&path, None).unwrap();
        let board = Board::from_raw(0x0123_4567_89ab_cdef);
        assert_eq!(loaded.network.estimate(board), network.estimate(board));
        let other_game = Weights::load(&path, "2584", None, u64::MAX).unwrap_err();
        assert!(
            other_game
                .to_string()
                .ends_with("weights for the game 2048, not 2584"),
            "{other_game}"
        );
    }

    #[test]
    fn version_1_files_are_read_as_one_stage() {
        let header = HeaderV1 {
            patterns: vec!["0123".into(), "45".into()],
            element: "f32".into(),
            entries: vec![65536, 256],
            metadata: Metadata::from([("episodes".to_owned(), "10".to_owned())]),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.nw");
        let network = old_file(1, &header, &path);
        let loaded = Network::load(&path, None).unwrap();
        assert_eq!(loaded.network.stages(), &Stages::single());
        assert_eq!(loaded.metadata["episodes"], "10");
        let board = Board::from_raw(0x0123_4567_89ab_cdef);
        assert_eq!(loaded.network.estimate(board), network.estimate(board));
    }
}
