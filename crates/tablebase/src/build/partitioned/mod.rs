//! A build as tasks over partitioned layers (docs/distributed.md).
//!
//! Each layer is split into parts by ranges of rank where the layers'
//! boards have ranks, else by a hash of the canonical board
//! ([`crate::LayerParts`]), and every step of the build is a task over one part
//! of one layer that reads and writes files in the table's folder only:
//! generation expands a part of the two layers before a layer and sorts
//! the children into the layer's parts (a map and a shuffle through
//! files), a merge makes each part of the layer from what it was sent
//! (the deduplication); to solve a layer, each part asks the parts of the
//! two layers after it that hold the children it looks up for their rates,
//! they answer, and the part solves from the answers (a join on the child
//! board, then an aggregation per parent). A task writes its
//! files under temporary names and renames them, and does nothing when
//! they are there already, so any engine that runs tasks (the threads of
//! [`build_local`], or a cluster) may run one again after a failure. The
//! tasks come in stages ([`plan`]): all of a stage may run at once, in any
//! order, on any machine sharing the folder; a stage begins once the one
//! before has finished.
//!
//! The layers hold the positions and rates of the whole-file build
//! ([`crate::builder::build`]): the same kernels solve the same positions
//! from the same children (`tb-build compare` checks).

mod buckets;
mod folder;
mod generate;
mod solve;
mod task;

use std::fs;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use crate::base::layer::rank::Space;
use crate::build::{Event, Summary, io_error};
use crate::format::manifest::{Manifest, Options};
use crate::format::partition::Partitions;
use crate::{Error, Spec};

pub use task::{Done, Task};

/// The tasks of a partitioned build of `spec`, in stages.
pub fn plan(spec: &Spec, parts: Partitions) -> Vec<Vec<Task>> {
    let (steps, count) = (spec.steps(), parts.count());
    let each = |make: &dyn Fn(usize) -> Task| (0..count).map(make).collect::<Vec<_>>();
    let mut stages = vec![vec![Task::Seed]];
    for layer in 1..steps {
        stages.push(each(&|part| Task::Expand { layer, part }));
        stages.push(each(&|part| Task::Merge { layer, part }));
    }
    // A layer's asks need only its boards: they are made beside the
    // solving of the layer before.
    for layer in (0..steps).rev() {
        if !spec.is_horizon(layer) {
            stages.push(each(&|part| Task::Answer { layer, part }));
        }
        let mut stage = each(&|part| Task::Solve { layer, part });
        if let Some(below) = layer
            .checked_sub(1)
            .filter(|&below| !spec.is_horizon(below))
        {
            stage.extend(each(&|part| Task::Ask { layer: below, part }));
        }
        stages.push(stage);
        stages.push(vec![Task::Release { layer }]);
    }
    stages.push(vec![Task::Finish]);
    stages
}

/// Makes `dir` the folder of a partitioned table of `spec` stored with
/// `options` (whose `partitions` must be set): its manifest written, not
/// yet complete, its layers split by rank where every layer's boards have
/// ranks (`ranked_parts`, whatever `options` says), else by hash. A folder
/// that holds this table already, finished or not, is left as it is.
///
/// # Errors
/// [`Error::Build`] without partitions or with thinning to optimal lines
/// (which partitioned builds do not do); [`Error::File`] for a folder that
/// holds another table or other files; [`Error::Io`].
pub fn prepare(spec: &Spec, dir: &Path, options: Options) -> Result<Manifest, Error> {
    let Some(count) = options.partitions else {
        return Err(Error::Build(
            "a partitioned build needs its partitions".to_owned(),
        ));
    };
    Partitions::new(count)?;
    if options.optimal_only {
        return Err(Error::Build(
            "a partitioned build does not thin to optimal lines".to_owned(),
        ));
    }
    let ranked_parts =
        (0..spec.steps()).all(|index| Space::of_layer(spec, index, |_, _| true).is_some());
    let manifest = Manifest::new(
        spec,
        Options {
            ranked_parts,
            ..options
        },
    );
    if Manifest::path(dir).exists() {
        let found = Manifest::read(dir)?;
        if found.definition() != manifest.definition() {
            return Err(Error::File {
                path: Manifest::path(dir),
                problem: "holds another table: build this one in a folder of its own".to_owned(),
            });
        }
        return Ok(found);
    }
    if dir.exists() {
        crate::build::check_unused(dir)?;
    }
    fs::create_dir_all(dir).map_err(io_error(dir))?;
    manifest.write(dir)?;
    Ok(manifest)
}

