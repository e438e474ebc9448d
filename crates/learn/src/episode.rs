//! Playing one episode greedily on a network, learning from it or not.

use board::{Afterstate, Direction, SpawnRule, WideBoard};
use rand::Rng;
use search::{Evaluator, Expectimax, Settings, TranspositionTable};

use crate::greedy::best_move;
use crate::watch::{Outcome, Watch};
use crate::{Learning, Rules, Values};

/// Plays one episode from a fresh board without learning, choosing each move
/// by an expectimax search of `evaluator` as `settings` say, with a
/// transposition table if one is given.
///
/// With `downgrade`, the game is played on a [`WideBoard`], so two 32768
/// make a real 65536, and the search sees [`WideBoard::downgraded`] copies
/// once a tile reaches that exponent (TDL2048+'s `-h`). `watch` follows
/// the game.
pub fn play_searched<E: Evaluator + ?Sized, R: Rng>(
    evaluator: &E,
    settings: Settings,
    table: Option<&TranspositionTable>,
    downgrade: Option<u8>,
    rng: &mut R,
    watch: &mut impl Watch<WideBoard>,
) -> Outcome {
    let spawns = settings.spawns;
    let mut search = Expectimax::with_settings(evaluator, settings, table);
    let outcome = play_wide(spawns, rng, watch, |board| {
        // Without downgrading, a plain 64-bit board: a wide board never
        // reaches 65536 here, since two 32768 merge as the 64-bit board does.
        let seen = match downgrade {
            Some(threshold) => board.downgraded(threshold),
            None => board.low(),
        };
        let choice = search.choose(seen);
        match downgrade {
            // The copy moves as the board does; should clamping have made
            // them differ, the first legal move of the board is played.
            Some(_) => choice
                .and_then(|choice| Some((choice.direction, board.slide(choice.direction)?)))
                .or_else(|| board.afterstates().iter().next()),
            // The search already slid the board itself.
            None => choice.map(|choice| {
                let afterstate = Afterstate {
                    board: WideBoard::from(choice.afterstate.board),
                    reward: choice.afterstate.reward,
                };
                (choice.direction, afterstate)
            }),
        }
    });
    Outcome {
        nodes: search.nodes(),
        ..outcome
    }
}

/// Plays one game on the wide board from a fresh one, spawning as `spawns`
/// says: `play` makes each move (a legal slide of the board it is given,
/// and its afterstate), until it returns `None`. `watch` follows the game.
/// The outcome counts no search nodes.
pub fn play_wide<R: Rng, W: Watch<WideBoard> + ?Sized>(
    spawns: SpawnRule,
    rng: &mut R,
    watch: &mut W,
    mut play: impl FnMut(WideBoard) -> Option<(Direction, Afterstate<WideBoard>)>,
) -> Outcome {
    let mut board = WideBoard::from(spawns.initial(rng));
    watch.start(board);
    let (mut score, mut moves) = (0u64, 0u64);
    while let Some((direction, afterstate)) = play(board) {
        score += u64::from(afterstate.reward);
        moves += 1;
        let (cell, exponent) = spawns
            .draw(afterstate.board.empty_mask(), rng)
            .expect("a legal move leaves an empty cell");
        board = afterstate.board.with_tile(cell, exponent);
        watch.step(direction, afterstate.board, board);
    }
    Outcome {
        score,
        moves,
        max_tile: board.max_tile(),
        nodes: 0,
    }
}

