//! Playing one episode greedily on a network, learning from it or not.

use board::{Afterstate, Board, SpawnRule, WideBoard};
use ntuple::Network;
use rand::Rng;
use search::{Evaluator, Expectimax, Settings, TranspositionTable};

use crate::Learning;

/// What one episode came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The sum of the rewards.
    pub score: u64,
    /// The number of moves played.
    pub moves: u64,
    /// The largest tile exponent reached.
    pub max_tile: u8,
    /// The search nodes visited choosing the moves (0 for the 1-ply player).
    pub nodes: u64,
}

/// The move the greedy 1-ply player takes on `board`: the legal move with the
/// largest reward + V(afterstate), the earlier of up, right, down, left on a
/// tie (as TDL2048+). Returns the afterstate and its value V, or `None` when
/// no move is legal.
#[inline]
pub fn best_move(network: &Network, board: Board) -> Option<(Afterstate, f32)> {
    let afterstates = board.afterstates();
    // Start fetching every weight the four estimates need, so that their
    // memory accesses overlap instead of following one another.
    for afterstate in afterstates.0.into_iter().flatten() {
        network.prefetch(afterstate.board);
    }
    let mut best: Option<(Afterstate, f32, f32)> = None;
    for afterstate in afterstates.0.into_iter().flatten() {
        let value = network.estimate(afterstate.board);
        let total = afterstate.reward as f32 + value;
        if best.is_none_or(|(_, _, best_total)| total > best_total) {
            best = Some((afterstate, value, total));
        }
    }
    best.map(|(afterstate, value, _)| (afterstate, value))
}

/// Plays one episode from a fresh board without learning, choosing each move
/// by an expectimax search of `evaluator` as `settings` say, with a
/// transposition table if one is given.
///
/// With `downgrade`, the game is played on a [`WideBoard`], so two 32768
/// make a real 65536, and the search sees [`WideBoard::downgraded`] copies
/// once a tile reaches that exponent (TDL2048+'s `-h`).
pub fn play_searched<E: Evaluator + ?Sized, R: Rng>(
    evaluator: &E,
    settings: Settings,
    table: Option<&TranspositionTable>,
    downgrade: Option<u8>,
    rng: &mut R,
) -> Outcome {
    let spawns = settings.spawns;
    let mut search = Expectimax::with_settings(evaluator, settings, table);
    let mut board = WideBoard::from(spawns.initial(rng));
    let (mut score, mut moves) = (0u64, 0u64);
    loop {
        // Without downgrading, a plain 64-bit board: a wide board never
        // reaches 65536 here, since two 32768 merge as the 64-bit board does.
        let seen = match downgrade {
            Some(threshold) => board.downgraded(threshold),
            None => board.low(),
        };
        let choice = search.choose(seen);
        let afterstate = match downgrade {
            // The copy moves as the board does; should clamping have made
            // them differ, the first legal move of the board is played.
            Some(_) => choice
                .and_then(|choice| board.slide(choice.direction))
                .or_else(|| board.afterstates().iter().next().map(|(_, a)| a)),
            // The search already slid the board itself.
            None => choice.map(|choice| Afterstate {
                board: WideBoard::from(choice.afterstate.board),
                reward: choice.afterstate.reward,
            }),
        };
        let Some(afterstate) = afterstate else { break };
        score += u64::from(afterstate.reward);
        moves += 1;
        let (cell, exponent) = spawns
            .draw(afterstate.board.empty_mask(), rng)
            .expect("a legal move leaves an empty cell");
        board = afterstate.board.with_tile(cell, exponent);
    }
    Outcome {
        score,
        moves,
        max_tile: board.max_tile(),
        nodes: search.nodes(),
    }
}

/// Plays one episode from a fresh board, choosing moves with [`best_move`]
/// and learning as `learning` says (`None`: play only).
pub fn play<R: Rng>(
    network: &Network,
    spawns: &SpawnRule,
    learning: Option<&Learning>,
    rng: &mut R,
) -> Outcome {
    let rate = learning.map_or(0.0, |learning| learning.rate(network));
    match learning.map(|learning| learning.mode) {
        None => play_online(network, spawns, None, rng),
        Some(crate::Mode::Online) => play_online(network, spawns, Some((rate, false)), rng),
        Some(crate::Mode::Forward) => play_online(network, spawns, Some((rate, true)), rng),
        Some(crate::Mode::Backward) => play_backward(network, spawns, rate, rng),
    }
}

/// Plays an episode, updating each afterstate as soon as the next move is
/// chosen (when `learn` is set): towards r + V(next afterstate), from the
/// value cached when it was chosen, or re-estimated if `learn.1` (forward).
/// The last afterstate's target is 0.
fn play_online<R: Rng>(
    network: &Network,
    spawns: &SpawnRule,
    learn: Option<(f32, bool)>,
    rng: &mut R,
) -> Outcome {
    let mut board = spawns.initial(rng);
    let (mut score, mut moves) = (0u64, 0u64);
    let mut previous: Option<(Board, f32)> = None;
    while let Some((afterstate, value)) = best_move(network, board) {
        if let (Some((rate, reestimate)), Some((before, cached))) = (learn, previous) {
            let current = if reestimate {
                network.estimate(before)
            } else {
                cached
            };
            let target = afterstate.reward as f32 + value;
            network.update(before, rate * (target - current));
        }
        previous = Some((afterstate.board, value));
        score += u64::from(afterstate.reward);
        moves += 1;
        board = spawns
            .spawn(afterstate.board, rng)
            .expect("a legal move leaves an empty cell");
    }
    if let (Some((rate, reestimate)), Some((before, cached))) = (learn, previous) {
        let current = if reestimate {
            network.estimate(before)
        } else {
            cached
        };
        network.update(before, rate * -current);
    }
    Outcome {
        score,
        moves,
        max_tile: board.max_tile(),
        nodes: 0,
    }
}

/// Plays the whole episode, then updates its afterstates from the last to
/// the first, each towards the reward of the next move plus the freshly
/// updated value of the next afterstate.
fn play_backward<R: Rng>(network: &Network, spawns: &SpawnRule, rate: f32, rng: &mut R) -> Outcome {
    let mut board = spawns.initial(rng);
    let mut path: Vec<Afterstate> = Vec::with_capacity(1024);
    while let Some((afterstate, _)) = best_move(network, board) {
        path.push(afterstate);
        board = spawns
            .spawn(afterstate.board, rng)
            .expect("a legal move leaves an empty cell");
    }
    let mut target = 0.0f32;
    for afterstate in path.iter().rev() {
        let error = target - network.estimate(afterstate.board);
        let updated = network.update(afterstate.board, rate * error);
        target = afterstate.reward as f32 + updated;
    }
    Outcome {
        score: path.iter().map(|a| u64::from(a.reward)).sum(),
        moves: path.len() as u64,
        max_tile: board.max_tile(),
        nodes: 0,
    }
}
