//! Network speed: the value of a board and its update, for 4x6patt and
//! 8x6patt, on tables filled with weights (untouched memory would read as
//! the shared zero page and flatter the figures). Each suite first checks
//! the fast path against the plain definition of the value.

use std::hint::black_box;

use benches::random_game_boards;
use board::{Board, Symmetry};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ntuple::{Network, parse_patterns};

const BOARDS: usize = 4096;

/// A network with small integer weights everywhere, so sums are exact.
fn filled(name: &str) -> Network {
    let mut network = Network::new(parse_patterns([name]).unwrap()).unwrap();
    for (number, table) in network.tables_mut().iter_mut().enumerate() {
        table.fill(number as f32 + 1.0);
    }
    network
}

/// The value by definition, feature by feature.
fn reference(network: &Network, board: Board) -> f32 {
    network
        .patterns()
        .iter()
        .zip(network.tables())
        .map(|(pattern, table)| {
            Symmetry::ALL
                .iter()
                .map(|&s| table.get(pattern.index(board.transform(s))))
                .sum::<f32>()
        })
        .sum()
}

fn networks(c: &mut Criterion) {
    let boards = random_game_boards(BOARDS);
    let mut group = c.benchmark_group("network");
    group.throughput(Throughput::Elements(BOARDS as u64));
    for name in ["4x6patt", "8x6patt"] {
        let network = filled(name);
        for &board in &boards[..64] {
            assert_eq!(
                network.estimate(board),
                reference(&network, board),
                "{name}"
            );
        }
        group.bench_function(format!("{name}/estimate"), |b| {
            b.iter(|| {
                black_box(&boards)
                    .iter()
                    .map(|&board| network.estimate(board))
                    .sum::<f32>()
            })
        });
        group.bench_function(format!("{name}/update"), |b| {
            // Adds and then takes away the same amount: the weights stay put.
            b.iter(|| {
                for &board in black_box(&boards) {
                    network.update(board, 0.5);
                    network.update(board, -0.5);
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, networks);
criterion_main!(benches);
