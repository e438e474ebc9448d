//! The one error type of the crate.

use std::path::PathBuf;

/// What can go wrong setting up or checkpointing a run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An episode count is not `BLOCKS` or `BLOCKSxSIZE`.
    #[error(
        "{input:?} is not an episode count: write BLOCKS (of 1000 episodes) or BLOCKSxSIZE, e.g. 100 or 1x20000"
    )]
    Plan {
        /// The text given.
        input: String,
    },
    /// A learning mode is unknown.
    #[error("{input:?} is not a learning mode (online, forward or backward)")]
    Mode {
        /// The text given.
        input: String,
    },
    /// A checkpoint cannot be used.
    #[error("checkpoint {}: {problem}", path.display())]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// Why not.
        problem: String,
    },
    /// The run was asked to stop (Ctrl-C) and saved a checkpoint first.
    #[error(
        "stopped after block {done} of {blocks}: {} holds the run; run the same command again to resume",
        path.display()
    )]
    Stopped {
        /// The checkpoint.
        path: PathBuf,
        /// Blocks finished.
        done: u64,
        /// Blocks of the run.
        blocks: u64,
    },
    /// A network or weight file failed.
    #[error(transparent)]
    Network(#[from] ntuple::Error),
    /// Writing the log failed.
    #[error("{}", path.display())]
    Io {
        /// The file, or `-` for standard output.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}
