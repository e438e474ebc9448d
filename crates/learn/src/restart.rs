//! Matsuzaki's restarts, as TDL2048+'s `restart` and `restart-backward`
//! modes play them: TD(0) on a game, then on games restarted from partway
//! through the one before ([`Restart`]).

use rand::Rng;

use crate::greedy::best_move;
use crate::watch::{Outcome, Watch};
use crate::{Restart, Rules, Values, multistep};

/// Plays an episode learning by TD(0) (during each game, or after it if
/// `backward`), restarting as `restart` says; returns the first game's
/// outcome. `watch` follows the first game only.
pub(crate) fn play<G: Rules, V: Values<G::Board>, R: Rng>(
    rules: &G,
    values: &V,
    (rate, backward, restart): (f32, bool, Restart),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let mut path = Vec::with_capacity(1024);
    let board = rules.initial(rng);
    watch.start(board);
    let learn = (rate, backward);
    let outcome = game((rules, values), (board, None), learn, rng, watch, &mut path);
    while path.len() >= restart.min_moves.max(1) as usize {
        let at = ((path.len() - 1) as f32 * restart.at) as usize;
        let (afterstate, _) = path[at.min(path.len() - 1)];
        let board = rules.spawn(afterstate, rng);
        game(
            (rules, values),
            (board, Some(afterstate)),
            learn,
            rng,
            &mut (),
            &mut path,
        );
    }
    outcome
}

/// Plays `board` to its end learning by TD(0), each update from the
/// afterstate's value now: during the game, each afterstate once the next
/// move is chosen (`after`, the afterstate the game was restarted from,
/// first), or after it from the last afterstate to the first (`backward`).
/// Leaves the game's afterstates and rewards in `path`.
pub(crate) fn game<G: Rules, V: Values<G::Board>, R: Rng>(
    (rules, values): (&G, &V),
    (mut board, mut after): (G::Board, Option<G::Board>),
    (rate, backward): (f32, bool),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
    path: &mut Vec<(G::Board, u32)>,
) -> Outcome {
    let instruct = |afterstate, target| multistep::instruct(values, afterstate, target, rate);
    path.clear();
    while let Some(choice) = best_move(rules, values, board) {
        if let Some(before) = after.filter(|_| !backward) {
            instruct(before, choice.reward as f32 + choice.value);
        }
        after = Some(choice.afterstate);
        path.push((choice.afterstate, choice.reward));
        board = rules.spawn(choice.afterstate, rng);
        watch.step(choice.direction, choice.afterstate, board);
    }
    if backward {
        let mut target = 0.0;
        for &(afterstate, reward) in path.iter().rev() {
            target = reward as f32 + instruct(afterstate, target);
        }
    } else if let Some(last) = after {
        instruct(last, 0.0);
    }
    Outcome {
        score: path.iter().map(|&(_, reward)| u64::from(reward)).sum(),
        moves: path.len() as u64,
        max_tile: rules.max_tile(board),
        nodes: 0,
    }
}
