//! Solving from child layers found by rank, a group of parents at a time,
//! so that the lookups of many children wait on memory at once.
//!
//! One position at a time ([`super::rate`]), a child's lookup reads its
//! rank's bitmap word, then its rate, each a load that the next cannot
//! start before, from layers that outgrow the caches in the free
//! formations (free8-128's hold tens of millions of positions). A group
//! lists all its children first; then works out their ranks, asking for
//! each rank's word as it goes; then finds their positions, asking for
//! each rate; then reads the rates. In a harness over the largest layers
//! of free8-32 (one thread, parents in order of rank, as the builder lists
//! them) the solve took 1.3 times less time a position, and of L3-128 and
//! L3-256 about 1.05 (docs/tablebase-builder.md). Each pass is a loop of
//! its own, short enough for the compiler to keep what it reads in
//! registers (docs/tablebase-builder.md).

use crate::base::children::{GROUP, Listed, MOST_CHILDREN, list_children};
use crate::base::expectation::average;
use crate::base::layer::rank::Ranked;
use crate::base::layer::{Lookup, Solved};
use crate::base::prefetch::prefetch;
use crate::base::rate::Rate;
use crate::{Mover, Spec};

/// A child found in its layer, in one word: its position in the low
/// [`KEY_BITS`], and above them the slot of the best rate it may be
/// ([`slot`]). A struct of a key and three bytes before took 16 bytes and
/// three bounds checks to find its best rate: building L3-64 in memory ran
/// 2.8% fewer instructions in all with the word (`valgrind
/// --tool=cachegrind`, docs/tablebase-builder.md).
type Found = u64;

/// Bits of a [`Found`]'s position: positions are fewer than ranks, which
/// count fewer than 2^32 contents of the free cells (`rank::Space`) times
/// 1,674 classes of placements at most.
const KEY_BITS: u32 = 48;

/// The bits of a [`Found`]'s position.
const KEY: u64 = (1 << KEY_BITS) - 1;

/// The slots of a parent's best rates: after a 2 then after a 4, one for
/// each of up to 16 empty cells.
const PARENT_SLOTS: usize = 2 * 16;

/// The slots of the best rates of a group's parents.
const SLOTS: usize = GROUP * PARENT_SLOTS;
const _: () = assert!(SLOTS <= 1 << (64 - KEY_BITS) && SLOTS <= 1 << 16);

/// The slot of the best rate of `parent`'s `cell`-th empty cell after a
/// spawn of `side` (0 a 2, 1 a 4).
#[inline(always)]
fn slot(parent: usize, side: usize, cell: usize) -> u16 {
    (parent * PARENT_SLOTS + side * 16 + cell) as u16
}

/// The rates of `boards`, positions of layer `index`, into `out`, from
/// the two layers after it, each found by rank or empty: [`super::rate`]
/// of each board, bit for bit.
///
/// # Panics
/// If a layer is neither found by rank nor empty, or the lengths differ.
pub(super) fn solve<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    boards: &[u64],
    layers: [&Solved<R>; 2],
    out: &mut [R],
) {
    assert_eq!(boards.len(), out.len(), "one rate per board");
    let ranked: [Option<&Ranked>; 2] = layers.map(|layer| match layer.lookup() {
        Lookup::Ranks(ranked) => Some(&**ranked),
        Lookup::Buckets(_) => {
            assert!(layer.is_empty(), "a child layer found by rank or empty");
            None
        }
    });
    let moved = layers.iter().all(|layer| layer.finds_every_orientation());
    // Large tiles that never move: ranked without the free formations'
    // path ([`crate::base::layer::rank::Tables::fixed_ranks`]).
    let fixed = ranked.iter().flatten().all(|ranked| !ranked.is_free());
    let groups = Groups {
        spec,
        mover,
        index,
        layers,
        ranked,
    };
    match (moved, fixed) {
        (true, _) => groups.solve::<true, false>(boards, out),
        (false, true) => groups.solve::<false, true>(boards, out),
        (false, false) => groups.solve::<false, false>(boards, out),
    }
}

