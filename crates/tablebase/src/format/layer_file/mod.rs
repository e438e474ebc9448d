//! Layer files: one solved layer, sorted boards with their success rates
//! at a chosen precision, in independently compressed blocks behind an
//! index, with a checksum (format in docs/tablebase.md).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::Spec;

mod block;
mod reader;
mod writer;

pub use reader::LayerFile;
pub(crate) use reader::{Piece, fetch};
pub use writer::{LayerWriter, write};

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
    /// The part of the layer it holds, in a partitioned table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<u32>,
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
            partition: None,
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

#[cfg(test)]
mod tests;
