//! Files written whole or not at all: under a temporary name beside their
//! own, synced, then renamed into place, so that a file under its name is
//! never half-written (a weight file, a checkpoint, a record of games),
//! whatever kills the program meanwhile.
//!
//! A name that is not a regular file is written in place instead: a
//! device such as `/dev/null`, or a pipe, is where a user sends what they
//! do not keep, and a rename over it would replace it with a plain file
//! (for root, `/dev/null` itself) or fail for want of rights in its
//! folder. A symbolic link is followed: the file it points to is replaced,
//! and the link stays.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::FileError;
use crate::temporary::{remove_stale_temporaries, temporary_path};

/// A file being written to its name: bytes go to a temporary file beside
/// it until [`AtomicFile::commit`] renames that into place. Dropped
/// without a commit, it removes the temporary file and leaves the name as
/// it was.
///
/// ```
/// use std::io::Write;
/// use system::AtomicFile;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("games.txt");
/// let mut file = AtomicFile::create(&path)?;
/// writeln!(file, "one game")?;
/// assert!(!path.exists(), "nothing under the name before the commit");
/// file.commit()?;
/// assert_eq!(std::fs::read_to_string(&path)?, "one game\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    file: File,
    target: Target,
}

impl AtomicFile {
    /// Starts writing the file `path` names (see the module's notes for
    /// devices, pipes and links).
    ///
    /// # Errors
    /// A [`FileError`] naming `path` if the file cannot be created.
    pub fn create(path: &Path) -> Result<Self, FileError> {
        Self::create_with(path, |path| File::create(path))
    }

    /// [`AtomicFile::create`], the file opened by `open` (given the name it
    /// is written under): a file to be written past the page cache, say,
    /// whose bytes then go through a writer of its own on [`AtomicFile::file`].
    ///
    /// # Errors
    /// A [`FileError`] naming `path` if `open` fails.
    pub fn create_with(
        path: &Path,
        open: impl FnOnce(&Path) -> io::Result<File>,
    ) -> Result<Self, FileError> {
        let target = Target::of(path);
        match open(target.writing()) {
            Ok(file) => Ok(Self { file, target }),
            Err(source) => Err(target.error(source)),
        }
    }

    /// The file being written, for a writer that takes a handle of its own
    /// (`try_clone`); its bytes count once [`AtomicFile::commit`] syncs it.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// An I/O error on this file, naming it as the caller did.
    pub fn error(&self, source: io::Error) -> FileError {
        self.target.error(source)
    }

    /// Syncs the file and renames it to its name.
    ///
    /// # Errors
    /// A [`FileError`] naming the file; the temporary file is removed.
    pub fn commit(mut self) -> Result<(), FileError> {
        let result = self.target.commit(&mut self.file);
        // Renamed, or to be removed on drop.
        if result.is_ok() {
            self.target.temporary = None;
        }
        result.map_err(|source| self.target.error(source))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file.write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(temporary) = &self.target.temporary {
            let _ = std::fs::remove_file(temporary);
        }
    }
}

/// Writes a file through `write` under a temporary name in the same folder,
/// syncs it, and renames it to `path`, as an [`AtomicFile`] written at once
/// (devices, pipes and links as the module's notes say); the temporary
/// file is removed if anything fails.
///
/// # Errors
/// A [`FileError`] naming `path`.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(File) -> io::Result<File>,
) -> Result<(), FileError> {
    let target = Target::of(path);
    let result = File::create(target.writing())
        .and_then(write)
        .and_then(|mut file| target.commit(&mut file));
    if let (Err(_), Some(temporary)) = (&result, &target.temporary) {
        let _ = std::fs::remove_file(temporary);
    }
    result.map_err(|source| target.error(source))
}

/// Whether `path` names something that is neither a regular file nor a
/// folder (links followed): a device such as `/dev/null`, a pipe or a
/// socket. Files are written into such a name in place, and nothing is
/// kept beside it (a checkpoint beside `/dev/null` would be a file in
/// `/dev`).
pub fn is_special_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|metadata| !metadata.is_file() && !metadata.is_dir())
}

