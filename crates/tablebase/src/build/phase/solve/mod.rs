//! Solving a generated table's layers into their layer files within the
//! budget: each layer whole, or in segments against the two layers after
//! it, held in memory or fetched from their working files.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::base::layer::Solved;
use crate::base::layer::rank::Marks;
use crate::build::segment::Segments;
use crate::build::solve;
use crate::build::work::{
    Generated, RatesFile, WriteBehind, rates_path, remove_if_present, unpack, write_solved,
};
use crate::build::{Event, Options, WORK, layer_path};
use crate::format::layer_file::LayerFile;
use crate::{Error, Mover, Rate, Spec};

mod budget;
mod layer;

use budget::{FREE_LOOKUP_BYTES, FetchingBytes, HELD_ROOM, Plan, whole_bytes_per_position};
pub(crate) use budget::{fetching_bytes, held_bytes_per_position};
pub(crate) use layer::store_layer;
use layer::{Children, Solving, Stored};

/// Solves the layers of a generated table from the horizon down to
/// layer 0, from `resume_at` (the lowest layer solved before, or `steps`),
/// in `R`, each as [`Plan::within`] the budget says: whole, or in
/// segments against the two layers after it in memory, or in segments
/// fetching from their working files only the children each looks up
/// (the two layers after stay in memory from the layers solved before
/// when they are held). Returns the positions stored and the bytes of
/// their files.
pub(crate) fn solve_all<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    options: Options,
    dir: &Path,
    resume_at: usize,
    budget: Option<u64>,
    report: &mut dyn FnMut(Event),
) -> Result<(u64, u64), Error> {
    let mut solver = Solver::<R>::new(spec, mover, options, dir, budget);
    solver.set_aside_scratch(resume_at, report)?;
    let mut total = (0, 0);
    for index in (0..resume_at).rev() {
        let stored = solver.layer(index, report)?;
        total.0 += stored.positions;
        total.1 += stored.bytes;
    }
    solver.writing.wait()?;
    Ok(total)
}

/// The layers being solved, from the horizon down, and what one layer
/// hands the next.
struct Solver<'a, R> {
    spec: &'a Spec,
    mover: &'a Mover,
    options: Options,
    dir: &'a Path,
    work: PathBuf,
    /// The bytes solving may take, less the solving threads' scratch.
    budget: Option<u64>,
    /// The most children a batch of the solve lists for each spawn.
    batch_most: usize,
    /// Layers index + 1 and index + 2, when in memory.
    held: [Option<Solved<R>>; 2],
    /// The layer file flushed and renamed into place behind.
    writing: WriteBehind,
}

impl<'a, R: Rate> Solver<'a, R> {
    fn new(
        spec: &'a Spec,
        mover: &'a Mover,
        options: Options,
        dir: &'a Path,
        budget: Option<u64>,
    ) -> Self {
        Self {
            spec,
            mover,
            options,
            dir,
            work: dir.join(WORK),
            budget,
            batch_most: solve::BATCH_MOST,
            held: [None, None],
            writing: WriteBehind::default(),
        }
    }

    /// Takes the solving threads' scratch from the budget, if the child
    /// layers left to solve from (at most the layers generated) outgrow
    /// the caches, and reports the layers to solve. A resumed build
    /// unpacks the two layers solved last here, for the next layer.
    fn set_aside_scratch(
        &mut self,
        resume_at: usize,
        report: &mut dyn FnMut(Event),
    ) -> Result<(), Error> {
        let (mut largest, mut left) = (0, 0);
        for layer in 0..self.spec.steps().min(resume_at + 2) {
            let len = if layer < resume_at {
                let len = Generated::len_of(&self.work, layer)?;
                left += len as u64;
                len
            } else {
                self.working_rates(layer, None)?
                    .map_or(0, |file| file.len())
            };
            largest = largest.max(len);
        }
        report(Event::Solving {
            layers: resume_at,
            positions: left,
        });
        // The batches' scratch takes at most a quarter of the budget, and
        // all threads' together about what one thread's would.
        let threads = rayon::current_num_threads();
        let within = self.budget.map_or(solve::BATCH_MOST, |bytes| {
            solve::batch_within(bytes / 4 / threads as u64)
        });
        self.batch_most = solve::batch_of_threads(threads).min(within);
        let scratch = threads as u64 * solve::scratch_bytes(largest, self.batch_most);
        self.budget = self.budget.map(|bytes| bytes.saturating_sub(scratch));
        Ok(())
    }

    /// The working rates of a solved layer (`None` past the last). A layer
    /// solved whole may have none ([`Options::layers_hold_solved_rates`]):
    /// they are written from the layer, if `held` in memory, or else
    /// unpacked from its layer file.
    fn working_rates(
        &self,
        layer: usize,
        held: Option<&Solved<R>>,
    ) -> Result<Option<RatesFile>, Error> {
        if layer >= self.spec.steps() {
            return Ok(None);
        }
        let path = rates_path(&self.work, layer);
        if !path.exists() {
            match held {
                Some(solved) => write_solved(&path, solved)?,
                None => {
                    let file = LayerFile::open(&layer_path(self.dir, layer))?;
                    return unpack::<R>(&file, &path).map(Some);
                }
            }
        }
        RatesFile::open(&path).map(Some)
    }

