//! The builder against a brute-force solver written plainly: recursive
//! expectimax over plain 4x4 arrays, memoised, without symmetries, in the
//! reference's arithmetic for each precision.

use std::collections::HashMap;

use board::{Board, Symmetry};
use rand::{RngExt, SeedableRng};
use tablebase::builder::{self, Options};
use tablebase::internals::in_memory;
use tablebase::{
    Canon, Fixed, Formation, FormationSpec, Large, Position, Precision, Rate, Spec, Table,
};

type Grid = [[u8; 4]; 4];

fn grid(board: u64) -> Grid {
    std::array::from_fn(|row| {
        std::array::from_fn(|col| ((board >> (4 * (4 * row + col))) & 0xF) as u8)
    })
}

fn raw(grid: &Grid) -> u64 {
    (0..16).fold(0, |board, cell| {
        board | u64::from(grid[cell / 4][cell % 4]) << (4 * cell)
    })
}

/// One line slid towards its start: runs between walls (or the whole line)
/// packed, then equal neighbours below 15 merged once each from the start.
fn slide(line: [u8; 4], large: Large) -> [u8; 4] {
    let mut out = [0u8; 4];
    let mut segment_start = 0;
    for end in 0..=4 {
        let at_wall = end < 4 && large == Large::Wall && line[end] == 15;
        if end < 4 && !at_wall {
            continue;
        }
        let mut tiles: Vec<u8> = line[segment_start..end]
            .iter()
            .copied()
            .filter(|&t| t != 0)
            .collect();
        let mut merged = Vec::new();
        while !tiles.is_empty() {
            if tiles.len() >= 2 && tiles[0] == tiles[1] && tiles[0] != 15 {
                merged.push(tiles[0] + 1);
                tiles.drain(..2);
            } else {
                merged.push(tiles.remove(0));
            }
        }
        for (offset, tile) in merged.into_iter().enumerate() {
            out[segment_start + offset] = tile;
        }
        if at_wall {
            out[end] = 15;
        }
        segment_start = end + 1;
    }
    out
}

/// The four moves (up, right, down, left) of a grid.
fn moves(board: u64, large: Large) -> [u64; 4] {
    let g = grid(board);
    let mut results = [g; 4];
    for i in 0..4 {
        let lines: [[(usize, usize); 4]; 4] = [
            std::array::from_fn(|k| (k, i)),
            std::array::from_fn(|k| (i, 3 - k)),
            std::array::from_fn(|k| (3 - k, i)),
            std::array::from_fn(|k| (i, k)),
        ];
        for (direction, cells) in lines.iter().enumerate() {
            let slid = slide(cells.map(|(r, c)| g[r][c]), large);
            for (&(r, c), tile) in cells.iter().zip(slid) {
                results[direction][r][c] = tile;
            }
        }
    }
    results.map(|g| raw(&g))
}

/// How the reference computes a table of each precision: in the stored
/// type, a rate being a number of that type's units (1, or 4,000,000,000
/// in fixed point) and each position's average cast back to the type.
#[derive(Clone, Copy, Debug)]
enum Arithmetic {
    F64,
    F32,
    U32,
}

impl Arithmetic {
    /// A won position's rate.
    fn one(self) -> f64 {
        match self {
            Self::F64 | Self::F32 => 1.0,
            Self::U32 => 4e9,
        }
    }

    /// The C++ cast of an average to the type.
    fn cast(self, average: f64) -> f64 {
        match self {
            Self::F64 => average,
            Self::F32 => f64::from(average as f32),
            Self::U32 => f64::from(average as u32),
        }
    }
}

struct Brute<'a> {
    spec: &'a Spec,
    arithmetic: Arithmetic,
    memo: HashMap<(u64, usize), f64>,
}