/// What solving a layer's positions a group at a time reads.
struct Groups<'a, R> {
    spec: &'a Spec,
    mover: &'a Mover,
    index: usize,
    layers: [&'a Solved<R>; 2],
    /// The lookups of each child layer, or none for an empty one.
    ranked: [Option<&'a Ranked>; 2],
}

impl<R: Rate> Groups<'_, R> {
    /// [`solve`], the children listed in the orientation their moves give
    /// (`MOVED`: the layers find every orientation) or in canonical form,
    /// and ranked in a space of fixed large tiles (`FIXED`) or through
    /// [`Ranked::rank`].
    #[inline(always)]
    fn solve<const MOVED: bool, const FIXED: bool>(&self, boards: &[u64], out: &mut [R]) {
        let Self {
            spec,
            mover,
            index,
            layers,
            ranked,
        } = *self;
        let four_rate = spec.four_rate();
        // Each group's children after a 2 and after a 4, and their ranks,
        // then where found, their positions with their slots.
        let mut listed = [(); 2].map(|()| Listed::new());
        let mut found: [Vec<Found>; 2] = [(); 2].map(|()| vec![0; GROUP * MOST_CHILDREN]);
        let mut counts = [0; 2];
        // For each parent, its empty cells (`None` if won), and in its
        // slots the best rate after a 2 and after a 4 in each, in the rate
        // type's units.
        let mut cells = [None; GROUP];
        let mut best = [0.0f64; SLOTS];
        for (boards, out) in boards.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
            // The children.
            for (parent, &board) in boards.iter().enumerate() {
                best[usize::from(slot(parent, 0, 0))..][..PARENT_SLOTS].fill(0.0);
                if spec.is_won(board, index) {
                    cells[parent] = None;
                    continue;
                }
                let tag = |cell, side| slot(parent, side, cell);
                cells[parent] = Some(list_children(
                    spec,
                    mover,
                    board,
                    1..=2,
                    MOVED,
                    &mut listed,
                    tag,
                ));
            }
            // Their ranks, each word asked for: past the layer's words for
            // a child outside its space.
            for side in 0..2 {
                let Some(ranked) = ranked[side] else { continue };
                let children = listed[side].boards();
                let ranks = &mut found[side][..children.len()];
                let positions = ranked.positions();
                if FIXED {
                    let tables = ranked.tables();
                    tables.fixed_ranks(children, ranks, positions.words());
                } else {
                    for (rank, &child) in ranks.iter_mut().zip(children) {
                        *rank = ranked.rank(child).unwrap_or(u64::MAX);
                        positions.prefetch(*rank);
                    }
                }
            }
            // The positions of those the layers hold, each rate asked for,
            // in place of the ranks: each written, and kept by moving on by
            // whether it is held, without a branch (the children of rate 0,
            // which the lookups leave out, follow no pattern).
            for side in 0..2 {
                let (listed, found) = (&mut listed[side], &mut found[side]);
                counts[side] = 0;
                if let Some(ranked) = ranked[side] {
                    let (positions, rates) = (ranked.positions(), layers[side].rates());
                    let slots = listed.tags();
                    for at in 0..slots.len() {
                        let (position, held) = positions.place(found[at]);
                        prefetch(rates, position);
                        found[counts[side]] = position as u64 | u64::from(slots[at]) << KEY_BITS;
                        counts[side] += usize::from(held);
                    }
                }
                listed.clear();
            }
            // The rates: the larger by one compare (`maxsd`), as no rate
            // is NaN, which `f64::max` spends two more instructions on.
            for side in 0..2 {
                let rates = layers[side].rates();
                for &child in &found[side][..counts[side]] {
                    let slot = (child >> KEY_BITS) as usize % SLOTS;
                    let rate = rates[(child & KEY) as usize].units();
                    best[slot] = if rate > best[slot] { rate } else { best[slot] };
                }
            }
            for ((parent, rate), cells) in out.iter_mut().enumerate().zip(cells) {
                *rate = match cells {
                    None => R::ONE,
                    Some(cells) => {
                        let [after_two, after_four] =
                            [0, 1].map(|side| &best[usize::from(slot(parent, side, 0))..][..cells]);
                        average(four_rate, after_two, after_four)
                    }
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Formation;
    use crate::base::layer::rank::{Marks, Space, bitmap_words};
    use crate::build::in_memory;

    /// `layer` found by rank of its class, as the builder holds a free
    /// formation's layers (its boards in order of rank), unless its
    /// lookups would take too much for its size: then as it is.
    fn by_class(spec: &Spec, index: usize, layer: &Solved) -> Solved {
        let space = Space::of_layer(spec, index, |_, _| true).expect("a free formation");
        let mut bits = vec![0; bitmap_words(space.len()) as usize];
        for &board in layer.boards() {
            let rank = space.rank(board).expect("a board of the space");
            bits[(rank / 64) as usize] |= 1 << (rank % 64);
        }
        let marks = Marks::new(space, bits).expect("the space's bitmap");
        let boards = marks.read_canonical(0, usize::MAX);
        let rates = boards.iter().map(|&board| layer.rate(board)).collect();
        match Ranked::of_kept(&marks, |_| true) {
            Some(ranked) => Solved::with_ranks(boards, rates, Some(ranked)),
            None => layer.clone(),
        }
    }

    /// Solved a group at a time, every layer's rates are those of one
    /// position at a time, bit for bit: of fixed formations, whose layers
    /// are found by rank (3x3's children in canonical form), and of a free
    /// one, found by rank of their class; with won parents, and with an
    /// empty layer after.
    #[test]
    fn rates_are_those_of_one_position_at_a_time() {
        for (name, target) in [("L3", 5), ("3x3", 5), ("free8", 3)] {
            let spec = Spec::new(Formation::builtin(name).unwrap(), target, 0.1).unwrap();
            let mover = Mover::new(spec.formation().large());
            let mut layers = in_memory::build::<f64>(&spec);
            if name.starts_with("free") {
                layers = (layers.iter().enumerate())
                    .map(|(index, layer)| by_class(&spec, index, layer))
                    .collect();
            }
            let (mut won, mut solved) = (0, 0);
            let empty = Solved::default();
            for index in (0..spec.steps()).filter(|&index| !spec.is_horizon(index)) {
                let boards = layers[index].boards();
                let (next, after) = (&layers[index + 1], &layers[index + 2]);
                if !(next.is_ranked() && after.is_ranked()) {
                    // Small layers with large rank tables: a bucket index.
                    continue;
                }
                won += boards
                    .iter()
                    .filter(|&&board| spec.is_won(board, index))
                    .count();
                for after in [after, &empty] {
                    let one: Vec<u64> = boards
                        .iter()
                        .map(|&board| super::super::rate(&spec, &mover, board, index, next, after))
                        .map(f64::to_bits)
                        .collect();
                    let mut grouped = vec![0.0; boards.len()];
                    solve(&spec, &mover, index, boards, [next, after], &mut grouped);
                    let grouped: Vec<u64> = grouped.into_iter().map(f64::to_bits).collect();
                    assert_eq!(grouped, one, "{name} layer {index}");
                    solved += boards.len();
                }
            }
            assert!(
                won > 1000 && solved > 100_000,
                "{name}: {won} won of {solved}"
            );
        }
    }
}
