//! The board against a plain reference game on a `[[u32; 4]; 4]` grid of tile
//! values, written here without tables, bit tricks or shared code, and
//! against moves computed by TDL2048+ itself.

use std::path::PathBuf;

use board::{Board, Direction, Game, RandomPolicy, SpawnRule, Symmetry, SymmetryGroup, WideBoard};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The reference game: tile values in a grid, `grid[row][column]`.
mod reference {
    use board::Direction;

    pub type Grid = [[u32; 4]; 4];

    /// The cells of line `line` in the order a move in `direction` packs
    /// them: the cell at the wall first.
    fn line_cells(direction: Direction, line: usize) -> [(usize, usize); 4] {
        let mut cells = [(0, 0); 4];
        for (k, cell) in cells.iter_mut().enumerate() {
            *cell = match direction {
                Direction::Left => (line, k),
                Direction::Right => (line, 3 - k),
                Direction::Up => (k, line),
                Direction::Down => (3 - k, line),
            };
        }
        cells
    }

    /// Slides `grid`: every line packs towards the wall, and two equal tiles
    /// next to each other after packing merge, pairing from the wall, each tile
    /// at most once. A merged tile above `largest` leaves its cell empty.
    pub fn slide(grid: &Grid, direction: Direction, largest: u32) -> (Grid, u32) {
        let mut out = [[0; 4]; 4];
        let mut reward = 0;
        for line in 0..4 {
            let cells = line_cells(direction, line);
            let tiles: Vec<u32> = cells
                .iter()
                .map(|&(r, c)| grid[r][c])
                .filter(|&value| value != 0)
                .collect();
            let mut packed = Vec::new();
            let mut i = 0;
            while i < tiles.len() {
                if i + 1 < tiles.len() && tiles[i] == tiles[i + 1] {
                    let merged = 2 * tiles[i];
                    reward += merged;
                    packed.push(if merged > largest { 0 } else { merged });
                    i += 2;
                } else {
                    packed.push(tiles[i]);
                    i += 1;
                }
            }
            for (k, &(r, c)) in cells.iter().enumerate() {
                out[r][c] = packed.get(k).copied().unwrap_or(0);
            }
        }
        (out, reward)
    }

    pub fn is_game_over(grid: &Grid, largest: u32) -> bool {
        Direction::ALL
            .into_iter()
            .all(|direction| slide(grid, direction, largest).0 == *grid)
    }

    /// Rotates a quarter turn clockwise: the value at (r, c) goes to (c, 3 - r).
    pub fn rotate(grid: &Grid) -> Grid {
        let mut out = [[0; 4]; 4];
        for r in 0..4 {
            for c in 0..4 {
                out[c][3 - r] = grid[r][c];
            }
        }
        out
    }

    /// Reflects left to right.
    pub fn mirror(grid: &Grid) -> Grid {
        grid.map(|mut row| {
            row.reverse();
            row
        })
    }
}

use reference::Grid;

const LARGEST: u32 = 32768;
const WIDE_LARGEST: u32 = 1 << 18;

fn grid_of(exponents: [u8; 16]) -> Grid {
    let mut grid = [[0; 4]; 4];
    for (cell, exponent) in exponents.into_iter().enumerate() {
        grid[cell / 4][cell % 4] = if exponent == 0 { 0 } else { 1 << exponent };
    }
    grid
}

fn grid(board: Board) -> Grid {
    grid_of(board.exponents())
}

fn wide_grid(board: WideBoard) -> Grid {
    grid_of(board.exponents())
}

/// Boards from a few exponents, so that merges are common, and arbitrary ones.
fn boards() -> impl Strategy<Value = Board> {
    let from = |tiles: Vec<u8>| {
        proptest::collection::vec(proptest::sample::select(tiles), 16)
            .prop_map(|cells| Board::from_exponents(cells.try_into().unwrap()).unwrap())
    };
    prop_oneof![
        any::<u64>().prop_map(Board::from_raw),
        from(vec![0, 0, 1, 2, 3]),
        from(vec![0, 1, 2, 3, 4, 5, 6, 7]),
        from(vec![0, 13, 14, 15, 15]),
    ]
}

fn wide_boards() -> impl Strategy<Value = WideBoard> {
    proptest::collection::vec(
        proptest::sample::select(vec![0u8, 0, 1, 2, 14, 15, 16, 17, 18]),
        16,
    )
    .prop_map(|cells| WideBoard::from_exponents(cells.try_into().unwrap()).unwrap())
}