impl Brute<'_> {
    fn shows(&self, board: u64) -> bool {
        let cells = self.spec.formation().target_cells();
        (0..16).any(|cell| {
            (cells >> (4 * cell)) & 0xF == 0xF
                && (board >> (4 * cell)) & 0xF == u64::from(self.spec.target())
        })
    }

    fn fits(&self, board: u64) -> bool {
        let masks = self.spec.formation().masks();
        masks.is_empty()
            || masks.iter().any(|&mask| {
                (0..16).all(|cell| {
                    (mask >> (4 * cell)) & 0xF == 0 || (board >> (4 * cell)) & 0xF == 15
                })
            })
    }

    fn best(&mut self, spawned: u64, layer: usize) -> f64 {
        let large = self.spec.formation().large();
        let mut best = 0.0f64;
        for moved in moves(spawned, large) {
            if moved != spawned && self.fits(moved) {
                best = best.max(self.rate(moved, layer));
            }
        }
        best
    }

    fn rate(&mut self, board: u64, layer: usize) -> f64 {
        if let Some(&rate) = self.memo.get(&(board, layer)) {
            return rate;
        }
        let steps = self.spec.steps();
        let one = self.arithmetic.one();
        let rate = if layer + 2 >= steps {
            if self.shows(board) { one } else { 0.0 }
        } else if layer > self.spec.docheck() && self.shows(board) {
            one
        } else {
            let empty: Vec<usize> = (0..16)
                .filter(|&cell| (board >> (4 * cell)) & 0xF == 0)
                .collect();
            let four = self.spec.four_rate();
            let mut sum = 0.0;
            for &cell in &empty {
                let two = self.best(board | 1 << (4 * cell), layer + 1);
                let with_four = self.best(board | 2 << (4 * cell), layer + 2);
                sum += two * (1.0 - four);
                sum += with_four * four;
            }
            if empty.is_empty() {
                0.0
            } else {
                self.arithmetic.cast(sum / empty.len() as f64)
            }
        };
        self.memo.insert((board, layer), rate);
        rate
    }
}

/// Builds `formation` for `target` and checks every position of every
/// layer (up to `sample` per layer) and every seed against brute force,
/// within 1e-12 in `f64`.
fn check(formation: Formation, target: u8, four_rate: f64, sample: usize) {
    check_in::<f64>(formation, target, four_rate, sample, Arithmetic::F64, 1e-12);
}

/// [`check`] in `R`, against brute force in `arithmetic`, within
/// `tolerance` (as a probability; 0: bit for bit).
fn check_in<R: Rate>(
    formation: Formation,
    target: u8,
    four_rate: f64,
    sample: usize,
    arithmetic: Arithmetic,
    tolerance: f64,
) {
    let spec = Spec::new(formation, target, four_rate).unwrap();
    let layers = in_memory::build::<R>(&spec);
    let mut brute = Brute {
        spec: &spec,
        arithmetic,
        memo: HashMap::new(),
    };
    let mut checked = 0;
    let mut positive = 0;
    for (index, layer) in layers.iter().enumerate() {
        let step = (layer.len() / sample).max(1);
        for (&board, &rate) in layer.boards().iter().zip(layer.rates()).step_by(step) {
            let (rate, expected) = (rate.units(), brute.rate(board, index));
            assert!(
                (rate - expected).abs() <= tolerance * arithmetic.one(),
                "{} layer {index} board {}: built {rate}, brute force {expected} ({arithmetic:?})",
                spec.name(),
                Position::from_bits(board)
            );
            checked += 1;
            positive += usize::from(rate > 0.0 && rate < arithmetic.one());
        }
    }
    assert!(
        checked > 100 && positive > 10,
        "{}: {checked} checked, {positive} strictly between 0 and 1",
        spec.name()
    );
}

macro_rules! brute_force_tests {
    ($($name:ident: $formation:expr, $extra:expr, $target:expr, $four:expr;)*) => {$(
        #[test]
        fn $name() {
            let formation = Formation::builtin($formation).unwrap();
            check(formation.with_extra_steps($extra), $target, $four, 40);
        }
    )*};
}

