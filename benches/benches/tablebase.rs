//! Tablebase kernels on the largest layers of the 442 formation's table for
//! 128: generating a layer (children marked by rank, as 442's large tiles
//! never move, or listed, pre-deduplicated, sorted and made unique), the
//! sort-and-unique step alone, solving a layer (its lookups in the next
//! two), and lookups alone; and on free8's table for 16: generating its
//! largest layer (children marked by rank of their class of symmetric
//! boards, or sorted), solving the layer before it, whose child layers are
//! too large for the caches (the batched solve), sorting a layer with its
//! rates for its file, and the canonical forms of its moves under full
//! symmetry.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use tablebase::internals::{generate, in_memory, solve};
use tablebase::{Canon, Formation, Mover, Spec, internals};

fn kernels(c: &mut Criterion) {
    let spec = Spec::new(Formation::builtin("442").unwrap(), 7, 0.1).unwrap();
    let mover = Mover::new(spec.formation().large());
    let layers = in_memory::build::<f64>(&spec);
    // The largest layer that is generated from two expanded parents and
    // solved from two layers after it.
    let index = (2..layers.len() - 2)
        .filter(|&i| !spec.is_horizon(i) && spec.expands(i - 1) && spec.expands(i - 2))
        .max_by_key(|&i| layers[i].len())
        .expect("a middle layer");
    let boards = layers[index].boards().to_vec();
    let (after_two, after_four) = (layers[index - 1].boards(), layers[index - 2].boards());
    assert_eq!(
        generate::layer(&spec, &mover, index, after_two, after_four),
        boards,
        "the kernel regenerates the built layer"
    );

    let mut group = c.benchmark_group("tablebase");
    group.sample_size(10);
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("generate layer", |b| {
        b.iter(|| generate::layer(&spec, &mover, index, black_box(after_two), after_four))
    });
    group.bench_function("generate layer by sorting", |b| {
        b.iter(|| generate::by_sorting(&spec, &mover, index, black_box(after_two), after_four))
    });
    let mut children = Vec::new();
    for &board in after_two {
        internals::children(&spec, &mover, board, 1, &mut |child| children.push(child));
    }
    group.bench_function("sort and unique", |b| {
        b.iter(|| internals::sort_unique(black_box(&children).clone()).len())
    });
    let (next, after) = (&layers[index + 1], &layers[index + 2]);
    group.bench_function("solve layer", |b| {
        b.iter(|| {
            solve::layer(
                &spec,
                &mover,
                index,
                black_box(&boards),
                [next, after],
                solve::BATCH_MOST,
            )
        })
    });
    group.throughput(Throughput::Elements(next.len() as u64));
    group.bench_function("lookups", |b| {
        b.iter(|| {
            black_box(next.boards())
                .iter()
                .map(|&board| next.rate(board))
                .sum::<f64>()
        })
    });
    group.finish();
}

/// Generating free8-16's largest layer, by class or by sorting; solving the
/// layer before it, whose child layers outgrow the caches: the batched
/// solve that looks children up region by region; sorting that layer with
/// its rates, as its file is written; and the canonical forms of the four
/// moves of each of its positions, one board at a time and four at once,
/// as free formations list their children.
fn free8(c: &mut Criterion) {
    let spec = Spec::new(Formation::builtin("free8").unwrap(), 4, 0.1).unwrap();
    let mover = Mover::new(spec.formation().large());
    let layers = in_memory::build::<f64>(&spec);
    let index = (1..layers.len() - 2)
        .filter(|&i| !spec.is_horizon(i) && spec.expands(i - 1))
        .max_by_key(|&i| layers[i + 1].len())
        .expect("a layer before the horizon");
    let boards = layers[index].boards();
    let (next, after) = (&layers[index + 1], &layers[index + 2]);
    let (after_two, after_four) = (boards, layers[index - 1].boards());
    assert_eq!(
        generate::layer(&spec, &mover, index + 1, after_two, after_four),
        next.boards(),
        "the kernel regenerates the built layer"
    );
    let mut group = c.benchmark_group("tablebase");
    group.sample_size(10);
    group.throughput(Throughput::Elements(next.len() as u64));
    group.bench_function("generate free8 layer by class", |b| {
        b.iter(|| generate::layer(&spec, &mover, index + 1, black_box(after_two), after_four))
    });
    group.bench_function("generate free8 layer by sorting", |b| {
        b.iter(|| generate::by_sorting(&spec, &mover, index + 1, black_box(after_two), after_four))
    });
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("solve free8 layer in batches", |b| {
        b.iter(|| {
            solve::layer(
                &spec,
                &mover,
                index,
                black_box(boards),
                [next, after],
                solve::BATCH_MOST,
            )
        })
    });
    // The layer out of order (a hash's order, as scattered as the order of
    // rank that a free layer is solved in), sorted with its rates for its
    // file: the radix sort, and rayon's sort of pairs that it replaced.
    let mut scattered: Vec<(u64, f64)> = (boards.iter().copied())
        .zip(layers[index].rates().iter().copied())
        .collect();
    scattered.sort_unstable_by_key(|&(board, _)| board.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    group.bench_function("sort free8 layer with its rates", |b| {
        b.iter(|| {
            let (mut boards, mut rates): (Vec<u64>, Vec<f64>) =
                black_box(&scattered).iter().copied().unzip();
            internals::sort_with_values(&mut boards, &mut rates);
            (boards, rates)
        })
    });
    group.bench_function("sort free8 layer with its rates as pairs", |b| {
        b.iter(|| {
            let mut pairs = black_box(&scattered).clone();
            pairs.par_sort_unstable_by_key(|&(board, _)| board);
            let sorted: (Vec<u64>, Vec<f64>) = pairs.into_par_iter().unzip();
            sorted
        })
    });
    let moves: Vec<[u64; 4]> = boards.iter().map(|&board| mover.slide_all(board)).collect();
    group.throughput(Throughput::Elements(4 * moves.len() as u64));
    fn fold(forms: impl Iterator<Item = [u64; 4]>) -> u64 {
        forms.fold(0, |all, four| all ^ four[0] ^ four[1] ^ four[2] ^ four[3])
    }
    group.bench_function("canonical forms one at a time", |b| {
        b.iter(|| {
            fold(
                black_box(&moves)
                    .iter()
                    .map(|four| four.map(|board| Canon::Full.canonical(board))),
            )
        })
    });
    group.bench_function("canonical forms four at once", |b| {
        b.iter(|| {
            fold(
                black_box(&moves)
                    .iter()
                    .map(|&four| Canon::Full.canonical_all(four)),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, kernels, free8);
criterion_main!(benches);