fn directions() -> impl Strategy<Value = Direction> {
    proptest::sample::select(Direction::ALL.to_vec())
}

fn symmetries() -> impl Strategy<Value = Symmetry> {
    proptest::sample::select(Symmetry::ALL.to_vec())
}

/// The reference image of a grid under a symmetry: a mirror first for the
/// reflections, then clockwise quarter turns, as documented on `Symmetry`.
fn reference_transform(grid: &Grid, symmetry: Symmetry) -> Grid {
    let mut out = if symmetry.is_reflection() {
        reference::mirror(grid)
    } else {
        *grid
    };
    for _ in 0..symmetry.quarter_turns() {
        out = reference::rotate(&out);
    }
    out
}

proptest! {
    #[test]
    fn slides_match_the_reference(board in boards(), direction in directions()) {
        let (expected, reward) = reference::slide(&grid(board), direction, LARGEST);
        match board.slide(direction) {
            Some(afterstate) => {
                prop_assert_eq!(grid(afterstate.board), expected);
                prop_assert_eq!(afterstate.reward, reward);
                prop_assert_ne!(afterstate.board, board);
            }
            None => prop_assert_eq!(expected, grid(board), "illegal move changes the board"),
        }
    }

    #[test]
    fn all_four_moves_at_once_match_single_moves(board in boards()) {
        let all = board.afterstates();
        for direction in Direction::ALL {
            prop_assert_eq!(all[direction], board.slide(direction));
        }
    }

    #[test]
    fn game_over_means_no_legal_move(board in boards()) {
        prop_assert_eq!(board.is_game_over(), reference::is_game_over(&grid(board), LARGEST));
        prop_assert_eq!(board.is_game_over(), board.afterstates().is_empty());
    }

    #[test]
    fn queries_match_the_grid(board in boards()) {
        let values: Vec<u32> = grid(board).into_iter().flatten().collect();
        let empty = values.iter().filter(|&&v| v == 0).count();
        prop_assert_eq!(board.empty_count() as usize, empty);
        for (cell, &value) in values.iter().enumerate() {
            prop_assert_eq!(board.empty_mask() & (1 << cell) != 0, value == 0);
        }
        let max = values.iter().copied().max().unwrap();
        prop_assert_eq!(board::Board::tile_value(board.max_tile()), max);
        prop_assert_eq!(board.tile_sum(), values.iter().sum::<u32>());
        let counts = board.tile_counts();
        for exponent in 0..16u8 {
            let expected = values.iter().filter(|&&v| v == board::Board::tile_value(exponent)).count();
            prop_assert_eq!(usize::from(counts[usize::from(exponent)]), expected);
        }
        let implied: u32 = values
            .iter()
            .filter(|&&v| v >= 4)
            .map(|&v| v * (v.trailing_zeros() - 1))
            .sum();
        prop_assert_eq!(board.implied_score(), implied);
    }

    #[test]
    fn symmetries_match_the_reference(board in boards(), symmetry in symmetries()) {
        prop_assert_eq!(grid(board.transform(symmetry)), reference_transform(&grid(board), symmetry));
    }

    #[test]
    fn symmetries_compose_as_a_group(
        board in boards(),
        a in symmetries(),
        b in symmetries(),
        c in symmetries(),
    ) {
        prop_assert_eq!(board.transform(a).transform(b), board.transform(a.then(b)));
        prop_assert_eq!(a.then(b).then(c), a.then(b.then(c)));
        prop_assert_eq!(a.then(a.inverse()), Symmetry::Identity);
        prop_assert_eq!(a.inverse().then(a), Symmetry::Identity);
        prop_assert_eq!(a.then(Symmetry::Identity), a);
        prop_assert_eq!(board.transform(a).transform(a.inverse()), board);
    }

    #[test]
    fn moves_commute_with_symmetries(board in boards(), symmetry in symmetries(), direction in directions()) {
        let moved_then_turned = board
            .slide(direction)
            .map(|a| (a.board.transform(symmetry), a.reward));
        let turned_then_moved = board
            .transform(symmetry)
            .slide(symmetry.direction(direction))
            .map(|a| (a.board, a.reward));
        prop_assert_eq!(moved_then_turned, turned_then_moved);
    }

    /// Four at once, in vector lanes where the build has AVX2, as one at a
    /// time. The boards include tiles of 256 and more, which set an
    /// image's top bit where they land in the last cell: the lanes' signed
    /// comparisons must order those images as unsigned.
    #[test]
    fn four_canonical_forms_at_once_are_each_ones_form(boards in proptest::array::uniform4(boards())) {
        prop_assert_eq!(Board::canonical_four(boards), boards.map(Board::canonical));
    }

    #[test]
    fn canonical_forms_are_the_smallest_image_and_shared_by_all(board in boards(), symmetry in symmetries()) {
        let images = Symmetry::ALL.map(|s| board.transform(s));
        prop_assert_eq!(board.canonical(), *images.iter().min().unwrap());
        prop_assert_eq!(board.transform(symmetry).canonical(), board.canonical());
        for group in [SymmetryGroup::Identity, SymmetryGroup::Diagonal, SymmetryGroup::Horizontal, SymmetryGroup::Full] {
            let (canonical, used) = group.canonical_with_symmetry(board);
            prop_assert_eq!(canonical, group.canonical(board));
            prop_assert_eq!(board.transform(used), canonical);
            prop_assert!(group.elements().contains(&used));
            for &member in group.elements() {
                prop_assert_eq!(group.canonical(board.transform(member)), canonical);
            }
        }
    }

    #[test]
    fn spawn_outcomes_are_a_distribution(board in boards(), four_rate in 0.0f64..=1.0) {
        let rule = SpawnRule::new(four_rate).unwrap();
        let outcomes: Vec<(Board, f64)> = rule.outcomes(board).collect();
        let empty = board.empty_mask();
        for &(spawned, probability) in &outcomes {
            prop_assert!(probability > 0.0);
            let changed: Vec<usize> = (0..16).filter(|&c| spawned.tile(c) != board.tile(c)).collect();
            prop_assert_eq!(changed.len(), 1);
            prop_assert!(empty & (1 << changed[0]) != 0);
            prop_assert!(matches!(spawned.tile(changed[0]), 1 | 2));
        }
        if empty != 0 {
            let total: f64 = outcomes.iter().map(|&(_, p)| p).sum();
            prop_assert!((total - 1.0).abs() < 1e-12, "probabilities sum to {}", total);
        } else {
            prop_assert!(outcomes.is_empty());
        }
    }

    #[test]
    fn random_spawns_land_in_empty_cells(board in boards(), seed in any::<u64>()) {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        match SpawnRule::STANDARD.spawn(board, &mut rng) {
            Some(spawned) => {
                prop_assert_eq!(spawned.empty_count() + 1, board.empty_count());
                let cell = (0..16).find(|&c| spawned.tile(c) != board.tile(c)).unwrap();
                prop_assert_eq!(board.tile(cell), 0);
            }
            None => prop_assert_eq!(board.empty_count(), 0),
        }
    }

    #[test]
    fn text_round_trips(board in boards()) {
        prop_assert_eq!(board.to_string().parse::<Board>().unwrap(), board);
        prop_assert_eq!(format!("{board:#}").parse::<Board>().unwrap(), board);
        prop_assert_eq!(format!("{board:#018x}").parse::<Board>().unwrap(), board);
        prop_assert_eq!(format!("{board:#x}").parse::<Board>().unwrap(), board);
    }

    #[test]
    fn wide_slides_match_the_reference(board in wide_boards(), direction in directions()) {
        let (expected, reward) = reference::slide(&wide_grid(board), direction, WIDE_LARGEST);
        match board.slide(direction) {
            Some(afterstate) => {
                prop_assert_eq!(wide_grid(afterstate.board), expected);
                prop_assert_eq!(afterstate.reward, reward);
            }
            None => prop_assert_eq!(expected, wide_grid(board)),
        }
        prop_assert_eq!(board.afterstates()[direction], board.slide(direction));
        prop_assert_eq!(board.is_game_over(), reference::is_game_over(&wide_grid(board), WIDE_LARGEST));
    }

    #[test]
    fn wide_text_and_parts_round_trip(board in wide_boards()) {
        prop_assert_eq!(board.to_string().parse::<WideBoard>().unwrap(), board);
        prop_assert_eq!(format!("{board:#}").parse::<WideBoard>().unwrap(), board);
        prop_assert_eq!(WideBoard::from_parts(board.low(), board.high()).unwrap(), board);
        prop_assert_eq!(WideBoard::from_exponents(board.exponents()).unwrap(), board);
        let values: Vec<u32> = wide_grid(board).into_iter().flatten().collect();
        prop_assert_eq!(board.tile_sum(), values.iter().sum::<u32>());
        prop_assert_eq!(board::Board::tile_value(board.max_tile()), *values.iter().max().unwrap());
        prop_assert_eq!(board.empty_count() as usize, values.iter().filter(|&&v| v == 0).count());
    }

    #[test]
    fn downgraded_copies_move_like_the_board(board in wide_boards(), threshold in 5u8..=18) {
        let mut kinds: Vec<u8> = board.exponents().into_iter().filter(|&e| e > 0).collect();
        kinds.sort_unstable();
        kinds.dedup();
        for seen in [board.downgraded(threshold), board.downgraded_from_top(threshold)] {
            if board.max_tile() < threshold && board.max_tile() <= 15 {
                prop_assert_eq!(WideBoard::from(seen), board, "nothing to downgrade");
            }
            // At most 15 kinds of tile always fit once the gaps are filled:
            // then no tile is clamped, the largest is below the threshold or
            // no gap is left, and every move is legal on both or on neither.
            if kinds.len() <= 15 {
                prop_assert!(seen.max_tile() < threshold || usize::from(seen.max_tile()) == kinds.len());
                for direction in Direction::ALL {
                    prop_assert_eq!(board.slide(direction).is_some(), seen.slide(direction).is_some(), "{:?}", direction);
                }
            }
        }
        // Filling the largest gaps first, a tile with as many gaps above it
        // as the copy needs steps down keeps its value (a search's spawned
        // 2s and 4s merge with what they would).
        let exponents = board.exponents();
        let largest = board.max_tile();
        let steps = (largest + 1).saturating_sub(threshold.min(16));
        let present = exponents.iter().fold(0u64, |mask, &e| mask | 1 << e);
        let top = board.downgraded_from_top(threshold).exponents();
        for (cell, &real) in exponents.iter().enumerate() {
            let gaps_above = (real + 1..largest).filter(|&e| present & (1 << e) == 0).count();
            if real > 0 && gaps_above >= usize::from(steps) {
                prop_assert_eq!(top[cell], real, "cell {}", cell);
            }
        }
    }

    #[test]
    fn wide_and_narrow_agree_below_32768(board in boards(), direction in directions()) {
        let wide = WideBoard::from(board);
        prop_assert_eq!(Board::try_from(wide).unwrap(), board);
        prop_assert_eq!(wide.empty_mask(), board.empty_mask());
        prop_assert_eq!(wide.tile_sum(), board.tile_sum());
        prop_assert_eq!(wide.implied_score(), board.implied_score());
        prop_assert_eq!(wide.to_string().parse::<WideBoard>().unwrap(), wide);
        // Only two 32768 merging tell the boards apart.
        let (_, reference_reward) = reference::slide(&grid(board), direction, LARGEST);
        let narrow = board.slide(direction);
        let wide_moved = wide.slide(direction);
        prop_assert_eq!(narrow.map(|a| a.reward), wide_moved.map(|a| a.reward));
        if narrow.is_some_and(|a| a.reward == reference_reward) && !has_32768_pair(board, direction) {
            prop_assert_eq!(narrow.map(|a| WideBoard::from(a.board)), wide_moved.map(|a| a.board));
        }
    }
}

