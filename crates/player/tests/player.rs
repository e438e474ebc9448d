//! The player's rules: which table plays a position and how it reads it,
//! the search against a plain expectimax, and tables that cannot be read.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use board::{Board, Direction, SpawnRule, WideBoard};
use learn::Agent;
use player::{Book, Depths, Player, Search, Settings, Snake, Source, Tables};
use proptest::prelude::*;
use rand::SeedableRng;
use tablebase::builder::{self, Options};
use tablebase::{Formation, Position, Spec, Table};

/// L3x-32 (L3 seeded with every arrangement, as the player's tables are),
/// built once for every test (1.7 million positions, a fraction of a
/// second).
fn l3_32() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let spec = Spec::new(Formation::find("L3x").unwrap(), 5, 0.1).unwrap();
        builder::build(&spec, dir.path(), Options::default(), None, &mut |_| {}).unwrap();
        dir
    })
    .path()
}

fn grid(text: &str) -> WideBoard {
    text.parse().unwrap()
}

/// A position of L3-32 in a game: six large tiles in a chain in the lower
/// right 3x2 block, the smallest a 32 beside free cells, small tiles in
/// the rest (the table's seed `2 . . . / . . . . / 2 F F F / 4 F F F`, a
/// 2 spawned beside its first 2).
const IN_L3: &str = "2 2 . . / . . . . / 2 32 64 128 / 4 1024 512 256";

#[test]
fn masking_reads_the_largest_tiles_as_walls() {
    let book = Book::open(l3_32()).unwrap();
    assert_eq!((book.name(), book.walls()), ("L3x-32", 6));
    let (masked, layer) = book.masked(grid(IN_L3)).expect("L3-32 applies");
    let expected: Board = "2 2 . . / . . . . / 2 32768 32768 32768 / 4 32768 32768 32768"
        .parse()
        .unwrap();
    assert_eq!(masked, expected.raw());
    // The layer of the table's definition: the other tiles sum to the
    // seeds' 8 and one spawned 2.
    assert_eq!(layer, 1);
    assert_eq!(
        book.spec()
            .layer_of_sum(Position::from_bits(masked).tile_sum()),
        Some(1)
    );
    // Turned, the board is read the same way.
    let turned = WideBoard::from(Board::from_raw(
        grid(IN_L3)
            .low()
            .transform(board::Symmetry::RotateClockwise)
            .raw(),
    ));
    assert!(book.masked(turned).is_some());

    for (board, why) in [
        (
            "2 2 . . / . . . . / 2 64 64 128 / 4 1024 512 256",
            "two walls alike are tiles waiting to merge, not a chain",
        ),
        (
            "2 32 . . / . . . . / 2 32 64 128 / 4 1024 512 256",
            "a free tile is as large as the target",
        ),
        (
            "16 16 16 16 / 16 16 16 16 / 16 32 64 128 / 16 1024 512 256",
            "the free tiles' sum is past the table's layers",
        ),
    ] {
        assert_eq!(book.masked(grid(board)), None, "{why}");
        assert_eq!(book.move_rates(grid(board)), [None; 4], "{why}");
    }
    // Five large tiles where the table has six: the sixth largest, a 4,
    // is no wall of L3 in any orientation.
    let five = grid("2 2 . . / . . . . / 2 2 64 128 / 4 1024 512 256");
    assert_eq!(book.move_rates(five), [None; 4]);
    // The walls stand, but the tile the table would make (32) merges with
    // none of them: the walls beside free cells hold 64 and up.
    let beside = grid("2 2 . . / . . . . / 2 64 128 2048 / 4 1024 512 256");
    assert!(book.masked(beside).is_some());
    assert_eq!(book.move_rates(beside), [None; 4]);
}

