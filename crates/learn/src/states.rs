//! State-value TD(0), as the classic notes teach it (Szubert and
//! Jaśkowski's TD-state): the network values positions after the random
//! tile, and the player takes the move of the largest reward plus the
//! value expected over every tile that may appear.
//!
//! Afterstate learning ([`crate::play`]) is usually preferred: choosing a
//! move takes one estimate per legal move rather than one per move, empty
//! cell and tile (some thirty times as many), and the afterstate's value
//! already averages over the random tile, which the state's value must
//! learn to do from samples.

use board::Direction;
use rand::Rng;

use crate::watch::{Outcome, Watch};
use crate::{Learning, Rules, Values, multistep};

/// A move: its direction, afterstate and reward.
type Move<B> = (Direction, B, u32);

/// The move of the largest reward + expected value of the position it
/// leads to, the earlier of up, right, down, left on a tie; `None` when no
/// move is legal.
fn best_move<G: Rules, V: Values<G::Board>>(
    game: &G,
    values: &V,
    board: G::Board,
) -> Option<Move<G::Board>> {
    let mut best: Option<(Move<G::Board>, f32)> = None;
    for (direction, afterstate) in Direction::ALL.into_iter().zip(game.afterstates(board)) {
        let Some((afterstate, reward)) = afterstate else {
            continue;
        };
        let total = reward as f32 + game.expected(afterstate, |state| values.estimate(state));
        if best.is_none_or(|(_, best_total)| total > best_total) {
            best = Some(((direction, afterstate, reward), total));
        }
    }
    best.map(|(choice, _)| choice)
}

/// Plays one episode choosing moves by state values, learning as
/// `learning` says (`None`: play only; its alpha and norm are used, its
/// mode and target must be TD(0) online's): once the position after a move
/// and its tile is known, the position before moves towards the move's
/// reward plus the new position's value (0 for a position with no move,
/// whose value moves towards 0). `watch` follows the game.
pub fn play_states<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    learning: Option<&Learning>,
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let rate = learning.map(|learning| learning.rate(values.feature_count()));
    let instruct = |state, target| {
        if let Some(rate) = rate {
            multistep::instruct(values, state, target, rate);
        }
    };
    let mut board = game.initial(rng);
    watch.start(board);
    let (mut score, mut moves) = (0u64, 0u64);
    let mut previous: Option<(G::Board, u32)> = None;
    loop {
        let choice = best_move(game, values, board);
        if let Some((before, reward)) = previous {
            let ahead = if choice.is_some() {
                values.estimate(board)
            } else {
                0.0
            };
            instruct(before, reward as f32 + ahead);
        }
        let Some((direction, afterstate, reward)) = choice else {
            instruct(board, 0.0);
            break;
        };
        previous = Some((board, reward));
        score += u64::from(reward);
        moves += 1;
        let next = game.spawn(afterstate, rng);
        watch.step(direction, afterstate, next);
        board = next;
    }
    Outcome {
        score,
        moves,
        max_tile: game.max_tile(board),
        nodes: 0,
    }
}