fn has_32768_pair(board: Board, direction: Direction) -> bool {
    reference::slide(&grid(board), direction, u32::MAX)
        .0
        .into_iter()
        .flatten()
        .any(|v| v == 65536)
}

#[test]
fn merges_pair_from_the_wall_and_each_tile_merges_once() {
    let cases = [
        (
            "2 2 2 . / . . . . / . . . . / . . . .",
            Direction::Left,
            "4 2 . . / . . . . / . . . . / . . . .",
            4,
        ),
        (
            "2 2 2 . / . . . . / . . . . / . . . .",
            Direction::Right,
            ". . 2 4 / . . . . / . . . . / . . . .",
            4,
        ),
        (
            "2 2 2 2 / . . . . / . . . . / . . . .",
            Direction::Left,
            "4 4 . . / . . . . / . . . . / . . . .",
            8,
        ),
        (
            "4 2 2 . / . . . . / . . . . / . . . .",
            Direction::Left,
            "4 4 . . / . . . . / . . . . / . . . .",
            4,
        ),
        (
            "2 . . . / 2 . . . / 4 . . . / 4 . . .",
            Direction::Up,
            "4 . . . / 8 . . . / . . . . / . . . .",
            12,
        ),
        (
            "2 . . . / 2 . . . / 2 . . . / . . . .",
            Direction::Down,
            ". . . . / . . . . / 2 . . . / 4 . . .",
            4,
        ),
        (
            "8 . 8 8 / . . . . / . . . . / . . . .",
            Direction::Right,
            ". . 8 16 / . . . . / . . . . / . . . .",
            16,
        ),
    ];
    for (before, direction, after, reward) in cases {
        let board: Board = before.parse().unwrap();
        let moved = board.slide(direction).unwrap();
        assert_eq!(moved.board, after.parse().unwrap(), "{before} {direction}");
        assert_eq!(moved.reward, reward, "{before} {direction}");
    }
    let packed: Board = "2 4 8 16 / . . . . / . . . . / . . . .".parse().unwrap();
    assert_eq!(packed.slide(Direction::Left), None);
    assert_eq!(packed.slide(Direction::Up), None);
}