/// Plays one episode of `game` from a fresh board, choosing moves with
/// [`best_move`] and learning as `learning` says (`None`: play only): its
/// mode, its target ([`crate::Target`]), its restarts ([`crate::Restart`])
/// and its carousel shaping ([`crate::Carousel`]). `watch` follows the game (`&mut ()` for none).
pub fn play<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    learning: Option<&Learning>,
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    use crate::{Mode, Target, multistep};

    let Some(learning) = learning else {
        return play_online(game, values, None, rng, watch);
    };
    let rate = learning.rate(values.feature_count());
    let after = learning.mode == Mode::Backward;
    if let Some(restart) = learning.restart {
        return crate::restart::play(game, values, (rate, after, restart), rng, watch);
    }
    if let Some(carousel) = learning.carousel {
        return crate::carousel::play(game, values, (rate, after, carousel), rng, watch);
    }
    match learning.target {
        Target::OneStep => match learning.mode {
            Mode::Online => play_online(game, values, Some((rate, false)), rng, watch),
            Mode::Forward => play_online(game, values, Some((rate, true)), rng, watch),
            Mode::Backward => play_backward(game, values, rate, rng, watch),
        },
        Target::Steps(n) if after => {
            multistep::steps_backward(game, values, (rate, n as usize), rng, watch)
        }
        Target::Steps(n) => multistep::steps_online(game, values, (rate, n as usize), rng, watch),
        Target::Lambda {
            lambda,
            window: None,
        } => multistep::lambda_episode(game, values, (rate, lambda), rng, watch),
        Target::Lambda {
            lambda,
            window: Some(n),
        } if after => {
            multistep::lambda_backward(game, values, (rate, lambda, n as usize), rng, watch)
        }
        Target::Lambda {
            lambda,
            window: Some(n),
        } => multistep::lambda_online(game, values, (rate, lambda, n as usize), rng, watch),
    }
}

/// Plays an episode, updating each afterstate as soon as the next move is
/// chosen (when `learn` is set): towards r + V(next afterstate), from the
/// value cached when it was chosen, or re-estimated if `learn.1` (forward).
/// The last afterstate's target is 0.
fn play_online<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    learn: Option<(f32, bool)>,
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let mut board = game.initial(rng);
    watch.start(board);
    let (mut score, mut moves) = (0u64, 0u64);
    let mut previous: Option<(G::Board, f32)> = None;
    let current = |(before, cached): (G::Board, f32), reestimate: bool| {
        if reestimate {
            values.estimate(before)
        } else {
            cached
        }
    };
    while let Some(choice) = best_move(game, values, board) {
        if let (Some((rate, reestimate)), Some(previous)) = (learn, previous) {
            let target = choice.reward as f32 + choice.value;
            let error = target - current(previous, reestimate);
            values.update(previous.0, rate * error);
        }
        if learn.is_some() {
            // Updated after the next move is chosen: start fetching now.
            values.prefetch_update(choice.afterstate);
        }
        previous = Some((choice.afterstate, choice.value));
        score += u64::from(choice.reward);
        moves += 1;
        board = game.spawn(choice.afterstate, rng);
        watch.step(choice.direction, choice.afterstate, board);
    }
    if let (Some((rate, reestimate)), Some(previous)) = (learn, previous) {
        values.update(previous.0, rate * -current(previous, reestimate));
    }
    Outcome {
        score,
        moves,
        max_tile: game.max_tile(board),
        nodes: 0,
    }
}

/// Plays the whole episode, then updates its afterstates from the last to
/// the first, each towards the reward of the next move plus the freshly
/// updated value of the next afterstate.
fn play_backward<G: Rules, V: Values<G::Board>, R: Rng>(
    game: &G,
    values: &V,
    rate: f32,
    rng: &mut R,
    watch: &mut impl Watch<G::Board>,
) -> Outcome {
    let mut board = game.initial(rng);
    watch.start(board);
    let mut path: Vec<(G::Board, u32)> = Vec::with_capacity(1024);
    while let Some(choice) = best_move(game, values, board) {
        path.push((choice.afterstate, choice.reward));
        board = game.spawn(choice.afterstate, rng);
        watch.step(choice.direction, choice.afterstate, board);
    }
    let mut target = 0.0f32;
    for &(afterstate, reward) in path.iter().rev() {
        let error = target - values.estimate(afterstate);
        let updated = values.update(afterstate, rate * error);
        target = reward as f32 + updated;
    }
    Outcome {
        score: path.iter().map(|&(_, reward)| u64::from(reward)).sum(),
        moves: path.len() as u64,
        max_tile: game.max_tile(board),
        nodes: 0,
    }
}
