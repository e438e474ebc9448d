//! The greedy 1-ply player's move: every way of playing an episode takes
//! its moves so.

use board::Direction;

use crate::{Rules, Values};

/// A move the greedy 1-ply player chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GreedyMove<B> {
    /// The slide.
    pub direction: Direction,
    /// The position after the slide, before the spawn.
    pub afterstate: B,
    /// The slide's reward.
    pub reward: u32,
    /// The value of the afterstate.
    pub value: f32,
}

/// The move the greedy 1-ply player takes on `board`: the legal slide with
/// the largest reward + V(afterstate), the earlier of up, right, down, left
/// on a tie (as TDL2048+), or `None` when no slide is legal.
#[inline]
pub fn best_move<G: Rules, V: Values<G::Board>>(
    game: &G,
    values: &V,
    board: G::Board,
) -> Option<GreedyMove<G::Board>> {
    let afterstates = game.afterstates(board);
    // Start fetching every weight the four estimates need, so that their
    // memory accesses overlap instead of following one another.
    for &(afterstate, _) in afterstates.iter().flatten() {
        values.prefetch(afterstate);
    }
    let mut best: Option<(GreedyMove<G::Board>, f32)> = None;
    for (direction, &(afterstate, reward)) in Direction::ALL
        .into_iter()
        .zip(&afterstates)
        .filter_map(|(direction, afterstate)| Some((direction, afterstate.as_ref()?)))
    {
        let value = values.estimate(afterstate);
        let total = reward as f32 + value;
        if best.is_none_or(|(_, best_total)| total > best_total) {
            let choice = GreedyMove {
                direction,
                afterstate,
                reward,
                value,
            };
            best = Some((choice, total));
        }
    }
    best.map(|(choice, _)| choice)
}