/// Builds the partitioned table of `spec` in `dir` on this machine: the
/// stages of [`plan`] in turn, each one's tasks at once ([`run_all`]); a
/// build run again goes on from the tasks it finished. The files are
/// those a cluster writes.
///
/// # Errors
/// As [`prepare`] and [`Task::run`].
pub fn build_local(
    spec: &Spec,
    dir: &Path,
    options: Options,
    report: &mut dyn FnMut(Event),
) -> Result<Summary, Error> {
    let start = Instant::now();
    let manifest = prepare(spec, dir, options)?;
    let steps = spec.steps();
    if manifest.complete {
        report(Event::Start {
            steps,
            generated: steps,
            solved: steps,
            complete: true,
        });
        return Ok(Summary {
            elapsed: start.elapsed(),
            ..Summary::default()
        });
    }
    report(Event::Start {
        steps,
        generated: 0,
        solved: 0,
        complete: false,
    });
    let parts = Partitions::new(options.partitions.expect("prepared"))?;
    let mut summary = Summary::default();
    let mut began = Instant::now();
    for stage in plan(spec, parts) {
        let done = run_all(&stage, dir)?;
        match stage[0] {
            Task::Seed | Task::Merge { .. } => {
                let layer = stage[0].layer().unwrap_or(0);
                summary.generated += done.positions;
                report(Event::Generated {
                    layer,
                    positions: done.positions as usize,
                    elapsed: began.elapsed(),
                });
                if layer + 1 == steps {
                    report(Event::Solving {
                        layers: steps,
                        positions: summary.generated,
                    });
                }
            }
            Task::Solve { layer, .. } => {
                summary.stored += done.stored;
                summary.bytes += done.bytes;
                report(Event::Solved {
                    layer,
                    positions: done.positions as usize,
                    stored: done.stored as usize,
                    bytes: done.bytes,
                    segments: 1,
                    fetched: false,
                    elapsed: began.elapsed(),
                });
            }
            Task::Expand { .. } | Task::Ask { .. } | Task::Answer { .. } => continue,
            Task::Release { .. } | Task::Finish => {}
        }
        began = Instant::now();
    }
    summary.elapsed = start.elapsed();
    summary.peak_memory = system::peak_resident_memory();
    Ok(summary)
}

/// Runs `tasks`, of one stage, on the table prepared in `dir`, all at once
/// on the threads of the pool (each task on them too), and adds up what
/// they came to: a stage's tasks one after the other left a thread idle
/// in each small task's steps that one thread does.
///
/// # Errors
/// A task's error, as [`Task::run`], once the tasks under way have ended.
pub fn run_all(tasks: &[Task], dir: &Path) -> Result<Done, Error> {
    tasks
        .par_iter()
        .with_max_len(1)
        .map(|task| task.run(dir))
        .try_reduce(Done::default, |mut sum, done| {
            sum += done;
            Ok(sum)
        })
}

/// Makes the folder `path` goes in, if it is not there.
fn make_folder_of(path: &Path) -> Result<(), Error> {
    let folder = path.parent().expect("a task's file has a folder");
    fs::create_dir_all(folder).map_err(io_error(folder))
}

/// The error of a task whose input `path`, a file of an earlier stage, is
/// not there.
fn missing(path: &Path) -> Error {
    Error::Build(format!(
        "{}: missing; run the tasks of the stages before this one first",
        path.display()
    ))
}