/// A table of ten walls (cells 0 to 9) and target 16, made in the cells
/// `targets` marks (0xF a cell), seeded with two 2s: a few thousand
/// positions, built in a moment.
fn ten_walls(name: &str, targets: u64) -> tempfile::TempDir {
    let walls = 0xFF_FFFF_FFFFu64;
    let formation = Formation::new(tablebase::FormationSpec {
        name: name.to_owned(),
        masks: vec![format!("{walls:#x}")],
        target_cells: format!("{targets:#x}"),
        canon: tablebase::Canon::Identity,
        large: tablebase::Large::Sliding,
        seeds: vec![format!("{:#x}", walls | 0x11 << 56)],
        extra_steps: 16,
        free: false,
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec::new(formation, 4, 0.1).unwrap();
    builder::build(&spec, dir.path(), Options::default(), None, &mut |_| {}).unwrap();
    dir
}

#[test]
fn a_table_made_in_one_cell_grows_its_walls() {
    // The table's seed and a spawned 2, turned half round: its cell 10 is
    // the second row's second cell here, beside the walls 64 and 512.
    let grows = grid("2 2 . . / 2 . 64 128 / 256 512 1024 2048 / 4096 8192 16384 32768");
    // A 16 beside the cell: the tile made there merges with it.
    let merges = grid("2 2 . . / 2 . 16 128 / 256 512 1024 2048 / 4096 8192 16384 32768");
    let one_cell = ten_walls("one", 0xF << 40);
    let any_cell = ten_walls("any", 0xFF_FFFF << 40);
    let one = Book::open(one_cell.path()).unwrap();
    let any = Book::open(any_cell.path()).unwrap();
    let table = Table::open(one_cell.path()).unwrap();
    // Made in its one cell, a 16 smaller than the walls beside it is the
    // next wall: the table plays there, with its own rates.
    let (masked, _) = one.masked(grows).expect("ten walls and 2s");
    let expected = table.move_rates(Position::from_bits(masked)).unwrap();
    let read = one.move_rates(grows);
    assert!(read.iter().any(Option::is_some));
    for (read, expected) in read.into_iter().zip(expected.rates) {
        match (read, expected) {
            (None, None) => {}
            (Some(read), Some(expected)) => {
                assert!((f64::from(read) - expected).abs() <= 1.0 / 65535.0);
            }
            other => panic!("{other:?}"),
        }
    }
    // Made anywhere, a 16 that merges with no wall serves nothing.
    assert!(any.masked(grows).is_some());
    assert_eq!(any.move_rates(grows), [None; 4]);
    // Where a 16 stands beside the cells, both play.
    assert!(one.move_rates(merges).iter().any(Option::is_some));
    assert!(any.move_rates(merges).iter().any(Option::is_some));
}

#[test]
fn a_position_in_a_table_reads_the_tables_rates() {
    let book = Book::open(l3_32()).unwrap();
    let table = Table::open(l3_32()).unwrap();
    for text in [
        IN_L3,
        "2 . . 2 / . . . . / 4 32 64 128 / 2 1024 512 256",
        "8 4 2 . / 2 . . . / 4 32 64 128 / 2 1024 512 256",
    ] {
        let board = grid(text);
        let (masked, _) = book.masked(board).expect("L3-32 applies");
        // The table's own query, through its layer files.
        let expected = table.move_rates(Position::from_bits(masked)).unwrap();
        let read = book.move_rates(board);
        // Every orientation of the board reads the same rates, each for
        // its move turned.
        for symmetry in board::Symmetry::ALL {
            let turned = WideBoard::from(board.low().transform(symmetry));
            let turned_rates = book.move_rates(turned);
            for direction in Direction::ALL {
                assert_eq!(
                    turned_rates[symmetry.direction(direction).index()],
                    read[direction.index()],
                    "{text} turned by {symmetry:?}"
                );
            }
        }
        for ((direction, read), expected) in
            Direction::ALL.into_iter().zip(read).zip(expected.rates)
        {
            match (read, expected) {
                (None, None) => {}
                (Some(read), Some(expected)) => assert!(
                    (f64::from(read) - expected).abs() <= 1.0 / 65535.0,
                    "{text} {direction:?}: {read} where the table says {expected}"
                ),
                other => panic!("{text} {direction:?}: {other:?}"),
            }
        }
    }
}

/// A partitioned table (docs/distributed.md), read whole into the book,
/// gives the whole table's rates: its parts are each in order, not
/// together, and the book sorts them.
#[test]
fn a_partitioned_table_reads_as_the_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec::new(Formation::find("L3x").unwrap(), 5, 0.1).unwrap();
    let options = Options {
        partitions: Some(3),
        ..Options::default()
    };
    builder::partitioned::build_local(&spec, dir.path(), options, &mut |_| {}).unwrap();
    let (parts, whole) = (
        Book::open(dir.path()).unwrap(),
        Book::open(l3_32()).unwrap(),
    );
    // IN_L3's walls, small tiles at random in its other cells.
    let walls = grid(IN_L3).low().raw() & 0xFFF0_FFF0_0000_0000;
    let mut applied = 0;
    for seed in 0..300 {
        let small = random_board(seed, 5).raw() & !0xFFF0_FFF0_0000_0000;
        let small = (0..16).fold(small, |board, cell| {
            let nibble = (board >> (4 * cell)) & 0xF;
            board & !(0xF << (4 * cell)) | nibble.min(3) << (4 * cell)
        });
        let board = WideBoard::from(Board::from_raw(walls | small));
        let rates = parts.move_rates(board);
        assert_eq!(rates, whole.move_rates(board));
        assert_eq!(parts.afterstate_rate(board), whole.afterstate_rate(board));
        applied += usize::from(rates.iter().any(Option::is_some));
    }
    assert!(applied > 100, "{applied} boards in the table");
}

#[test]
fn table_rates_value_the_searchs_leaves() {
    let (tables, _) = Tables::open(&[l3_32().to_owned()]);
    let book = &tables.books()[0];
    let board = grid(IN_L3).low();
    // A move's afterstate reads the rate the move reads.
    let rates = book.move_rates(board.into());
    assert!(rates.iter().flatten().any(|&rate| rate > 0.0));
    for (direction, afterstate) in board.afterstates().iter() {
        let read = book.afterstate_rate(afterstate.board.into());
        assert_eq!(read, rates[direction.index()], "{direction:?}");
    }
    // At one ply every root afterstate is a leaf: worth the evaluator's
    // value and, in a table, K times its rate times the weight of the
    // target (32: 5 * 2^5).
    let snake = Snake::new();
    let scale = 2.0;
    let settings = Settings {
        leaf_rates: Some(scale),
        ..Settings::new(Depths::fixed(1))
    };
    let value = |direction: Direction, with_tables: bool| {
        let afterstate = board.slide(direction).unwrap().board;
        let rate = rates[direction.index()].unwrap_or(0.0);
        snake.value(afterstate) as f32
            + if with_tables {
                scale * rate * 160.0
            } else {
                0.0
            }
    };
    let searched = [true, false].map(|with_tables| {
        let mut search = Search::new(&snake, settings);
        search.consult(with_tables.then_some(&tables));
        let choice = search.choose(board).unwrap();
        let expected = board
            .afterstates()
            .iter()
            .map(|(direction, _)| value(direction, with_tables))
            .fold(f32::MIN, f32::max);
        assert_eq!(choice.value, expected, "with tables: {with_tables}");
        choice.value
    });
    assert!(searched[0] > searched[1]);
}

#[test]
fn a_position_in_a_table_gets_the_tables_best_move() {
    let (tables, problems) = Tables::open(&[l3_32().to_owned()]);
    assert!(problems.is_empty(), "{problems:?}");
    let player = Player::new(Settings::new(Depths::fixed(2)), tables);
    let book = &player.tables().books()[0];
    // Positions of the table (small tiles in its free cells, the walls a
    // chain ending in 32), each with its moves' rates: the player plays a
    // clear best move itself, and lets the search choose among moves rated
    // alike.
    let free = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12];
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
    let (mut clear, mut alike) = (0, 0);
    for _ in 0..1000 {
        let mut board = grid(". . . . / . . . . / . 32 64 128 / . 1024 512 256");
        for _ in 0..rand::RngExt::random_range(&mut rng, 3..9) {
            let cell = free[rand::RngExt::random_range(&mut rng, 0..free.len())];
            board = board.with_tile(cell, rand::RngExt::random_range(&mut rng, 1..4));
        }
        let rates = book.move_rates(board);
        let Some((best, top)) = Direction::ALL
            .into_iter()
            .zip(rates)
            .filter_map(|(direction, rate)| Some((direction, rate?)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            continue;
        };
        if top < player.tables().min_rate() {
            continue;
        }
        let others: Vec<(Direction, f32)> = Direction::ALL
            .into_iter()
            .zip(rates)
            .filter_map(|(direction, rate)| Some((direction, rate?)))
            .filter(|&(direction, _)| direction != best)
            .collect();
        let (direction, source) = player.choose(board, &mut player.search()).unwrap();
        assert_eq!(source, Source::Table(0), "{board}");
        if others.iter().all(|&(_, rate)| top - rate > 1e-3) {
            assert_eq!(direction, best, "{board}: {rates:?}");
            clear += 1;
        } else {
            let chosen = rates[direction.index()].unwrap();
            assert!(top - chosen <= 1e-4, "{board}: {direction:?} of {rates:?}");
            alike += 1;
        }
    }
    assert!(clear > 20 && alike > 20, "{clear} clear, {alike} alike");
}

#[test]
fn a_position_in_no_table_goes_to_the_search() {
    let (tables, _) = Tables::open(&[l3_32().to_owned()]);
    let player = Player::new(Settings::new(Depths::fixed(2)), tables);
    let snake = Snake::new();
    for text in [
        "2 2 . . / . . . . / . . . . / . . . .",
        // The walls' chain is broken by two 64s.
        "2 2 . . / . . . . / 2 64 64 128 / 4 1024 512 256",
    ] {
        let board = grid(text);
        assert_eq!(player.tables().advise(board), None, "{text}");
        let expected = Search::new(&snake, Settings::new(Depths::fixed(2)))
            .choose(board.low())
            .map(|choice| choice.direction);
        let chosen = player.choose(board, &mut player.search());
        assert_eq!(
            chosen,
            expected.map(|direction| (direction, Source::Search))
        );
    }
}

#[test]
fn missing_or_damaged_tables_are_left_out_with_one_line_each() {
    let work = tempfile::tempdir().unwrap();
    // A copy of L3-32 with one layer file cut short.
    let damaged = work.path().join("damaged");
    std::fs::create_dir(&damaged).unwrap();
    for entry in std::fs::read_dir(l3_32()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, damaged.join(path.file_name().unwrap())).unwrap();
    }
    let layer = std::fs::read_dir(&damaged)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.file_name().unwrap() != "table.json")
        .max_by_key(|path| std::fs::metadata(path).unwrap().len())
        .unwrap();
    let bytes = std::fs::read(&layer).unwrap();
    std::fs::write(&layer, &bytes[..bytes.len() / 2]).unwrap();
    let missing = work.path().join("missing");

    let dirs: Vec<PathBuf> = vec![missing.clone(), damaged.clone(), l3_32().to_owned()];
    let (tables, problems) = Tables::open(&dirs);
    assert_eq!(tables.books().len(), 1, "the good table is kept");
    assert_eq!(problems.len(), 2, "{problems:?}");
    for (problem, dir) in problems.iter().zip([&missing, &damaged]) {
        assert!(!problem.contains('\n'), "one line: {problem}");
        assert!(
            problem.contains(&*dir.to_string_lossy()),
            "names {}: {problem}",
            dir.display()
        );
    }
    // The player goes on with what is left, and with no table at all.
    for tables in [tables, Tables::open(&[missing]).0] {
        let player = Player::new(Settings::new(Depths::fixed(2)), tables);
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        assert!(player.play(SpawnRule::STANDARD, &mut rng, &mut ()).moves > 100);
    }
}

