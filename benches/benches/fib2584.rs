//! 2584 Fibonacci speed: the four slides of a board, and network estimates
//! and updates for the course's networks, on boards from greedy games.

use std::hint::black_box;

use board::Direction;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fib2584::{Board, Fibonacci, Network, slide_towards_first};
use learn::{Rules, best_move};
use ntuple::parse_patterns;

const BOARDS: usize = 4096;

/// Boards met by the greedy player of an untrained 2x4 network.
fn game_boards(count: usize) -> Vec<Board> {
    let network = Network::new(parse_patterns(["2x4patt"]).unwrap(), 32, u64::MAX).unwrap();
    let game = Fibonacci::STANDARD;
    let mut boards = Vec::with_capacity(count);
    let mut episode = 0;
    while boards.len() < count {
        let mut rng = learn::episode_rng(7, episode);
        let mut board = game.initial(&mut rng);
        while let Some(choice) = best_move(&game, &network, board) {
            boards.push(board);
            board = game.spawn(choice.afterstate, &mut rng);
        }
        episode += 1;
    }
    boards.truncate(count);
    boards
}

fn slides(c: &mut Criterion) {
    let boards = game_boards(BOARDS);
    for &board in &boards {
        let slid = board
            .slide(Direction::Left)
            .map_or(board, |(after, _)| after);
        for row in 0..4 {
            let line = [0, 1, 2, 3].map(|j| board.tile(4 * row + j));
            let expected = slide_towards_first(line).0;
            assert_eq!([0, 1, 2, 3].map(|j| slid.tile(4 * row + j)), expected);
        }
    }
    let mut group = c.benchmark_group("fib2584");
    group.throughput(Throughput::Elements(BOARDS as u64));
    group.bench_function("afterstates", |b| {
        b.iter(|| {
            let mut sum = 0u128;
            for &board in black_box(&boards) {
                for (after, reward) in board.afterstates().into_iter().flatten() {
                    sum = sum.wrapping_add(after.raw() ^ u128::from(reward));
                }
            }
            sum
        })
    });
    group.finish();
}

fn networks(c: &mut Criterion) {
    let boards = game_boards(BOARDS);
    let mut group = c.benchmark_group("fib2584-network");
    group.throughput(Throughput::Elements(BOARDS as u64));
    // 4x6patt at radix 12 (48 MiB) takes the clamping path of radix 22
    // without the course network's 1.7 GiB.
    for (name, radix) in [("8x4patt", 32), ("2x4patt", 32), ("4x6patt", 12)] {
        let network = Network::new(parse_patterns([name]).unwrap(), radix, u64::MAX).unwrap();
        group.bench_function(format!("estimate/{name}"), |b| {
            b.iter(|| {
                black_box(&boards)
                    .iter()
                    .map(|&board| network.estimate(board))
                    .sum::<f32>()
            })
        });
        group.bench_function(format!("update/{name}"), |b| {
            b.iter(|| {
                black_box(&boards)
                    .iter()
                    .map(|&board| network.update(board, 1e-6))
                    .sum::<f32>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, slides, networks);
criterion_main!(benches);
