//! Files finished on a thread of their own.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::Error;

use super::write_words;

/// Files finished on a thread of their own while the build goes on, one
/// at a time and in order: a generated layer's working file is written
/// while the next layer is generated from the layer in memory; a solved
/// layer's file, written already under its temporary name, is flushed to
/// disk and renamed while the next layer is solved. Done in turn, they
/// took steps that more threads did not shorten: the kernel's copy into
/// the page cache (about 1 GB/s on the development machine) and the wait
/// for the disk before each rename (about 2 ms a file). Each job starts
/// only once the one before is done, so files come under their names in
/// order and a build killed meanwhile leaves finished files of the first
/// layers only, as before.
#[derive(Debug, Default)]
pub struct WriteBehind {
    writing: Option<JoinHandle<Result<(), Error>>>,
}

impl WriteBehind {
    /// Waits for the file being written, then writes `words(&data)` to
    /// `path` ([`write_words`]) on a thread of its own.
    ///
    /// # Errors
    /// The error of the file written before, naming it.
    pub fn write<T: Send + Sync + 'static>(
        &mut self,
        path: PathBuf,
        data: Arc<T>,
        words: fn(&T) -> &[u64],
    ) -> Result<(), Error> {
        self.start(move || write_words(&path, words(&data)))
    }

    /// Waits for the file being written, then runs `write` on a thread of
    /// its own.
    ///
    /// # Errors
    /// The error of the file written before, naming it.
    pub fn start(
        &mut self,
        write: impl FnOnce() -> Result<(), Error> + Send + 'static,
    ) -> Result<(), Error> {
        self.wait()?;
        self.writing = Some(std::thread::spawn(write));
        Ok(())
    }

    /// Waits for the file being written, if any.
    ///
    /// # Errors
    /// Its error, naming it.
    pub fn wait(&mut self) -> Result<(), Error> {
        match self.writing.take() {
            Some(writing) => writing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => Ok(()),
        }
    }
}

impl Drop for WriteBehind {
    /// A build that stops on an error still leaves the file being written
    /// whole or not at all.
    fn drop(&mut self) {
        if let Some(writing) = self.writing.take() {
            let _ = writing.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::build::work::{Generated, WordReader, boards_path};

    /// Files written behind appear whole and in order: each write waits for
    /// the one before, a failed write is told when next waited for, and
    /// dropping the writer waits for the last file. A layer held meanwhile
    /// reads the same boards from memory and, once let go, from its file.
    #[test]
    fn files_written_behind_appear_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let layers: Vec<Arc<Vec<u64>>> = (0..3u64)
            .map(|k| Arc::new((0..300_000).map(|i| (k << 40) + 3 * i).collect()))
            .collect();
        let mut writing = WriteBehind::default();
        for (index, boards) in layers.iter().enumerate() {
            writing
                .write(
                    boards_path(dir.path(), index),
                    boards.clone(),
                    Vec::as_slice,
                )
                .unwrap();
            if index > 0 {
                let before = WordReader::open(&boards_path(dir.path(), index - 1)).unwrap();
                assert_eq!(before.read_all().unwrap(), *layers[index - 1]);
            }
        }
        let mut held = Generated::Held(layers[2].clone());
        assert!(matches!(held.piece(5, 10).unwrap(), Cow::Borrowed(_)));
        writing.wait().unwrap();
        held.release(dir.path(), 2).unwrap();
        assert!(matches!(held, Generated::Listed(_)));
        assert_eq!(held.read(1000, 2000).unwrap(), layers[2][1000..3000]);
        assert_eq!(held.read_all().unwrap(), *layers[2]);

        let nowhere = dir.path().join("missing/boards-0003");
        writing
            .write(nowhere, layers[0].clone(), Vec::as_slice)
            .unwrap();
        let error = writing.wait().unwrap_err().to_string();
        assert!(error.contains("missing"), "{error}");
        writing.wait().unwrap();

        let last = boards_path(dir.path(), 4);
        writing
            .write(last.clone(), layers[1].clone(), Vec::as_slice)
            .unwrap();
        drop(writing);
        assert_eq!(
            WordReader::open(&last).unwrap().read_all().unwrap(),
            *layers[1]
        );
    }
}
