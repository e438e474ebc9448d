//! Forward generation: every position a layer's positions lead to.

use rayon::prelude::*;

use crate::{Mover, Spec};

/// Boards per parallel work item: large enough to amortise the scheduling,
/// small enough to balance two to sixteen threads.
const CHUNK: usize = 1 << 12;

/// A direct-mapped cache of the children seen last: neighbouring parents
/// share many children, and dropping the repeats before sorting makes the
/// sort several times shorter (the reference builder does the same). It is
/// lossy: a repeat that was evicted is sorted out later.
struct Recent {
    slots: Box<[u64; Recent::SLOTS]>,
}

impl Recent {
    const SLOTS: usize = 1 << 12;

    fn new() -> Self {
        Self {
            slots: Box::new([u64::MAX; Self::SLOTS]),
        }
    }

    /// Whether `board` is not in its slot, which it then takes.
    #[inline]
    fn is_new(&mut self, board: u64) -> bool {
        let hash = board.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SLOTS.ilog2());
        let slot = &mut self.slots[hash as usize];
        let new = *slot != board;
        *slot = board;
        new
    }
}

/// Calls `visit` with the canonical children of `board` with a tile of
/// `exponent` spawned: for every empty cell, every move that changes the
/// board and keeps the formation.
#[inline]
pub fn children(spec: &Spec, mover: &Mover, board: u64, exponent: u8, visit: &mut impl FnMut(u64)) {
    let formation = spec.formation();
    let canon = formation.canon();
    for cell in empty_cells(board) {
        let spawned = board | u64::from(exponent) << (4 * cell);
        for moved in mover.slide_all(spawned) {
            if moved != spawned && formation.fits(moved) {
                visit(canon.canonical(moved));
            }
        }
    }
}

/// The empty cells of a board, lowest first.
#[inline]
pub fn empty_cells(board: u64) -> impl Iterator<Item = usize> {
    let any = board | (board >> 1);
    let any = any | (any >> 2);
    let mut empty = !any & 0x1111_1111_1111_1111;
    std::iter::from_fn(move || {
        (empty != 0).then(|| {
            let cell = empty.trailing_zeros() as usize / 4;
            empty &= empty - 1;
            cell
        })
    })
}

/// Layer `index`: the children of layer `index - 1` with a 2 spawned and of
/// layer `index - 2` with a 4, sorted and without repeats. Parents that are
/// won ([`Spec::is_won`]) or in the horizon are not expanded; the caller
/// passes an empty slice for a parent layer that is not expanded at all.
/// `index` is at least 1: layer 0 is the seeds.
pub fn layer(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    after_two: &[u64],
    after_four: &[u64],
) -> Vec<u64> {
    let mut runs = Vec::new();
    layer_runs(
        spec,
        mover,
        index,
        after_two,
        after_four,
        usize::MAX,
        &mut |run| {
            runs.push(run);
        },
    );
    runs.pop().unwrap_or_default()
}

/// [`layer`] in segments of at most `segment` parents, to bound the memory
/// of the children: each segment's children are passed to `emit` as a
/// sorted run without repeats (one run for the whole layer when `segment`
/// covers it). The union of the runs is the layer.
pub fn layer_runs(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    after_two: &[u64],
    after_four: &[u64],
    segment: usize,
    emit: &mut dyn FnMut(Vec<u64>),
) {
    let expand = |parents: &[u64], parent_layer: usize, exponent: u8| {
        parents
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut out = Vec::with_capacity(chunk.len() * 8);
                let mut recent = Recent::new();
                for &board in chunk {
                    if !spec.is_won(board, parent_layer) {
                        children(spec, mover, board, exponent, &mut |child| {
                            if recent.is_new(child) {
                                out.push(child);
                            }
                        });
                    }
                }
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect::<Vec<Vec<u64>>>()
    };
    let mut sources = vec![(after_two, index - 1, 1)];
    if index >= 2 {
        sources.push((after_four, index - 2, 2));
    }
    let mut parts: Vec<Vec<u64>> = Vec::new();
    let (mut parents, mut emitted) = (0usize, false);
    for (layer, parent_layer, exponent) in sources {
        for segment_parents in layer.chunks(segment.max(1)) {
            parts.extend(expand(segment_parents, parent_layer, exponent));
            parents += segment_parents.len();
            if parents >= segment {
                emit(merge(std::mem::take(&mut parts)));
                (parents, emitted) = (0, true);
            }
        }
    }
    if !parts.is_empty() || !emitted {
        emit(merge(parts));
    }
}

/// The sorted union of sorted parts, without repeats.
fn merge(parts: Vec<Vec<u64>>) -> Vec<u64> {
    let mut boards: Vec<u64> = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for part in parts {
        boards.extend(part);
    }
    boards.sort_unstable();
    boards.dedup();
    boards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_cells_are_found_exactly() {
        let board = 0xF0F0_0000_1234_0F00u64;
        let cells: Vec<usize> = empty_cells(board).collect();
        assert_eq!(cells, [0, 1, 3, 8, 9, 10, 11, 12, 14]);
        assert_eq!(empty_cells(u64::MAX).count(), 0);
        assert_eq!(empty_cells(0).count(), 16);
    }

    #[test]
    fn segments_make_the_same_layer() {
        let spec = Spec::new(crate::Formation::builtin("442").unwrap(), 6, 0.1).unwrap();
        let mover = Mover::new(spec.formation().large());
        let mut layers = vec![spec.formation().layer_zero()];
        let empty = Vec::new();
        for index in 1..12 {
            let two = &layers[index - 1];
            let four = if index >= 2 {
                &layers[index - 2]
            } else {
                &empty
            };
            let whole = layer(&spec, &mover, index, two, four);
            let mut runs = Vec::new();
            layer_runs(&spec, &mover, index, two, four, 7, &mut |run| {
                runs.push(run)
            });
            assert!(runs.len() > 1 || two.len() + four.len() <= 7);
            assert_eq!(merge(runs), whole);
            layers.push(whole);
        }
    }
}
