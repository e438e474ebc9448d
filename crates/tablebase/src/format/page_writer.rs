//! Files written in whole pages past the page cache (`O_DIRECT`), where
//! the file system allows it.
//!
//! A build writes each layer file and working file once, front to back,
//! and reads few of them back soon. Written through the page cache, each
//! byte is first copied into it by the kernel, on the writing process's
//! CPU time: `tb-build build L3 256 -p 1` spent about 1.2 s of its 21 s
//! there, as `dd` spends writing 400 MB, where past the cache the disk
//! takes the bytes from the process's own memory and `dd` spends 0.04 s
//! (docs/tablebase-builder.md). Direct
//! transfers must start at aligned offsets and addresses and span whole
//! pages, so [`PageWriter`] gathers bytes in an aligned buffer, writes the
//! padded last page and cuts the file to its length at the end.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use system::AtomicFile;

use crate::Error;

/// The unit of a direct transfer: its offset, length and memory address
/// are multiples of it (disks' logical blocks are 512 or 4,096 bytes).
const PAGE: usize = 4096;

/// Bytes gathered before they are written: 1 MiB, as the buffered writers
/// before.
const CHUNK: usize = 256 * PAGE;

/// Creates `path` (or empties it) for writing, past the page cache where
/// the file system allows it; else an ordinary file, which [`PageWriter`]
/// writes the same way.
///
/// # Errors
/// The error of opening the file.
pub(crate) fn create(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // File systems without direct transfers (tmpfs before Linux 6.6)
        // refuse the flag when the file is opened.
        match options.clone().custom_flags(libc::O_DIRECT).open(path) {
            Err(error) if error.raw_os_error() == Some(libc::EINVAL) => {}
            opened => return opened,
        }
    }
    options.open(path)
}

/// Starts writing `path` under a temporary name, renamed into place by
/// [`AtomicFile::commit`], past the page cache where the file system
/// allows it ([`create`]).
///
/// # Errors
/// [`Error::Io`] naming the file.
pub(crate) fn create_atomic(path: &Path) -> Result<AtomicFile, Error> {
    Ok(AtomicFile::create_with(path, create)?)
}

/// A writer of `file` from its start, which leaves its first `head` bytes
/// for [`PageWriter::finish`].
///
/// # Errors
/// [`Error::Io`] naming the file.
pub(crate) fn page_writer(file: &AtomicFile, head: usize) -> Result<PageWriter, Error> {
    file.file()
        .try_clone()
        .and_then(|clone| PageWriter::new(clone, head))
        .map_err(|source| file.error(source).into())
}

/// A file written front to back in whole pages from an aligned buffer.
/// Its first bytes, a head that describes the rest (a layer file's block
/// index), are filled in by [`PageWriter::finish`]: they are kept back
/// until then instead of written and written again.
pub(crate) struct PageWriter {
    file: File,
    /// [`CHUNK`] bytes from `start` on, aligned to [`PAGE`]: a vector with
    /// room to align in, so that no unsafe allocation is needed.
    buffer: Vec<u8>,
    start: usize,
    /// The bytes gathered in the buffer.
    filled: usize,
    /// The offset in the file of the buffer's first byte: whole pages.
    offset: u64,
    /// The head's length, and the pages that hold it, kept back.
    head: usize,
    kept: Vec<u8>,
}

/// The file and where the writing is, not the buffer's megabyte.
impl std::fmt::Debug for PageWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageWriter")
            .field("file", &self.file)
            .field("written", &(self.offset + self.filled as u64))
            .field("head", &self.head)
            .finish_non_exhaustive()
    }
}

impl PageWriter {
    /// Writes `file` from its start, leaving its first `head` bytes for
    /// [`PageWriter::finish`].
    ///
    /// # Errors
    /// The error of writing the file.
    pub(crate) fn new(file: File, head: usize) -> io::Result<Self> {
        let buffer = vec![0; CHUNK + PAGE];
        let start = buffer.as_ptr().align_offset(PAGE);
        let mut writer = Self {
            file,
            buffer,
            start,
            filled: 0,
            offset: 0,
            head,
            kept: Vec::new(),
        };
        let zeros = [0; PAGE];
        for count in (0..head).step_by(PAGE) {
            writer.write_all(&zeros[..PAGE.min(head - count)])?;
        }
        Ok(writer)
    }

