//! The 2584 board against a plain array game written from the rules, the
//! networks' symmetry and files, learning, and the course's records.

use board::{Direction, Symmetry};
use fib2584::record::{Names, Record, play_recorded};
use fib2584::{Board, Fibonacci, Network, tile};
use learn::{Learning, Mode, Rules, Stats, play};
use ntuple::parse_patterns;
use proptest::prelude::*;

/// A 4x4 array of tile indices, row-major.
type Grid = [[u8; 4]; 4];

/// Two tiles merge if their Fibonacci indices are one apart or both are 1:
/// written from the rules text, apart from the crate's `tile::merged`.
fn plain_merge(a: u8, b: u8) -> Option<u8> {
    let both_ones = a == 1 && b == 1;
    let neighbours = a != 0 && b != 0 && (a == b + 1 || b == a + 1);
    (both_ones || neighbours).then(|| a.max(b) + 1)
}

/// Slides one line towards index 0: gather the tiles, then pair them from
/// the wall, each tile merging at most once.
fn plain_line(line: [u8; 4]) -> ([u8; 4], u32) {
    let tiles: Vec<u8> = line.into_iter().filter(|&t| t != 0).collect();
    let mut out = Vec::new();
    let mut reward = 0;
    let mut i = 0;
    while i < tiles.len() {
        match tiles
            .get(i + 1)
            .and_then(|&next| plain_merge(tiles[i], next))
        {
            Some(merged) if merged <= tile::MAX_INDEX => {
                out.push(merged);
                reward += tile::value(merged);
                i += 2;
            }
            _ => {
                out.push(tiles[i]);
                i += 1;
            }
        }
    }
    out.resize(4, 0);
    (out.try_into().unwrap(), reward)
}

fn grid_of(board: Board) -> Grid {
    std::array::from_fn(|r| std::array::from_fn(|c| board.tile(4 * r + c)))
}

fn board_of(grid: &Grid) -> Board {
    let cells: Vec<u8> = grid.iter().flatten().copied().collect();
    Board::from_cells(cells.try_into().unwrap()).unwrap()
}

/// The plain slide of a whole grid: each row or column read from the wall
/// the tiles move towards.
fn plain_slide(grid: &Grid, direction: Direction) -> Option<(Grid, u32)> {
    let mut out = [[0; 4]; 4];
    let mut reward = 0;
    for k in 0..4 {
        let cells: [(usize, usize); 4] = std::array::from_fn(|i| match direction {
            Direction::Left => (k, i),
            Direction::Right => (k, 3 - i),
            Direction::Up => (i, k),
            Direction::Down => (3 - i, k),
        });
        let (slid, gained) = plain_line(cells.map(|(r, c)| grid[r][c]));
        for ((r, c), tile) in cells.into_iter().zip(slid) {
            out[r][c] = tile;
        }
        reward += gained;
    }
    (out != *grid).then_some((out, reward))
}

/// Boards with few, mergeable tiles as likely as full ones.
fn boards() -> impl Strategy<Value = Board> {
    let cell = prop_oneof![
        3 => Just(0u8),
        4 => 1u8..=6,
        2 => 0u8..=tile::MAX_INDEX,
    ];
    proptest::array::uniform16(cell).prop_map(|cells| Board::from_cells(cells).unwrap())
}

