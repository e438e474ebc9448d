//! The temporary names files are written under (`NAME.tmp-PID`), and the
//! removal of those that killed runs left behind.

use std::io;
use std::path::{Path, PathBuf};

use crate::FileError;

/// What the names of temporary files add to the name: `NAME.tmp-PID`.
const TEMPORARY: &str = ".tmp-";

/// The temporary name `path` is written under before it is renamed:
/// unique to the process, and never taken for a finished file.
pub(crate) fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!("{TEMPORARY}{}", std::process::id()));
    path.with_file_name(name)
}

/// The name a temporary file is written for: `NAME` of `NAME.tmp-PID`;
/// `None` for any other name.
pub fn temporary_of(name: &str) -> Option<&str> {
    let (base, process) = name.rsplit_once(TEMPORARY)?;
    (!process.is_empty() && process.bytes().all(|byte| byte.is_ascii_digit())).then_some(base)
}

/// Removes the temporary files of `path` (`NAME.tmp-PID` beside it) that
/// a process killed while writing it left: those of processes no longer
/// running, so that a run writing the same file at once keeps its own.
/// Writing a file through [`AtomicFile`](crate::AtomicFile) does this
/// first; a run that resumes does it for its outputs at its start. Where
/// running processes cannot be told (outside Linux), nothing is removed.
pub fn remove_stale_temporaries(path: &Path) {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let prefix = format!("{}{TEMPORARY}", name.to_string_lossy());
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(process) = file_name
            .to_str()
            .and_then(|file_name| file_name.strip_prefix(&prefix))
            .and_then(|process| process.parse::<u32>().ok())
        else {
            continue;
        };
        if process != std::process::id() && !is_running(process) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `id` is running (on Linux, where `/proc` tells).
fn is_running(id: u32) -> bool {
    !cfg!(target_os = "linux") || Path::new(&format!("/proc/{id}")).exists()
}

/// Removes every file of `folder` under a temporary name whose finished
/// name `ours` accepts, whatever process wrote it: for a program that
/// holds the folder alone (a table build, under its lock), whose killed
/// runs' files nothing reads. A file of the user's that merely looks like
/// one stays.
///
/// # Errors
/// A [`FileError`] naming the folder or the file.
pub fn remove_temporaries(folder: &Path, ours: impl Fn(&str) -> bool) -> Result<(), FileError> {
    let error = |path: &Path| {
        let path = path.to_owned();
        move |source| FileError { path, source }
    };
    for entry in std::fs::read_dir(folder).map_err(error(folder))? {
        let path = entry.map_err(error(folder))?.path();
        let name = path.file_name().and_then(|name| name.to_str());
        if name.and_then(temporary_of).is_some_and(&ours) {
            match std::fs::remove_file(&path) {
                Err(source) if source.kind() != io::ErrorKind::NotFound => {
                    return Err(error(&path)(source));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::names;

    #[test]
    fn temporary_names_are_told_from_others() {
        assert_eq!(
            temporary_of("layer-0001.tbl.tmp-123"),
            Some("layer-0001.tbl")
        );
        for other in ["killed.tmp-", "killed.tmp-12.txt", "notes.txt"] {
            assert_eq!(temporary_of(other), None, "{other}");
        }
    }

    /// What a killed process left under a temporary name goes, finished
    /// files and the user's look-alikes staying.
    #[test]
    fn a_folders_own_temporaries_go() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(temporary_path(&dir.path().join("killed")), b"half").unwrap();
        for kept in ["other.tmp-12", "killed.tmp-", "killed.tmp-12.txt", "killed"] {
            std::fs::write(dir.path().join(kept), b"the user's").unwrap();
        }
        remove_temporaries(dir.path(), |name| name == "killed").unwrap();
        assert_eq!(
            names(dir.path()),
            ["killed", "killed.tmp-", "killed.tmp-12.txt", "other.tmp-12"]
        );
    }

    /// A dead process's temporary of a file goes; this process's own, and
    /// those of other names, stay.
    #[cfg(target_os = "linux")]
    #[test]
    fn stale_temporaries_of_a_file_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("net.nw");
        // Process numbers stop far below this one.
        std::fs::write(dir.path().join("net.nw.tmp-4294967295"), b"dead").unwrap();
        std::fs::write(temporary_path(&path), b"ours").unwrap();
        std::fs::write(dir.path().join("log.x.tmp-4294967295"), b"another").unwrap();
        remove_stale_temporaries(&path);
        assert_eq!(
            names(dir.path()),
            [
                "log.x.tmp-4294967295".to_owned(),
                format!("net.nw.tmp-{}", std::process::id())
            ]
        );
    }
}
