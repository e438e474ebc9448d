//! Generating one layer into its working file within the budget: its
//! parents read in segments, their children marked by rank or sorted into
//! runs.

use std::path::Path;
use std::sync::Arc;

use crate::base::layer::rank::Marks;
use crate::build::generate;
use crate::build::generate::Reached;
use crate::build::segment::LEAST_SEGMENT;
use crate::build::work::{Generated, Runs, WriteBehind, boards_path, marks_path, write_words};
use crate::{Error, Mover, Spec};

/// Bytes of generated children per parent allowed for: up to 16 empty
/// cells with 4 moves each, fewer after the pre-deduplication, and the
/// copy that gathers them for sorting.
const CHILD_BYTES_PER_PARENT: u64 = 2 * 8 * 48;

/// What generation does with each piece of a parent layer: its boards,
/// the parent layer and the exponent of the tile spawned.
type Visit<'a> = dyn FnMut(&[u64], usize, u8) -> Result<(), Error> + 'a;

/// What generating carries from one layer to the next.
#[derive(Default)]
pub(crate) struct Generation {
    /// The last two layers generated, the next one's parents, as the build
    /// has them open (the last first).
    recent: [Option<Generated>; 2],
    /// The last layer's file, written behind.
    writing: WriteBehind,
    /// The next layer's marks, begun with the last layer's.
    ahead: Option<Ahead>,
}

/// A layer's marks, begun while the layer before it was generated: the
/// children after a 4 of the layer two before it, marked as that layer
/// was listed for its children after a 2 ([`generate::mark`]).
struct Ahead {
    /// The layer marked.
    layer: usize,
    marks: Reached,
}

impl Generation {
    /// Takes `layer`, just generated or opened, as the next one's parent.
    pub(crate) fn push(&mut self, layer: Generated) {
        self.recent = [Some(layer), self.recent[0].take()];
    }

    /// The positions of the layer pushed last, if the build holds it.
    pub(crate) fn last_len(&self) -> Option<usize> {
        self.recent[0].as_ref().map(Generated::len)
    }