#[test]
fn two_32768_tiles_leave_an_empty_cell_on_the_64_bit_board() {
    // TDL2048+'s rule: the merge pays 65536 and the cell stays empty, in place.
    let board = Board::from_raw(0x0000_0000_0000_03ff);
    let left = board.slide(Direction::Left).unwrap();
    assert_eq!(left.board, Board::from_raw(0x0000_0000_0000_0030));
    assert_eq!(left.reward, 65536);
    let right = board.slide(Direction::Right).unwrap();
    assert_eq!(right.board, Board::from_raw(0x0000_0000_0000_3000));
    let full = Board::from_raw(u64::MAX);
    for direction in Direction::ALL {
        let moved = full.slide(direction).unwrap();
        assert_eq!((moved.board, moved.reward), (Board::EMPTY, 524_288));
    }
}

#[test]
fn wide_board_makes_65536_and_131072() {
    let board: WideBoard = "32768 32768 65536 65536 / . . . . / . . . . / . . . ."
        .parse()
        .unwrap();
    let left = board.slide(Direction::Left).unwrap();
    assert_eq!(
        left.board,
        "65536 131072 . . / . . . . / . . . . / . . . ."
            .parse()
            .unwrap()
    );
    assert_eq!(left.reward, 65536 + 131072);
    let up: WideBoard = "65536 . . . / 65536 . . . / . . . . / 2 . . ."
        .parse()
        .unwrap();
    let moved = up.slide(Direction::Up).unwrap();
    assert_eq!(moved.board.tile(0), 17);
    assert_eq!(moved.board.tile(4), 1);
    // Two of the largest tile pay their value and leave an empty cell.
    let top =
        WideBoard::from_exponents([18, 18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    let merged = top.slide(Direction::Left).unwrap();
    assert_eq!(
        (merged.board, merged.reward),
        (WideBoard::default(), 1 << 19)
    );
    assert!(WideBoard::from_exponents([19; 16]).is_err());
    // A fifth bit over 0xF would make 2^31: no such tile.
    let error = WideBoard::from_parts(Board::from_raw(0xF0), 0b10).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cell 1 holds 2147483648, above the largest tile that fits (262144)"
    );
    let error = Board::try_from(left.board).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cell 0 holds 65536, above the largest tile that fits (32768)"
    );
}

