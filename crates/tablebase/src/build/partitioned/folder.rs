//! A partitioned table's folder as a task sees it: where each working
//! file lies, and the tasks that only clean up.

use std::fs;
use std::path::{Path, PathBuf};

use crate::build::io_error;
use crate::build::work::WordReader;
use crate::format::manifest::Manifest;
use crate::format::partition::{LayerParts, Partitions, part_path, parts_dir};
use crate::{Error, Mover, Spec};

use super::missing;

/// A partitioned table's folder, with what its manifest says.
pub(super) struct Folder<'a> {
    pub(super) dir: &'a Path,
    pub(super) work: PathBuf,
    pub(super) spec: &'a Spec,
    pub(super) mover: Mover,
    pub(super) parts: Partitions,
    pub(super) manifest: &'a Manifest,
}

impl Folder<'_> {
    /// How layer `layer` is split into parts.
    ///
    /// # Errors
    /// As [`LayerParts::new`].
    pub(super) fn layer_parts(&self, layer: usize) -> Result<LayerParts, Error> {
        let ranked = self.manifest.options.ranked_parts;
        LayerParts::new(self.spec, layer, self.parts, ranked)
    }

    /// A working file of `part` of `layer`: `work/KIND-LAYER/PREFIX-PART`.
    fn work_path(&self, kind: &str, layer: usize, prefix: &str, part: usize) -> PathBuf {
        self.work
            .join(format!("{kind}-{layer:04}"))
            .join(format!("{prefix}-{part:04}"))
    }

    /// The generated boards of part `part` of layer `layer`.
    pub(super) fn boards_path(&self, layer: usize, part: usize) -> PathBuf {
        self.work_path("boards", layer, "part", part)
    }

    /// The children that the expansion of part `from` sends to the parts
    /// of layer `layer`: a bucket for each part, sorted.
    pub(super) fn sent_path(&self, layer: usize, from: usize) -> PathBuf {
        self.work_path("sent", layer, "from", from)
    }

    /// The working rates of part `part` of solved layer `layer`.
    pub(super) fn rates_path(&self, layer: usize, part: usize) -> PathBuf {
        self.work_path("rates", layer, "part", part)
    }

    /// The children that part `from` of layer `layer` looks up, asked of
    /// the parts that hold them: a bucket for each part of the next layer
    /// (children after a 2), then one for each part of the layer after
    /// (after a 4), sorted.
    pub(super) fn asks_path(&self, layer: usize, from: usize) -> PathBuf {
        self.work_path("asks", layer, "from", from)
    }

    /// The rates that part `from` of the two layers after `layer` answers
    /// to the parts of `layer`: for each part of `layer`, the rates of what
    /// it asked of the next layer, then of the layer after, in the asks'
    /// order (0 for a board the part does not hold).
    pub(super) fn answers_path(&self, layer: usize, from: usize) -> PathBuf {
        self.work_path("answers", layer, "from", from)
    }

    /// Whether part `part` of layer `layer` is generated: its boards
    /// are there, or it is solved already (its boards then let go).
    pub(super) fn merged(&self, layer: usize, part: usize) -> bool {
        self.boards_path(layer, part).exists() || self.solved(layer, part)
    }

    /// Whether every part of layer `layer` is generated.
    pub(super) fn generated(&self, layer: usize) -> bool {
        (0..self.parts.count()).all(|part| self.merged(layer, part))
    }

    /// Whether part `part` of layer `layer` is solved: its layer file,
    /// written last, is there.
    pub(super) fn solved(&self, layer: usize, part: usize) -> bool {
        part_path(self.dir, layer, part).exists()
    }

    /// Whether every part of layer `layer` is solved.
    pub(super) fn layer_solved(&self, layer: usize) -> bool {
        (0..self.parts.count()).all(|part| self.solved(layer, part))
    }

    /// The generated boards of part `part` of layer `layer`, which a task
    /// of an earlier stage wrote.
    pub(super) fn read_boards(&self, layer: usize, part: usize) -> Result<Vec<u64>, Error> {
        let path = self.boards_path(layer, part);
        if !path.exists() {
            return Err(missing(&path));
        }
        WordReader::open(&path)?.read_all()
    }

    /// Removes the working files that nothing after solving `layer` reads:
    /// its generated boards, asks and answers, and the working rates of
    /// `layer + 2`.
    pub(super) fn release(&self, layer: usize) -> Result<(), Error> {
        let folder = |kind: &str, layer: usize| self.work.join(format!("{kind}-{layer:04}"));
        for folder in [
            folder("boards", layer),
            folder("sent", layer),
            folder("asks", layer),
            folder("answers", layer),
            folder("rates", layer + 2),
        ] {
            remove_folder(&folder)?;
        }
        Ok(())
    }

    /// Checks every part of every layer is solved, removes the working
    /// folder and marks the table complete.
    pub(super) fn finish(&self) -> Result<(), Error> {
        if self.manifest.complete {
            return Ok(());
        }
        for layer in 0..self.spec.steps() {
            for part in 0..self.parts.count() {
                let path = part_path(self.dir, layer, part);
                if !path.exists() {
                    return Err(missing(&path));
                }
            }
            system::remove_temporaries(&parts_dir(self.dir, layer), |_| true)?;
        }
        remove_folder(&self.work)?;
        Manifest {
            complete: true,
            ..self.manifest.clone()
        }
        .write(self.dir)
    }
}

/// Removes `folder` and what it holds, if it is there.
pub(super) fn remove_folder(folder: &Path) -> Result<(), Error> {
    match fs::remove_dir_all(folder) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(io_error(folder)(error)),
        _ => Ok(()),
    }
}