    /// Appends `bytes`.
    ///
    /// # Errors
    /// The error of writing the file.
    pub(crate) fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let taken = bytes.len().min(CHUNK - self.filled);
            let at = self.start + self.filled;
            self.buffer[at..at + taken].copy_from_slice(&bytes[..taken]);
            self.filled += taken;
            bytes = &bytes[taken..];
            if self.filled == CHUNK {
                self.write_pages()?;
            }
        }
        Ok(())
    }

    /// Writes what the buffer holds, its last page padded with zeros,
    /// past the head, whose pages it keeps back, and empties it.
    fn write_pages(&mut self) -> io::Result<()> {
        let padded = self.filled.next_multiple_of(PAGE);
        let pages = &mut self.buffer[self.start..self.start + padded];
        pages[self.filled..].fill(0);
        let head_pages = self.head.next_multiple_of(PAGE) as u64;
        let kept = (head_pages.saturating_sub(self.offset) as usize).min(padded);
        self.kept.extend_from_slice(&pages[..kept]);
        if kept < padded {
            self.file
                .write_all_at(&pages[kept..], self.offset + kept as u64)?;
        }
        self.offset += padded as u64;
        self.filled = 0;
        Ok(())
    }

    /// Writes the rest, then `head` over the first bytes, and cuts the
    /// padding off the last page. Returns the file's length.
    ///
    /// # Errors
    /// The error of writing the file.
    ///
    /// # Panics
    /// If `head` is not as long as [`PageWriter::new`] was told.
    pub(crate) fn finish(mut self, head: &[u8]) -> io::Result<u64> {
        assert_eq!(head.len(), self.head, "the head left at the start");
        let length = self.offset + self.filled as u64;
        self.write_pages()?;
        self.kept[..head.len()].copy_from_slice(head);
        // The kept pages, written from the aligned buffer.
        let pages = &mut self.buffer[self.start..self.start + CHUNK];
        for (offset, piece) in (0..).step_by(CHUNK).zip(self.kept.chunks(CHUNK)) {
            pages[..piece.len()].copy_from_slice(piece);
            self.file.write_all_at(&pages[..piece.len()], offset)?;
        }
        self.file.set_len(length)?;
        Ok(length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files of any length, written in pieces of any size around a head
    /// of any length, hold exactly the bytes written, past the cache or
    /// through it.
    #[test]
    fn files_hold_the_bytes_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let pieces = [
            1,
            7,
            PAGE - 1,
            PAGE,
            PAGE + 3,
            CHUNK - 5,
            CHUNK,
            2 * CHUNK + 11,
        ];
        let through_cache = |path: &Path| File::create(path);
        for open in [create as fn(&Path) -> io::Result<File>, through_cache] {
            for head in [0, 1, 20, PAGE, PAGE + 1, CHUNK + 7] {
                for piece in pieces {
                    let body: Vec<u8> = (0..3 * piece + 3)
                        .map(|byte| (byte * 7 + head) as u8)
                        .collect();
                    let mut writer = PageWriter::new(open(&path).unwrap(), head).unwrap();
                    for part in body.chunks(piece) {
                        writer.write_all(part).unwrap();
                    }
                    let head_bytes: Vec<u8> =
                        (0..head).map(|byte| (byte % 251) as u8 + 1).collect();
                    let length = writer.finish(&head_bytes).unwrap();
                    let written = std::fs::read(&path).unwrap();
                    assert_eq!(length as usize, head + body.len());
                    assert_eq!(written.len(), head + body.len());
                    assert!(written[..head] == head_bytes[..], "head {head}");
                    assert!(written[head..] == body[..], "head {head}, pieces {piece}");
                }
            }
        }
    }

    /// An empty file, without a head, is empty; a writer is shown briefly.
    #[test]
    fn nothing_written_is_an_empty_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty");
        let writer = PageWriter::new(create(&path).unwrap(), 0).unwrap();
        // Shown without its buffer.
        assert!(format!("{writer:?}").len() < 200, "{writer:?}");
        assert_eq!(writer.finish(&[]).unwrap(), 0);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    }
}
