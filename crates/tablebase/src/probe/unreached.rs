//! Positions a table does not hold, solved from the ones it does.
//!
//! A table stores the positions its seeds lead to whose rate is above 0.
//! A board typed in from a game may be one the seeds never lead to (the
//! moves of a seed itself are: nothing spawns before a seed), and a table
//! reads 0 for it, as the builder reads a child it lacks; yet such a
//! position may be as good as any. So a query of a position the table
//! lacks solves it, by the builder's recursion, over the positions it
//! leads to: those the table holds give their stored rates, and those it
//! lacks (lost ones, or more the seeds never lead to) are solved in turn.
//!
//! That is exact only where every position the seeds lead to with a rate
//! above 0 is stored: not in a pruned table or one thinned to optimal
//! lines, whose missing positions read 0 as they are documented to.

use crate::base::children::for_each_child;
use crate::base::expectation;
use crate::base::layer::Solved;
use crate::base::sort::sort_unique;
use crate::{Error, Mover, Table};

/// The most positions off a table that a query solves before giving up.
///
/// Queries of random boards of L3-64 and L3-128 solved 5 to 18 positions
/// at the median and 25,425 at most (docs/tablebase.md, "Querying"), so
/// this only stops a pathological query from holding too much memory
/// (each position solved also holds the positions it leads to).
pub(crate) const MOST: usize = 1 << 18;

/// The rates of `roots`, canonical positions of layer `index` that
/// `table` does not hold, in their order, solved in `f64`; `None` if that
/// means solving more than `most` positions the table does not hold.
///
/// # Errors
/// File errors as [`Table::layer`].
pub(crate) fn solve(
    table: &Table,
    mover: &Mover,
    index: usize,
    roots: &[u64],
    most: usize,
) -> Result<Option<Vec<f64>>, Error> {
    let spec = table.spec();
    let steps = spec.steps();
    // Forward: the positions each layer's missing ones lead to, split into
    // those the table holds (with their rates) and those it lacks. A
    // layer's children are complete once the layer before it is done.
    let mut wanted: Vec<Vec<u64>> = vec![Vec::new(); steps];
    wanted[index] = roots.to_vec();
    let mut held: Vec<Solved> = vec![Solved::default(); steps];
    let mut lacking: Vec<Vec<u64>> = vec![Vec::new(); steps];
    let mut count = 0;
    for layer in index..steps {
        let mut boards = sort_unique(std::mem::take(&mut wanted[layer]));
        if boards.is_empty() {
            continue;
        }
        held[layer] = table.layer(layer)?.fetch(&boards)?;
        boards.retain(|&board| held[layer].boards().binary_search(&board).is_err());
        count += boards.len();
        if count > most {
            return Ok(None);
        }
        if spec.expands(layer) {
            for &board in &boards {
                if !spec.is_won(board, layer) {
                    for_each_child(spec, mover, board, 1..=2, |_, side, child| {
                        wanted[layer + 1 + side].push(child);
                    });
                }
            }
            // Children after a 4 wait a layer: keep them without repeats.
            wanted[layer + 2] = sort_unique(std::mem::take(&mut wanted[layer + 2]));
        }
        lacking[layer] = boards;
    }
    // Backward: each layer's missing positions from the two after it,
    // held and solved together.
    let mut solved: Vec<Solved> = vec![Solved::default(); steps + 2];
    for layer in (index..steps).rev() {
        let boards = std::mem::take(&mut lacking[layer]);
        let rates: Vec<f64> = if spec.is_horizon(layer) {
            expectation::horizon(spec, &boards)
        } else {
            let [next, after] = [&solved[layer + 1], &solved[layer + 2]];
            boards
                .iter()
                .map(|&board| expectation::rate(spec, mover, board, layer, next, after))
                .collect()
        };
        solved[layer] = joined(std::mem::take(&mut held[layer]), boards, rates);
    }
    Ok(Some(
        roots.iter().map(|&root| solved[index].rate(root)).collect(),
    ))
}

/// The positions of `held` and of `boards` with their `rates`, one
/// sorted layer.
fn joined(held: Solved, boards: Vec<u64>, rates: Vec<f64>) -> Solved {
    if held.is_empty() {
        return Solved::new(boards, rates);
    }
    let mut pairs: Vec<(u64, f64)> = held
        .boards()
        .iter()
        .copied()
        .zip(held.rates().iter().copied())
        .chain(boards.into_iter().zip(rates))
        .collect();
    pairs.sort_unstable_by_key(|&(board, _)| board);
    let (boards, rates) = pairs.into_iter().unzip();
    Solved::new(boards, rates)
}

#[cfg(test)]
mod tests {
    use board::Direction;

    use super::*;
    use crate::builder::{self, Options};
    use crate::{Formation, Spec};

    /// A seed's own moves lead off the table: they are solved, unless
    /// that takes more positions than allowed.
    #[test]
    fn a_seeds_moves_are_solved_within_the_most_positions() {
        let formation = Formation::builtin("L3").unwrap().with_extra_steps(6);
        let spec = Spec::new(formation, 5, 0.1).unwrap();
        let dir = tempfile::tempdir().unwrap();
        builder::build(&spec, dir.path(), Options::default(), None, &mut |_| {}).unwrap();
        let table = Table::open(dir.path()).unwrap();
        let mover = Mover::new(spec.formation().large());
        let seed = spec.formation().seeds()[0];
        let moved = spec
            .formation()
            .canon()
            .canonical(mover.slide(seed, Direction::Right));
        assert_eq!(
            table.layer(0).unwrap().rate(moved).unwrap(),
            0.0,
            "not held"
        );
        let rate = solve(&table, &mover, 0, &[moved], MOST).unwrap().unwrap()[0];
        assert!(rate > 0.9, "{rate}");
        assert_eq!(solve(&table, &mover, 0, &[moved], 1).unwrap(), None);
    }
}
