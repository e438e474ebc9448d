//! Built tables: they store what is solved in memory, and answer for any
//! orientation of a position.

use std::path::Path;

use board::{Board, Direction, Symmetry};
use tablebase::builder::{self, Options};
use tablebase::internals::in_memory;
use tablebase::{
    Canon, Fixed, Formation, FormationSpec, Large, Position, Precision, Rate, Spec, Table,
};

#[test]
fn every_orientation_gets_the_same_rates_for_the_same_moves() {
    let spec = Spec::new(
        Formation::builtin("L3").unwrap().with_extra_steps(8),
        5,
        0.1,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    builder::build(&spec, dir.path(), Options::default(), None, &mut |_| {}).unwrap();
    let table = Table::open(dir.path()).unwrap();
    let layer = table.layer(6).unwrap().read_all().unwrap();
    let (mut checked, mut informative) = (0, 0);
    // Positions to move from: stored afterstates with a 2 spawned.
    for &afterstate in layer.boards().iter().step_by(37) {
        let Some(cell) = (0..16).find(|&cell| (afterstate >> (4 * cell)) & 0xF == 0) else {
            continue;
        };
        let board = afterstate | 1 << (4 * cell);
        let rates = table.move_rates(at(board)).unwrap();
        informative += usize::from(
            rates
                .rates
                .iter()
                .flatten()
                .any(|&rate| rate > 0.0 && rate < 1.0),
        );
        for symmetry in Symmetry::ALL {
            let turned = Board::from_raw(board).transform(symmetry).raw();
            let turned_rates = table.move_rates(at(turned)).unwrap();
            for direction in Direction::ALL {
                assert_eq!(
                    turned_rates.rates[symmetry.direction(direction).index()],
                    rates.rates[direction.index()],
                    "{symmetry:?} {direction:?}"
                );
            }
            assert_eq!(
                table
                    .afterstate_rate(at(Board::from_raw(afterstate).transform(symmetry).raw()))
                    .unwrap(),
                table.afterstate_rate(at(afterstate)).unwrap()
            );
        }
        checked += 1;
    }
    assert!(
        checked > 10 && informative > 5,
        "{checked} positions, {informative} with rates between 0 and 1"
    );
    // A rate read through the table is the stored one.
    assert_eq!(
        table.afterstate_rate(at(layer.boards()[0])).unwrap(),
        layer.rates()[0]
    );
}

/// How many layers a build solved whole, in segments against the two
/// layers after them held in memory, and in segments that fetched their
/// children from disk, and the most segments a layer took.
#[derive(Debug, Default)]
struct Plans {
    whole: usize,
    held: usize,
    fetched: usize,
    most_segments: usize,
}

/// A table built on disk in `dir` at `precision`, within `budget` bytes
/// if given, and how its layers were solved.
fn build(spec: &Spec, dir: &Path, precision: Precision, budget: Option<u64>) -> (Table, Plans) {
    let options = Options {
        precision,
        ..Options::default()
    };
    let mut plans = Plans::default();
    let mut report = |event| {
        if let builder::Event::Solved {
            segments, fetched, ..
        } = event
        {
            match (segments, fetched) {
                (_, true) => plans.fetched += 1,
                (1, false) => plans.whole += 1,
                (_, false) => plans.held += 1,
            }
            plans.most_segments = plans.most_segments.max(segments);
        }
    };
    builder::build(spec, dir, options, budget, &mut report).unwrap();
    (Table::open(dir).unwrap(), plans)
}

/// Every position a table stores, with its rate, layer by layer.
fn stored(table: &Table, spec: &Spec) -> Vec<(u64, f64)> {
    (0..spec.steps())
        .flat_map(|index| {
            let layer = table.layer(index).unwrap().read_all().unwrap();
            layer
                .boards()
                .iter()
                .copied()
                .zip(layer.rates().to_vec())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every position of rate above 0 of the table solved in memory in `R`.
fn solved<R: Rate>(spec: &Spec) -> Vec<(u64, f64)> {
    in_memory::build::<R>(spec)
        .iter()
        .flat_map(|layer| {
            let rates = layer.rates().iter().map(|rate| rate.probability());
            layer
                .boards()
                .iter()
                .copied()
                .zip(rates)
                .collect::<Vec<_>>()
        })
        .filter(|&(_, rate)| rate > 0.0)
        .collect()
}

/// Each precision's table holds the rates solved in its type
/// (`tablebase::Rate`), the u32 table the reference's fixed point.
#[test]
fn stored_rates_are_those_solved_in_the_precisions_type() {
    let spec = Spec::new(
        Formation::builtin("442").unwrap().with_extra_steps(8),
        5,
        0.1,
    )
    .unwrap();
    let stored_at = |precision| {
        let dir = tempfile::tempdir().unwrap();
        let (table, _) = build(&spec, dir.path(), precision, None);
        // Recomputed exactly, in the precision's type.
        table.verify(200).unwrap();
        stored(&table, &spec)
    };
    assert_eq!(stored_at(Precision::U32), solved::<Fixed>(&spec));
    assert_eq!(stored_at(Precision::F32), solved::<f32>(&spec));
    assert_eq!(stored_at(Precision::F64), solved::<f64>(&spec));
}

/// Small tables of formations whose large tiles move: several masks (t),
/// a large tile free to move (L3f), and a free formation of five cells
/// for small tiles (no masks, eight symmetries, layer 0 made from the
/// seed).
fn moving_formations() -> [Spec; 3] {
    let free5 = FormationSpec {
        name: "free5".into(),
        masks: Vec::new(),
        target_cells: "0xffffffffffffffff".into(),
        canon: Canon::Full,
        large: Large::Sliding,
        seeds: vec!["0x01111fffffffffff".into()],
        extra_steps: 4,
        free: true,
    };
    [
        (Formation::builtin("t").unwrap(), 5),
        (Formation::builtin("L3f").unwrap(), 4),
        (Formation::new(free5).unwrap(), 5),
    ]
    .map(|(formation, target)| Spec::new(formation.with_extra_steps(4), target, 0.1).unwrap())
}

/// Formations whose large tiles move are generated by sorting and looked
/// up by index rather than by rank, and formations with symmetries and
/// walls by rank from canonical children: built on disk, whole and in
/// segments of both kinds, they store what is solved in memory (which
/// `tests/brute.rs` checks against brute force).
#[test]
fn every_kind_of_formation_is_stored_as_solved() {
    let fixed = [("LL", 4, 5), ("3x3", 8, 6), ("3x4", 4, 5)].map(|(name, extra, target)| {
        let formation = Formation::builtin(name).unwrap().with_extra_steps(extra);
        Spec::new(formation, target, 0.1).unwrap()
    });
    for spec in moving_formations().into_iter().chain(fixed) {
        let solved = solved::<f64>(&spec);
        assert!(solved.len() > 5_000, "{}: {}", spec.name(), solved.len());
        // No budget, one too small for any layer, and 256 KiB beyond the
        // 20 MiB a budget leaves aside (docs/tablebase.md, "Building"):
        // some layers whole, some in segments against the layers after
        // them in memory, and (but in 3x4) some fetching their children.
        for budget in [None, Some(1 << 10), Some((20 << 20) + (256 << 10))] {
            let dir = tempfile::tempdir().unwrap();
            let (table, plans) = build(&spec, dir.path(), Precision::F64, budget);
            let name = spec.name();
            match budget {
                None => assert_eq!((plans.held, plans.fetched), (0, 0), "{name}"),
                Some(1024) => {
                    assert_eq!((plans.whole, plans.held), (0, 0), "{name}");
                    assert!(plans.most_segments > 1, "{name}: {plans:?}");
                }
                Some(_) => assert!(plans.whole > 0 && plans.held > 0, "{name}: {plans:?}"),
            }
            assert_eq!(stored(&table, &spec), solved, "{name}, {budget:?}");
        }
    }
}

/// A free formation's large layers are generated and solved by class
/// (one board of each class of symmetric boards, in order of rank), yet
/// stored in canonical order, solved whole or, within a budget that
/// leaves room for the marks of generation but not for the layers, in
/// segments that list their positions in canonical order first.
#[test]
fn free_layers_by_class_are_stored_as_solved() {
    let free6 = FormationSpec {
        name: "free6".into(),
        masks: Vec::new(),
        target_cells: "0xffffffffffffffff".into(),
        canon: Canon::Full,
        large: Large::Sliding,
        seeds: vec!["0x011111ffffffffff".into()],
        extra_steps: 8,
        free: true,
    };
    let spec = Spec::new(Formation::new(free6).unwrap(), 5, 0.1).unwrap();
    let solved = solved::<f64>(&spec);
    for budget in [None, Some(24 << 20)] {
        let dir = tempfile::tempdir().unwrap();
        let (table, plans) = build(&spec, dir.path(), Precision::F64, budget);
        if budget.is_some() {
            assert!(plans.held + plans.fetched > 0, "{plans:?}");
        }
        assert!(stored(&table, &spec) == solved, "{budget:?}");
    }
}

/// A position may fit a formation in more than one orientation (41% of
/// L3f-32's do, none of t's): every orientation of a stored position
/// reads the same rate, the best of those in which it fits (at least its
/// own), and every orientation of a position to move from (a 2 spawned)
/// the same rates for the same moves.
#[test]
fn every_orientation_reads_the_best_of_those_that_fit() {
    let turn = |board: u64, symmetry| Board::from_raw(board).transform(symmetry).raw();
    for spec in moving_formations() {
        let name = spec.name();
        let dir = tempfile::tempdir().unwrap();
        let (table, _) = build(&spec, dir.path(), Precision::U32, None);
        let (mut several, mut moved) = (0, 0);
        for (board, rate) in stored(&table, &spec).into_iter().step_by(251) {
            let read = table.afterstate_rate(at(board)).unwrap();
            assert!(read >= rate, "{name}: {read} < {rate}");
            several += usize::from(
                Symmetry::ALL
                    .into_iter()
                    .map(|symmetry| turn(board, symmetry))
                    .any(|seen| seen != board && spec.formation().fits(seen)),
            );
            let empty = (0..16).find(|&cell| (board >> (4 * cell)) & 0xF == 0);
            let to_move = empty.map(|cell| board | 1 << (4 * cell));
            // (Past the last layer, a board to move from is no table's.)
            let moves = to_move.and_then(|board| table.move_rates(at(board)).ok());
            moved += usize::from(moves.is_some());
            for symmetry in Symmetry::ALL {
                assert_eq!(
                    table.afterstate_rate(at(turn(board, symmetry))).unwrap(),
                    read
                );
                let (Some(to_move), Some(moves)) = (to_move, moves) else {
                    continue;
                };
                let turned = table.move_rates(at(turn(to_move, symmetry))).unwrap();
                for direction in Direction::ALL {
                    assert_eq!(
                        turned.rates[symmetry.direction(direction).index()],
                        moves.rates[direction.index()],
                        "{name} {symmetry:?} {direction:?}"
                    );
                }
            }
        }
        assert!(moved > 40, "{name}: {moved}");
        if name.starts_with("L3f") {
            assert!(several > 0, "{name}: no position fits in two orientations");
        }
    }
}

/// A layer file of another table, put in a table's folder (a copy gone
/// wrong), is refused rather than read as the table's own: one of the same
/// formation, precision and layer but another target, then another 4-rate.
/// A board of a variant is read only in the orientations that keep its
/// walls in their cells. Turned ones with the walls elsewhere were read
/// as positions the table lacks, and solving them from the table (nothing
/// it holds) made queries of 3x3-32 at more than a few extra steps fail.
#[test]
fn a_variants_walls_stay_in_their_cells() {
    let formation = Formation::builtin("3x3").unwrap().with_extra_steps(20);
    let spec = Spec::new(formation, 5, 0.1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (table, _) = build(&spec, dir.path(), Precision::U32, None);
    // A 2 in the upper-left corner of the 3x3 board (walls in the right
    // column and the bottom row), and the same board turned upside down.
    let board = Position::from_reference(0x100f_000f_000f_ffff).bits();
    let rates = table.move_rates(at(board)).unwrap();
    assert_eq!(rates.read_as.bits(), board);
    let (_, best) = rates.best().unwrap();
    assert!(best > 0.9, "{best}");
    let turned = Board::from_raw(board).transform(Symmetry::ALL[4]).raw();
    assert_ne!(turned, board);
    let turned_rates = table.move_rates(at(turned)).unwrap();
    assert_eq!(turned_rates.read_as.bits(), board);
    assert_eq!(turned_rates.best().unwrap().1, best);
    assert_eq!(
        table.afterstate_rate(at(turned)).unwrap(),
        table.afterstate_rate(at(board)).unwrap()
    );
}

#[test]
fn a_layer_file_of_another_table_is_refused() {
    let build = |target: u8, four_rate: f64| {
        let formation = Formation::builtin("L3").unwrap().with_extra_steps(4);
        let spec = Spec::new(formation, target, four_rate).unwrap();
        let dir = tempfile::tempdir().unwrap();
        builder::build(&spec, dir.path(), Options::default(), None, &mut |_| {}).unwrap();
        dir
    };
    let table = build(4, 0.1);
    let layer = |dir: &tempfile::TempDir| dir.path().join("layer-0003.tbl");
    let original = std::fs::read(layer(&table)).unwrap();
    for other in [build(5, 0.1), build(4, 0.25)] {
        std::fs::copy(layer(&other), layer(&table)).unwrap();
        let error = Table::open(table.path())
            .unwrap()
            .layer(3)
            .unwrap_err()
            .to_string();
        assert!(error.contains("belongs to another table"), "{error}");
    }
    std::fs::write(layer(&table), original).unwrap();
    assert!(Table::open(table.path()).unwrap().layer(3).is_ok());
}

/// `Table::verify` reads every layer through and recomputes positions
/// from their children: a built table passes; a layer rewritten with
/// rates its children do not give, or with its boards out of order (each
/// a valid file, checksum and all), fails, naming the file.
#[test]
fn verify_recomputes_positions_and_finds_wrong_rates_and_disorder() {
    use tablebase::LayerFile;
    use tablebase::internals::write_layer;

    let spec = Spec::new(
        Formation::builtin("L3").unwrap().with_extra_steps(8),
        5,
        0.1,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (table, _) = build(&spec, dir.path(), Precision::U32, None);
    let verified = table.verify(50).unwrap();
    let positions: u64 = (0..spec.steps())
        .map(|index| table.layer(index).unwrap().positions())
        .sum();
    assert_eq!(verified.layers, spec.steps());
    assert_eq!(verified.positions, positions);
    assert!(verified.recomputed > 10 * 50, "{verified:?}");
    assert!(
        verified.recomputed <= (spec.steps() - 2) * 50,
        "{verified:?}"
    );
    assert_eq!(table.verify(50).unwrap(), verified, "the same positions");
    // As many samples as positions: every position but the horizon's.
    let horizon: u64 = (spec.steps() - 2..spec.steps())
        .map(|index| table.layer(index).unwrap().positions())
        .sum();
    let every = table.verify(usize::MAX).unwrap();
    assert_eq!(every.recomputed as u64, positions - horizon);

    let index = spec.steps() / 2;
    let path = dir.path().join(format!("layer-{index:04}.tbl"));
    let file = LayerFile::open(&path).unwrap();
    let (header, layer) = (file.header().clone(), file.read_all().unwrap());
    drop(file);
    assert!(layer.len() > 1000, "{}", layer.len());
    let rewrite = |boards: &[u64], rates: &[f64]| {
        write_layer(&path, &header, boards, rates, 1).unwrap();
        Table::open(dir.path())
            .unwrap()
            .verify(50)
            .unwrap_err()
            .to_string()
    };
    let lowered: Vec<f64> = layer.rates().iter().map(|rate| rate * 0.99).collect();
    let error = rewrite(layer.boards(), &lowered);
    assert!(
        error.contains(&format!("layer-{index:04}.tbl: position 0x"))
            && error.contains("is stored as"),
        "{error}"
    );
    let mut swapped = layer.boards().to_vec();
    swapped.swap(10, 11);
    let error = rewrite(&swapped, layer.rates());
    assert!(error.contains("positions out of order"), "{error}");
    write_layer(&path, &header, layer.boards(), layer.rates(), 1).unwrap();
    assert_eq!(
        Table::open(dir.path()).unwrap().verify(50).unwrap(),
        verified
    );
}

#[test]
fn tables_compare_by_positions_and_rates_not_bytes() {
    use tablebase::Comparison;
    use tablebase::LayerFile;
    use tablebase::internals::{BLOCK, write_layer};

    let spec = Spec::new(
        Formation::builtin("L3").unwrap().with_extra_steps(8),
        5,
        0.1,
    )
    .unwrap();
    let [a, b, other] = [(); 3].map(|()| tempfile::tempdir().unwrap());
    let (table, _) = build(&spec, a.path(), Precision::U32, None);
    let level = Options {
        level: 7,
        ..Options::default()
    };
    builder::build(&spec, b.path(), level, None, &mut |_| {}).unwrap();
    let positions: u64 = (0..spec.steps())
        .map(|index| table.layer(index).unwrap().positions())
        .sum();
    let compare = || table.compare(&Table::open(b.path()).unwrap()).unwrap();
    assert_eq!(
        compare(),
        Comparison::Same {
            layers: spec.steps(),
            positions
        }
    );

    // One rate a step of the stored precision off, past the first block.
    let index = spec.steps() / 2;
    let path = b.path().join(format!("layer-{index:04}.tbl"));
    let file = LayerFile::open(&path).unwrap();
    let (header, layer) = (file.header().clone(), file.read_all().unwrap());
    drop(file);
    assert!(layer.len() > BLOCK + 10, "{}", layer.len());
    let at = BLOCK + 7;
    let mut rates = layer.rates().to_vec();
    rates[at] += if rates[at] < 0.5 { 1e-6 } else { -1e-6 };
    write_layer(&path, &header, layer.boards(), &rates, 1).unwrap();
    let Comparison::Differs(difference) = compare() else {
        panic!("a changed rate unseen");
    };
    let board = Position::from_bits(layer.boards()[at]).to_string();
    assert!(
        difference.starts_with(&format!("layer {index}: position {board} reads ")),
        "{difference}"
    );
    // One board another, in order.
    let mut boards = layer.boards().to_vec();
    let at = (1..boards.len() - 1)
        .find(|&at| boards[at] + 1 < boards[at + 1])
        .unwrap();
    boards[at] += 1;
    write_layer(&path, &header, &boards, layer.rates(), 1).unwrap();
    let Comparison::Differs(difference) = compare() else {
        panic!("a changed board unseen");
    };
    assert!(
        difference.starts_with(&format!("layer {index}: position number {at} is 0x")),
        "{difference}"
    );
    write_layer(&path, &header, layer.boards(), layer.rates(), 1).unwrap();
    assert!(matches!(compare(), Comparison::Same { .. }));

    // Another definition.
    let four = Spec::new(spec.formation().clone(), 5, 0.2).unwrap();
    builder::build(&four, other.path(), Options::default(), None, &mut |_| {}).unwrap();
    assert_eq!(
        table.compare(&Table::open(other.path()).unwrap()).unwrap(),
        Comparison::Differs("the tables' 4-rate differs".to_owned())
    );
}

/// Solving is announced with the work it holds, for progress weighted by
/// positions: every layer generated, before any is solved.
#[test]
fn solving_announces_its_positions() {
    let spec = Spec::new(
        Formation::builtin("L3").unwrap().with_extra_steps(8),
        5,
        0.1,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut events = Vec::new();
    builder::build(&spec, dir.path(), Options::default(), None, &mut |event| {
        events.push(event)
    })
    .unwrap();
    let generated: u64 = events
        .iter()
        .map(|event| match event {
            builder::Event::Generated { positions, .. } => *positions as u64,
            _ => 0,
        })
        .sum();
    let at = events
        .iter()
        .position(|event| matches!(event, builder::Event::Solving { .. }))
        .unwrap();
    let builder::Event::Solving { layers, positions } = events[at] else {
        unreachable!()
    };
    assert_eq!((layers, positions), (spec.steps(), generated));
    assert!(matches!(events[at - 1], builder::Event::Generated { .. }));
    assert!(matches!(events[at + 1], builder::Event::Solved { .. }));
}

/// The position of `board`'s cells.
fn at(board: u64) -> Position {
    Position::from_bits(board)
}
