//! Where a run's text goes: standard output, and a log file if asked.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::Error;

/// Writes every line to standard output and, if one was given, appends it to
/// a log file (as TDL2048+ appends to its `.x` files).
pub struct Log {
    file: Option<(PathBuf, File)>,
    /// What each write is done through: a progress bar on the terminal
    /// takes itself away for it, and comes back after.
    around: Option<Box<Around>>,
}

/// Runs a write given to it: [`Log::around`].
type Around = dyn Fn(&mut dyn FnMut());

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
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
        Ok(Self { file, around: None })
    }

    /// Makes every write go through `around`, which must call the write
    /// it is given: a progress bar suspends itself there, so that lines
    /// never mix with it on a terminal.
    pub fn around(&mut self, around: impl Fn(&mut dyn FnMut()) + 'static) {
        self.around = Some(Box::new(around));
    }

    /// Writes `text` to both, flushed.
    ///
    /// # Errors
    /// [`Error::Io`]; a closed standard output (`| head`) is an error of kind
    /// `BrokenPipe` with the path `-`, which front ends end on quietly.
    pub fn write(&mut self, text: &str) -> Result<(), Error> {
        let mut written = Ok(());
        let mut write = || {
            let mut stdout = io::stdout().lock();
            written = stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush());
        };
        match &self.around {
            Some(around) => around(&mut write),
            None => write(),
        }
        written.map_err(|source| Error::Io {
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
