//! Reading a layer file: its header and block index checked on opening,
//! then lookups, positions by number, wanted boards and whole layers.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::base::layer::Solved;
use crate::{Error, Rate};

use super::block::decode_block;
use super::{
    BLOCK, BlockEntry, ENTRY_BYTES, LayerHeader, MAGIC, MAX_HEADER, OLDEST_VERSION, VERSION,
    checksum,
};

/// A layer file opened for lookups: its header and block index in memory,
/// the blocks read from disk and decompressed on demand, so that an open
/// layer costs its index (20 bytes per block of 4,096 positions) and not
/// its size.
#[derive(Debug)]
pub struct LayerFile {
    path: PathBuf,
    file: File,
    /// The file's format version.
    pub(super) version: u32,
    header: LayerHeader,
    blocks: Vec<BlockEntry>,
    /// Where the blocks begin in the file.
    data_start: u64,
    /// Their compressed size.
    data_bytes: u64,
}

impl LayerFile {
    /// Opens and checks a layer file: magic, version, header, index and
    /// checksum (which reads the file once through).
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read; [`Error::File`] naming the
    /// problem if it is not an intact layer file of a version this build
    /// reads.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let bad = |problem: String| Error::File {
            path: path.to_owned(),
            problem,
        };
        let io = |source| Error::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let read = |offset: u64, len: usize| -> Result<Vec<u8>, Error> {
            let mut bytes = vec![0; len];
            file.read_exact_at(&mut bytes, offset).map_err(io)?;
            Ok(bytes)
        };
        if len < 24 || read(0, 8)? != MAGIC {
            return Err(bad("not a 2048lab tablebase layer file".to_owned()));
        }
        let body = len - 4;
        let stored = u32::from_le_bytes(read(body, 4)?.try_into().expect("4 bytes"));
        if checksum(&file, body).map_err(io)? != stored {
            return Err(bad(
                "checksum mismatch: the file is corrupt or truncated".to_owned()
            ));
        }
        let word = |offset: u64| -> Result<u32, Error> {
            Ok(u32::from_le_bytes(
                read(offset, 4)?.try_into().expect("4 bytes"),
            ))
        };
        let version = word(8)?;
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(bad(format!(
                "layer file format version {version}, this build reads versions \
                 {OLDEST_VERSION} to {VERSION}"
            )));
        }
        let header_len = word(12)?;
        let header_end = 16 + u64::from(header_len);
        if header_len > MAX_HEADER || header_end + 4 > body {
            return Err(bad(format!("corrupt header length {header_len}")));
        }
        let header: LayerHeader = serde_json::from_slice(&read(16, header_len as usize)?)
            .map_err(|error| bad(format!("corrupt header: {error}")))?;
        let count = word(header_end)? as usize;
        let data_start = header_end + 4 + (count * ENTRY_BYTES) as u64;
        if data_start > body || count != (header.positions as usize).div_ceil(BLOCK) {
            return Err(bad(format!("corrupt block index ({count} blocks)")));
        }
        let blocks: Vec<BlockEntry> = read(header_end + 4, count * ENTRY_BYTES)?
            .chunks_exact(ENTRY_BYTES)
            .map(|entry| BlockEntry {
                first: u64::from_le_bytes(entry[..8].try_into().expect("8 bytes")),
                offset: u64::from_le_bytes(entry[8..16].try_into().expect("8 bytes")),
                length: u32::from_le_bytes(entry[16..].try_into().expect("4 bytes")),
            })
            .collect();
        let data_bytes = body - data_start;
        if blocks
            .iter()
            .any(|block| block.offset + u64::from(block.length) > data_bytes)
        {
            return Err(bad(
                "corrupt block index: a block lies past the end".to_owned()
            ));
        }
        Ok(Self {
            path: path.to_owned(),
            file,
            version,
            header,
            blocks,
            data_start,
            data_bytes,
        })
    }

    /// What the file says of itself.
    pub fn header(&self) -> &LayerHeader {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size in bytes: header, block index, compressed
    /// positions and checksum, as a build counts its layers.
    pub fn file_bytes(&self) -> u64 {
        self.data_start + self.data_bytes + 4
    }

    fn block(&self, number: usize) -> Result<(Vec<u64>, Vec<f64>), Error> {
        self.block_with(number, &mut self.decompressor()?)
    }

    /// A context for decompressing blocks, kept by a caller that reads
    /// many (setting one up costs about as much as a small block).
    pub(crate) fn decompressor(&self) -> Result<zstd::bulk::Decompressor<'static>, Error> {
        zstd::bulk::Decompressor::new().map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// [`LayerFile::block`] with `decompressor`.
    pub(crate) fn block_with(
        &self,
        number: usize,
        decompressor: &mut zstd::bulk::Decompressor<'static>,
    ) -> Result<(Vec<u64>, Vec<f64>), Error> {
        let entry = self.blocks[number];
        let n = if number + 1 == self.blocks.len() {
            self.header.positions as usize - number * BLOCK
        } else {
            BLOCK
        };
        let mut compressed = vec![0; entry.length as usize];
        self.file
            .read_exact_at(&mut compressed, self.data_start + entry.offset)
            .map_err(|source| Error::Io {
                path: self.path.clone(),
                source,
            })?;
        let capacity = n * (8 + self.header.precision.bytes());
        let corrupt = || Error::File {
            path: self.path.clone(),
            problem: format!("block {number} is corrupt"),
        };
        let raw = decompressor
            .decompress(&compressed, capacity)
            .map_err(|_| corrupt())?;
        decode_block(&raw, n, self.header.precision, self.version).ok_or_else(corrupt)
    }

    /// The stored rate of a canonical board: 0 if the layer does not hold
    /// it (never reached, worth 0, or pruned).
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if its block cannot be read.
    pub fn rate(&self, board: u64) -> Result<f64, Error> {
        let number = self.blocks.partition_point(|block| block.first <= board);
        if number == 0 {
            return Ok(0.0);
        }
        let (boards, rates) = self.block(number - 1)?;
        Ok(boards
            .binary_search(&board)
            .map_or(0.0, |index| rates[index]))
    }

    /// Position `index` of the layer (in the order of the boards) and its
    /// rate, or `None` past the last.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if its block cannot be read.
    pub fn position(&self, index: u64) -> Result<Option<(u64, f64)>, Error> {
        if index >= self.header.positions {
            return Ok(None);
        }
        let (boards, rates) = self.block((index / BLOCK as u64) as usize)?;
        let at = (index % BLOCK as u64) as usize;
        Ok(boards.get(at).zip(rates.get(at)).map(|(&b, &r)| (b, r)))
    }

    /// The positions of `wanted` (sorted, without repeats) that the layer
    /// holds, with their stored rates: only the blocks where some wanted
    /// board would be are read.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if a block cannot be read.
    pub fn fetch(&self, wanted: &[u64]) -> Result<Solved, Error> {
        let fences: Vec<u64> = self.blocks.iter().map(|block| block.first).collect();
        let (boards, rates) = fetch(&fences, wanted, |number, into: &mut Piece<f64>| {
            (into.boards, into.rates) = self.block(number)?;
            Ok(())
        })?;
        Ok(Solved::new(boards, rates))
    }

    /// Calls `visit` with the boards and rates of each block in turn,
    /// once it has checked that the boards rise, within the block and from
    /// the block before.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if a block cannot be read or its
    /// boards are out of order; what `visit` returns.
    pub fn visit_blocks(
        &self,
        mut visit: impl FnMut(&[u64], &[f64]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut last = None;
        let mut decompressor = self.decompressor()?;
        for number in 0..self.blocks.len() {
            let (boards, rates) = self.block_with(number, &mut decompressor)?;
            let after_last = match (last, boards.first()) {
                (Some(last), Some(&first)) => last < first,
                _ => true,
            };
            if !after_last || boards.windows(2).any(|pair| pair[0] >= pair[1]) {
                return Err(Error::File {
                    path: self.path.clone(),
                    problem: "positions out of order: the file is corrupt".to_owned(),
                });
            }
            last = boards.last().copied().or(last);
            visit(&boards, &rates)?;
        }
        Ok(())
    }

    /// The number of blocks: [`BLOCK`] positions each, the last fewer.
    pub(crate) fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Every position and rate of the layer.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if a block cannot be read.
    pub fn read_all(&self) -> Result<Solved, Error> {
        let mut boards = Vec::with_capacity(self.header.positions as usize);
        let mut rates = Vec::with_capacity(self.header.positions as usize);
        self.visit_blocks(|block_boards, block_rates| {
            boards.extend_from_slice(block_boards);
            rates.extend_from_slice(block_rates);
            Ok(())
        })?;
        Ok(Solved::new(boards, rates))
    }
}

/// One piece of a stored layer as [`fetch`] reads it: its boards and
/// rates, and the bytes they were read from, kept to be filled again by
/// the next piece a thread reads (fresh buffers for each piece, zeroed
/// and freed, took a tenth of the CPU time of `tb-build build free8 16
/// --memory 40M`).
#[derive(Debug, Default)]
pub(crate) struct Piece<R> {
    pub boards: Vec<u64>,
    pub rates: Vec<R>,
    pub bytes: Vec<u8>,
}

/// The positions of `wanted` (sorted, without repeats) held by a sorted
/// layer stored in pieces, boards and rates, where `fences` are the pieces' first boards and
/// `read` fills an emptied [`Piece`] with one piece's boards and rates
/// (its bytes as they were left): only the pieces where some
/// wanted board would be are read, each once, on all threads (the wanted
/// boards of a segment of free8's layer lie in nearly every piece of the
/// layers after it, so that a segment reads most of them).
pub(crate) fn fetch<R: Rate>(
    fences: &[u64],
    wanted: &[u64],
    read: impl Fn(usize, &mut Piece<R>) -> Result<(), Error> + Sync,
) -> Result<(Vec<u64>, Vec<R>), Error> {
    // The pieces that would hold wanted boards, each with those boards.
    // Boards before the first piece are not held.
    let mut pieces = Vec::new();
    let mut rest = &wanted
        [wanted.partition_point(|&board| fences.first().is_none_or(|&first| board < first))..];
    while let Some(&first) = rest.first() {
        let piece = fences.partition_point(|&fence| fence <= first) - 1;
        let within = match fences.get(piece + 1) {
            Some(&next) => rest.partition_point(|&board| board < next),
            None => rest.len(),
        };
        pieces.push((piece, &rest[..within]));
        rest = &rest[within..];
    }
    let found: Vec<(Vec<u64>, Vec<R>)> = pieces
        .into_par_iter()
        .map_init(Piece::default, |piece, (number, wanted)| {
            piece.boards.clear();
            piece.rates.clear();
            read(number, piece)?;
            let (mut boards, mut rates) = (Vec::new(), Vec::new());
            let mut at = 0;
            for &board in wanted {
                at += piece.boards[at..].partition_point(|&held| held < board);
                if piece.boards.get(at) == Some(&board) {
                    boards.push(board);
                    rates.push(piece.rates[at]);
                }
            }
            Ok((boards, rates))
        })
        .collect::<Result<_, Error>>()?;
    let count = found.iter().map(|(boards, _)| boards.len()).sum();
    let (mut boards, mut rates) = (Vec::with_capacity(count), Vec::with_capacity(count));
    for (piece_boards, piece_rates) in found {
        boards.extend(piece_boards);
        rates.extend(piece_rates);
    }
    Ok((boards, rates))
}
