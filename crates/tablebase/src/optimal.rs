//! Thinning a solved table to the positions on optimal lines: those a
//! player who always takes a best move meets, from the seeds on.
//!
//! Such a table answers every question its player asks (the rate of each
//! position it reaches, and which move is best there, since the best
//! child is kept) in a fraction of the space. Rates are unchanged: a
//! position's rate only needs its best children, which are kept, so
//! `tb-build verify` still recomputes them exactly.

use std::path::Path;

use rayon::prelude::*;

use crate::builder::layer_path;
use crate::generate::for_each_child;
use crate::solve::Solved;
use crate::sort::sort_unique;
use crate::storage::{self, LayerFile};
use crate::{Error, Mover, Spec};

/// Rewrites every layer file of the solved table in `dir` with only the
/// positions on optimal lines, calling `report` with each layer's index,
/// positions kept and bytes. Returns the positions and bytes kept in all.
///
/// Ties between moves keep the first best in up, right, down, left order.
/// Running it again (after a kill) gives the same files: a thinned layer
/// still holds every best child.
///
/// # Errors
/// [`Error::Io`] or [`Error::File`] for layer files that cannot be read
/// or written.
pub fn thin(
    spec: &Spec,
    dir: &Path,
    level: i32,
    report: &mut dyn FnMut(usize, usize, u64),
) -> Result<(u64, u64), Error> {
    let mover = Mover::new(spec.formation().large());
    let steps = spec.steps();
    let read = |layer: usize| -> Result<Solved, Error> {
        if layer < steps {
            LayerFile::open(&layer_path(dir, layer))?.read_all()
        } else {
            Ok(Solved::default())
        }
    };
    // Boards reached so far in the next two layers.
    let mut reached: Vec<Vec<u64>> = vec![Vec::new(); steps + 2];
    let mut window = [read(0)?, read(1)?, read(2)?];
    reached[0] = window[0].boards().to_vec();
    let (mut stored, mut bytes) = (0u64, 0u64);
    for index in 0..steps {
        let wanted = sort_unique(std::mem::take(&mut reached[index]));
        let [layer, next, after] = &window;
        let kept = layer.only(&wanted);
        if !spec.is_horizon(index) {
            let children: Vec<(usize, u64)> = kept
                .boards()
                .par_iter()
                .filter(|&&board| !spec.is_won(board, index))
                .flat_map_iter(|&board| best_children(spec, &mover, board, next, after))
                .collect();
            for (side, child) in children {
                reached[index + 1 + side].push(child);
            }
        }
        let file = LayerFile::open(&layer_path(dir, index))?;
        let header = storage::LayerHeader {
            positions: kept.len() as u64,
            ..file.header().clone()
        };
        let written = storage::write(&layer_path(dir, index), &header, &kept, level)?;
        report(index, kept.len(), written);
        stored += kept.len() as u64;
        bytes += written;
        window = [
            std::mem::take(&mut window[1]),
            std::mem::take(&mut window[2]),
            read(index + 3)?,
        ];
    }
    Ok((stored, bytes))
}

/// For each empty cell and spawn of `board`, the first best move's child
/// (with its side: 0 after a 2, 1 after a 4), where one has a rate above 0.
fn best_children(
    spec: &Spec,
    mover: &Mover,
    board: u64,
    next: &Solved,
    after: &Solved,
) -> Vec<(usize, u64)> {
    let mut best = [[None::<(f64, u64)>; 2]; 16];
    let cells = for_each_child(spec, mover, board, 1..=2, |cell, side, child| {
        let rate = [next, after][side].rate(child);
        let best = &mut best[cell][side];
        if rate > 0.0 && best.is_none_or(|(best_rate, _)| rate > best_rate) {
            *best = Some((rate, child));
        }
    });
    best[..cells]
        .iter()
        .flat_map(|sides| (0..2).filter_map(move |side| Some((side, sides[side]?.1))))
        .collect()
}
