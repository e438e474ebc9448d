//! Writing a layer file: positions pushed in order, blocks compressed in
//! parallel batches, the index and checksum written last.

use std::path::Path;

use system::AtomicFile;

use crate::format::page_writer::{self, PageWriter};
use crate::{Error, Rate};

use super::block::compress_block;
use super::{BLOCK, BlockEntry, ENTRY_BYTES, LayerHeader, MAGIC, Precision, VERSION};

/// Writes sorted `boards` and their `rates` (in any [`Rate`] type, stored
/// at the header's precision) to `path` as a layer file: to a temporary
/// name first, then renamed into place. Returns the bytes written.
/// `level` is zstd's level for the blocks' boards; their rates are
/// compressed two levels below (docs/tablebase.md, "Layer files").
///
/// # Errors
/// [`Error::Io`] naming the file.
pub fn write(
    path: &Path,
    header: &LayerHeader,
    boards: &[u64],
    rates: &[impl Rate],
    level: i32,
) -> Result<u64, Error> {
    let mut writer = LayerWriter::create(path, header, level)?;
    writer.push(boards, rates)?;
    writer.finish()
}

/// Full blocks compressed together, in parallel, by a [`LayerWriter`].
const BATCH: usize = 64;

/// A layer file written piece by piece, so that a layer never has to be in
/// memory whole: positions are pushed in order, compressed a batch of
/// blocks at a time and written after room left for the block index, which
/// (with the header and the checksum) is filled in by
/// [`LayerWriter::finish`]. The file is the one [`write()`] makes.
#[derive(Debug)]
pub struct LayerWriter {
    file: AtomicFile,
    out: PageWriter,
    precision: Precision,
    level: i32,
    /// The bytes before the blocks: magic, version, header, block index.
    prefix: Vec<u8>,
    /// Positions the header announces.
    positions: u64,
    /// Positions pushed and not yet in a written block.
    boards: Vec<u64>,
    rates: Vec<f64>,
    /// Positions written in blocks.
    written: u64,
    /// The block index so far.
    entries: Vec<BlockEntry>,
    offset: u64,
    /// The checksum of the blocks so far.
    hasher: crc32fast::Hasher,
}

impl LayerWriter {
    /// Starts the layer file of `header` at `path`, under a temporary name,
    /// its blocks compressed at `level` as [`write()`]'s are.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn create(path: &Path, header: &LayerHeader, level: i32) -> Result<Self, Error> {
        let header_bytes = serde_json::to_vec(header).expect("a header always serialises");
        let blocks = (header.positions as usize).div_ceil(BLOCK);
        let mut prefix = Vec::new();
        prefix.extend(MAGIC);
        prefix.extend(VERSION.to_le_bytes());
        prefix.extend((header_bytes.len() as u32).to_le_bytes());
        prefix.extend(&header_bytes);
        prefix.extend((blocks as u32).to_le_bytes());
        let file = page_writer::create_atomic(path)?;
        // The block index, then the blocks: the index is filled in last.
        let out = page_writer::page_writer(&file, prefix.len() + blocks * ENTRY_BYTES)?;
        Ok(Self {
            file,
            out,
            precision: header.precision,
            level,
            prefix,
            positions: header.positions,
            boards: Vec::with_capacity(BATCH * BLOCK),
            rates: Vec::with_capacity(BATCH * BLOCK),
            written: 0,
            entries: Vec::with_capacity(blocks),
            offset: 0,
            hasher: crc32fast::Hasher::new(),
        })
    }

    /// Adds positions, sorted and after those pushed before, with their
    /// rates in any [`Rate`] type (stored at the header's precision).
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn push(&mut self, boards: &[u64], rates: &[impl Rate]) -> Result<(), Error> {
        assert_eq!(boards.len(), rates.len(), "one rate per board");
        for (boards, rates) in boards
            .chunks(BATCH * BLOCK)
            .zip(rates.chunks(BATCH * BLOCK))
        {
            self.boards.extend_from_slice(boards);
            self.rates
                .extend(rates.iter().map(|&rate| rate.probability()));
            if self.boards.len() >= BATCH * BLOCK {
                self.write_blocks(BATCH * BLOCK)?;
            }
        }
        Ok(())
    }

    /// Compresses and writes the first `count` pending positions, in blocks.
    fn write_blocks(&mut self, count: usize) -> Result<(), Error> {
        use rayon::prelude::*;
        let (precision, level) = (self.precision, self.level);
        let blocks: Vec<Vec<u8>> = self.boards[..count]
            .par_chunks(BLOCK)
            .zip(self.rates[..count].par_chunks(BLOCK))
            .map(|(boards, rates)| compress_block(boards, rates, precision, level))
            .collect();
        for (block, boards) in blocks.iter().zip(self.boards[..count].chunks(BLOCK)) {
            self.entries.push(BlockEntry {
                first: boards[0],
                offset: self.offset,
                length: block.len() as u32,
            });
            self.offset += block.len() as u64;
            self.hasher.update(block);
            self.out
                .write_all(block)
                .map_err(|source| self.file.error(source))?;
        }
        self.boards.drain(..count);
        self.rates.drain(..count);
        self.written += count as u64;
        Ok(())
    }

    /// Writes what is pending, the block index and the checksum, and renames
    /// the file into place. Returns its size in bytes.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    ///
    /// # Panics
    /// If the positions pushed are not those the header announced.
    pub fn finish(self) -> Result<u64, Error> {
        let (file, bytes) = self.finish_unsynced()?;
        file.commit()?;
        Ok(bytes)
    }

    /// Writes what is pending, the block index and the checksum; returns
    /// the file still under its temporary name, for [`AtomicFile::commit`]
    /// to flush to disk and rename (on a thread of its own, perhaps), and
    /// its size in bytes.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    ///
    /// # Panics
    /// If the positions pushed are not those the header announced.
    pub(crate) fn finish_unsynced(mut self) -> Result<(AtomicFile, u64), Error> {
        self.write_blocks(self.boards.len())?;
        assert_eq!(
            self.written, self.positions,
            "the positions the header announced"
        );
        for entry in &self.entries {
            self.prefix.extend(entry.first.to_le_bytes());
            self.prefix.extend(entry.offset.to_le_bytes());
            self.prefix.extend(entry.length.to_le_bytes());
        }
        let mut checksum = crc32fast::Hasher::new();
        checksum.update(&self.prefix);
        checksum.combine(&self.hasher);
        let Self {
            file,
            mut out,
            prefix,
            ..
        } = self;
        let finished = out
            .write_all(&checksum.finalize().to_le_bytes())
            .and_then(|()| out.finish(&prefix));
        let bytes = finished.map_err(|source| file.error(source))?;
        Ok((file, bytes))
    }
}
