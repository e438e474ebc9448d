//! Each way of learning from an episode, checked update for update against
//! hand-computed weights on a game of four forced moves.
//!
//! The game: position t has one legal move, whose afterstate is t and whose
//! reward is `REWARDS[t]`; the next position is t + 1, and position 4 has
//! no move. The value function is a table of one weight per afterstate
//! (or state), so with one feature the rate is alpha, here 0.5.

use std::sync::Mutex;

use learn::{Carousel, Learning, Mode, Restart, Rules, Target, Values};
use rand::Rng;

const REWARDS: [u32; 4] = [2, 4, 8, 16];
const START: [f32; 4] = [10.0, 20.0, 30.0, 40.0];

struct Chain;

impl Rules for Chain {
    type Board = usize;

    fn initial<R: Rng>(&self, _: &mut R) -> usize {
        0
    }

    fn afterstates(&self, board: usize) -> [Option<(usize, u32)>; 4] {
        [
            REWARDS.get(board).map(|&reward| (board, reward)),
            None,
            None,
            None,
        ]
    }

    fn spawn<R: Rng>(&self, afterstate: usize, _: &mut R) -> usize {
        afterstate + 1
    }

    fn max_tile(&self, _: usize) -> u8 {
        0
    }

    fn expected(&self, afterstate: usize, mut value: impl FnMut(usize) -> f32) -> f32 {
        value(afterstate + 1)
    }
}

/// One weight per position: afterstates 0 to 3, or states 0 to 4 (4 has no
/// move).
struct Table<const N: usize>(Mutex<[f32; N]>);

impl<const N: usize> Values<usize> for Table<N> {
    fn estimate(&self, board: usize) -> f32 {
        self.0.lock().unwrap()[board]
    }

    fn update(&self, board: usize, amount: f32) -> f32 {
        let mut weights = self.0.lock().unwrap();
        weights[board] += amount;
        weights[board]
    }

    fn feature_count(&self) -> usize {
        1
    }
}

/// The weights after one episode learnt as `mode` and `target` say.
fn learnt(mode: Mode, target: Target) -> [f32; 4] {
    learnt_with(mode, target, None)
}

fn learnt_with(mode: Mode, target: Target, restart: Option<Restart>) -> [f32; 4] {
    let table = Table(Mutex::new(START));
    let learning = Learning {
        alpha: 0.5,
        norm: None,
        mode,
        target,
        restart,
        carousel: None,
    };
    let mut rng = rand_pcg::Pcg64::new(1, 1);
    let outcome = learn::play(&Chain, &table, Some(&learning), &mut rng, &mut ());
    assert_eq!((outcome.score, outcome.moves), (30, 4));
    table.0.into_inner().unwrap()
}

const LAMBDA: f32 = 0.5;

#[test]
fn td0_moves_each_afterstate_towards_the_next_reward_and_value() {
    // a0 after move 1: 4 + 20 = 24, so 10 + (24 - 10) / 2 = 17; a1: 8 + 30
    // = 38, 29; a2: 16 + 40 = 56, 43; a3: 0, 20.
    assert_eq!(
        learnt(Mode::Online, Target::OneStep),
        [17.0, 29.0, 43.0, 20.0]
    );
    // Backward: a3 to 0: 20; a2 to 16 + 20: 33; a1 to 8 + 33: 30.5; a0 to
    // 4 + 30.5: 22.25.
    assert_eq!(
        learnt(Mode::Backward, Target::OneStep),
        [22.25, 30.5, 33.0, 20.0]
    );
}

#[test]
fn n_step_td_online_waits_n_moves() {
    // a0 once move 2 is chosen: 4 + 8 + V(a2) 30 = 42, so 26; a1 at move 3:
    // 8 + 16 + 40 = 64, 42; then the rewards left: a2 to 16, 23; a3 to 0,
    // 20.
    for mode in [Mode::Online, Mode::Forward] {
        assert_eq!(learnt(mode, Target::Steps(2)), [26.0, 42.0, 23.0, 20.0]);
    }
}