#[test]
fn a_folder_of_tables_opens_each() {
    let work = tempfile::tempdir().unwrap();
    let set = work.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let copy = set.join("L3-32");
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(l3_32()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    let (tables, problems) = Tables::open(&[set]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(tables.names().collect::<Vec<_>>(), ["L3x-32"]);
}

/// The search's definition, written plainly: no cache, in `f64`.
struct Reference<'a> {
    snake: &'a Snake,
    four: f64,
    pass: f64,
    dead: f64,
    /// The largest size of a value it met, the scale of the search's
    /// rounding (it sums values in `f32`, which may nearly cancel).
    largest: std::cell::Cell<f64>,
}

impl Reference<'_> {
    fn new(snake: &Snake, board: Board, four: f64) -> Reference<'_> {
        let largest = f64::from(board.max_tile()) * f64::from(1u32 << board.max_tile());
        Reference {
            snake,
            four,
            pass: if snake.value(board) >= 0 {
                2.0 * largest
            } else {
                f64::MIN
            },
            dead: -(2.0 * largest).max(131_072.0),
            largest: std::cell::Cell::new(1.0),
        }
    }

    fn chance(&self, afterstate: Board, layers: u32) -> f64 {
        let value = f64::from(self.snake.value(afterstate));
        self.largest.set(self.largest.get().max(value.abs()));
        if layers == 0 || value < self.pass {
            return value;
        }
        let cells: Vec<usize> = (0..16).filter(|&cell| afterstate.tile(cell) == 0).collect();
        let sum: f64 = cells
            .iter()
            .map(|&cell| {
                let two = self.best(afterstate.with_tile(cell, 1), layers);
                let four = if self.four > 0.0 {
                    self.best(afterstate.with_tile(cell, 2), layers)
                } else {
                    0.0
                };
                (1.0 - self.four) * two + self.four * four
            })
            .sum();
        sum / cells.len() as f64
    }

    fn best(&self, board: Board, layers: u32) -> f64 {
        board
            .afterstates()
            .iter()
            .map(|(_, afterstate)| self.chance(afterstate.board, layers - 1))
            .reduce(f64::max)
            .unwrap_or(self.dead)
    }
}

