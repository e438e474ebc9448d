//! Layer files: one solved layer, sorted boards with their success rates
//! at a chosen precision, in independently compressed blocks behind an
//! index, with a checksum (format in docs/tablebase.md).

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use system::AtomicFile;

use crate::base::layer::Solved;
use crate::format::page_writer::{self, PageWriter};
use crate::{Error, Rate, Spec};

/// The first eight bytes of every layer file.
pub const MAGIC: [u8; 8] = *b"2048labT";

/// The layer file format this build writes and the newest it reads: 2
/// since the rates of a block are stored as byte planes in a zstd frame
/// of their own (docs/tablebase.md, "Layer files").
pub const VERSION: u32 = 2;

/// The oldest layer file format this build reads: version 1 stored each
/// block as one frame, its rates one after another.
const OLDEST_VERSION: u32 = 1;

/// Positions per block: a lookup decompresses one block.
pub const BLOCK: usize = 4096;

/// The largest header accepted.
const MAX_HEADER: u32 = 1 << 16;

/// How success rates are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 8-byte floats, as computed.
    F64,
    /// 4-byte floats.
    F32,
    /// 4-byte fixed point, 4,000,000,000 = 1 (the reference's default).
    U32,
    /// 2-byte fixed point, 65,535 = 1.
    U16,
}

impl Precision {
    /// Bytes per stored rate.
    pub fn bytes(self) -> usize {
        match self {
            Self::F64 => 8,
            Self::F32 | Self::U32 => 4,
            Self::U16 => 2,
        }
    }

    /// The stored bits of `rate`, in the low [`Precision::bytes`].
    fn encode(self, rate: f64) -> u64 {
        match self {
            Self::F64 => rate.to_bits(),
            Self::F32 => u64::from((rate as f32).to_bits()),
            Self::U32 => u64::from((rate * 4e9).round() as u32),
            Self::U16 => u64::from((rate * 65535.0).round() as u16),
        }
    }

    /// The rate whose stored bits are `bits`.
    fn decode(self, bits: u64) -> f64 {
        match self {
            Self::F64 => f64::from_bits(bits),
            Self::F32 => f64::from(f32::from_bits(bits as u32)),
            Self::U32 => f64::from(bits as u32) / 4e9,
            Self::U16 => f64::from(bits as u16) / 65535.0,
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::F64 => "f64",
            Self::F32 => "f32",
            Self::U32 => "u32",
            Self::U16 => "u16",
        })
    }
}

impl FromStr for Precision {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "f64" => Ok(Self::F64),
            "f32" => Ok(Self::F32),
            "u32" => Ok(Self::U32),
            "u16" => Ok(Self::U16),
            _ => Err(format!("{text:?} is not a precision (f64, f32, u32, u16)")),
        }
    }
}

/// What a layer file says of itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerHeader {
    /// The formation's name.
    pub formation: String,
    /// The target tile (64, 256, ...).
    pub target: u32,
    /// The probability of a 4.
    pub four_rate: f64,
    /// How the rates are stored.
    pub precision: Precision,
    /// The layer's index.
    pub layer: usize,
    /// The positions stored.
    pub positions: u64,
}

impl LayerHeader {
    /// The header of layer `layer` of the table `spec` stored at
    /// `precision`, holding `positions`: what the builder writes, and what
    /// a table checks a layer file against.
    pub fn new(spec: &Spec, precision: Precision, layer: usize, positions: u64) -> Self {
        Self {
            formation: spec.formation().name().to_owned(),
            target: 1 << spec.target(),
            four_rate: spec.four_rate(),
            precision,
            layer,
            positions,
        }
    }
}

/// One block's place in the file.
#[derive(Clone, Copy, Debug)]
struct BlockEntry {
    first: u64,
    offset: u64,
    length: u32,
}

const ENTRY_BYTES: usize = 20;

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

thread_local! {
    /// Each thread's compression context and the level it is set to: made
    /// once, not for every block (a context's tables cost more to set up
    /// than a small block takes to compress), and set to each frame's
    /// level in turn (the boards' and the rates'), where a context for
    /// each level took 2-5 MiB more peak memory.
    static COMPRESSOR: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
}

/// `raw` compressed at `level`, the same bytes as `zstd::bulk::compress`.
fn compress(raw: &[u8], level: i32) -> Vec<u8> {
    const INFALLIBLE: &str = "compressing to memory cannot fail";
    COMPRESSOR.with_borrow_mut(|slot| {
        let (set, compressor) = slot.get_or_insert_with(|| {
            let compressor = zstd::bulk::Compressor::new(level).expect(INFALLIBLE);
            (level, compressor)
        });
        if *set != level {
            compressor
                .set_compression_level(level)
                .expect("a level zstd knows");
            *set = level;
        }
        compressor.compress(raw).expect(INFALLIBLE)
    })
}

