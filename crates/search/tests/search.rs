//! The search against a brute-force expectimax written plainly from the
//! definitions in ../shared/docs/tdl2048.md.

use board::{Board, Direction, SpawnRule};
use proptest::prelude::*;
use rand::SeedableRng;
use search::{Depth, Evaluator, Expectimax, Limits, Settings, TranspositionTable};

/// An evaluator of arbitrary values, negative ones included, so that the
/// clamping is exercised: a hash of the board into -500..1500.
struct Hashed;

impl Evaluator for Hashed {
    fn value(&self, afterstate: Board) -> f32 {
        let mixed = afterstate.raw().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        (mixed % 2000) as f32 - 500.0
    }
}

/// The same values, but every symmetric image of a board shares its value:
/// what a transposition table keyed on canonical boards needs.
struct SymmetricHashed;

impl Evaluator for SymmetricHashed {
    fn value(&self, afterstate: Board) -> f32 {
        Hashed.value(afterstate.canonical())
    }

    fn is_symmetric(&self) -> bool {
        true
    }
}

/// Expectimax by the definitions, over the spawn enumeration of
/// `SpawnRule::outcomes`, in f64, with optional caps on the move layers by
/// empty cells.
struct Reference<'a> {
    evaluator: &'a dyn Evaluator,
    spawns: SpawnRule,
    limits: Option<Limits>,
}

impl Reference<'_> {
    fn chance(&self, afterstate: Board, layers: u32) -> f64 {
        let layers = match self.limits {
            Some(limits) => layers.min(limits.layers(afterstate.empty_count())),
            None => layers,
        };
        if layers == 0 {
            return f64::from(self.evaluator.value(afterstate));
        }
        self.spawns
            .outcomes(afterstate)
            .map(|(board, probability)| probability * self.best(board, layers))
            .sum()
    }

    fn best(&self, board: Board, layers: u32) -> f64 {
        let values: Vec<f64> = Direction::ALL
            .into_iter()
            .filter_map(|direction| board.slide(direction))
            .map(|a| f64::from(a.reward) + self.chance(a.board, layers - 1).max(0.0))
            .collect();
        if values.is_empty() {
            0.0
        } else {
            values.into_iter().fold(f64::MIN, f64::max) + 1.0
        }
    }

    /// The root's score of every legal move.
    fn root(&self, board: Board, plies: u32) -> Vec<(Direction, f64)> {
        Direction::ALL
            .into_iter()
            .filter_map(|direction| Some((direction, board.slide(direction)?)))
            .map(|(direction, a)| {
                (
                    direction,
                    f64::from(a.reward) + self.chance(a.board, plies - 1),
                )
            })
            .collect()
    }
}

/// Whether a search's choice is one of the reference's best moves, with the
/// best score, within rounding.
fn agrees(choice: Option<search::Choice>, scores: &[(Direction, f64)]) -> Result<(), String> {
    match choice {
        None if scores.is_empty() => Ok(()),
        None => Err("no move chosen".into()),
        Some(choice) => {
            let best = scores.iter().map(|&(_, s)| s).fold(f64::MIN, f64::max);
            let tolerance = 1e-3 * best.abs().max(1.0);
            let chosen = scores
                .iter()
                .find(|&&(d, _)| d == choice.direction)
                .ok_or("illegal move")?
                .1;
            if (f64::from(choice.value) - best).abs() < tolerance && best - chosen < tolerance {
                Ok(())
            } else {
                Err(format!(
                    "{} ({}) against {best}",
                    choice.value, choice.direction
                ))
            }
        }
    }
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
        let reference = Reference { evaluator: &Hashed, spawns, limits: None };
        prop_assert_eq!(agrees(choice, &reference.root(board, plies)), Ok(()));
    }

    #[test]
    fn a_shared_table_changes_no_value(start in boards(), seed in any::<u64>(), plies in 2u32..=3) {
        // One table for the successive positions of a game, as a game uses
        // it: a position's chance nodes were inner nodes one search earlier,
        // at another depth, so depths must not be confused.
        let table = TranspositionTable::new(1 << 16, false);
        let settings = Settings::new(Depth::new(plies as u8).unwrap());
        let reference = Reference { evaluator: &SymmetricHashed, spawns: SpawnRule::STANDARD, limits: None };
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut board = start;
        for _ in 0..6 {
            let choice = Expectimax::with_settings(&SymmetricHashed, settings, Some(&table)).choose(board);
            prop_assert_eq!(agrees(choice, &reference.root(board, plies)), Ok(()));
            let Some(choice) = choice else { break };
            board = SpawnRule::STANDARD.spawn(choice.afterstate.board, &mut rng).unwrap();
        }
    }

    #[test]
    fn limits_cap_the_depth_by_empty_cells(board in boards(), limits in "[1-3]p(,[1-3]p){0,6}") {
        let limits: Limits = limits.parse().unwrap();
        let settings = Settings { limits: Some(limits), ..Settings::new(Depth::new(3).unwrap()) };
        let choice = Expectimax::with_settings(&Hashed, settings, None).choose(board);
        let reference = Reference { evaluator: &Hashed, spawns: SpawnRule::STANDARD, limits: Some(limits) };
        prop_assert_eq!(agrees(choice, &reference.root(board, 3)), Ok(()));
    }

    #[test]
    fn a_cutoff_above_one_searches_nothing(board in boards()) {
        let settings = Settings { cutoff: Some(1.5), ..Settings::new(Depth::new(3).unwrap()) };
        let cut = Expectimax::with_settings(&Hashed, settings, None).choose(board);
        let greedy = Expectimax::new(&Hashed, Depth::new(1).unwrap(), SpawnRule::STANDARD).choose(board);
        prop_assert_eq!(cut, greedy);
        let none = Settings { cutoff: Some(0.0), ..Settings::new(Depth::new(2).unwrap()) };
        let full = Expectimax::new(&Hashed, Depth::new(2).unwrap(), SpawnRule::STANDARD).choose(board);
        prop_assert_eq!(Expectimax::with_settings(&Hashed, none, None).choose(board), full);
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
