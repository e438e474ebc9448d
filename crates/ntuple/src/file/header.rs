//! The header of a weight file: the network it describes, in each format
//! version this build reads, and how it is read and written.

use std::io::{self, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{MAGIC, Metadata, VERSION, bad, io_error};
use crate::{Error, GAME_2048};

/// The largest header accepted: far more than any network's description.
const MAX_HEADER: u32 = 1 << 20;

/// The header, after the magic, the version and its own length.
#[derive(Serialize, Deserialize)]
pub(super) struct Header {
    /// The patterns, as [`crate::Pattern`]'s `Display` writes them.
    pub(super) patterns: Vec<String>,
    /// The element type of the tables: `f32` or `f16`.
    pub(super) element: String,
    /// The number of entries of each table of a stage, in pattern order.
    pub(super) entries: Vec<u64>,
    pub(super) metadata: Metadata,
    /// The tile sums where the stages start (`[0]` for one stage). Version 1
    /// files have no stages field and one stage.
    pub(super) stages: Vec<u32>,
    /// The game the weights are for (`"2048"`, `"2584"`). Files before
    /// version 3 are 2048's.
    pub(super) game: String,
    /// The values a cell takes in a table index: a pattern of n cells has
    /// radix^n entries. Files before version 3 have 16.
    pub(super) radix: u32,
    /// Whether temporal coherence histories follow the weight tables (one
    /// table of twice the length per weight table). Files before version 3
    /// have none.
    pub(super) coherence: bool,
}

/// The header of format version 2: no game, radix 16.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct HeaderV2 {
    pub(super) patterns: Vec<String>,
    pub(super) element: String,
    pub(super) entries: Vec<u64>,
    pub(super) metadata: Metadata,
    pub(super) stages: Vec<u32>,
}

impl From<HeaderV2> for Header {
    fn from(header: HeaderV2) -> Self {
        Self {
            patterns: header.patterns,
            element: header.element,
            entries: header.entries,
            metadata: header.metadata,
            stages: header.stages,
            game: GAME_2048.to_owned(),
            radix: 16,
            coherence: false,
        }
    }
}

/// The header of format version 1: one stage.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct HeaderV1 {
    pub(super) patterns: Vec<String>,
    pub(super) element: String,
    pub(super) entries: Vec<u64>,
    pub(super) metadata: Metadata,
}

impl From<HeaderV1> for Header {
    fn from(header: HeaderV1) -> Self {
        HeaderV2 {
            patterns: header.patterns,
            element: header.element,
            entries: header.entries,
            metadata: header.metadata,
            stages: vec![0],
        }
        .into()
    }
}

impl Header {
    /// The header's bytes, as a file of [`VERSION`] holds them.
    pub(super) fn encode(&self) -> Vec<u8> {
        bincode::serde::encode_to_vec(self, bincode_config()).expect("a header always encodes")
    }
}

/// Fixed-width little-endian integers, and no decoded allocation larger than
/// the header itself could hold, so a corrupt length cannot ask for more.
pub(super) fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
        .with_limit::<{ MAX_HEADER as usize }>()
}

/// What is wrong with a header bincode could not decode, in words: its
/// errors print as Rust's debug text.
fn decode_problem(error: &bincode::error::DecodeError) -> String {
    use bincode::error::DecodeError;
    match error {
        DecodeError::UnexpectedEnd { additional } => {
            format!("it ends {additional} bytes too early")
        }
        DecodeError::LimitExceeded | DecodeError::OutsideUsizeRange(_) => {
            "a length larger than anything it can hold".to_owned()
        }
        DecodeError::Utf8 { .. } | DecodeError::InvalidCharEncoding(_) => {
            "text that is not UTF-8".to_owned()
        }
        DecodeError::InvalidBooleanValue(value) => format!("a flag of {value}, not 0 or 1"),
        DecodeError::OtherString(problem) => problem.clone(),
        DecodeError::Other(problem) => (*problem).to_owned(),
        _ => "a value its format does not allow".to_owned(),
    }
}

/// The header of a file of format `version`, decoded.
fn decode_header(version: u32, bytes: &[u8]) -> Result<Header, bincode::error::DecodeError> {
    let config = bincode_config();
    Ok(match version {
        1 => bincode::serde::decode_from_slice::<HeaderV1, _>(bytes, config)?
            .0
            .into(),
        2 => bincode::serde::decode_from_slice::<HeaderV2, _>(bytes, config)?
            .0
            .into(),
        _ => bincode::serde::decode_from_slice(bytes, config)?.0,
    })
}

/// Reads the magic, the version and the header of the file at `path` (of
/// `size` bytes) from `input`; returns the header's length and the header.
pub(super) fn read_header(
    path: &Path,
    input: &mut impl Read,
    size: u64,
) -> Result<(u32, Header), Error> {
    let (io_error, bad) = (io_error(path), bad(path));
    let mut start = [0u8; 16];
    input
        .read_exact(&mut start)
        .map_err(|error| match error.kind() {
            io::ErrorKind::UnexpectedEof => {
                bad(format!("only {size} bytes: not a 2048lab weight file"))
            }
            _ => io_error(error),
        })?;
    if start[..8] != MAGIC {
        return Err(bad(
            "not a 2048lab weight file (it does not start with \"2048labW\")".into(),
        ));
    }
    let version = u32::from_le_bytes(start[8..12].try_into().unwrap());
    if version > VERSION || version == 0 {
        return Err(bad(format!(
            "weight file format version {version}, but this build reads versions 1 to {VERSION}: \
             written by a newer 2048lab?"
        )));
    }
    let header_len = u32::from_le_bytes(start[12..16].try_into().unwrap());
    if header_len > MAX_HEADER || u64::from(header_len) + 20 > size {
        return Err(bad(format!(
            "corrupt header length {header_len} in a file of {size} bytes"
        )));
    }
    let mut header = vec![0; header_len as usize];
    input.read_exact(&mut header).map_err(&io_error)?;
    let header = decode_header(version, &header)
        .map_err(|error| bad(format!("corrupt header: {}", decode_problem(&error))))?;
    Ok((header_len, header))
}
