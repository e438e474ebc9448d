//! Thinning a solved table to the positions on optimal lines: those a
//! player who always takes a best move meets, from the seeds on.
//!
//! Such a table answers every question its player asks (the rate of each
//! position it reaches, and which move is best there, since the best
//! child is kept) in a fraction of the space. Rates are unchanged: a
//! position's rate only needs its best children, which are kept, so
//! `tb-build verify` still recomputes them exactly.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::iter::Either;
use rayon::prelude::*;

use crate::base::children::{empty_cells, for_each_child};
use crate::base::expectation::Sought;
use crate::base::layer::Solved;
use crate::base::sort::sort_unique;
use crate::build::phase::solve::{fetching_bytes, held_bytes_per_position, store_layer};
use crate::build::segment::Segments;
use crate::build::work::{
    RatesFile, Runs, WordReader, WordWriter, fetch_children, remove_if_present, unpack,
};
use crate::build::{Event, layer_path};
use crate::format::layer_file::{LayerFile, LayerHeader};
use crate::{Error, Mover, Spec};

/// Rewrites every layer file of the solved table in `dir` with only the
/// positions on optimal lines, calling `report` with each layer's
/// [`Event::Thinned`]. Returns the positions and bytes kept in all.
///
/// Within `memory` bytes if given: a layer is thinned in segments of the
/// positions reached, each reading from the layer file only the blocks it
/// needs; the two layers after it are held in memory when they fit half
/// the budget, and a segment takes a quarter; otherwise they are unpacked
/// to working files in `work`, and a segment takes three quarters, with
/// the children it looks up fetched from them. The boards reached in each
/// of the next two layers go to working files when they outgrow a
/// sixteenth of it. The working files are removed as they are used.
///
/// Ties between moves keep the first best in up, right, down, left order.
/// Running it again (after a kill) gives the same files: a thinned layer
/// still holds every best child.
///
/// # Errors
/// [`Error::Io`] or [`Error::File`] for files that cannot be read or
/// written.
pub fn thin(
    spec: &Spec,
    dir: &Path,
    work: &Path,
    level: i32,
    memory: Option<u64>,
    report: &mut dyn FnMut(Event),
) -> Result<(u64, u64), Error> {
    let mut thinning = Thinning::start(spec, dir, work, level, memory)?;
    let (mut stored, mut total_bytes) = (0u64, 0u64);
    for index in 0..spec.steps() {
        let began = Instant::now();
        let thinned = thinning.layer(index)?;
        report(Event::Thinned {
            layer: index,
            kept: thinned.kept,
            bytes: thinned.bytes,
            segments: thinned.segments,
            fetched: thinned.fetched,
            elapsed: began.elapsed(),
        });
        stored += thinned.kept as u64;
        total_bytes += thinned.bytes;
    }
    Ok((stored, total_bytes))
}

/// The layers being thinned, from the seeds on, and what one layer hands
/// the next.
struct Thinning<'a> {
    spec: &'a Spec,
    mover: Mover,
    dir: &'a Path,
    work: &'a Path,
    level: i32,
    memory: Option<u64>,
    /// The boards reached in this layer and the next two: every seed, then
    /// the best children of the positions kept.
    reached: [Runs; 3],
    /// The layer after the next, as this layer's children had it: the
    /// next layer's next, not read or unpacked again.
    carried: Option<Carried>,
}

/// What thinning a layer came to.
struct Thinned {
    /// The positions kept.
    kept: usize,
    /// The bytes of the layer file.
    bytes: u64,
    /// The segments the layer was thinned in.
    segments: usize,
    /// Whether the segments fetched their children from working files.
    fetched: bool,
}

impl<'a> Thinning<'a> {
    /// Begins with the seeds reached.
    fn start(
        spec: &'a Spec,
        dir: &'a Path,
        work: &'a Path,
        level: i32,
        memory: Option<u64>,
    ) -> Result<Self, Error> {
        let runs = |index| reached_runs(work, memory, index);
        let mut thinning = Self {
            spec,
            mover: Mover::new(spec.formation().large()),
            dir,
            work,
            level,
            memory,
            reached: [runs(0), runs(1), runs(2)],
            carried: None,
        };
        let seeds = LayerFile::open(&layer_path(dir, 0))?.read_all()?;
        thinning.reached[0].push(seeds.boards().to_vec())?;
        Ok(thinning)
    }

