use rand::{Rng, SeedableRng};

use super::*;
use crate::Formation;

/// The positions kept are those a plain filter keeps, in order, over
/// several pieces, some keeping none and some all.
#[test]
fn positions_above_zero_are_kept_in_order() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
    let len = 300_000;
    let boards: Vec<u64> = (0..len as u64).map(|at| at * 7 + 1).collect();
    let rates: Vec<f64> = (0..len)
        .map(|at| match at >> 16 {
            1 => 0.0,
            2 => 0.5,
            _ => f64::from(u8::try_from(rng.next_u64() % 3).unwrap()) / 2.0,
        })
        .collect();
    let (expected_boards, expected_rates): (Vec<u64>, Vec<f64>) = boards
        .iter()
        .zip(&rates)
        .filter(|&(_, &rate)| rate > 0.0)
        .unzip();
    let (kept_boards, kept_rates) = kept(&boards, &rates);
    assert_eq!(kept_boards, expected_boards);
    assert_eq!(kept_rates, expected_rates);
    assert!(kept_boards.len() > len / 3 && kept_boards.len() < len);
    assert_eq!(kept::<f64>(&[], &[]), (Vec::new(), Vec::new()));
}

/// Batches grow with the child layers up to the cap, and the cap keeps
/// a thread's scratch within the bytes it is given.
#[test]
fn batches_follow_the_layers_within_the_memory() {
    let (least, most) = (*BATCHES.start(), BATCH_MOST);
    assert_eq!(children_per_batch(1 << 18, most), least);
    assert_eq!(children_per_batch(1 << 20, most), 1 << 18);
    assert_eq!(children_per_batch(3 << 20, most), 1 << 20);
    assert_eq!(children_per_batch(7_000_000, most), most);
    assert_eq!(children_per_batch(7_000_000, 1 << 19), 1 << 19);
    assert_eq!(batch_within(0), least);
    assert_eq!(batch_within(u64::MAX), most);
    for mib in [16u64, 40, 100, 150, 1000] {
        let bytes = mib << 20;
        let batch = batch_within(bytes);
        assert!(batch * SCRATCH_PER_CHILD <= bytes as usize || batch == least);
        assert!(2 * batch * SCRATCH_PER_CHILD > bytes as usize || batch == most);
        let largest = 7_000_000;
        let scratch = scratch_bytes(largest, batch) - (largest / REGION + 2) as u64 * 4;
        assert!(scratch <= bytes.max((least * SCRATCH_PER_CHILD) as u64));
    }
    assert_eq!(scratch_bytes(CACHED, most), 0);
}

/// The threads' batches together list about what one thread's would: the
/// scratch does not grow with the threads until each has the smallest.
#[test]
fn threads_share_one_threads_batch() {
    let (least, most) = (*BATCHES.start(), BATCH_MOST);
    assert_eq!(batch_of_threads(1), most);
    assert_eq!(batch_of_threads(0), most);
    for threads in [2, 3, 5, 16, 100, 4096] {
        let batch = batch_of_threads(threads);
        assert!(batch >= least, "{threads}");
        assert!(threads * batch <= most || batch == least, "{threads}");
        assert!(2 * threads * batch > most, "{threads}");
    }
}

/// Child layers of many regions and more children than a batch: the
/// layer solver, and its batches on their own, must give exactly the
/// rates of the one-position solver.
#[test]
fn solving_a_layer_in_batches_matches_one_position_at_a_time() {
    let spec = Spec::new(Formation::builtin("L3").unwrap(), 8, 0.1).unwrap();
    let mover = Mover::new(spec.formation().large());
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    // Parents: the L3 frame with random small tiles in its ten cells.
    let seed = spec.formation().seeds()[0];
    let frame = (0..16)
        .filter(|cell| seed >> (4 * cell) & 0xF == 0xF)
        .fold(0u64, |frame, cell| frame | 0xF << (4 * cell));
    assert_eq!(frame.count_ones(), 24, "six large tiles");
    let mut parents: Vec<u64> = (0..60_000)
        .map(|_| {
            (0..16)
                .filter(|cell| frame >> (4 * cell) & 0xF == 0)
                .fold(frame, |board, cell| {
                    let tile = rng.next_u64() % 17;
                    let tile = tile.saturating_sub(8);
                    board | tile << (4 * cell)
                })
        })
        .collect();
    parents.sort_unstable();
    parents.dedup();
    // The child layers: most of the parents' children, at random rates.
    let layers = [0, 1].map(|side| {
        let mut boards = Vec::new();
        for &parent in &parents {
            for_each_child(&spec, &mover, parent, 1..=2, |_, of, child| {
                if of == side && rng.next_u64() % 5 != 0 {
                    boards.push(child);
                }
            });
        }
        boards.sort_unstable();
        boards.dedup();
        let rates = boards
            .iter()
            .map(|_| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
            .collect();
        Solved::new(boards, rates)
    });
    assert!(layers.iter().all(|layer| layer.len() > 16 * REGION));

    let index = 1;
    assert!(!spec.is_horizon(index));
    let one: Vec<u64> = parents
        .iter()
        .map(|&parent| rate(&spec, &mover, parent, index, &layers[0], &layers[1]))
        .map(f64::to_bits)
        .collect();
    let solved = layer(
        &spec,
        &mover,
        index,
        &parents,
        [&layers[0], &layers[1]],
        BATCH_MOST,
    );
    let bits = |rates: &[f64]| rates.iter().map(|rate| rate.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&solved), one);
    // All the parents in one work item: several batches.
    let mut listed = 0;
    for &parent in &parents {
        for_each_child(&spec, &mover, parent, 1..=2, |_, side, _| {
            listed += usize::from(side == 0)
        });
    }
    let batch = batch([&layers[0], &layers[1]], BATCH_MOST);
    assert_eq!(batch, *BATCHES.start());
    assert!(listed > 3 * batch);
    let mut whole = vec![0.0; parents.len()];
    let layers = [&layers[0], &layers[1]];
    Sweep::default().solve(&spec, &mover, index, &parents, layers, batch, &mut whole);
    assert_eq!(bits(&whole), one);
    assert!(solved.iter().filter(|&&rate| rate > 0.0).count() > parents.len() / 2);
}