#[test]
fn n_step_td_backward_bootstraps_from_updated_values() {
    // a3 to 0: 20; a2 to 16: 23; a1 to 8 + 16 + V(a3) 20 = 44: 32; a0 to
    // 4 + 8 + V(a2) 23 = 35: 22.5.
    assert_eq!(
        learnt(Mode::Backward, Target::Steps(2)),
        [22.5, 32.0, 23.0, 20.0]
    );
}

#[test]
fn lambda_over_the_episode_recurs_from_its_end() {
    // z(t+1) = r(t+1) + lambda z(t+2) + (1 - lambda) V(a(t+1)), updated:
    // a3 to 0: 20; a2 to 16 + 0 + 10 = 26: 28; a1 to 8 + 13 + 14 = 35:
    // 27.5; a0 to 4 + 17.5 + 13.75 = 35.25: 22.625.
    let target = Target::Lambda {
        lambda: LAMBDA,
        window: None,
    };
    for mode in [Mode::Online, Mode::Backward] {
        assert_eq!(learnt(mode, target), [22.625, 27.5, 28.0, 20.0]);
    }
}

#[test]
fn lambda_truncated_online_bootstraps_at_the_window() {
    // a0 at move 2: z(2) = 8 + 30 = 38, z(1) = 4 + 19 + 10 = 33: 21.5; a1
    // at move 3: z(3) = 56, z(2) = 8 + 28 + 15 = 51: 35.5; then a2: z(3) =
    // 16 + 0 + 20 = 36: 33; a3 to 0: 20.
    let target = Target::Lambda {
        lambda: LAMBDA,
        window: Some(2),
    };
    assert_eq!(learnt(Mode::Online, target), [21.5, 35.5, 33.0, 20.0]);
}

#[test]
fn lambda_truncated_backward_uses_updated_values() {
    // a3 to 0: 20; a2 to 16 + 0 + 10 = 26: 28; a1: z(3) = 16 + 20 = 36,
    // z(2) = 8 + 18 + 14 = 40: 30; a0: z(2) = 8 + 28 = 36, z(1) = 4 + 18 +
    // 15 = 37: 23.5.
    let target = Target::Lambda {
        lambda: LAMBDA,
        window: Some(2),
    };
    assert_eq!(learnt(Mode::Backward, target), [23.5, 30.0, 28.0, 20.0]);
}

#[test]
fn restarts_learn_again_from_partway_through() {
    // The game of four moves (TD(0) as above), then one from a1 (halfway:
    // (4 - 1) x 0.5 rounds down to 1), of two moves, too few for another.
    let restart = Some(Restart {
        at: 0.5,
        min_moves: 3,
    });
    // Online: a1 (29) to 8 + V(a2) 43 = 51: 40; a2 to 16 + V(a3) 20 = 36:
    // 39.5; a3 to 0: 10.
    let online = learnt_with(Mode::Online, Target::OneStep, restart);
    assert_eq!(online, [17.0, 40.0, 39.5, 10.0]);
    // Backward: a3 to 0: 10; a2 (33) to 16 + 10 = 26: 29.5; a1 stays.
    let backward = learnt_with(Mode::Backward, Target::OneStep, restart);
    assert_eq!(backward, [22.25, 30.5, 29.5, 10.0]);
}

/// The chain of [`Chain`] at levels of shaping: the board is (position,
/// level); moves and rewards are the chain's, whatever the level. Its
/// kinds are 16 per level and an empty cell, and shaping to kinds k
/// restarts from afterstate 1 at level k / 16. An episode's first tile is spawned on the board two
/// before position 0.
struct Levels;

impl Rules for Levels {
    type Board = (usize, u32);

    fn initial<R: Rng>(&self, _: &mut R) -> (usize, u32) {
        (0, 0)
    }