    /// Rewrites layer `index`'s file with the positions reached, and
    /// marks their best children reached.
    fn layer(&mut self, index: usize) -> Result<Thinned, Error> {
        let (spec, dir, work) = (self.spec, self.dir, self.work);
        self.reached.rotate_left(1);
        let new = reached_runs(work, self.memory, index + 3);
        let this = std::mem::replace(&mut self.reached[2], new);
        this.finish(&reached_path(work, index))?;
        let wanted = WordReader::open(&reached_path(work, index))?;
        let layer = LayerFile::open(&layer_path(dir, index))?;
        let children = if spec.is_horizon(index) {
            None
        } else {
            let carried = self.carried.take();
            Some(Children::of(
                dir,
                work,
                index,
                spec.steps(),
                self.memory,
                carried,
            )?)
        };
        let kept_path = work.join(format!("kept-{index:04}"));
        let mut out = WordWriter::create(&kept_path)?;
        let fetched = matches!(children, Some(Children::Unpacked(_)));
        let (kept, segments) = self.keep(index, &wanted, &layer, children.as_ref(), &mut out)?;
        out.finish()?;
        let header = LayerHeader {
            positions: kept as u64,
            ..layer.header().clone()
        };
        let bytes = store_layer(
            &layer_path(dir, index),
            &header,
            &RatesFile::open(&kept_path)?,
            |_: f64| true,
            self.level,
        )?;
        for done in [
            kept_path,
            reached_path(work, index),
            unpacked_path(work, index + 1),
        ] {
            remove_if_present(&done)?;
        }
        self.carried = children.and_then(Children::into_after);
        Ok(Thinned {
            kept,
            bytes,
            segments,
            fetched,
        })
    }

    /// Writes to `out` the positions of `layer` (layer `index`) that were
    /// reached (`wanted`), a segment at a time, and marks their best
    /// `children` reached. Returns the positions kept and the segments.
    fn keep(
        &mut self,
        index: usize,
        wanted: &WordReader,
        layer: &LayerFile,
        children: Option<&Children>,
        out: &mut WordWriter,
    ) -> Result<(usize, usize), Error> {
        // A quarter of the budget for a segment, three when the layers
        // after are not held.
        let fetched = matches!(children, Some(Children::Unpacked(_)));
        let quarters = if fetched { 3 } else { 1 };
        let bytes = self.memory.map_or(u64::MAX, |bytes| bytes / 4 * quarters);
        let seek = fetched.then_some((self.spec, &self.mover, index));
        let mut cut = Segments::new(bytes, thinning_bytes, seek);
        let (mut start, mut kept_in_all, mut segments) = (0, 0, 0);
        while start < wanted.len() {
            let (boards, sought) = cut.next(start, wanted.len(), |at, count| {
                wanted.read(at, count).map(Cow::Owned)
            })?;
            start += boards.len();
            segments += 1;
            let kept = layer.fetch(&boards)?;
            // Their room goes to the best children (`thinning_bytes`).
            drop(boards);
            out.extend_solved(kept.boards(), kept.rates())?;
            kept_in_all += kept.len();
            if let Some(children) = children {
                let [two, four] =
                    children.best(self.spec, &self.mover, index, kept.boards(), sought)?;
                self.reached[0].push(two)?;
                self.reached[1].push(four)?;
            }
        }
        Ok((kept_in_all, segments))
    }
}

/// The working file of the boards reached in layer `index`.
fn reached_path(work: &Path, index: usize) -> PathBuf {
    work.join(format!("reached-{index:04}"))
}

/// The boards reached in layer `index`, held within a sixteenth of the
/// budget (twice that while they are merged, `Runs::push`): half of it is
/// for the layers after (`Children`), a quarter for a segment (three when
/// the layers after are not held).
fn reached_runs(work: &Path, memory: Option<u64>, index: usize) -> Runs {
    let limit = memory.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / 16 / 8).unwrap_or(usize::MAX)
    });
    Runs::new(reached_path(work, index), limit)
}

/// What a batch of `boards` reached takes while thinned, given the
/// `sought` boards it adds to the segment's children: as a segment that
/// fetches its children takes in `f64` ([`fetching_bytes`]: the boards
/// reached for the positions' boards, the positions fetched from the
/// layer file for their copies), and 32 bytes for each best child a
/// position may have (one for each empty cell and spawn), listed, sorted
/// with a buffer as long and merged ([`sort_unique`]).
fn thinning_bytes(boards: &[u64], sought: usize) -> u64 {
    let best: usize = boards
        .iter()
        .map(|&board| 2 * empty_cells(board).count())
        .sum();
    fetching_bytes::<f64>(boards.len(), sought) + 32 * best as u64
}

