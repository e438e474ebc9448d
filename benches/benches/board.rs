//! Board speed: all four moves of a board, the canonical form (one board
//! at a time and four at once), and whole random games. Each suite checks
//! its answers before timing them.

use std::hint::black_box;

use benches::{random_game_boards, reference_slide};
use board::{Board, Direction, Game, RandomPolicy, SpawnRule, Symmetry};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const BOARDS: usize = 4096;

fn afterstates(c: &mut Criterion) {
    let boards = random_game_boards(BOARDS);
    for &board in &boards {
        let all = board.afterstates();
        for direction in Direction::ALL {
            let found = all[direction].map(|a| (a.board, a.reward));
            assert_eq!(
                found,
                reference_slide(board, direction),
                "{board:?} {direction}"
            );
        }
    }
    let mut group = c.benchmark_group("board");
    group.throughput(Throughput::Elements(BOARDS as u64));
    // The sum reads every outcome without branching on legality, so the
    // time is the moves' own and not that of mispredicted branches.
    group.bench_function("afterstates", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for &board in black_box(&boards) {
                for outcome in board.afterstates().0 {
                    let mixed = outcome.map_or(0, |a| a.board.raw() ^ u64::from(a.reward));
                    sum = sum.wrapping_add(mixed);
                }
            }
            sum
        })
    });
    group.bench_function("canonical", |b| {
        for &board in &boards {
            let smallest = Symmetry::ALL.map(|s| board.transform(s)).into_iter().min();
            assert_eq!(Some(board.canonical()), smallest);
        }
        b.iter(|| {
            black_box(&boards)
                .iter()
                .fold(0u64, |sum, board| sum ^ board.canonical().raw())
        })
    });
    group.bench_function("canonical four at once", |b| {
        let fours: Vec<[Board; 4]> = boards
            .chunks_exact(4)
            .map(|four| four.try_into().expect("chunks of four"))
            .collect();
        for &four in &fours {
            assert_eq!(Board::canonical_four(four), four.map(Board::canonical));
        }
        b.iter(|| {
            black_box(&fours).iter().fold(0u64, |sum, &four| {
                let [a, b, c, d] = Board::canonical_four(four);
                sum ^ a.raw() ^ b.raw() ^ c.raw() ^ d.raw()
            })
        })
    });
    group.finish();
}

/// Whole games with a random policy, spawns included: moves per second.
fn random_games(c: &mut Criterion) {
    const GAMES: u64 = 64;
    let play = |seed: u64| {
        let mut spawns = Pcg64Mcg::seed_from_u64(seed);
        let game = Game::new(SpawnRule::STANDARD, &mut spawns);
        let mut policy = RandomPolicy(Pcg64Mcg::seed_from_u64(!seed));
        game.play_out(&mut policy, &mut spawns)
            .expect("random moves are legal")
    };
    let moves: usize = (0..GAMES).map(|seed| play(seed).steps.len()).sum();
    for seed in 0..GAMES {
        let episode = play(seed);
        assert!(episode.last.is_game_over());
        for step in &episode.steps {
            let expected = reference_slide(step.board, step.direction);
            assert_eq!(
                Some((step.afterstate.board, step.afterstate.reward)),
                expected
            );
        }
    }
    let mut group = c.benchmark_group("game");
    group.throughput(Throughput::Elements(moves as u64));
    group.bench_function("random", |b| {
        b.iter(|| {
            (0..GAMES)
                .map(|seed| play(black_box(seed)).steps.len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, afterstates, random_games);
criterion_main!(benches);
