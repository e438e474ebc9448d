//! Where a run's text goes: standard output, and a log file if asked.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::Error;

/// Writes every line to standard output and, if one was given, appends it to
/// a log file (as TDL2048+ appends to its `.x` files).
#[derive(Debug)]
pub struct Log {
    file: Option<(PathBuf, File)>,
}

impl Log {
    /// Standard output, plus `path` opened for appending.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be opened.
    pub fn open(path: Option<&Path>) -> Result<Self, Error> {
        let file = path
            .map(|path| {
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map(|file| (path.to_owned(), file))
                    .map_err(|source| Error::Io {
                        path: path.to_owned(),
                        source,
                    })
            })
            .transpose()?;
        Ok(Self { file })
    }

    /// Writes `text` to both, flushed.
    ///
    /// # Errors
    /// [`Error::Io`]; a closed standard output (`| head`) is an error of kind
    /// `BrokenPipe` with the path `-`, which front ends end on quietly.
    pub fn write(&mut self, text: &str) -> Result<(), Error> {
        let mut stdout = io::stdout().lock();
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|source| Error::Io {
                path: PathBuf::from("-"),
                source,
            })?;
        if let Some((path, file)) = &mut self.file {
            file.write_all(text.as_bytes())
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
        }
        Ok(())
    }
}
