//! A built table answers for any orientation of a position.

use board::{Board, Direction, Symmetry};
use tablebase::builder::{self, Options};
use tablebase::{Formation, Spec, Table};

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
        let rates = table.move_rates(board).unwrap();
        informative += usize::from(
            rates
                .rates
                .iter()
                .flatten()
                .any(|&rate| rate > 0.0 && rate < 1.0),
        );
        for symmetry in Symmetry::ALL {
            let turned = Board::from_raw(board).transform(symmetry).raw();
            let turned_rates = table.move_rates(turned).unwrap();
            for direction in Direction::ALL {
                assert_eq!(
                    turned_rates.rates[symmetry.direction(direction).index()],
                    rates.rates[direction.index()],
                    "{symmetry:?} {direction:?}"
                );
            }
            assert_eq!(
                table
                    .afterstate_rate(Board::from_raw(afterstate).transform(symmetry).raw())
                    .unwrap(),
                table.afterstate_rate(afterstate).unwrap()
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
        table.afterstate_rate(layer.boards()[0]).unwrap(),
        layer.rates()[0]
    );
}

/// Each precision's table holds the rates solved in its type
/// (`tablebase::rate`), the u32 table the reference's fixed point.
#[test]
fn stored_rates_are_those_solved_in_the_precisions_type() {
    use tablebase::storage::Precision;
    use tablebase::{Fixed, Rate, memory};

    fn stored(spec: &Spec, precision: Precision) -> Vec<(u64, f64)> {
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            precision,
            ..Options::default()
        };
        builder::build(spec, dir.path(), options, None, &mut |_| {}).unwrap();
        let table = Table::open(dir.path()).unwrap();
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

    fn solved<R: Rate>(spec: &Spec) -> Vec<(u64, f64)> {
        memory::build::<R>(spec)
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

    let spec = Spec::new(
        Formation::builtin("442").unwrap().with_extra_steps(8),
        5,
        0.1,
    )
    .unwrap();
    assert_eq!(stored(&spec, Precision::U32), solved::<Fixed>(&spec));
    assert_eq!(stored(&spec, Precision::F32), solved::<f32>(&spec));
    assert_eq!(stored(&spec, Precision::F64), solved::<f64>(&spec));
}

/// A layer file of another table, put in a table's folder (a copy gone
/// wrong), is refused rather than read as the table's own: one of the same
/// formation, precision and layer but another target, then another 4-rate.
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