proptest! {
    #[test]
    fn slides_match_the_plain_game(board in boards()) {
        for direction in Direction::ALL {
            let expected = plain_slide(&grid_of(board), direction)
                .map(|(grid, reward)| (board_of(&grid), reward));
            prop_assert_eq!(board.slide(direction), expected, "{:?}", direction);
        }
        prop_assert_eq!(
            board.is_over(),
            Direction::ALL.iter().all(|&d| plain_slide(&grid_of(board), d).is_none())
        );
    }

    #[test]
    fn symmetries_move_cells_as_the_group_says(board in boards()) {
        let grid = grid_of(board);
        let transposed: Grid = std::array::from_fn(|r| std::array::from_fn(|c| grid[c][r]));
        let flipped: Grid = std::array::from_fn(|r| grid[3 - r]);
        let mirrored: Grid = std::array::from_fn(|r| std::array::from_fn(|c| grid[r][3 - c]));
        prop_assert_eq!(board.transpose(), board_of(&transposed));
        prop_assert_eq!(board.flip(), board_of(&flipped));
        prop_assert_eq!(board.mirror(), board_of(&mirrored));
        for symmetry in Symmetry::ALL {
            let moved = board.transformed(symmetry);
            for cell in 0..16 {
                prop_assert_eq!(moved.tile(symmetry.cell(cell)), board.tile(cell));
            }
            // Sliding commutes with the symmetry, turning the direction.
            for direction in Direction::ALL {
                let slid = board.slide(direction).map(|(b, r)| (b.transformed(symmetry), r));
                prop_assert_eq!(moved.slide(symmetry.direction(direction)), slid);
            }
        }
    }

    #[test]
    fn isomorphic_networks_value_all_images_alike(board in boards(), quarters in -16i32..16) {
        let network = Network::new(parse_patterns(["012345 4567"]).unwrap(), 12, u64::MAX).unwrap();
        // Quarters add up exactly in any order.
        network.update(board, quarters as f32 / 4.0);
        let value = network.estimate(board);
        for symmetry in Symmetry::ALL {
            prop_assert_eq!(network.estimate(board.transformed(symmetry)), value);
        }
    }
}

#[test]
fn every_row_slides_as_the_plain_rule() {
    let mut board_rows = 0;
    for row in 0..1u32 << 20 {
        let line = [0, 1, 2, 3].map(|j| (row >> (5 * j)) as u8 & 31);
        let board = board_of(&[line, [0; 4], [0; 4], [0; 4]]);
        let expected = plain_line(line);
        let got = board
            .slide(Direction::Left)
            .map_or((line, 0), |(after, reward)| (grid_of(after)[0], reward));
        assert_eq!(got, expected, "{line:?}");
        board_rows += 1;
    }
    assert_eq!(board_rows, 1 << 20);
}

#[test]
fn tiles_are_placed_on_empty_cells_one_in_ten_a_two() {
    let game = Fibonacci::STANDARD;
    let mut rng = learn::episode_rng(5, 0);
    let board = Board::EMPTY.with_tile(0, 3).with_tile(5, 9);
    let (mut twos, draws) = (0, 20_000);
    for _ in 0..draws {
        let (after, cell, index) = game.place(board, &mut rng).unwrap();
        assert!(cell != 0 && cell != 5);
        assert_eq!(after.tile(cell), index);
        assert!(index == 1 || index == 2);
        twos += u32::from(index == 2);
    }
    let rate = f64::from(twos) / f64::from(draws);
    assert!((0.09..0.11).contains(&rate), "{rate}");
    let full = Board::from_cells([1; 16]).unwrap();
    assert!(game.place(full, &mut rng).is_none());
    let first = game.initial(&mut rng);
    assert_eq!(first.empty_mask().count_zeros(), 2);
}

fn average_score(network: &Network, learning: Option<&Learning>, games: u64, seed: u64) -> f64 {
    let mut stats = Stats::default();
    for episode in 0..games {
        let mut rng = learn::episode_rng(seed, episode);
        stats.record(play(
            &Fibonacci::STANDARD,
            network,
            learning,
            &mut rng,
            &mut (),
        ));
    }
    stats.average()
}

/// Measured: an untrained network (it slides up whenever it can, then
/// right, ...) averages about 6,000 over these 300 games; after 3,000
/// episodes of TD(0) the 2x4 network averages about 15,000.
#[test]
fn td_learning_plays_far_better_than_an_untrained_network() {
    for mode in [Mode::Online, Mode::Backward] {
        let network = Network::new(parse_patterns(["2x4patt"]).unwrap(), 32, u64::MAX).unwrap();
        let untrained = average_score(&network, None, 300, 9);
        let learning = Learning {
            mode,
            ..Learning::default()
        };
        average_score(&network, Some(&learning), 3000, 1);
        let trained = average_score(&network, None, 300, 9);
        assert!(
            trained > 2.0 * untrained && trained > 10_000.0,
            "{mode}: untrained {untrained}, trained {trained}"
        );
    }
}

