//! What 2048lab needs from the operating system, in one place below the
//! crates that use it: files written whole or not at all ([`AtomicFile`],
//! [`write_atomically`]) and the temporary files of killed runs removed
//! ([`remove_stale_temporaries`], [`remove_temporaries`]); the memory the
//! machine can give and the memory a process has taken
//! ([`available_memory`], [`peak_resident_memory`]) with byte counts as
//! people write them ([`format_bytes`], [`parse_bytes`]); hints to the CPU
//! to fetch memory soon read ([`prefetch`]); and its instructions that
//! gather and scatter bits ([`bits`]).
//!
//! ```
//! use std::io::Write;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("notes.txt");
//! let mut file = system::AtomicFile::create(&path)?;
//! writeln!(file, "written whole")?;
//! file.commit()?;
//! assert_eq!(std::fs::read_to_string(&path)?, "written whole\n");
//! assert_eq!(system::format_bytes(256 << 20), "256 MiB");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod atomic;
pub mod bits;
mod error;
mod memory;
mod prefetch;
mod temporary;

pub use atomic::{AtomicFile, is_special_file, write_atomically};
pub use error::FileError;
pub use memory::{available_memory, format_bytes, parse_bytes, peak_resident_memory};
pub use prefetch::{Cache, prefetch};
pub use temporary::{remove_stale_temporaries, remove_temporaries, temporary_of};

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The names in `dir`, sorted.
    pub(crate) fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}