    /// Waits for the last file written behind.
    ///
    /// # Errors
    /// [`Error::Io`] if it could not be written.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        self.writing.wait()
    }

    /// Generates layer `index` into its working file from its parent
    /// layers, within `memory` if given: the parents (the two layers
    /// before it, held open from the layers pushed; those it lacks are
    /// opened there) are read in segments. The children of each are marked
    /// by rank when the layer allows it ([`generate::Reached`], its bitmaps
    /// within a quarter of the budget), or else sorted into a run; the runs
    /// are held within a quarter of the budget, merged in memory when they
    /// outgrow it, and go to disk only if their union still takes over half
    /// of that (`Runs::push`). Marked, the layer before is listed once for
    /// this layer and the next, whose marks the next call takes up (the
    /// bitmaps of the two within the same quarter). The file is written
    /// behind with the layer held in memory meanwhile, where the layer
    /// takes no more than a segment of parents (which the next layer would
    /// read whole); else written in turn. Returns the layer, open.
    pub(crate) fn layer(
        &mut self,
        spec: &Spec,
        mover: &Mover,
        index: usize,
        memory: Option<u64>,
        work: &Path,
    ) -> Result<Generated, Error> {
        let job = Job {
            spec,
            mover,
            index,
            parents: self.open_parents(spec, work, index)?,
            shares: Shares::of(memory),
            work,
        };
        match self.mark(&job)? {
            Some(marked) => Ok(marked),
            None => self.sort(&job),
        }
    }

    /// The parent layers of layer `index` that expand, each with the
    /// exponent of the tile spawned (the layer before, its children after
    /// a 2, and the one before it, after a 4), opened where the build
    /// does not hold them.
    fn open_parents(
        &mut self,
        spec: &Spec,
        work: &Path,
        index: usize,
    ) -> Result<Vec<(usize, u8)>, Error> {
        let parents: Vec<(usize, u8)> = [(index - 1, 1)]
            .into_iter()
            .chain((index >= 2).then(|| (index - 2, 2)))
            .filter(|&(layer, _)| spec.expands(layer))
            .collect();
        for &(layer, _) in &parents {
            let slot = &mut self.recent[index - 1 - layer];
            if slot.is_none() {
                *slot = Some(Generated::open(spec, work, layer)?);
            }
        }
        Ok(parents)
    }

    /// The positions of parent `layer` of layer `index`, opened.
    fn parent_len(&self, index: usize, layer: usize) -> usize {
        self.recent[index - 1 - layer]
            .as_ref()
            .expect("parents opened")
            .len()
    }

    /// Visits each of the `parents` of layer `index` a segment at a time.
    /// The layer before, if held in memory while its file was written, is
    /// let go once used, so that no more than a piece of each parent is
    /// held at a time, as when every layer is read from its file; the next
    /// layer reads it from there.
    fn for_each_piece(
        &mut self,
        job: &Job<'_>,
        parents: &[(usize, u8)],
        visit: &mut Visit<'_>,
    ) -> Result<(), Error> {
        let (index, segment, work) = (job.index, job.shares.segment, job.work);
        for &(layer, exponent) in parents {
            let boards = self.recent[index - 1 - layer]
                .as_mut()
                .expect("parents opened");
            for start in (0..boards.len()).step_by(segment) {
                let piece = boards.piece(start, segment.min(boards.len() - start))?;
                visit(&piece, layer, exponent)?;
            }
            if layer == index - 1 {
                self.writing.wait()?;
                boards.release(work, layer)?;
            }
        }
        Ok(())
    }

    /// Layer `index` marked by rank, if the layer allows it within a
    /// quarter of the budget and its children stay in its space; else
    /// `None`, for [`Generation::sort`]. Marked, the layer before is
    /// listed once for this layer and the next, whose marks the next
    /// layer takes up (the bitmaps of the two within the same quarter).
    fn mark(&mut self, job: &Job<'_>) -> Result<Option<Generated>, Error> {
        let (spec, mover, index, work) = (job.spec, job.mover, job.index, job.work);
        let (parents, shares) = (&job.parents, &job.shares);
        let count: usize = parents
            .iter()
            .map(|&(layer, _)| self.parent_len(index, layer))
            .sum();
        // The layer before, if it has children after a 4: the next layer's
        // parents are this one and it, whose size stands for both until this
        // one is known.
        let next_parents = (index + 1 < spec.steps() && spec.expands(index - 1))
            .then(|| 2 * self.parent_len(index, index - 1) as u64);
        let most = (generate::REACHED_BYTES_PER_PARENT * count as u64).min(shares.quarter);
        // Begun with the layer before, if within the same bound as if made now.
        let begun =
            (self.ahead.take()).filter(|ahead| ahead.layer == index && ahead.marks.bytes() <= most);
        let (marked_before, reached) = match begun {
            Some(ahead) => (true, Some(ahead.marks)),
            None => (false, Reached::new(spec, index, most)),
        };
        let Some(mut reached) = reached else {
            return Ok(None);
        };
        let mut next = next_parents.and_then(|parents| {
            let most = (generate::REACHED_BYTES_PER_PARENT * parents)
                .min(shares.quarter.saturating_sub(reached.bytes()));
            Reached::new(spec, index + 1, most)
        });
        let unmarked: Vec<(usize, u8)> = (parents.iter().copied())
            .filter(|&(layer, _)| !(marked_before && layer + 2 == index))
            .collect();
        self.for_each_piece(job, &unmarked, &mut |piece, layer, exponent| {
            let targets = match exponent {
                1 => [Some(&mut reached), next.as_mut()],
                _ => [None, Some(&mut reached)],
            };
            generate::mark(spec, mover, layer, piece, targets);
            Ok(())
        })?;
        let Some(marks) = reached.into_marks() else {
            return Ok(None);
        };
        self.ahead = next.map(|marks| Ahead {
            layer: index + 1,
            marks,
        });
        let marks = Arc::new(marks);
        (self.writing).write(marks_path(work, index), marks.clone(), Marks::bits)?;
        Ok(Some(Generated::Marked(marks)))
    }

    /// Layer `index` sorted: each segment's children sorted into a run,
    /// the runs held within a quarter of the budget (`Runs::push`). The
    /// file is written behind with the layer held in memory meanwhile,
    /// where the layer takes no more than a segment of parents (which the
    /// next layer would read whole); else written in turn.
    fn sort(&mut self, job: &Job<'_>) -> Result<Generated, Error> {
        let (spec, mover, index, work) = (job.spec, job.mover, job.index, job.work);
        let (parents, shares) = (&job.parents, &job.shares);
        let mut runs = Runs::new(work.join(format!("run-{index:04}")), shares.held_words);
        self.for_each_piece(job, parents, &mut |piece, layer, exponent| {
            runs.push(generate::run(spec, mover, layer, exponent, piece))
        })?;
        let path = boards_path(work, index);
        match runs.union() {
            Ok(boards) if boards.len() <= shares.segment => {
                let boards = Arc::new(boards);
                self.writing.write(path, boards.clone(), Vec::as_slice)?;
                Ok(Generated::Held(boards))
            }
            // Written in turn, after the file written behind: in order.
            Ok(boards) => {
                self.writing.wait()?;
                write_words(&path, &boards)?;
                Generated::open(spec, work, index)
            }
            Err(runs) => {
                self.writing.wait()?;
                runs.finish(&path)?;
                Generated::open(spec, work, index)
            }
        }
    }
}

/// One layer being generated: what its steps share.
struct Job<'a> {
    spec: &'a Spec,
    mover: &'a Mover,
    index: usize,
    /// The parent layers that expand, with the exponent of the tile
    /// spawned ([`Generation::open_parents`]).
    parents: Vec<(usize, u8)>,
    shares: Shares,
    work: &'a Path,
}

/// How generating a layer shares out the budget.
struct Shares {
    /// Parents read at a time, whose children take half of it.
    segment: usize,
    /// Words of runs held in memory: a quarter.
    held_words: usize,
    /// The bytes of a layer's bitmaps: a quarter.
    quarter: u64,
}

impl Shares {
    fn of(memory: Option<u64>) -> Self {
        Self {
            segment: memory.map_or(usize::MAX, |bytes| {
                usize::try_from(bytes / 2 / CHILD_BYTES_PER_PARENT)
                    .unwrap_or(usize::MAX)
                    .max(LEAST_SEGMENT)
            }),
            held_words: memory.map_or(usize::MAX, |bytes| {
                usize::try_from(bytes / 4 / 8).unwrap_or(usize::MAX)
            }),
            quarter: memory.map_or(u64::MAX, |bytes| bytes / 4),
        }
    }
}