#[test]
fn weight_files_keep_their_game() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = parse_patterns(["2x4patt"]).unwrap();
    let network = Network::new(patterns.clone(), 20, u64::MAX).unwrap();
    let board = Board::from_cells([1, 2, 3, 4, 0, 0, 5, 25, 0, 0, 0, 0, 17, 18, 0, 1]).unwrap();
    network.update(board, 1.5);
    let path = dir.path().join("fib.nw");
    let metadata = ntuple::Metadata::from([("episodes".to_owned(), "7".to_owned())]);
    network.save(&path, &metadata).unwrap();
    let (loaded, stored) = Network::load(&path, Some(&patterns), u64::MAX).unwrap();
    assert_eq!(stored, metadata);
    assert_eq!(loaded.radix(), 20);
    assert_eq!(loaded.estimate(board), network.estimate(board));

    let error = ntuple::Network::load(&path, None).unwrap_err().to_string();
    assert!(
        error.ends_with("weights for the game 2584, not 2048"),
        "{error}"
    );

    let for_2048 = dir.path().join("2048.nw");
    ntuple::Network::new(patterns.clone())
        .unwrap()
        .save(&for_2048, &ntuple::Metadata::new())
        .unwrap();
    let error = Network::load(&for_2048, None, u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(
        error.ends_with("weights for the game 2048, not 2584"),
        "{error}"
    );

    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
    let error = Network::load(&path, None, u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(error.contains("truncated"), "{error}");

    let other = parse_patterns(["0123 4567!"]).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    assert!(Network::load(&path, Some(&other), u64::MAX).is_err());
}

#[test]
fn networks_refuse_what_they_cannot_hold() {
    let patterns = parse_patterns(["4x6patt"]).unwrap();
    let error = Network::new(patterns.clone(), 22, 1 << 30).unwrap_err();
    assert!(
        error.to_string().contains("more than the 1 GiB allowed"),
        "{error}"
    );
    assert!(Network::new(patterns.clone(), 33, u64::MAX).is_err());
    assert!(Network::new(patterns, 1, u64::MAX).is_err());
    let merge = parse_patterns(["0123 merge"]).unwrap();
    assert!(Network::new(merge, 16, u64::MAX).is_err());
}

#[test]
fn recorded_games_replay_to_their_scores() {
    let network = Network::new(parse_patterns(["2x4patt"]).unwrap(), 32, u64::MAX).unwrap();
    average_score(&network, Some(&Learning::default()), 300, 2);
    for episode in 0..20 {
        let mut rng = learn::episode_rng(3, episode);
        let (outcome, record) =
            play_recorded(&Fibonacci::STANDARD, &network, &Names::default(), &mut rng);
        // The same game as the unrecorded player's.
        let mut rng = learn::episode_rng(3, episode);
        assert_eq!(
            play(&Fibonacci::STANDARD, &network, None, &mut rng, &mut ()),
            outcome
        );

        let line = record.to_string();
        assert!(line.starts_with("player:rndenv@"), "{line}");
        assert!(line.contains("|rndenv@"), "{line}");
        let parsed = Record::parse(&line, 1).unwrap();
        assert_eq!(parsed, record);
        let replayed = parsed.replay(1).unwrap();
        assert_eq!(replayed.outcome(), outcome);
        assert!(replayed.board.is_over());
    }
}

#[test]
fn records_that_break_the_rules_are_refused() {
    // Every action allowed, but the game not over: a record cut off.
    let cut = "player:rndenv@1700000000000|0111#L[2]52|rndenv@1700000000005";
    assert_eq!(Record::parse(cut, 1).unwrap().to_string(), cut);
    let unfinished = |line: &str| {
        Record::parse(line, 1)
            .unwrap()
            .replay(1)
            .unwrap_err()
            .to_string()
    };
    assert!(
        unfinished(cut)
            .contains("after action 4: a slide is still possible: the record is cut off"),
        "{}",
        unfinished(cut)
    );
    assert!(
        unfinished("player:rndenv@1||rndenv@2").contains("a game starts with two placed tiles")
    );
    assert!(
        unfinished("player:rndenv@1|0111#L[2]|rndenv@2")
            .contains("a slide with no tile placed after it")
    );

    let cases = [
        (
            "player:rndenv@1|0111#L[3]52|rndenv@2",
            "action 3 (#L): the slide scores 2, but 3 is written",
        ),
        (
            "player:rndenv@1|0111#L52|rndenv@2",
            "action 3 (#L): the slide scores 2, but 0 is written",
        ),
        (
            "player:rndenv@1|0101|rndenv@2",
            "action 2 (01): cell 0 is not empty",
        ),
        (
            "player:rndenv@1|01A3|rndenv@2",
            "action 2 (A3): tile 3 is placed, but only 1 and 2 appear",
        ),
        (
            "player:rndenv@1|0111#U|rndenv@2",
            "action 3 (#U): the slide changes nothing",
        ),
        (
            "player:rndenv@1|01#L|rndenv@2",
            "action 2 (#L): a slide where a tile is due to be placed",
        ),
        (
            "player:rndenv@1|0111B1|rndenv@2",
            "action 3 (B1): a tile is placed where a slide is due",
        ),
        (
            "player:rndenv@1|01#X|rndenv@2",
            "action 2: #X is not a slide",
        ),
        (
            "player:rndenv@1|01G1|rndenv@2",
            "action 2: 'G' is neither a cell",
        ),
        ("player:rndenv@1|0111#L[2|rndenv@2", "action 3: [ without ]"),
        ("player:rndenv@1|01A1", "layout: 2 fields"),
        (
            "playerrndenv@1|01A1|rndenv@2",
            "opening: \"playerrndenv\" is not PLAYER:ENVIRONMENT",
        ),
        (
            "player:rndenv@x|01A1|rndenv@2",
            "opening: \"player:rndenv@x\" is not NAMES@MILLISECONDS",
        ),
    ];
    for (line, message) in cases {
        let error = Record::parse(line, 4)
            .and_then(|record| record.replay(4))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("record 4, "), "{error}");
        assert!(error.contains(message), "{line}: {error}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A recorded game with characters changed, cut or added is read and
    /// replayed as a whole lawful game, or refused in words: never a panic.
    #[test]
    fn damaged_records_are_whole_games_or_one_clear_error(
        seed in any::<u64>(),
        changes in prop::collection::vec((any::<prop::sample::Index>(), "[0-9A-V#\\[\\]()@|:a-z]"), 0..4),
        cut in any::<prop::sample::Index>(),
    ) {
        use rand::SeedableRng as _;
        let network = Network::new(parse_patterns(["0123", "4567"]).unwrap(), 32, u64::MAX).unwrap();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let (_, record) = play_recorded(&Fibonacci::STANDARD, &network, &Names::default(), &mut rng);
        let mut line: Vec<char> = record.to_string().chars().collect();
        for (at, text) in changes {
            let at = at.index(line.len());
            line.splice(at..=at, text.chars());
        }
        line.truncate(cut.index(line.len() + 1));
        let line: String = line.into_iter().collect();
        match Record::parse(&line, 1).and_then(|record| record.replay(1)) {
            Ok(replayed) => prop_assert!(replayed.board.is_over()),
            Err(error) => {
                let message = error.to_string();
                prop_assert!(message.starts_with("record 1"), "{}", message);
                prop_assert_eq!(message.lines().count(), 1);
            }
        }
    }
}