/// The level of a block's rates' frame, for blocks whose boards are
/// compressed at `level`: two levels lower (and -1 for 2, as zstd's level
/// 0 is its default, 3). Below their leading bytes the rates are nearly
/// random, which zstd's search for repeats at the higher level spends
/// its time on for nothing: at level 1 the rates of L3-256 took a third
/// less time to compress at -1, at `f64`, and the files were the same
/// size (L3-128's and free8-128's up to 4.5% larger, 442-128's up to 4.4%
/// smaller: docs/tablebase.md, "Layer files").
fn rates_level(level: i32) -> i32 {
    match level - 2 {
        0 => -1,
        lower => lower,
    }
}

/// One block, compressed: a frame of its boards, then a frame of its rates
/// at `precision` (at [`rates_level`]), each before compression as byte
/// planes of its values: all lowest bytes, then all second bytes, and so
/// on. The boards are the first and the differences between neighbours
/// (small numbers in sorted boards), whose zero high bytes compress to
/// nothing; the rates' leading bytes (the sign and exponent of a float,
/// the high digits of fixed point) compress well and the others hardly.
/// The differences wrap, as [`decode_block`]'s sums do, so that any boards
/// come back as they went in: their order is checked where a layer is
/// read through ([`LayerFile::visit_blocks`]).
fn compress_block(boards: &[u64], rates: &[f64], precision: Precision, level: i32) -> Vec<u8> {
    let mut previous = 0;
    let differences = boards.iter().map(|&board| {
        let difference = board.wrapping_sub(previous);
        previous = board;
        difference
    });
    let mut block = compress(&planes(differences, size_of::<u64>()), level);
    // One loop for each precision, of its own width: one loop matching on
    // the precision for each rate ran 2% more instructions building L3-64.
    let rates = match precision {
        Precision::F64 => planes(rates.iter().map(|&rate| Precision::F64.encode(rate)), 8),
        Precision::F32 => planes(rates.iter().map(|&rate| Precision::F32.encode(rate)), 4),
        Precision::U32 => planes(rates.iter().map(|&rate| Precision::U32.encode(rate)), 4),
        Precision::U16 => planes(rates.iter().map(|&rate| Precision::U16.encode(rate)), 2),
    };
    block.extend(compress(&rates, rates_level(level)));
    block
}

/// The low `width` bytes of each of `values`, as byte planes.
fn planes(values: impl ExactSizeIterator<Item = u64>, width: usize) -> Vec<u8> {
    let n = values.len();
    let mut planes = vec![0; width * n];
    for (i, value) in values.enumerate() {
        for (plane, byte) in value.to_le_bytes()[..width].iter().enumerate() {
            planes[plane * n + i] = *byte;
        }
    }
    planes
}

/// The `n` values stored as `width` byte planes in `planes`, in order.
fn from_planes(planes: &[u8], n: usize, width: usize) -> impl Iterator<Item = u64> + '_ {
    (0..n).map(move |i| {
        (0..width).fold(0, |value, plane| {
            value | u64::from(planes[plane * n + i]) << (8 * plane)
        })
    })
}

/// The boards and rates of a decompressed block of `n` positions, of
/// format `version`: in version 1, the rates were stored one after another
/// (little-endian) rather than as planes.
fn decode_block(
    raw: &[u8],
    n: usize,
    precision: Precision,
    version: u32,
) -> Option<(Vec<u64>, Vec<f64>)> {
    let width = precision.bytes();
    if raw.len() != n * (8 + width) {
        return None;
    }
    let (differences, rates) = raw.split_at(8 * n);
    let mut previous = 0u64;
    let boards = from_planes(differences, n, size_of::<u64>())
        .map(|difference| {
            previous = previous.wrapping_add(difference);
            previous
        })
        .collect();
    let rates = match version {
        1 => rates
            .chunks_exact(width)
            .map(|bytes| {
                bytes
                    .iter()
                    .rev()
                    .fold(0, |value, &byte| value << 8 | u64::from(byte))
            })
            .map(|bits| precision.decode(bits))
            .collect(),
        _ => from_planes(rates, n, width)
            .map(|bits| precision.decode(bits))
            .collect(),
    };
    Some((boards, rates))
}

