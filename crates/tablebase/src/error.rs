//! The one error type of the crate.

use std::io;
use std::path::PathBuf;

/// What can go wrong defining, building, storing or querying a table.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A formation is unknown or its definition is invalid.
    #[error("formation {name}: {problem}")]
    Formation {
        /// The name or file given.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// A target that the formation cannot be played to.
    #[error("target {target}: {problem}")]
    Target {
        /// The target tile given.
        target: u64,
        /// Why it is impossible.
        problem: String,
    },
    /// A board given as text is malformed, or is not a position of the table.
    #[error("board {input}: {problem}")]
    Board {
        /// The board as given.
        input: String,
        /// What is wrong.
        problem: String,
    },
    /// Reading or writing a file failed. The system's error is the
    /// [`source`](std::error::Error::source), not repeated in the message.
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// Build settings that cannot be, or a build task that is not one of
    /// the table's.
    #[error("{0}")]
    Build(String),
    /// A table file is not one, is damaged, or belongs to another table.
    #[error("{}: {problem}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

impl From<system::FileError> for Error {
    fn from(system::FileError { path, source }: system::FileError) -> Self {
        Self::Io { path, source }
    }
}
