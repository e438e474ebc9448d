//! What a build finds in its table's folder: a table, finished or not, to
//! go on with, or a folder that is not one and that a new table must not
//! be built among (a user's files would be cleaned up as leftovers).

use std::fs;
use std::io;
use std::path::Path;

use system::temporary_of;

use crate::Error;
use crate::build::work::LOCK;
use crate::format::manifest::{MANIFEST, MANIFEST_VERSION, Manifest};

use super::{WORK, io_error};

/// Whether `name` is one of a finished table's files: its manifest or a
/// layer file.
pub(super) fn is_table_file(name: &str) -> bool {
    let layer = name
        .strip_prefix("layer-")
        .and_then(|name| name.strip_suffix(".tbl"));
    name == MANIFEST || layer.is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Refuses to start a table in a folder that holds anything but what a
/// build killed before it wrote its manifest leaves (`work/` with its
/// lock and temporary files, the manifest's temporary file; a build
/// running there then stops at the lock): a new table is built in a new or
/// empty folder, so that no file of the user's is cleaned up as a
/// build's leftover or goes with `work/` at the end.
pub(super) fn check_unused(dir: &Path) -> Result<(), Error> {
    let mut others = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let leftover = if name == WORK && entry.path().is_dir() {
            let mut inside = fs::read_dir(entry.path()).map_err(io_error(&entry.path()))?;
            inside.all(|file| {
                file.is_ok_and(|file| {
                    let name = file.file_name();
                    name == LOCK || name.to_str().and_then(temporary_of).is_some()
                })
            })
        } else {
            temporary_of(&name) == Some(MANIFEST)
        };
        if !leftover {
            others.push(name);
        }
    }
    others.sort();
    match others.as_slice() {
        [] => Ok(()),
        [first, rest @ ..] => Err(Error::File {
            path: dir.to_owned(),
            problem: format!(
                "holds no table but other files ({first}{}): build a new table in a new or \
                 empty folder",
                match rest.len() {
                    0 => String::new(),
                    more => format!(" and {more} more"),
                }
            ),
        }),
    }
}
/// What a build finds in its folder.
#[derive(Debug, PartialEq)]
pub(super) enum Begun {
    /// The table, finished.
    Complete,
    /// The table, unfinished or new (its manifest then written).
    Building,
}

/// Checks `dir`'s manifest against `manifest`, the table to build, and
/// writes it if there is none.
///
/// # Errors
/// [`Error::File`] if `dir` holds another table (or the same one stored
/// otherwise, or built by an earlier 2048lab); [`Error::Io`] if the
/// manifest cannot be read or written.
pub(super) fn begin(dir: &Path, manifest: &Manifest) -> Result<Begun, Error> {
    match Manifest::read(dir) {
        Ok(existing) if existing.version != MANIFEST_VERSION => Err(Error::File {
            path: Manifest::path(dir),
            problem: format!(
                "holds a table of manifest version {}, built by an earlier 2048lab whose \
                 rates differ: build in another folder or remove it",
                existing.version
            ),
        }),
        Ok(existing) => {
            let same = Manifest {
                complete: existing.complete,
                checksum: existing.checksum,
                ..manifest.clone()
            } == existing;
            if !same {
                return Err(Error::File {
                    path: Manifest::path(dir),
                    problem: format!(
                        "holds another table ({}-{}, 4-rate {}, {} rates, pruned at {}, level {}): \
                         build in another folder or remove it",
                        existing.formation.name,
                        existing.target,
                        existing.four_rate,
                        existing.options.precision,
                        existing.options.prune,
                        existing.options.level
                    ),
                });
            }
            Ok(if existing.complete {
                Begun::Complete
            } else {
                Begun::Building
            })
        }
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            manifest.write(dir)?;
            Ok(Begun::Building)
        }
        Err(error) => Err(error),
    }
}