/// A layer file opened for lookups: its header and block index in memory,
/// the blocks read from disk and decompressed on demand, so that an open
/// layer costs its index (20 bytes per block of 4,096 positions) and not
/// its size.
#[derive(Debug)]
pub struct LayerFile {
    path: PathBuf,
    file: File,
    /// The file's format version.
    version: u32,
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
        fetch(&fences, wanted, |number, into: &mut Piece<f64>| {
            (into.boards, into.rates) = self.block(number)?;
            Ok(())
        })
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

/// The CRC-32 of the first `len` bytes of `file`, read a piece at a time.
fn checksum(file: &File, len: u64) -> io::Result<u32> {
    let mut hasher = crc32fast::Hasher::new();
    let mut piece = vec![0; (1 << 20).min(len as usize)];
    let mut at = 0;
    while at < len {
        let piece = &mut piece[..(len - at).min(1 << 20) as usize];
        file.read_exact_at(piece, at)?;
        hasher.update(piece);
        at += piece.len() as u64;
    }
    Ok(hasher.finalize())
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
/// layer stored in pieces, where `fences` are the pieces' first boards and
/// `read` fills an emptied [`Piece`] with one piece's boards and rates
/// (its bytes as they were left): only the pieces where some
/// wanted board would be are read, each once, on all threads (the wanted
/// boards of a segment of free8's layer lie in nearly every piece of the
/// layers after it, so that a segment reads most of them).
pub(crate) fn fetch<R: Rate>(
    fences: &[u64],
    wanted: &[u64],
    read: impl Fn(usize, &mut Piece<R>) -> Result<(), Error> + Sync,
) -> Result<Solved<R>, Error> {
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
    Ok(Solved::new(boards, rates))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `layer` as a layer file of the test header at `precision`.
    fn write_layer(path: &Path, precision: Precision, layer: &Solved) {
        write(path, &header(precision), layer.boards(), layer.rates(), 3).unwrap();
    }

    fn layer() -> Solved {
        let boards: Vec<u64> = (0..10_000u64).map(|i| 0xFFF0_0000 + i * i).collect();
        let rates = (0..10_000).map(|i| f64::from(i) / 10_000.0).collect();
        Solved::new(boards, rates)
    }

    /// A thread's reused context compresses each block as a fresh one
    /// would, whatever level it was set to before.
    #[test]
    fn reused_contexts_compress_as_fresh_ones() {
        let layer = layer();
        let blocks = layer.boards().chunks(1024).zip(layer.rates().chunks(1024));
        for (level, (boards, rates)) in [3, 3, 19, 1, -1, 3, 1].into_iter().zip(blocks) {
            let values = boards
                .iter()
                .zip(rates)
                .map(|(&board, &rate)| board ^ rate.to_bits());
            let raw = planes(values, 8);
            assert_eq!(
                compress(&raw, level),
                zstd::bulk::compress(&raw, level).unwrap()
            );
        }
    }

    /// Files of format version 1, whose blocks stored
    /// their rates one after another in the boards' frame, are still read:
    /// two written by that build, of 5,000 positions (two blocks) at `f64`
    /// and `u16`.
    #[test]
    fn version_1_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let boards: Vec<u64> = (0..5000u64).map(|i| 0xFFF0_0000 + i * i).collect();
        let rates: Vec<f64> = (0..5000).map(|i| f64::from(i % 16) / 16.0).collect();
        for (precision, bytes, tolerance) in [
            (
                Precision::F64,
                &include_bytes!("../../../tests/data/layer-v1-f64.tbl")[..],
                0.0,
            ),
            (
                Precision::U16,
                &include_bytes!("../../../tests/data/layer-v1-u16.tbl")[..],
                1e-5,
            ),
        ] {
            let path = dir.path().join("layer.tbl");
            std::fs::write(&path, bytes).unwrap();
            let file = LayerFile::open(&path).unwrap();
            assert_eq!(file.version, 1);
            assert_eq!(file.header().precision, precision);
            let all = file.read_all().unwrap();
            assert_eq!(all.boards(), boards);
            for (&stored, &exact) in all.rates().iter().zip(&rates) {
                assert!((stored - exact).abs() <= tolerance, "{precision:?}");
            }
            assert_eq!(file.rate(boards[4500]).unwrap(), all.rates()[4500]);
        }
    }

    /// Byte planes hold byte `p` of value `i` at `p * n + i`, and give
    /// back the values' low bytes, at every width a layer file stores.
    #[test]
    fn planes_hold_each_byte_in_its_place() {
        let all: Vec<u64> = (0..300u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for n in [1, 7, 300] {
            let values = &all[..n];
            for width in [2, 4, 8] {
                let planes = planes(values.iter().copied(), width);
                assert_eq!(planes.len(), width * n);
                for (i, &value) in values.iter().enumerate() {
                    for (plane, &byte) in value.to_le_bytes()[..width].iter().enumerate() {
                        assert_eq!(planes[plane * n + i], byte, "{n} values, {width} bytes");
                    }
                }
                let low: Vec<u64> = values
                    .iter()
                    .map(|&value| value & (u64::MAX >> (64 - 8 * width)))
                    .collect();
                assert_eq!(from_planes(&planes, n, width).collect::<Vec<_>>(), low);
            }
        }
    }

    fn header(precision: Precision) -> LayerHeader {
        LayerHeader {
            formation: "L3".into(),
            target: 64,
            four_rate: 0.1,
            precision,
            layer: 3,
            positions: 10_000,
        }
    }

    #[test]
    fn layers_round_trip_at_every_precision() {
        let dir = tempfile::tempdir().unwrap();
        let layer = layer();
        for (precision, tolerance) in [
            (Precision::F64, 0.0),
            (Precision::F32, 1e-7),
            (Precision::U32, 2e-10),
            (Precision::U16, 1e-5),
        ] {
            let path = dir.path().join("layer.tbl");
            write_layer(&path, precision, &layer);
            let file = LayerFile::open(&path).unwrap();
            assert_eq!(file.header(), &header(precision));
            let all = file.read_all().unwrap();
            assert_eq!(all.boards(), layer.boards());
            for (&stored, &exact) in all.rates().iter().zip(layer.rates()) {
                assert!((stored - exact).abs() <= tolerance, "{precision:?}");
            }
            assert_eq!(file.rate(layer.boards()[5000]).unwrap(), all.rates()[5000]);
            assert_eq!(file.rate(layer.boards()[5000] + 1).unwrap(), 0.0);
            assert_eq!(file.rate(1).unwrap(), 0.0);
        }
    }

    /// Each piece is read into buffers emptied first, those a thread read
    /// a piece into before where it read one, and the positions found are
    /// those a plain filter finds.
    #[test]
    fn pieces_are_read_into_emptied_buffers_used_again() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let boards: Vec<u64> = (0..800).map(|i| 10 * i).collect();
        let fences: Vec<u64> = boards.iter().step_by(100).copied().collect();
        let wanted: Vec<u64> = (0..9000).step_by(7).collect();
        let used_again = AtomicUsize::new(0);
        let read = |number: usize, piece: &mut Piece<f64>| {
            assert!(piece.boards.is_empty() && piece.rates.is_empty());
            if piece.boards.capacity() > 0 {
                used_again.fetch_add(1, Ordering::Relaxed);
            }
            for &board in &boards[100 * number..100 * (number + 1)] {
                piece.boards.push(board);
                piece.rates.push(board as f64 / 8000.0);
            }
            Ok(())
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let fetched = pool.install(|| fetch(&fences, &wanted, read)).unwrap();
        let expected: Vec<u64> = boards
            .iter()
            .copied()
            .filter(|board| wanted.binary_search(board).is_ok())
            .collect();
        assert_eq!(fetched.boards(), expected);
        let rates: Vec<f64> = expected.iter().map(|&b| b as f64 / 8000.0).collect();
        assert_eq!(fetched.rates(), rates);
        assert!(used_again.load(Ordering::Relaxed) > 0);
    }

    #[test]
    fn fetching_reads_the_wanted_positions_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer.tbl");
        let layer = layer();
        write_layer(&path, Precision::F64, &layer);
        let file = LayerFile::open(&path).unwrap();
        let boards = layer.boards();
        // Before, between, on and after the stored boards, in the first,
        // middle and last of three blocks.
        let wanted: Vec<u64> = [0, 1, boards[0], boards[0] + 1, boards[4095], boards[4096]]
            .into_iter()
            .chain((0..10_000).step_by(777).map(|i| boards[i]))
            .chain([boards[9999] - 1, boards[9999], boards[9999] + 1, u64::MAX])
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let fetched = file.fetch(&wanted).unwrap();
        let expected = layer.only(&wanted);
        assert_eq!(fetched.boards(), expected.boards());
        assert_eq!(fetched.rates(), expected.rates());
        assert!(file.fetch(&[]).unwrap().is_empty());
    }

    #[test]
    fn a_layer_pushed_in_pieces_is_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let whole = dir.path().join("whole.tbl");
        let pieces = dir.path().join("pieces.tbl");
        // Enough positions for more than one batch of blocks.
        let boards: Vec<u64> = (0..300_000u64).map(|i| 0xFFF0_0000 + 3 * i).collect();
        let rates: Vec<f64> = (0..300_000).map(|i| f64::from(i % 1000) / 1000.0).collect();
        let header = LayerHeader {
            positions: 300_000,
            ..header(Precision::F64)
        };
        write(&whole, &header, &boards, &rates, 3).unwrap();
        let mut writer = LayerWriter::create(&pieces, &header, 3).unwrap();
        let mut start = 0;
        for size in [1, 4095, 5000, 262_144, 7].into_iter().cycle() {
            let end = (start + size).min(boards.len());
            writer
                .push(&boards[start..end], &rates[start..end])
                .unwrap();
            start = end;
            if start == boards.len() {
                break;
            }
        }
        writer.finish().unwrap();
        assert_eq!(
            std::fs::read(&whole).unwrap(),
            std::fs::read(&pieces).unwrap()
        );
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, 2, "no temporary file is left behind");
    }

    /// A layer file is under its name only once finished: dropped while
    /// pushed to, or written out but dropped before its flush and rename,
    /// it leaves nothing.
    #[test]
    fn an_unfinished_layer_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer.tbl");
        let files = || std::fs::read_dir(dir.path()).unwrap().count();
        let mut writer = LayerWriter::create(&path, &header(Precision::U32), 3).unwrap();
        writer.push(&[1, 2, 3], &[0.5; 3]).unwrap();
        drop(writer);
        assert_eq!(files(), 0);
        let layer = layer();
        for rename in [false, true] {
            let mut writer = LayerWriter::create(&path, &header(Precision::F64), 3).unwrap();
            writer.push(layer.boards(), layer.rates()).unwrap();
            let (file, bytes) = writer.finish_unsynced().unwrap();
            assert!(!path.exists(), "not under its name before the rename");
            if rename {
                file.commit().unwrap();
                assert_eq!(std::fs::metadata(&path).unwrap().len(), bytes);
                let read = LayerFile::open(&path).unwrap();
                assert_eq!(read.rate(layer.boards()[77]).unwrap(), layer.rates()[77]);
            } else {
                drop(file);
                assert_eq!(files(), 0);
            }
        }
    }

    #[test]
    fn damaged_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer.tbl");
        let layer = layer();
        write_layer(&path, Precision::U32, &layer);
        let bytes = std::fs::read(&path).unwrap();
        let error = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            LayerFile::open(&path).unwrap_err().to_string()
        };
        assert!(error(&bytes[..bytes.len() / 2]).contains("checksum mismatch"));
        assert!(error(&bytes[..10]).contains("not a 2048lab tablebase layer file"));
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 1;
        assert!(error(&flipped).contains("checksum mismatch"));
        assert!(error(b"hello").contains("not a 2048lab"));
        // A later format, intact.
        let mut later = bytes.clone();
        later[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
        let body = later.len() - 4;
        let checksum = crc32fast::hash(&later[..body]);
        later[body..].copy_from_slice(&checksum.to_le_bytes());
        let expected = format!(
            "format version {}, this build reads versions 1 to",
            VERSION + 1
        );
        assert!(error(&later).contains(&expected));
    }

    /// Whichever byte of a layer file is damaged, and wherever it was cut
    /// short, opening it says the file is damaged: no panic, and no layer
    /// read from a bad file.
    #[test]
    fn every_damaged_byte_and_every_cut_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("layer.tbl");
        let boards: Vec<u64> = (0..100u64).map(|i| 0xFFF0_0000 + i * i).collect();
        let rates: Vec<f64> = (0..100).map(|i| f64::from(i) / 100.0).collect();
        let header = LayerHeader {
            positions: 100,
            ..header(Precision::U32)
        };
        write(&path, &header, &boards, &rates, 3).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let opens = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            LayerFile::open(&path)
        };
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x5A;
            let result = opens(&damaged);
            assert!(
                matches!(result, Err(Error::File { .. })),
                "byte {at} damaged: {result:?}"
            );
            let result = opens(&bytes[..at]);
            assert!(
                matches!(result, Err(Error::File { .. })),
                "cut at {at}: {result:?}"
            );
        }
        assert_eq!(opens(&bytes).unwrap().read_all().unwrap().boards(), boards);
    }
}
