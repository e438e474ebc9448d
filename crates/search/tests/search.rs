//! The search against a brute-force expectimax written plainly from the
//! definitions in ../shared/docs/tdl2048.md.

use board::{Board, Direction, SpawnRule};
use proptest::prelude::*;
use search::{Depth, Evaluator, Expectimax};

/// An evaluator of arbitrary values, negative ones included, so that the
/// clamping is exercised: a hash of the board into -500..1500.
struct Hashed;

impl Evaluator for Hashed {
    fn value(&self, afterstate: Board) -> f32 {
        let mixed = afterstate.raw().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        (mixed % 2000) as f32 - 500.0
    }
}

/// Expectimax by the definitions, over the spawn enumeration of
/// `SpawnRule::outcomes`, in f64.
fn chance(afterstate: Board, layers: u32, spawns: &SpawnRule) -> f64 {
    if layers == 0 {
        return f64::from(Hashed.value(afterstate));
    }
    spawns
        .outcomes(afterstate)
        .map(|(board, probability)| probability * best(board, layers, spawns))
        .sum()
}

fn best(board: Board, layers: u32, spawns: &SpawnRule) -> f64 {
    let values: Vec<f64> = Direction::ALL
        .into_iter()
        .filter_map(|direction| board.slide(direction))
        .map(|a| f64::from(a.reward) + chance(a.board, layers - 1, spawns).max(0.0))
        .collect();
    if values.is_empty() {
        0.0
    } else {
        values.into_iter().fold(f64::MIN, f64::max) + 1.0
    }
}

/// The root's score of every legal move.
fn root(board: Board, plies: u32, spawns: &SpawnRule) -> Vec<(Direction, f64)> {
    Direction::ALL
        .into_iter()
        .filter_map(|direction| Some((direction, board.slide(direction)?)))
        .map(|(direction, a)| {
            (
                direction,
                f64::from(a.reward) + chance(a.board, plies - 1, spawns),
            )
        })
        .collect()
}

/// Boards with few empty cells, so that depth 3 stays quick in debug builds.
fn boards() -> impl Strategy<Value = Board> {
    (
        proptest::collection::vec(1u8..=6, 16),
        proptest::collection::vec(0usize..16, 1..5),
    )
        .prop_map(|(cells, holes)| {
            let mut cells: [u8; 16] = cells.try_into().unwrap();
            for hole in holes {
                cells[hole] = 0;
            }
            Board::from_exponents(cells).unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn search_agrees_with_brute_force(board in boards(), plies in 1u32..=3, four_rate in prop_oneof![Just(0.1), 0.0f64..=1.0]) {
        let spawns = SpawnRule::new(four_rate).unwrap();
        let depth = Depth::new(plies as u8).unwrap();
        let choice = Expectimax::new(&Hashed, depth, spawns).choose(board);
        let scores = root(board, plies, &spawns);
        match choice {
            None => prop_assert!(scores.is_empty()),
            Some(choice) => {
                let best = scores.iter().map(|&(_, s)| s).fold(f64::MIN, f64::max);
                let tolerance = 1e-3 * best.abs().max(1.0);
                prop_assert!((f64::from(choice.value) - best).abs() < tolerance, "{} against {}", choice.value, best);
                // The chosen move is one of the best (ties within rounding).
                let chosen = scores.iter().find(|&&(d, _)| d == choice.direction).unwrap().1;
                prop_assert!(best - chosen < tolerance);
            }
        }
    }
}

#[test]
fn one_ply_is_the_greedy_player() {
    let board: Board = "2 2 4 . / . 8 . . / . . . . / 2 . . 4".parse().unwrap();
    let choice = Expectimax::new(&Hashed, Depth::new(1).unwrap(), SpawnRule::STANDARD)
        .choose(board)
        .unwrap();
    let greedy = Direction::ALL
        .into_iter()
        .filter_map(|d| {
            board
                .slide(d)
                .map(|a| (d, a.reward as f32 + Hashed.value(a.board)))
        })
        .fold(None, |best: Option<(Direction, f32)>, (d, v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((d, v)),
        })
        .unwrap();
    assert_eq!((choice.direction, choice.value), greedy);
}

#[test]
fn dead_boards_have_no_move_and_a_search_counts_its_nodes() {
    let dead = Board::from_raw(0x1212_2121_1212_2121);
    let mut search = Expectimax::new(&Hashed, Depth::new(3).unwrap(), SpawnRule::STANDARD);
    assert!(search.choose(dead).is_none());
    let board: Board = "2 4 8 16 / 4 8 16 32 / 8 16 32 64 / . . . 2"
        .parse()
        .unwrap();
    search.choose(board).unwrap();
    assert!(search.nodes() > 10);
}
