//! Files of game records, one a line, written as games finish.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context as _;
use system::AtomicFile;

use crate::check_output;

/// Records written by the playing threads, one a line, under a temporary
/// name until the evaluation ends ([`AtomicFile`]: an evaluation that stops early
/// leaves the file before it as it was).
pub struct RecordFile {
    path: PathBuf,
    /// The writer, the records written, and the first failure to write.
    out: Mutex<(BufWriter<AtomicFile>, u64, Option<std::io::Error>)>,
}

impl RecordFile {
    /// Starts writing the file `path` names.
    ///
    /// # Errors
    /// If `path` cannot be an output ([`check_output`]) or be created.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        check_output(path)?;
        let file = AtomicFile::create(path)?;
        Ok(Self {
            path: path.to_owned(),
            out: Mutex::new((BufWriter::new(file), 0, None)),
        })
    }

    /// Appends `record`; the first failure is kept for [`RecordFile::finish`].
    pub fn write(&self, record: &impl std::fmt::Display) {
        let mut out = self.out.lock().expect("a writer panicked");
        if let (writer, written, failure @ None) = &mut *out {
            match writeln!(writer, "{record}") {
                Ok(()) => *written += 1,
                Err(error) => *failure = Some(error),
            }
        }
    }

    /// Flushes the records and moves them to their name; returns the line
    /// that says so, `recorded 1000 games in games.txt`.
    ///
    /// # Errors
    /// The first failure to write, or to move the file.
    pub fn finish(self) -> anyhow::Result<String> {
        let (writer, written, failure) = self.out.into_inner().expect("a writer panicked");
        let file = match failure {
            Some(error) => Err(error),
            None => writer
                .into_inner()
                .map_err(std::io::IntoInnerError::into_error),
        };
        let file = file.with_context(|| format!("{}: cannot write", self.path.display()))?;
        file.commit()?;
        Ok(format!(
            "recorded {written} games in {}",
            self.path.display()
        ))
    }
}
