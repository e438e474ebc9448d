//! The one error type of the crate.

use std::io;
use std::path::PathBuf;

/// What can go wrong building, loading or saving a network.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A pattern (or a word meant as one) is not valid.
    #[error("pattern {input:?} is not valid: {problem}")]
    Pattern {
        /// The text given.
        input: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A precision that is neither `f32` nor `f16`.
    #[error("{0:?} is not a precision of weights (f32 or f16)")]
    Precision(String),
    /// A network was described without any pattern.
    #[error("a network needs at least one pattern")]
    EmptyNetwork,
    /// The tables would need more memory than allowed.
    #[error(
        "network {network} needs {}, more than the {} allowed",
        system::format_bytes(*needed),
        system::format_bytes(*limit)
    )]
    TooLarge {
        /// The network's description.
        network: String,
        /// Bytes its tables need.
        needed: u64,
        /// Bytes allowed.
        limit: u64,
    },
    /// The operating system refused the memory.
    #[error("could not allocate {} for the weight tables", system::format_bytes(*needed))]
    Memory {
        /// Bytes asked for.
        needed: u64,
        /// The system's error.
        source: io::Error,
    },
    /// Reading or writing a file failed.
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// A file is not a weight file of 2048lab, or is damaged.
    #[error("{}: {problem}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// A weight file's name, or a table selection (`[0-3]|file.w`), is
    /// malformed or out of range.
    #[error("{input:?}: {problem}")]
    Selection {
        /// The selection given.
        input: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A starting value for a network's weights (`4x6patt=320000/norm`)
    /// is no number, or would replace the weights of a loaded network.
    #[error("{input}: {problem}")]
    Initial {
        /// The word given.
        input: String,
        /// What is wrong with it.
        problem: String,
    },
    /// Stage thresholds (`0,16384`) are malformed or do not fit the network.
    #[error("stages {input:?}: {problem}")]
    Stages {
        /// The thresholds given.
        input: String,
        /// What is wrong with them.
        problem: String,
    },
    /// A weight file holds another network than the one asked for.
    #[error("{}: holds network {found}, not {expected}", path.display())]
    WrongNetwork {
        /// The file.
        path: PathBuf,
        /// The patterns in the file.
        found: String,
        /// The patterns asked for.
        expected: String,
    },
}

impl From<system::FileError> for Error {
    fn from(system::FileError { path, source }: system::FileError) -> Self {
        Self::Io { path, source }
    }
}
