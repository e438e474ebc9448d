//! Search speed: expectimax nodes per second with the heuristic evaluator at
//! 2p and 3p, with and without a transposition table. The searches are
//! first checked to choose the same moves with and without the table.

use std::hint::black_box;

use benches::random_game_boards;
use board::SpawnRule;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use search::{Depth, Expectimax, Heuristic, Settings, TranspositionTable};

fn expectimax(c: &mut Criterion) {
    // Consecutive positions of one game, as a player searches them: later
    // searches meet nodes of earlier ones, which is what a table is for.
    let boards = random_game_boards(64);
    let heuristic = Heuristic::new();
    let mut group = c.benchmark_group("expectimax");
    group.sample_size(10);
    for plies in [2, 3] {
        let settings = Settings {
            spawns: SpawnRule::STANDARD,
            ..Settings::new(Depth::new(plies).unwrap())
        };
        let mut counter = Expectimax::with_settings(&heuristic, settings, None);
        let plain: Vec<_> = boards
            .iter()
            .map(|&b| counter.choose(b).map(|c| c.direction))
            .collect();
        let table = TranspositionTable::new(64 << 20, false);
        let mut cached = Expectimax::with_settings(&heuristic, settings, Some(&table));
        let with_table: Vec<_> = boards
            .iter()
            .map(|&b| cached.choose(b).map(|c| c.direction))
            .collect();
        let agree = plain
            .iter()
            .zip(&with_table)
            .filter(|(a, b)| a == b)
            .count();
        // Symmetric images round differently, so a rare near-tie may differ.
        assert!(
            agree * 10 >= plain.len() * 9,
            "{agree} of {} agree",
            plain.len()
        );

        group.throughput(Throughput::Elements(counter.nodes()));
        group.bench_function(format!("{plies}p/nodes"), |b| {
            b.iter(|| {
                let mut search = Expectimax::with_settings(&heuristic, settings, None);
                for &board in black_box(&boards) {
                    black_box(search.choose(board));
                }
            })
        });
        group.throughput(Throughput::Elements(boards.len() as u64));
        group.bench_function(format!("{plies}p/moves"), |b| {
            b.iter(|| {
                let mut search = Expectimax::with_settings(&heuristic, settings, None);
                for &board in black_box(&boards) {
                    black_box(search.choose(board));
                }
            })
        });
        // A fresh table for each pass, made outside the timing.
        group.bench_function(format!("{plies}p/moves-with-table"), |b| {
            b.iter_batched(
                || TranspositionTable::new(64 << 20, false),
                |table| {
                    let mut search = Expectimax::with_settings(&heuristic, settings, Some(&table));
                    for &board in black_box(&boards) {
                        black_box(search.choose(board));
                    }
                    table
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, expectimax);
criterion_main!(benches);