fn random_board(seed: u64, tiles: usize) -> Board {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut board = Board::EMPTY;
    for _ in 0..tiles {
        let cell = rand::RngExt::random_range(&mut rng, 0..16);
        let exponent = rand::RngExt::random_range(&mut rng, 1..12);
        board = board.with_tile(cell, exponent);
    }
    board
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With no cutoff, the search's value of every root move is the plain
    /// expectimax's: at 2 plies with 4s spawning (one layer of spawns, so
    /// the cache never holds a node searched to another depth), and at 3
    /// plies with 2s only (a layer's boards then all have one tile sum).
    #[test]
    fn the_search_is_the_plain_expectimax(seed in any::<u64>(), tiles in 6usize..13) {
        let snake = Snake::new();
        let board = random_board(seed, tiles);
        for (plies, four) in [(2u8, 0.1), (3, 0.0)] {
            let spawns = SpawnRule::new(four).unwrap();
            let settings = Settings { cutoff: Some(0.0), spawns, ..Settings::new(Depths::fixed(plies)) };
            let reference = Reference::new(&snake, board, four);
            let values: Vec<(Direction, f64)> = board
                .afterstates()
                .iter()
                .map(|(direction, a)| (direction, reference.chance(a.board, u32::from(plies) - 1)))
                .collect();
            let Some(choice) = Search::new(&snake, settings).choose(board) else {
                prop_assert!(values.is_empty());
                continue;
            };
            let best = values.iter().map(|&(_, value)| value).fold(f64::MIN, f64::max);
            let scale = reference.largest.get();
            prop_assert!((f64::from(choice.value) - best).abs() <= 1e-5 * scale,
                "{plies}p: {} where the reference says {best}", choice.value);
            let chosen = values.iter().find(|&&(direction, _)| direction == choice.direction).unwrap().1;
            prop_assert!((chosen - best).abs() <= 1e-5 * scale, "{plies}p: a best move");
        }
    }
}