#[test]
fn eight_distinct_images_of_an_asymmetric_board() {
    let board = Board::from_raw(0x0123_4567_89ab_cdef);
    let mut images = Symmetry::ALL.map(|s| board.transform(s));
    images.sort();
    assert!(images.windows(2).all(|pair| pair[0] != pair[1]));
    for symmetry in Symmetry::ALL {
        assert_eq!(board.transform(symmetry).canonical(), images[0]);
    }
}

#[test]
fn spawns_are_uniform_over_cells_with_the_four_rate() {
    let board: Board = "2 . . . / . 4 . . / . . . . / . . . 8".parse().unwrap();
    let empty = board.empty_count() as usize;
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let draws = 130_000;
    let mut per_cell = [0usize; 16];
    let mut fours = 0;
    for _ in 0..draws {
        let spawned = SpawnRule::STANDARD.spawn(board, &mut rng).unwrap();
        let cell = (0..16).find(|&c| spawned.tile(c) != board.tile(c)).unwrap();
        per_cell[cell] += 1;
        fours += usize::from(spawned.tile(cell) == 2);
    }
    // Each count is binomial; 6 standard deviations never fail by chance
    // (and the seed is fixed).
    let expected = draws as f64 / empty as f64;
    let sd = (expected * (1.0 - 1.0 / empty as f64)).sqrt();
    for cell in (0..16).filter(|&c| board.tile(c) == 0) {
        let count = per_cell[cell] as f64;
        assert!(
            (count - expected).abs() < 6.0 * sd,
            "cell {cell}: {count} of {draws}"
        );
    }
    let sd_fours = (draws as f64 * 0.1 * 0.9).sqrt();
    assert!(
        (fours as f64 - 0.1 * draws as f64).abs() < 6.0 * sd_fours,
        "{fours} fours"
    );
    let all_fours = SpawnRule::new(1.0).unwrap();
    assert_eq!(
        all_fours.spawn(Board::EMPTY, &mut rng).unwrap().max_tile(),
        2
    );
    assert_eq!(SpawnRule::STANDARD.initial(&mut rng).empty_count(), 14);
}

