//! The one error of this crate: a file that could not be read or written.

use std::io;
use std::path::PathBuf;

/// Reading or writing a file failed. The message is the file's name as
/// given; the system's error is the [`source`](std::error::Error::source),
/// which programs print after it.
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
pub struct FileError {
    /// The file, as the caller named it.
    pub path: PathBuf,
    /// The system's error.
    #[source]
    pub source: io::Error,
}