/// Where the bytes of a file named by a user go, and how they reach its
/// name.
#[derive(Debug)]
struct Target {
    /// The name the user gave, for messages.
    named: PathBuf,
    /// The file replaced: `named`, or the file a link there points to.
    path: PathBuf,
    /// The temporary file the bytes go to first; `None` for a device or a
    /// pipe, written in place, and once renamed.
    temporary: Option<PathBuf>,
}

impl Target {
    fn of(named: &Path) -> Self {
        let path = match std::fs::metadata(named) {
            // A device or a pipe, written in place; or a folder, which then
            // cannot be opened (a link to one stays).
            Ok(metadata) if !metadata.is_file() => {
                return Self {
                    named: named.to_owned(),
                    path: named.to_owned(),
                    temporary: None,
                };
            }
            // A file, through any links to it.
            Ok(_) => std::fs::canonicalize(named).unwrap_or_else(|_| named.to_owned()),
            Err(_) => named.to_owned(),
        };
        remove_stale_temporaries(&path);
        Self {
            named: named.to_owned(),
            temporary: Some(temporary_path(&path)),
            path,
        }
    }

    /// The file the bytes are written to.
    fn writing(&self) -> &Path {
        self.temporary.as_deref().unwrap_or(&self.path)
    }

    /// Puts the written `file` in place: synced and renamed, or, written
    /// in place, flushed (a device or a pipe has nothing to sync).
    fn commit(&self, file: &mut File) -> io::Result<()> {
        match &self.temporary {
            Some(temporary) => file
                .sync_all()
                .and_then(|()| std::fs::rename(temporary, &self.path)),
            None => file.flush(),
        }
    }

    fn error(&self, source: io::Error) -> FileError {
        FileError {
            path: self.named.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::names;

    fn written(path: &Path, text: &str) -> Result<(), FileError> {
        write_atomically(path, |mut file| {
            file.write_all(text.as_bytes())?;
            Ok(file)
        })
    }

    #[test]
    fn a_file_is_replaced_whole_or_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("net.nw");
        written(&path, "first").unwrap();
        let failed = write_atomically(&path, |mut file| {
            file.write_all(b"half")?;
            Err(io::Error::other("killed"))
        });
        assert!(matches!(failed, Err(FileError { path: p, .. }) if p == path));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        written(&path, "second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");

        let mut dropped = AtomicFile::create(&path).unwrap();
        dropped.write_all(b"never committed").unwrap();
        drop(dropped);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        assert_eq!(names(dir.path()), ["net.nw"], "no temporary file left");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_stays_and_its_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("kept.nw");
        let link = dir.path().join("latest.nw");
        std::fs::write(&file, "old").unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        written(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(names(dir.path()), ["kept.nw", "latest.nw"]);
    }

    /// A pipe stands for any file that is not a regular one: writing to it
    /// must not rename a file over it (for `/dev/null`, as root, that
    /// would replace the device).
    #[cfg(unix)]
    #[test]
    fn a_pipe_is_written_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let (pipe, reader) = testkit::named_pipe(dir.path(), "pipe");
        assert!(is_special_file(&pipe));
        let mut file = AtomicFile::create(&pipe).unwrap();
        file.write_all(b"through the pipe").unwrap();
        file.commit().unwrap();
        assert!(testkit::is_named_pipe(&pipe), "still a pipe");
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert_eq!(names(dir.path()), ["pipe"]);
    }

    /// A folder is not written over, nor a link to one replaced.
    #[cfg(unix)]
    #[test]
    fn a_folder_or_a_link_to_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("folder");
        let link = dir.path().join("link");
        std::fs::create_dir(&folder).unwrap();
        std::os::unix::fs::symlink(&folder, &link).unwrap();
        for path in [&folder, &link] {
            let error = written(path, "weights").unwrap_err();
            assert!(
                matches!(&error, FileError { path: p, .. } if p == path),
                "{error}"
            );
        }
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(names(dir.path()), ["folder", "link"]);
        assert!(names(&folder).is_empty());
    }

    #[test]
    fn files_and_folders_are_not_special() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("net.nw");
        assert!(!is_special_file(&path), "missing");
        written(&path, "weights").unwrap();
        assert!(!is_special_file(&path));
        assert!(!is_special_file(dir.path()));
    }
}
