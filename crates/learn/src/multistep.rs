//! Episodes learnt from with returns longer than one step: n-step TD and
//! TD(lambda), online with a delay or after the episode, as TDL2048+'s
//! `step`, `step-backward`, `lambda`, `lambda-forward` and
//! `lambda-backward` modes compute them, update for update.
//!
//! Each update re-estimates the afterstate it moves, as TDL2048+ does: a
//! value cached moves ago may since have been changed by the updates in
//! between.

use rand::Rng;

use crate::greedy::best_move;
use crate::watch::{Outcome, Watch};
use crate::{Rules, Values};

/// The moves of an episode: each afterstate with the reward of the move
/// that made it.
type Path<B> = Vec<(B, u32)>;

/// Moves `afterstate` (or a state) a step of `rate` towards `target`, from
/// its value now; returns its new value.
#[inline]
pub(crate) fn instruct<B: Copy, V: Values<B>>(
    values: &V,
    afterstate: B,
    target: f32,
    rate: f32,
) -> f32 {
    values.update(afterstate, rate * (target - values.estimate(afterstate)))
}

/// Plays an episode greedily, calling `each` with the path so far and the
/// move chosen before the move is taken; returns the path and the outcome.
fn play_path<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
    mut each: impl FnMut(&Path<G::Board>, u32, f32),
) -> (Path<G::Board>, Outcome) {
    let mut board = game.initial(rng);
    watch.start(board);
    let mut path: Path<G::Board> = Vec::with_capacity(1024);
    while let Some(choice) = best_move(game, values, board) {
        each(&path, choice.reward, choice.value);
        path.push((choice.afterstate, choice.reward));
        board = game.spawn(choice.afterstate, rng);
        watch.step(choice.direction, choice.afterstate, board);
    }
    let outcome = Outcome {
        score: path.iter().map(|&(_, reward)| u64::from(reward)).sum(),
        moves: path.len() as u64,
        max_tile: game.max_tile(board),
        nodes: 0,
    };
    (path, outcome)
}

/// n-step TD during the episode: afterstate t is updated once move t + n
/// is chosen, towards r(t+1) + ... + r(t+n) + V(a(t+n)); the last n after
/// the episode, towards the rewards left.
pub(crate) fn steps_online<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    (rate, n): (f32, usize),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    // The rewards of the afterstates from `first` on, the oldest not yet
    // updated.
    let (mut first, mut rewards) = (0, 0u64);
    let (path, outcome) = play_path(game, values, rng, watch, |path, reward, value| {
        if path.len() - first == n {
            let (afterstate, own) = path[first];
            rewards -= u64::from(own);
            let target = (rewards + u64::from(reward)) as f32 + value;
            instruct(values, afterstate, target, rate);
            first += 1;
        }
        rewards += u64::from(reward);
    });
    for &(afterstate, own) in &path[first..] {
        rewards -= u64::from(own);
        instruct(values, afterstate, rewards as f32, rate);
    }
    outcome
}

/// n-step TD after the episode, from the last afterstate to the first,
/// each target bootstrapped from the value n moves on as just updated.
pub(crate) fn steps_backward<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    (rate, n): (f32, usize),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let (path, outcome) = play_path(game, values, rng, watch, |_, _, _| {});
    let len = path.len();
    // The rewards of the afterstates after the one updated, up to n.
    let mut rewards = 0u64;
    for t in (len.saturating_sub(n)..len).rev() {
        instruct(values, path[t].0, rewards as f32, rate);
        rewards += u64::from(path[t].1);
    }
    for t in (0..len.saturating_sub(n)).rev() {
        let (ahead, reward) = path[t + n];
        rewards -= u64::from(reward);
        let target = (rewards + u64::from(reward)) as f32 + values.estimate(ahead);
        instruct(values, path[t].0, target, rate);
        rewards += u64::from(path[t].1);
    }
    outcome
}

/// TD(lambda) after the episode, from the last afterstate to the first:
/// the lambda-return over the rest of the episode, each from the values
/// just updated.
pub(crate) fn lambda_episode<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    (rate, lambda): (f32, f32),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let (path, outcome) = play_path(game, values, rng, watch, |_, _, _| {});
    // z(t+1), r(t+1) and V(a(t+1)), updated, for afterstate t.
    let (mut z, mut reward, mut value) = (0.0f32, 0.0f32, 0.0f32);
    for &(afterstate, own) in path.iter().rev() {
        z = reward + (lambda * z + (1.0 - lambda) * value);
        value = instruct(values, afterstate, z, rate);
        reward = own as f32;
    }
    outcome
}

/// The lambda-return of afterstate `t` from the later ones up to `end`
/// (excluded), each estimated now, `z` being z(end).
#[inline]
fn lambda_return<B: Copy, V: Values<B>>(
    values: &V,
    path: &Path<B>,
    (t, end): (usize, usize),
    lambda: f32,
    mut z: f32,
) -> f32 {
    for &(afterstate, reward) in path[t + 1..end].iter().rev() {
        let value = values.estimate(afterstate);
        z = reward as f32 + (lambda * z + (1.0 - lambda) * value);
    }
    z
}

/// TD(lambda) truncated to `n` moves, during the episode: afterstate t is
/// updated once move t + n is chosen; the last n after the episode, their
/// returns running to its end.
pub(crate) fn lambda_online<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    (rate, lambda, n): (f32, f32, usize),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let mut first = 0;
    let (path, outcome) = play_path(game, values, rng, watch, |path, reward, value| {
        if path.len() - first == n {
            let end = reward as f32 + value;
            let z = lambda_return(values, path, (first, path.len()), lambda, end);
            instruct(values, path[first].0, z, rate);
            first += 1;
        }
    });
    for t in first..path.len() {
        let z = lambda_return(values, &path, (t, path.len()), lambda, 0.0);
        instruct(values, path[t].0, z, rate);
    }
    outcome
}

/// TD(lambda) truncated to `n` moves, after the episode, from the last
/// afterstate to the first, each return from the values just updated.
pub(crate) fn lambda_backward<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    (rate, lambda, n): (f32, f32, usize),
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let (path, outcome) = play_path(game, values, rng, watch, |_, _, _| {});
    let len = path.len();
    for t in (len.saturating_sub(n)..len).rev() {
        let z = lambda_return(values, &path, (t, len), lambda, 0.0);
        instruct(values, path[t].0, z, rate);
    }
    for t in (0..len.saturating_sub(n)).rev() {
        let (ahead, reward) = path[t + n];
        let end = reward as f32 + values.estimate(ahead);
        let z = lambda_return(values, &path, (t, t + n), lambda, end);
        instruct(values, path[t].0, z, rate);
    }
    outcome
}