brute_force_tests! {
    l3: "L3", 6, 5, 0.1;
    f442: "442", 6, 5, 0.1;
    f4442: "4442", 4, 4, 0.1;
    ll_diagonal: "LL", 4, 4, 0.1;
    f444_horizontal: "444", 4, 4, 0.1;
    variant_2x4: "2x4", 48, 5, 0.1;
    variant_3x3: "3x3", 8, 5, 0.1;
    variant_3x4: "3x4", 4, 5, 0.1;
    four_rate_is_a_parameter: "L3", 4, 5, 0.25;
    // Formations whose large tiles move: several masks, and a large tile
    // free to move (generated by sorting, not by rank).
    t_several_masks: "t", 4, 5, 0.1;
    f442t_sliding_blocks: "442t", 2, 5, 0.1;
    l3f_a_free_large_tile: "L3f", 4, 4, 0.1;
    f4432f_diagonal_and_target_cells: "4432f", 4, 4, 0.1;
}

/// u32 and f32 tables hold the reference's numbers, bit for bit: solved
/// from children in the stored type, each average cast back (truncated to
/// u32), on formations without symmetries (where the brute force adds a
/// position's cells in the builder's order). A u32 table is not the f64
/// table rounded.
#[test]
fn u32_and_f32_tables_are_solved_as_the_reference_solves_them() {
    for (name, target) in [("L3", 5), ("442", 5), ("4442", 4)] {
        let formation = || Formation::builtin(name).unwrap().with_extra_steps(6);
        check_in::<Fixed>(formation(), target, 0.1, 60, Arithmetic::U32, 0.0);
        check_in::<f32>(formation(), target, 0.1, 60, Arithmetic::F32, 0.0);
        check_in::<f64>(formation(), target, 0.1, 60, Arithmetic::F64, 0.0);
        let spec = Spec::new(formation(), target, 0.1).unwrap();
        let (fixed, float) = (
            in_memory::build::<Fixed>(&spec),
            in_memory::build::<f64>(&spec),
        );
        let rounded_differently = fixed
            .iter()
            .zip(&float)
            .flat_map(|(fixed, float)| fixed.rates().iter().zip(float.rates()))
            .filter(|&(fixed, float)| *fixed != Fixed::from_probability(*float))
            .count();
        assert!(rounded_differently > 1000, "{name}: {rounded_differently}");
    }
}

/// Full symmetry on a free formation small enough for brute force: four
/// cells for small tiles among twelve large tiles.
#[test]
fn free4_full_symmetry() {
    let spec = FormationSpec {
        name: "free4".into(),
        masks: Vec::new(),
        target_cells: "0xffffffffffffffff".into(),
        canon: Canon::Full,
        large: Large::Sliding,
        seeds: vec!["0x0111ffffffffffff".into()],
        extra_steps: 8,
        free: true,
    };
    check(Formation::new(spec).unwrap(), 5, 0.1, 40);
}

