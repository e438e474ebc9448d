//! Files written under a temporary name and renamed into place once
//! complete, so that a file under its own name is always whole: a build
//! killed at any moment leaves finished files and temporary ones, and a
//! build resumed removes the temporary ones ([`remove_temporaries`]).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::Error;
use crate::direct::{self, PageWriter};

/// What the names of temporary files hold: `NAME.tmp-PID`.
const TEMPORARY: &str = ".tmp-";

/// Writes a file through `write` under a temporary name beside `path`, then
/// renames it into place: a reader never sees a half-written file.
///
/// # Errors
/// The I/O error; the temporary file is removed.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(File) -> io::Result<File>,
) -> io::Result<()> {
    let temporary = temporary_path(path);
    let result = File::create(&temporary)
        .and_then(write)
        .and_then(|file| file.sync_all())
        .and_then(|()| std::fs::rename(&temporary, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

/// The temporary name a file is written under before it is renamed:
/// unique to the process, and never taken for a finished file.
fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!("{TEMPORARY}{}", std::process::id()));
    path.with_file_name(name)
}

/// A file written in several steps under a temporary name, renamed into
/// place by [`AtomicFile::finish`]; dropped unfinished, it is removed.
#[derive(Debug)]
pub(crate) struct AtomicFile {
    path: PathBuf,
    temporary: PathBuf,
    file: Option<File>,
}

impl AtomicFile {
    /// Creates the temporary file of `path`, to be written past the page
    /// cache where the file system allows it ([`direct`]).
    pub(crate) fn create(path: &Path) -> Result<Self, Error> {
        let temporary = temporary_path(path);
        let file = direct::create(&temporary).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        Ok(Self {
            path: path.to_owned(),
            temporary,
            file: Some(file),
        })
    }

    /// A writer of the temporary file from its start, which leaves its
    /// first `head` bytes for [`PageWriter::finish`].
    pub(crate) fn writer(&self, head: usize) -> Result<PageWriter, Error> {
        self.file
            .as_ref()
            .expect("open until finished")
            .try_clone()
            .and_then(|file| PageWriter::new(file, head))
            .map_err(|source| self.error(source))
    }

    /// An I/O error on this file.
    pub(crate) fn error(&self, source: io::Error) -> Error {
        Error::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Flushes the file to disk and renames it into place.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        let file = self.file.take().expect("open until finished");
        file.sync_all()
            .and_then(|()| std::fs::rename(&self.temporary, &self.path))
            .map_err(|source| self.error(source))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// Removes the files of `folder` left under temporary names by a build
/// that was killed: nothing reads them, and the files they were for are
/// written again. Only the temporary files of names that `ours` accepts
/// go: a file of the user's that merely looks like one stays.
///
/// # Errors
/// [`Error::Io`] naming the folder or the file.
pub(crate) fn remove_temporaries(folder: &Path, ours: impl Fn(&str) -> bool) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: folder.to_owned(),
        source,
    };
    for entry in std::fs::read_dir(folder).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path.file_name().and_then(|name| name.to_str());
        if name.and_then(temporary_of).is_some_and(&ours) {
            crate::work::remove_if_present(&path)?;
        }
    }
    Ok(())
}

/// The name a temporary file is written for: `NAME` of `NAME.tmp-PID`.
pub(crate) fn temporary_of(name: &str) -> Option<&str> {
    let (base, process) = name.rsplit_once(TEMPORARY)?;
    (!process.is_empty() && process.bytes().all(|byte| byte.is_ascii_digit())).then_some(base)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A file is under its name whole or not at all: an atomic file
    /// appears when finished and leaves nothing when dropped unfinished, a
    /// failed write leaves nothing, and what a killed process left under
    /// a temporary name goes, finished files staying.
    #[test]
    fn files_appear_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let names = || {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let finished = dir.path().join("finished");
        let file = AtomicFile::create(&finished).unwrap();
        let mut writer = file.writer(0).unwrap();
        writer.write_all(b"whole").unwrap();
        writer.finish(&[]).unwrap();
        assert!(!finished.exists());
        file.finish().unwrap();
        assert_eq!(std::fs::read(&finished).unwrap(), b"whole");

        let dropped = AtomicFile::create(&dir.path().join("dropped")).unwrap();
        let mut writer = dropped.writer(0).unwrap();
        writer.write_all(b"half").unwrap();
        writer.finish(&[]).unwrap();
        drop(dropped);
        let failed = write_atomically(&dir.path().join("failed"), |mut file| {
            file.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "stopped");
        write_atomically(&dir.path().join("written"), |mut file| {
            file.write_all(b"whole")?;
            Ok(file)
        })
        .unwrap();
        assert_eq!(names(), ["finished", "written"]);

        std::fs::write(temporary_path(&dir.path().join("killed")), b"half").unwrap();
        for kept in ["other.tmp-12", "killed.tmp-", "killed.tmp-12.txt"] {
            std::fs::write(dir.path().join(kept), b"the user's").unwrap();
        }
        assert_eq!(names().len(), 6);
        remove_temporaries(dir.path(), |name| name == "killed").unwrap();
        assert_eq!(
            names(),
            [
                "finished",
                "killed.tmp-",
                "killed.tmp-12.txt",
                "other.tmp-12",
                "written"
            ]
        );
    }
}
