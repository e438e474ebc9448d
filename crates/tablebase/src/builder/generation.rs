//! Generating one layer into its working file within the budget: its
//! parents read in segments, their children marked by rank or sorted into
//! runs.

use std::path::Path;
use std::sync::Arc;

use crate::rank::Marks;
use crate::segment::LEAST_SEGMENT;
use crate::work::{Generated, Runs, WriteBehind, boards_path, marks_path, write_words};
use crate::{Error, Mover, Spec, generate};

/// Bytes of generated children per parent allowed for: up to 16 empty
/// cells with 4 moves each, fewer after the pre-deduplication, and the
/// copy that gathers them for sorting.
const CHILD_BYTES_PER_PARENT: u64 = 2 * 8 * 48;

/// What generation does with each piece of a parent layer: its boards,
/// the parent layer and the exponent of the tile spawned.
type Visit<'a> = dyn FnMut(&[u64], usize, u8) -> Result<(), Error> + 'a;

/// Generates layer `index` into its working file from its parent layers,
/// within `memory` if given: the parents (`recent`, the two layers before
/// it, as the build has them open; those it has not are opened there) are
/// read in segments. The children of each are marked by rank when the
/// layer allows it ([`generate::Reached`], its bitmaps within a quarter of
/// the budget), or else sorted into a run; the runs are held within a
/// quarter of the budget, merged in memory when they outgrow it, and go to
/// disk only if their union still takes over half of that (`Runs::push`).
/// The file is written behind (`writing`) with the layer held in memory
/// meanwhile, where the layer takes no more than a segment of parents
/// (which the next layer would read whole); else written in turn. Returns
/// the layer, open.
pub(super) fn generate_layer(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    memory: Option<u64>,
    work: &Path,
    recent: &mut [Option<Generated>; 2],
    writing: &mut WriteBehind,
) -> Result<Generated, Error> {
    let segment = memory.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / 2 / CHILD_BYTES_PER_PARENT)
            .unwrap_or(usize::MAX)
            .max(LEAST_SEGMENT)
    });
    let held_words = memory.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / 4 / 8).unwrap_or(usize::MAX)
    });
    // The layer before (its children after a 2) and the one before it
    // (after a 4).
    let parents: Vec<(usize, u8)> = [(index - 1, 1)]
        .into_iter()
        .chain((index >= 2).then(|| (index - 2, 2)))
        .filter(|&(layer, _)| spec.expands(layer))
        .collect();
    for &(layer, _) in &parents {
        let slot = &mut recent[index - 1 - layer];
        if slot.is_none() {
            *slot = Some(Generated::open(spec, work, layer)?);
        }
    }
    let count: usize = parents
        .iter()
        .map(|&(layer, _)| {
            recent[index - 1 - layer]
                .as_ref()
                .expect("opened above")
                .len()
        })
        .sum();
    // Each parent layer a segment at a time. The layer before, if held in
    // memory while its file was written, is let go once used, so that no
    // more than a piece of each parent is held at a time, as when every
    // layer is read from its file; the next layer reads it from there.
    let mut pieces = |visit: &mut Visit<'_>| {
        for &(layer, exponent) in &parents {
            let boards = recent[index - 1 - layer].as_mut().expect("opened above");
            for start in (0..boards.len()).step_by(segment) {
                visit(
                    &boards.piece(start, segment.min(boards.len() - start))?,
                    layer,
                    exponent,
                )?;
            }
            if layer == index - 1 {
                writing.wait()?;
                boards.release(work, layer)?;
            }
        }
        Ok::<_, Error>(())
    };
    let most = (generate::REACHED_BYTES_PER_PARENT * count as u64)
        .min(memory.map_or(u64::MAX, |bytes| bytes / 4));
    if let Some(mut reached) = generate::Reached::new(spec, index, most) {
        let mut inside = true;
        pieces(&mut |piece, layer, exponent| {
            inside &= reached.mark(spec, mover, layer, exponent, piece);
            Ok(())
        })?;
        if inside {
            let marks = Arc::new(reached.into_marks());
            writing.write(marks_path(work, index), marks.clone(), Marks::bits)?;
            return Ok(Generated::Marked(marks));
        }
    }
    let mut runs = Runs::new(work.join(format!("run-{index:04}")), held_words);
    pieces(&mut |piece, layer, exponent| {
        runs.push(generate::run(spec, mover, layer, exponent, piece))
    })?;
    let path = boards_path(work, index);
    match runs.union() {
        Ok(boards) if boards.len() <= segment => {
            let boards = Arc::new(boards);
            writing.write(path, boards.clone(), Vec::as_slice)?;
            Ok(Generated::Held(boards))
        }
        // Written in turn, after the file written behind: in order.
        Ok(boards) => {
            writing.wait()?;
            write_words(&path, &boards)?;
            Generated::open(spec, work, index)
        }
        Err(runs) => {
            writing.wait()?;
            runs.finish(&path)?;
            Generated::open(spec, work, index)
        }
    }
}