#[test]
fn seeded_games_replay_and_add_up() {
    let play = |seed: u64| {
        let mut spawns = Pcg64Mcg::seed_from_u64(seed);
        let game = Game::new(SpawnRule::STANDARD, &mut spawns);
        let first = game.board();
        (
            first,
            game.play_out(
                &mut RandomPolicy(Pcg64Mcg::seed_from_u64(seed + 1)),
                &mut spawns,
            )
            .unwrap(),
        )
    };
    for seed in 0..20 {
        let (first, episode) = play(seed);
        assert_eq!(play(seed).1, episode, "the same seeds replay the same game");
        assert!(episode.last.is_game_over());
        // Each board is the previous afterstate with one tile spawned, so the
        // score is the implied score less 4 for every 4 that was spawned.
        let mut fours = first.tile_counts()[2] as u32;
        let mut previous = first;
        for (index, step) in episode.steps.iter().enumerate() {
            assert_eq!(step.board, previous);
            assert_eq!(Some(step.afterstate), step.board.slide(step.direction));
            previous = episode
                .steps
                .get(index + 1)
                .map_or(episode.last, |next| next.board);
            let spawned: Vec<usize> = (0..16)
                .filter(|&c| previous.tile(c) != step.afterstate.board.tile(c))
                .collect();
            assert_eq!(spawned.len(), 1);
            fours += u32::from(previous.tile(spawned[0]) == 2);
        }
        assert_eq!(previous, episode.last);
        assert_eq!(
            episode.score(),
            u64::from(episode.last.implied_score() - 4 * fours)
        );
    }
}

#[test]
fn illegal_moves_are_errors() {
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let board: Board = "2 . . . / . . . . / . . . . / . . . .".parse().unwrap();
    let mut game = Game::from_board(board, SpawnRule::STANDARD);
    let error = game.play(Direction::Up, &mut rng).unwrap_err();
    assert_eq!(
        error.to_string(),
        "up is not a legal move on Board(0x0000000000000001)"
    );
    assert!(game.play(Direction::Down, &mut rng).is_ok());
    assert_eq!((game.moves(), game.score()), (1, 0));
    let mut stubborn = |_: Board, _: &board::Afterstates| Some(Direction::Up);
    assert!(
        Game::from_board(board, SpawnRule::STANDARD)
            .play_out(&mut stubborn, &mut rng)
            .is_err()
    );
}

/// The folder of TDL2048+ fixtures beside the repository (as
/// `testkit::tdl2048_fixtures`, which `board`, depending on no crate of
/// ours, does not use).
fn fixtures() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/tdl2048");
    assert!(
        dir.is_dir(),
        "the TDL2048+ fixtures are missing: expected the shared folder beside the repository, \
         with {}",
        dir.display()
    );
    dir
}

fn hex(text: &str) -> u64 {
    u64::from_str_radix(text.trim_start_matches("0x"), 16).unwrap()
}

#[test]
fn moves_match_tdl2048() {
    let path = fixtures().join("moves.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut rows = 0;
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let board = Board::from_raw(hex(fields[0]));
        let all = board.afterstates();
        for direction in Direction::ALL {
            let expected_board = hex(fields[1 + 2 * direction.index()]);
            let expected_reward: i64 = fields[2 + 2 * direction.index()].parse().unwrap();
            let found =
                all[direction].map_or((u64::MAX, -1), |a| (a.board.raw(), i64::from(a.reward)));
            assert_eq!(
                found,
                (expected_board, expected_reward),
                "{board:?} {direction}"
            );
        }
        assert_eq!(board.is_game_over(), all.is_empty());
        rows += 1;
    }
    assert_eq!(rows, 500);
}