    /// Solves layer `index` as the budget allows, and reports it.
    fn layer(&mut self, index: usize, report: &mut dyn FnMut(Event)) -> Result<Stored, Error> {
        let began = Instant::now();
        let parents = Generated::open(self.spec, &self.work, index)?;
        // The layers not held are read from their working rates.
        let mut children = [None, None];
        for (side, child) in children.iter_mut().enumerate() {
            if self.held[side].is_none() {
                *child = self.working_rates(index + 1 + side, None)?;
            }
        }
        let plan = self.plan(&parents, &children);
        // Segments read their positions in increasing order, which a free
        // formation's marks list in order of rank.
        let parents = match plan {
            Plan::Whole => parents,
            Plan::Held(_) | Plan::Fetched(_) => {
                let words = self.budget.map_or(usize::MAX, |bytes| {
                    usize::try_from(bytes / 4 / 8).unwrap_or(usize::MAX)
                });
                parents.into_sorted(&self.work, index, words)?
            }
        };
        let stored = match plan {
            Plan::Fetched(segment_bytes) => {
                self.fetching(index, &parents, children, segment_bytes)?
            }
            Plan::Whole | Plan::Held(_) => self.holding(index, &parents, &children, plan)?,
        };
        report(Event::Solved {
            layer: index,
            positions: parents.len(),
            stored: stored.positions as usize,
            bytes: stored.bytes,
            segments: stored.segments,
            fetched: matches!(plan, Plan::Fetched(_)),
            elapsed: began.elapsed(),
        });
        Ok(stored)
    }

    /// How layer `parents` is solved within the budget, given the two
    /// layers after it, held or in their working rates (`children`).
    fn plan(&self, parents: &Generated, children: &[Option<RatesFile>; 2]) -> Plan {
        let lens = [0, 1].map(|side| match (&self.held[side], &children[side]) {
            (Some(layer), _) => layer.len(),
            (None, file) => file.as_ref().map_or(0, RatesFile::len),
        });
        // A free formation's layer solved by class holds lookups that may
        // take more, and writes its file from a sorted copy of the
        // positions it keeps (8 and a rate).
        let by_class = parents.marks().is_some_and(Marks::is_free);
        let whole = whole_bytes_per_position::<R>()
            + u64::from(by_class) * (FREE_LOOKUP_BYTES + 8 + size_of::<R>() as u64);
        let held_bytes = [0, 1]
            .map(|side| match &self.held[side] {
                Some(layer) => layer.bytes() + HELD_ROOM * layer.len() as u64,
                None => held_bytes_per_position::<R>() * lens[side] as u64,
            })
            .iter()
            .sum();
        Plan::within(self.budget, parents.len(), whole, held_bytes)
    }

    /// One layer's solving, and where its files go.
    fn solving(&self, index: usize) -> Solving<'_> {
        Solving {
            spec: self.spec,
            mover: self.mover,
            index,
            batch_most: self.batch_most,
            options: self.options,
            dir: self.dir,
            work: &self.work,
        }
    }

    /// Solves layer `index` in segments of `segment_bytes` that fetch
    /// their children from the working rates, and writes its file after
    /// the file written behind. The layers held are let go, their working
    /// rates written where they have none.
    fn fetching(
        &mut self,
        index: usize,
        parents: &Generated,
        mut children: [Option<RatesFile>; 2],
        segment_bytes: u64,
    ) -> Result<Stored, Error> {
        self.writing.wait()?;
        for (side, child) in children.iter_mut().enumerate() {
            if let Some(layer) = self.held[side].take() {
                *child = self.working_rates(index + 1 + side, Some(&layer))?;
            }
        }
        let spec = self.spec;
        let seek = (!spec.is_horizon(index)).then_some((spec, self.mover, index));
        let cost: FetchingBytes = |batch, sought| fetching_bytes::<R>(batch.len(), sought);
        let children = Children::Files(&children, Segments::new(segment_bytes, cost, seek));
        let stored = self.solving(index).in_segments::<R>(parents, children)?;
        layer_done(&self.work, index)?;
        Ok(stored)
    }

    /// Solves layer `index` against the two layers after it in memory,
    /// held or read whole: whole (then held for the layers below), or in
    /// segments (then read by the layers below from its working rates).
    fn holding(
        &mut self,
        index: usize,
        parents: &Generated,
        children: &[Option<RatesFile>; 2],
        plan: Plan,
    ) -> Result<Stored, Error> {
        let [next, after] = [0, 1].map(|side| match self.held[side].take() {
            Some(layer) => Ok(layer),
            None => children[side]
                .as_ref()
                .map_or(Ok(Solved::default()), RatesFile::read_all),
        });
        let (next, after) = (next?, after?);
        if let Plan::Held(segment) = plan {
            self.writing.wait()?;
            let children = Children::Held([&next, &after], segment);
            let stored = self.solving(index).in_segments(parents, children)?;
            layer_done(&self.work, index)?;
            self.held = [None, Some(next)];
            Ok(stored)
        } else {
            let (solved, stored, file) = self.solving(index).whole(parents, &next, &after)?;
            // The files the layer needed are removed once it is in place.
            let work = self.work.clone();
            self.writing.start(move || {
                file.commit()?;
                layer_done(&work, index)
            })?;
            self.held = [Some(solved), Some(next)];
            Ok(stored)
        }
    }
}

/// Removes what solving layer `index` no longer needs once its file is in
/// place: its generated layer and the working rates of layer `index + 2`.
fn layer_done(work: &Path, index: usize) -> Result<(), Error> {
    remove_if_present(&rates_path(work, index + 2))?;
    Generated::remove(work, index)
}

#[cfg(test)]
mod tests;