    fn afterstates(&self, (position, level): (usize, u32)) -> [Option<((usize, u32), u32)>; 4] {
        Chain
            .afterstates(position)
            .map(|a| a.map(|(after, reward)| ((after, level), reward)))
    }

    fn spawn<R: Rng>(&self, (position, level): (usize, u32), _: &mut R) -> (usize, u32) {
        (position.wrapping_add(1), level)
    }

    fn max_tile(&self, _: (usize, u32)) -> u8 {
        0
    }

    fn expected(&self, _: (usize, u32), _: impl FnMut((usize, u32)) -> f32) -> f32 {
        unreachable!("afterstate learning only")
    }

    fn empty(&self) -> Option<(usize, u32)> {
        Some((usize::MAX - 1, 0))
    }

    fn kinds(&self, (_, level): (usize, u32)) -> u32 {
        // Bit 0: an empty cell, for the next tile.
        (16 * level) | 1
    }

    fn with_kinds(&self, _: (usize, u32), kinds: u32) -> (usize, u32) {
        (1, kinds / 16)
    }
}

impl<const N: usize> Values<(usize, u32)> for Table<N> {
    fn estimate(&self, (position, _): (usize, u32)) -> f32 {
        Values::<usize>::estimate(self, position)
    }

    fn update(&self, (position, _): (usize, u32), amount: f32) -> f32 {
        Values::<usize>::update(self, position, amount)
    }

    fn feature_count(&self) -> usize {
        1
    }
}

#[test]
fn carousel_shaping_plays_on_from_raised_boards() {
    // Block 16: the game of four moves (TD(0) as above) ends with a3, whose
    // move earned 16, at level 0: kinds 1 + 16 = 17, below the limit 48, so
    // the next game restarts from afterstate 1 at level 1, then again at
    // level 2 (17 + 16 = 33), and stops at 49.
    let shaped = |mode| {
        let table = Table(Mutex::new(START));
        let learning = Learning {
            alpha: 0.5,
            mode,
            carousel: Some(Carousel {
                block: 16,
                limit: 48,
            }),
            ..Learning::default()
        };
        let mut rng = rand_pcg::Pcg64::new(1, 1);
        let outcome = learn::play(&Levels, &table, Some(&learning), &mut rng, &mut ());
        assert_eq!((outcome.score, outcome.moves), (30, 4), "the first game's");
        table.0.into_inner().unwrap()
    };
    // Online, each later game first moves a1 (29) to 8 + V(a2) 43 = 51: 40;
    // a2 to 16 + V(a3) 20 = 36: 39.5; a3 to 0: 10. The third: a1 to 8 +
    // 39.5 = 47.5: 43.75; a2 to 16 + 10 = 26: 32.75; a3 to 0: 5.
    assert_eq!(shaped(Mode::Online), [17.0, 43.75, 32.75, 5.0]);
    // Backward, from the end of each game: a3 to 0: 10; a2 (33) to 16 + 10
    // = 26: 29.5; then a3: 5; a2 to 16 + 5 = 21: 25.25. a1 stays.
    assert_eq!(shaped(Mode::Backward), [22.25, 30.5, 25.25, 5.0]);
}

#[test]
fn state_values_move_towards_the_reward_and_the_next_position() {
    let table = Table(Mutex::new([10.0, 20.0, 30.0, 40.0, 50.0]));
    let learning = Learning {
        alpha: 0.5,
        ..Learning::default()
    };
    let mut rng = rand_pcg::Pcg64::new(1, 1);
    let outcome = learn::play_states(&Chain, &table, Some(&learning), &mut rng, &mut ());
    assert_eq!((outcome.score, outcome.moves), (30, 4));
    // s0 to 2 + V(s1) 20 = 22: 16; s1 to 4 + 30 = 34: 27; s2 to 8 + 40 =
    // 48: 39; s3 to 16 + 0 (s4 has no move) = 16: 28; s4 to 0: 25.
    assert_eq!(
        table.0.into_inner().unwrap(),
        [16.0, 27.0, 39.0, 28.0, 25.0]
    );
}