/// Where the children of a layer's positions are looked up.
enum Children {
    /// The two layers after it, in memory.
    Held([Solved; 2]),
    /// Their rates unpacked to working files, from which each segment
    /// fetches the children it asks for, when they do not fit half the
    /// budget (`None` past the last layer).
    Unpacked([Option<RatesFile>; 2]),
}

/// One of the layers after a layer, held or unpacked as [`Children`] had
/// it.
enum Carried {
    Held(Solved),
    Unpacked(RatesFile),
}

impl Children {
    /// The children of layer `index`'s positions: the two layers after it,
    /// in memory if they fit half of `memory`, else unpacked to working
    /// files. `carried` is the next layer as the layer before had it (its
    /// layer after the next), used if it is in the form wanted.
    fn of(
        dir: &Path,
        work: &Path,
        index: usize,
        steps: usize,
        memory: Option<u64>,
        carried: Option<Carried>,
    ) -> Result<Self, Error> {
        let open = |layer: usize| {
            (layer < steps)
                .then(|| LayerFile::open(&layer_path(dir, layer)))
                .transpose()
        };
        let files = [open(index + 1)?, open(index + 2)?];
        let positions: u64 = files
            .iter()
            .flatten()
            .map(|file| file.header().positions)
            .sum();
        if memory.is_none_or(|bytes| held_bytes_per_position::<f64>() * positions <= bytes / 2) {
            let read = |file: &Option<LayerFile>| {
                file.as_ref()
                    .map_or(Ok(Solved::default()), LayerFile::read_all)
            };
            let next = match carried {
                Some(Carried::Held(next)) => next,
                _ => read(&files[0])?,
            };
            return Ok(Self::Held([next, read(&files[1])?]));
        }
        let unpack = |side: usize| -> Result<Option<RatesFile>, Error> {
            let layer = index + 1 + side;
            let Some(file) = &files[side] else {
                return Ok(None);
            };
            unpack::<f64>(file, &unpacked_path(work, layer)).map(Some)
        };
        let next = match carried {
            Some(Carried::Unpacked(next)) => Some(next),
            other => {
                // A layer held in memory would only take room now.
                drop(other);
                unpack(0)?
            }
        };
        Ok(Self::Unpacked([next, unpack(1)?]))
    }

    /// The layer after the next, for the next layer's children.
    fn into_after(self) -> Option<Carried> {
        match self {
            Self::Held([_, after]) => Some(Carried::Held(after)),
            Self::Unpacked([_, after]) => after.map(Carried::Unpacked),
        }
    }

    /// The best children of `boards` of layer `index` after each spawn
    /// (see [`best_children`]), in the next layer (after a 2) and the one
    /// after (after a 4), each sorted and without repeats. Children
    /// unpacked are fetched as `sought` lists them: at least those that
    /// solving `boards` looks up.
    fn best(
        &self,
        spec: &Spec,
        mover: &Mover,
        index: usize,
        boards: &[u64],
        sought: Sought,
    ) -> Result<[Vec<u64>; 2], Error> {
        let fetched;
        let [next, after] = match self {
            Self::Held(held) => held,
            Self::Unpacked(files) => {
                fetched = fetch_children(files, &sought.finish())?;
                &fetched
            }
        };
        let (two, four): (Vec<u64>, Vec<u64>) = boards
            .par_iter()
            .filter(|&&board| !spec.is_won(board, index))
            .flat_map_iter(|&board| best_children(spec, mover, board, next, after))
            .partition_map(|(side, child)| match side {
                0 => Either::Left(child),
                _ => Either::Right(child),
            });
        Ok([two, four].map(sort_unique))
    }
}

/// The working file of layer `index`'s rates, unpacked for thinning.
fn unpacked_path(work: &Path, index: usize) -> PathBuf {
    work.join(format!("unpacked-{index:04}"))
}

/// For each empty cell and spawn of `board`, the first best move's child
/// (with its side: 0 after a 2, 1 after a 4), where one has a rate above 0.
fn best_children(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    next: &Solved,
    after: &Solved,
) -> impl Iterator<Item = (usize, u64)> {
    let mut best = [[None::<(f64, u64)>; 2]; 16];
    let cells = for_each_child(spec, mover, board, 1..=2, |cell, side, child| {
        let rate = [next, after][side].child_rate(child);
        let best = &mut best[cell][side];
        if rate > 0.0 && best.is_none_or(|(best_rate, _)| rate > best_rate) {
            *best = Some((rate, child));
        }
    });
    best.into_iter()
        .take(cells)
        .flat_map(|sides| (0..2).filter_map(move |side| Some((side, sides[side]?.1))))
}