/// A board from a game may be one the seeds never lead to (a seed's own
/// moves are: nothing spawns before a seed), which the table does not
/// hold: a query solves it from the table, and gets what brute force
/// gets, where the table alone would read 0.
#[test]
fn positions_the_table_does_not_hold_are_solved_from_it() {
    for (name, extra, target, count) in [("L3", 6, 5, 150), ("t", 4, 5, 150), ("3x3", 8, 5, 500)] {
        let spec = Spec::new(
            Formation::builtin(name).unwrap().with_extra_steps(extra),
            target,
            0.1,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            precision: Precision::F64,
            ..Options::default()
        };
        builder::build(&spec, dir.path(), options, None, &mut |_| {}).unwrap();
        let table = Table::open(dir.path()).unwrap();
        let mut brute = Brute {
            spec: &spec,
            arithmetic: Arithmetic::F64,
            memo: HashMap::new(),
        };
        let formation = spec.formation();
        let large = formation.large();
        // Boards to move from: each seed, then random small tiles in a
        // seed's free cells.
        let seed = formation.seeds()[0];
        let free: Vec<usize> = (0..16)
            .filter(|&cell| (seed >> (4 * cell)) & 0xF != 15)
            .collect();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let random = std::iter::repeat_with(|| {
            free.iter().fold(
                seed & !free.iter().fold(0, |mask, cell| mask | 0xF << (4 * cell)),
                |board, &cell| {
                    let tile = if rng.random_bool(0.4) {
                        0
                    } else {
                        rng.random_range(1..target)
                    };
                    board | u64::from(tile) << (4 * cell)
                },
            )
        });
        let boards = formation.seeds().iter().copied().chain(random.take(count));
        let (mut checked, mut off_table) = (0, 0);
        for board in boards {
            let Some(layer) = spec.layer_of_sum(Position::from_bits(board).tile_sum()) else {
                continue;
            };
            // Brute force over the orientations that fit: the best
            // afterstate, and the best move.
            let fitting: Vec<u64> = Symmetry::ALL
                .into_iter()
                .map(|symmetry| Board::from_raw(board).transform(symmetry).raw())
                .filter(|&seen| formation.holds(seen))
                .collect();
            let afterstate = fitting
                .iter()
                .map(|&seen| brute.rate(seen, layer))
                .fold(0.0, f64::max);
            let best_move = fitting
                .iter()
                .flat_map(|&seen| moves(seen, large).map(move |moved| (seen, moved)))
                .filter(|&(seen, moved)| moved != seen && formation.fits(moved))
                .map(|(_, moved)| {
                    let rate = brute.rate(moved, layer);
                    let held = table
                        .layer(layer)
                        .unwrap()
                        .rate(formation.canon().canonical(moved))
                        .unwrap();
                    off_table += usize::from(held == 0.0 && rate > 0.0);
                    rate
                })
                .fold(None, |best: Option<f64>, rate| {
                    Some(best.map_or(rate, |best| best.max(rate)))
                });
            let rates = table.move_rates(Position::from_bits(board)).unwrap();
            let read = table.afterstate_rate(Position::from_bits(board)).unwrap();
            assert!(
                (read - afterstate).abs() <= 1e-12,
                "{name} {}: afterstate {read}, brute force {afterstate}",
                Position::from_bits(board)
            );
            let best = rates.best().map(|(_, rate)| rate);
            assert_eq!(
                best.is_some(),
                best_move.is_some(),
                "{name} {}",
                Position::from_bits(board)
            );
            if let (Some(best), Some(expected)) = (best, best_move) {
                assert!(
                    (best - expected).abs() <= 1e-12,
                    "{name} {}: best move {best}, brute force {expected}",
                    Position::from_bits(board)
                );
            }
            // Read in its own orientation, each move is brute force's.
            if fitting == [board] {
                for (moved, rate) in moves(board, large).into_iter().zip(rates.rates) {
                    let allowed = moved != board && formation.fits(moved);
                    assert_eq!(rate.is_some(), allowed);
                    if let Some(rate) = rate {
                        let expected = brute.rate(moved, layer);
                        assert!(
                            (rate - expected).abs() <= 1e-12,
                            "{name} {}: {rate}, brute force {expected}",
                            Position::from_bits(board)
                        );
                    }
                }
            }
            checked += 1;
        }
        assert!(
            checked > 40 && off_table > 30,
            "{name}: {checked} boards, {off_table} moves off the table"
        );
    }
}

proptest::proptest! {
    /// The move tables against the plain array moves, for both meanings
    /// of 0xF, on boards rich in 0xF and equal neighbours.
    #[test]
    fn moves_agree_with_plain_arrays(cells in proptest::collection::vec(proptest::sample::select(vec![0u8, 0, 1, 1, 2, 3, 14, 15, 15]), 16)) {
        let board = cells.iter().enumerate().fold(0u64, |b, (cell, &t)| b | u64::from(t) << (4 * cell));
        for large in [Large::Sliding, Large::Wall] {
            proptest::prop_assert_eq!(tablebase::Mover::new(large).slide_all(board), moves(board, large));
        }
    }
}
