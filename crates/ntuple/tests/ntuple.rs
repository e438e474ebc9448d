//! Networks against the plain definition of their value, and weight files
//! against every way they can be damaged.

use std::collections::BTreeSet;
use std::path::Path;

use board::{Board, Symmetry};
use ntuple::{Error, Metadata, Network, Pattern, Precision, parse_patterns};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A network with small integer weights everywhere: sums of them are exact
/// in `f32` whatever the order, so values can be compared exactly.
fn network_with_integer_weights(patterns: &str, seed: u64) -> Network {
    let network = Network::new(parse_patterns([patterns]).unwrap()).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    for table in network.tables() {
        for index in 0..table.len() {
            table.add(index, (rng.next_u32() % 201) as f32 - 100.0);
        }
    }
    network
}

/// Networks of every layout the fast paths distinguish, built once.
static TEST_NETWORKS: std::sync::LazyLock<Vec<(&str, Network)>> = std::sync::LazyLock::new(|| {
    [
        "0123 4567",
        "0123 4567 0145",
        "0123 4567 0145 1256",
        "0123 4567 0145 1256 569a",
        "0123 4567 0145 1256 569a 89ab",
        "0123 4567 0145 1256 569a 89ab cdef 048c",
        "3210 fb73 c840",
        "0123! 159d! 8c40!",
        "2x4patt 37b!",
        "0123 merge",
        // Statistics: monotonicity read on the eight images in the walk, and
        // the tile counts in the list.
        "0123 m@4567",
        "01! num@st m@0123",
    ]
    .into_iter()
    .enumerate()
    .map(|(seed, patterns)| {
        (
            patterns,
            network_with_integer_weights(patterns, seed as u64),
        )
    })
    .collect()
});

/// The images of a board under which a pattern is read: all eight for an
/// isomorphic one, the board itself otherwise.
fn images(board: Board, pattern: &Pattern) -> Vec<Board> {
    if pattern.is_isomorphic() {
        Symmetry::ALL.iter().map(|&s| board.transform(s)).collect()
    } else {
        vec![board]
    }
}

/// The value by definition: every feature's weight, found with the plain
/// cell-by-cell index.
fn reference_value(network: &Network, board: Board) -> f32 {
    network
        .patterns()
        .iter()
        .zip(network.tables())
        .map(|(pattern, table)| {
            images(board, pattern)
                .into_iter()
                .map(|image| table.get(pattern.index(image)))
                .sum::<f32>()
        })
        .sum()
}

/// The (table, index) of every feature of a board.
fn feature_entries(network: &Network, board: Board) -> Vec<(usize, usize)> {
    network
        .patterns()
        .iter()
        .enumerate()
        .flat_map(|(table, pattern)| {
            images(board, pattern)
                .into_iter()
                .map(move |image| (table, pattern.index(image)))
        })
        .collect()
}

fn boards() -> impl Strategy<Value = Board> {
    prop_oneof![
        any::<u64>().prop_map(Board::from_raw),
        proptest::collection::vec(0u8..=6, 16)
            .prop_map(|cells| Board::from_exponents(cells.try_into().unwrap()).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fast_indices_match_the_definition(board in boards()) {
        // Increasing cells take the pext path (unrolled for 2, 4, 5, 6 and 8
        // patterns, a loop otherwise), the others the generic one; the plain
        // patterns and merge are summed in feature-list order.
        for (patterns, network) in TEST_NETWORKS.iter() {
            prop_assert_eq!(network.estimate(board), reference_value(network, board), "{}", patterns);
        }
    }

    #[test]
    fn symmetric_boards_share_their_value(board in boards(), seed in 0u64..4) {
        let network = network_with_integer_weights("0123 4567 0145 3210", seed);
        let value = network.estimate(board);
        for symmetry in Symmetry::ALL {
            prop_assert_eq!(network.estimate(board.transform(symmetry)), value);
        }
    }

    #[test]
    fn updates_add_to_every_feature(board in boards(), amount in -8i32..8) {
        let network = network_with_integer_weights("0123 4567 0145! 12", 1);
        let amount = amount as f32 * 0.25;
        let entries = feature_entries(&network, board);
        let before: Vec<f32> = entries.iter().map(|&(t, i)| network.tables()[t].get(i)).collect();
        let returned = network.update(board, amount);
        // Each weight rises by the amount once for every feature selecting it.
        for (&(table, index), old) in entries.iter().zip(&before) {
            let times = entries.iter().filter(|&&entry| entry == (table, index)).count();
            prop_assert_eq!(network.tables()[table].get(index), old + amount * times as f32);
        }
        let distinct = entries.iter().collect::<BTreeSet<_>>().len() == entries.len();
        if distinct {
            prop_assert_eq!(returned, network.estimate(board));
            prop_assert_eq!(returned, before.iter().sum::<f32>() + amount * entries.len() as f32);
        }
    }
}

fn metadata() -> Metadata {
    Metadata::from([
        ("episodes".to_owned(), "3000".to_owned()),
        ("alpha".to_owned(), "0.1".to_owned()),
    ])
}

fn sample_boards() -> Vec<Board> {
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    (0..200).map(|_| Board::from_raw(rng.next_u64())).collect()
}

#[test]
fn weight_files_round_trip_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let network = network_with_integer_weights("2x4patt 0123! 3210", 5);
    let path = dir.path().join("net.nw");
    network.save(&path, &metadata()).unwrap();
    let loaded = Network::load(&path, Some(network.patterns())).unwrap();
    assert_eq!(loaded.metadata, metadata());
    assert_eq!(loaded.network.patterns(), network.patterns());
    for board in sample_boards() {
        assert_eq!(loaded.network.estimate(board), network.estimate(board));
    }
    let again = dir.path().join("again.nw");
    loaded.network.save(&again, &loaded.metadata).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary files are left: {names:?}");
}

fn saved(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let network = network_with_integer_weights("0123 45", 2);
    let path = dir.join("net.nw");
    network.save(&path, &metadata()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

fn load_error(path: &Path, bytes: &[u8]) -> String {
    std::fs::write(path, bytes).unwrap();
    Network::load(path, None).unwrap_err().to_string()
}

#[test]
fn damaged_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = saved(dir.path());
    let name = path.display().to_string();

    for cut in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
        let message = load_error(&path, &bytes[..cut]);
        assert!(message.starts_with(&name), "{message}");
        assert!(
            message.contains("truncated")
                || message.contains("not a 2048lab weight file")
                || message.contains("corrupt header"),
            "cut at {cut}: {message}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(load_error(&path, &longer).contains("too long"));

    let mut flipped = bytes.clone();
    let middle = bytes.len() / 2;
    flipped[middle] ^= 0x40;
    assert_eq!(
        load_error(&path, &flipped),
        format!("{name}: checksum mismatch: the file is corrupt")
    );

    let mut future = bytes.clone();
    let newer = ntuple::VERSION + 1;
    future[8..12].copy_from_slice(&newer.to_le_bytes());
    assert!(load_error(&path, &future).contains(&format!(
        "format version {newer}, but this build reads versions 1 to {}",
        ntuple::VERSION
    )));

    let mut foreign = bytes.clone();
    foreign[..8].copy_from_slice(b"\0\x02\0\0\0\x04#\x01");
    assert!(load_error(&path, &foreign).contains("not a 2048lab weight file"));

    let mut header = bytes.clone();
    header[20] ^= 0xFF;
    let message = load_error(&path, &header);
    assert!(
        message.contains("corrupt header") || message.contains("truncated"),
        "{message}"
    );

    // Every damaged byte of the magic, version, length and header is an
    // error, never a panic or a huge allocation.
    let header_end = 16 + u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    for position in 0..header_end {
        for bit in [0x01, 0x80] {
            let mut damaged = bytes.clone();
            damaged[position] ^= bit;
            std::fs::write(&path, &damaged).unwrap();
            assert!(
                Network::load(&path, None).is_err(),
                "byte {position} bit {bit:#x}"
            );
        }
    }
}

#[test]
fn another_network_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = saved(dir.path());
    let expected = parse_patterns(["2x4patt"]).unwrap();
    let error = Network::load(&path, Some(&expected)).unwrap_err();
    assert!(matches!(error, Error::WrongNetwork { .. }));
    assert_eq!(
        error.to_string(),
        format!("{}: holds network 0123 45, not 0123 4567", path.display())
    );
}

#[test]
fn missing_files_and_folders_are_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.nw");
    assert!(matches!(
        Network::load(&missing, None),
        Err(Error::Io { .. })
    ));
    let network = network_with_integer_weights("01", 1);
    let nowhere = dir.path().join("no/such/folder/net.nw");
    let error = network.save(&nowhere, &Metadata::new()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&nowhere.display().to_string())
    );
}

/// The fixture `name`, unpacked into `dir` if it is gzipped.
fn fixture(name: &str, dir: &Path) -> std::path::PathBuf {
    let fixtures = testkit::tdl2048_fixtures();
    let path = fixtures.join(name);
    if path.exists() {
        return path;
    }
    let packed = fixtures.join(format!("{name}.gz"));
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&packed).unwrap()),
        &mut bytes,
    )
    .unwrap();
    let unpacked = dir.join(name);
    std::fs::write(&unpacked, bytes).unwrap();
    unpacked
}

/// The networks of the fixtures, as TDL2048+ was told them with `-n`.
const FIXTURE_NETWORKS: [(&str, &str); 4] = [
    ("2x4patt-td.w", "2x4patt"),
    ("2x4patt-tc.w", "2x4patt"),
    ("8x4patt-td.w", "8x4patt"),
    ("mixed-td.w", "0123 01245 merge"),
];

struct ValueRow {
    board: Board,
    values: [f32; 4],
    best_move: i32,
    move_values: [f32; 4],
}

fn value_rows() -> Vec<ValueRow> {
    let text = std::fs::read_to_string(testkit::tdl2048_fixtures().join("values.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let float = |i: usize| fields[i].parse::<f32>().unwrap();
            ValueRow {
                board: Board::from_raw(u64::from_str_radix(&fields[0][2..], 16).unwrap()),
                values: [float(1), float(2), float(3), float(4)],
                best_move: fields[5].parse().unwrap(),
                move_values: [float(8), float(9), float(10), float(11)],
            }
        })
        .collect()
}

#[test]
fn tdl2048_files_give_its_values_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let rows = value_rows();
    assert_eq!(rows.len(), 200);
    for (column, (file, network)) in FIXTURE_NETWORKS.iter().enumerate() {
        let patterns = parse_patterns([network]).unwrap();
        let loaded = Network::open(&fixture(file, dir.path()), Some(&patterns), u64::MAX).unwrap();
        for row in &rows {
            let value = loaded.network.estimate(row.board);
            assert_eq!(
                value.to_bits(),
                row.values[column].to_bits(),
                "{file} on {:?}: {value} against TDL2048+'s {}",
                row.board,
                row.values[column]
            );
        }
    }
}

#[test]
fn greedy_moves_match_tdl2048() {
    let patterns = parse_patterns(["2x4patt"]).unwrap();
    let network = Network::open(
        &testkit::tdl2048_fixtures().join("2x4patt-td.w"),
        Some(&patterns),
        u64::MAX,
    )
    .unwrap()
    .network;
    for row in value_rows() {
        let values = row.board.afterstates().0.map(|outcome| {
            outcome.map_or(-f32::MAX, |a| a.reward as f32 + network.estimate(a.board))
        });
        assert_eq!(
            values.map(f32::to_bits),
            row.move_values.map(f32::to_bits),
            "{:?}",
            row.board
        );
        // The first of the largest, in the order up, right, down, left.
        let best = (0..4)
            .filter(|&d| row.board.afterstates().0[d].is_some())
            .fold(None, |best: Option<usize>, d| match best {
                Some(b) if values[b] >= values[d] => Some(b),
                _ => Some(d),
            });
        assert_eq!(
            best.map_or(-1, |d| d as i32),
            row.best_move,
            "{:?}",
            row.board
        );
    }
}

#[test]
fn tdl2048_files_round_trip_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (file, network) in FIXTURE_NETWORKS {
        let original = fixture(file, dir.path());
        let patterns = parse_patterns([network]).unwrap();
        let loaded = Network::open(&original, Some(&patterns), u64::MAX).unwrap();
        let saved = dir.path().join(format!("saved-{file}"));
        loaded.network.save_tdl2048(&saved).unwrap();
        let bytes = std::fs::read(&saved).unwrap();
        if file.contains("-tc") {
            // Outside TC mode TDL2048+ keeps the values and drops the TC
            // field, leaving the layout of the TD file.
            assert_eq!(bytes.len(), 524_335);
            let again = Network::open(&saved, Some(&patterns), u64::MAX)
                .unwrap()
                .network;
            for board in sample_boards() {
                assert_eq!(again.estimate(board), loaded.network.estimate(board));
            }
        } else {
            assert_eq!(bytes, std::fs::read(&original).unwrap(), "{file}");
        }
    }
}

/// A network of the test set, by its patterns.
fn test_network(patterns: &str) -> &'static Network {
    &TEST_NETWORKS
        .iter()
        .find(|(name, _)| *name == patterns)
        .expect("a test network")
        .1
}

#[test]
fn statistic_tables_keep_their_names_in_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    // TDL2048+'s format: text names, and the network rebuilt from them.
    let network = test_network("0123 m@4567");
    let path = dir.path().join("stat.w");
    network.save_tdl2048(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let second_table = 1 + 4 + (1 + 8 + 2 + 8 + 4 * 65536 + 2);
    assert_eq!(&bytes[second_table + 1..second_table + 9], b"m@4567  ");
    let loaded = Network::open(&path, None, u64::MAX).unwrap().network;
    assert_eq!(loaded.patterns(), network.patterns());
    // 2048lab's format, with tables read once on the board.
    let network = test_network("01! num@st m@0123");
    let path = dir.path().join("stat.nw");
    network.save(&path, &metadata()).unwrap();
    let reloaded = Network::load(&path, None).unwrap().network;
    assert_eq!(reloaded.patterns(), network.patterns());
    for board in sample_boards() {
        assert_eq!(
            loaded.estimate(board),
            test_network("0123 m@4567").estimate(board)
        );
        assert_eq!(reloaded.estimate(board), network.estimate(board));
    }
}

/// Half-precision weights: each rounded to the nearest f16, half the
/// memory, and both file formats keep them so.
#[test]
fn half_precision_networks_round_and_keep_their_weights() {
    let dir = tempfile::tempdir().unwrap();
    let single = network_with_integer_weights("0123 4567 0145!", 3);
    for table in single.tables() {
        for index in (0..table.len()).step_by(7) {
            table.add(index, 0.3);
        }
    }
    let half = Network::open(&save_and_path(&single, dir.path()), None, u64::MAX)
        .unwrap()
        .network
        .into_precision(Precision::F16)
        .unwrap();
    assert_eq!(half.precision(), Precision::F16);
    assert_eq!(2 * half.memory_bytes(), single.memory_bytes());
    assert!(
        half.describe().ends_with("of f16 weights)"),
        "{}",
        half.describe()
    );
    // Every weight rounded to the nearest f16 (integers up to 2048 exactly).
    for (h, s) in half.tables().iter().zip(single.tables()) {
        for index in 0..s.len() {
            assert_eq!(h.get(index), half::f16::from_f32(s.get(index)).to_f32());
        }
    }
    // Updates are rounded too: the value returned is the rounded weights'.
    let board = Board::from_raw(0x0123_4567_89ab_cdef);
    assert_eq!(half.update(board, 0.3), half.estimate(board));
    for name in ["half.nw", "half.w"] {
        let path = dir.path().join(name);
        match name {
            "half.nw" => half.save(&path, &metadata()).unwrap(),
            _ => half.save_tdl2048(&path).unwrap(),
        }
        let patterns = half.patterns().to_vec();
        let loaded = Network::open(&path, Some(&patterns), u64::MAX)
            .unwrap()
            .network;
        assert_eq!(loaded.precision(), Precision::F16, "{name}");
        for board in sample_boards() {
            assert_eq!(loaded.estimate(board), half.estimate(board), "{name}");
        }
    }
    // TDL2048+ writes 2-byte elements as IEEE half: the element size says so.
    let bytes = std::fs::read(dir.path().join("half.w")).unwrap();
    assert_eq!(&bytes[1 + 4 + 1 + 8..1 + 4 + 1 + 8 + 2], &[2, 0]);
}

/// `net` saved in 2048lab's format in `dir`, and the path.
fn save_and_path(net: &Network, dir: &Path) -> std::path::PathBuf {
    let path = dir.join("single.nw");
    net.save(&path, &metadata()).unwrap();
    path
}

#[test]
fn tdl2048_files_rebuild_their_network_from_table_names() {
    let dir = tempfile::tempdir().unwrap();
    let network = |file: &str| {
        let loaded = Network::open(&fixture(file, dir.path()), None, u64::MAX).unwrap();
        (loaded.network.describe(), loaded.network.feature_count())
    };
    assert_eq!(network("2x4patt-td.w").1, 16);
    // `load` reads 2048lab's format only, and says which reads both.
    let error = Network::load(&fixture("2x4patt-td.w", dir.path()), None)
        .unwrap_err()
        .to_string();
    assert!(
        error.ends_with("a TDL2048+ .w file is read by Network::open"),
        "{error}"
    );
    // TDL2048+ without -n reads the 8 lines back as isomorphic 4-tuples
    // (64 features), and plays them at a quarter of their score: the
    // tables of a built-in network are read as it reads them.
    assert_eq!(network("8x4patt-td.w").1, 8);
    let (described, features) = network("mixed-td.w");
    assert!(described.starts_with("0123 01245 merge"), "{described}");
    assert_eq!(features, 17);
}

#[test]
fn damaged_tdl2048_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(testkit::tdl2048_fixtures().join("2x4patt-td.w")).unwrap();
    let path = dir.path().join("cut.w");
    let patterns = parse_patterns(["2x4patt"]).unwrap();
    for cut in [0, 1, 4, 10, 30, 1000, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let message = Network::open(&path, Some(&patterns), u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with(&path.display().to_string()),
            "{message}"
        );
        assert!(
            message.contains("truncated") || message.contains("ends"),
            "cut at {cut}: {message}"
        );
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"junk");
    std::fs::write(&path, &longer).unwrap();
    assert!(
        Network::open(&path, None, u64::MAX)
            .unwrap_err()
            .to_string()
            .contains("after the last table")
    );

    std::fs::write(&path, &bytes).unwrap();
    let other = parse_patterns(["4x6patt"]).unwrap();
    let error = Network::open(&path, Some(&other), u64::MAX).unwrap_err();
    assert!(matches!(error, Error::WrongNetwork { .. }), "{error}");
    assert!(matches!(
        Network::open(&path, None, 1000),
        Err(Error::TooLarge { .. })
    ));

    std::fs::write(&path, b"\x07garbage").unwrap();
    let message = Network::open(&path, None, u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("neither a 2048lab nor a TDL2048+ weight file"),
        "{message}"
    );

    // Every damaged byte of the first table's header is an error or a
    // readable file, never a panic.
    for position in 0..30 {
        let mut damaged = bytes.clone();
        damaged[position] ^= 0x5A;
        std::fs::write(&path, &damaged).unwrap();
        let _ = Network::open(&path, None, 1 << 30);
    }
}

#[test]
fn selections_take_tables_and_ensembles_average_them() {
    use ntuple::Source;
    let dir = tempfile::tempdir().unwrap();
    let fixtures = testkit::tdl2048_fixtures();
    let (td, tc) = (fixtures.join("2x4patt-td.w"), fixtures.join("2x4patt-tc.w"));
    let source = |text: String| text.parse::<Source>().unwrap();
    let whole = |path: &Path| Network::open(path, None, u64::MAX).unwrap().network;
    let (td_network, tc_network) = (whole(&td), whole(&tc));

    // [1]|file takes the second table only.
    let second = Network::open_sources(
        &[source(format!("[1]|{}", td.display()))],
        None,
        None,
        u64::MAX,
    )
    .unwrap();
    assert_eq!(
        second.describe(),
        "4567 (1 tables, 8 features, 256 KiB of f32 weights)"
    );
    for index in [0, 1, 4660, 65535] {
        assert_eq!(
            second.tables()[0].get(index),
            td_network.tables()[1].get(index)
        );
    }

    // Tables of the same pattern from several files are averaged.
    let sources = [
        source(td.display().to_string()),
        source(tc.display().to_string()),
    ];
    let ensemble = Network::open_sources(&sources, None, None, u64::MAX).unwrap();
    for (table, (a, b)) in ensemble
        .tables()
        .iter()
        .zip(td_network.tables().iter().zip(tc_network.tables()))
    {
        for index in [0, 17, 4660, 65535] {
            assert_eq!(table.get(index), (a.get(index) + b.get(index)) / 2.0);
        }
    }

    // Mixed: the first table of one file, the second of the other.
    let mixed = [
        source(format!("[0]|{}", td.display())),
        source(format!("[1]|{}", tc.display())),
    ];
    let patterns = parse_patterns(["2x4patt"]).unwrap();
    let combined = Network::open_sources(&mixed, Some(&patterns), None, u64::MAX).unwrap();
    assert_eq!(
        combined.tables()[1].get(4660),
        tc_network.tables()[1].get(4660)
    );
    let wrong = parse_patterns(["0123"]).unwrap();
    assert!(matches!(
        Network::open_sources(&mixed, Some(&wrong), None, u64::MAX),
        Err(Error::WrongNetwork { .. })
    ));

    // A subset saves only its tables.
    let subset = td_network.subset(&[1]).unwrap();
    let path = dir.path().join("one.w");
    subset.save_tdl2048(&path).unwrap();
    assert_eq!(
        Network::open(&path, None, u64::MAX)
            .unwrap()
            .network
            .describe(),
        second.describe()
    );

    // Bad selections say what is wrong.
    let message = |text: &str| text.parse::<Source>().unwrap_err().to_string();
    assert!(message("[0-x]|a.w").contains("table positions are numbers"));
    assert!(message("[3-1]|a.w").contains("must not run backwards"));
    assert!(message("[0]a.w").contains("write [TABLES]|FILE"));
    assert_eq!(message(""), "\"\": no file named");
    assert_eq!(message("[0]|"), "\"[0]|\": no file after the selection");
    // A repeat was reported as a position past the file's last table.
    assert!(message("[0,1-2,1]|a.w").ends_with(": table 1 is selected twice"));
    // A range this long aborted the process, out of memory.
    assert!(message("[0-99999999999]|a.w").ends_with(": no network has more than 4096 tables"));
    assert!(message("[4096]|a.w").ends_with(": no network has more than 4096 tables"));
    assert!("[4095]|a.w".parse::<Source>().is_ok());
    let out_of_range = Network::open_sources(
        &[source(format!("[5]|{}", td.display()))],
        None,
        None,
        u64::MAX,
    );
    assert!(
        out_of_range
            .unwrap_err()
            .to_string()
            .contains("has 2 tables")
    );
    assert!(td_network.subset(&[2]).is_err());
}

/// A network that holds a pattern twice reads back as saved; two such
/// files average first with first and second with second.
#[test]
fn a_pattern_held_twice_reads_back_as_saved() {
    use ntuple::Source;
    let dir = tempfile::tempdir().unwrap();
    let patterns = parse_patterns(["0123", "0123", "4567"]).unwrap();
    let save = |name: &str, scale: f32| {
        let network = Network::new(patterns.clone()).unwrap();
        for (number, table) in network.tables().iter().enumerate() {
            table.set(7, scale * (number + 1) as f32);
        }
        let path = dir.path().join(name);
        network.save(&path, &Metadata::new()).unwrap();
        path.display().to_string()
    };
    let (one, two) = (save("one.nw", 1.0), save("two.nw", 3.0));
    let read = |paths: &[&String]| {
        let sources: Vec<Source> = paths.iter().map(|path| path.parse().unwrap()).collect();
        Network::open_sources(&sources, None, None, u64::MAX).unwrap()
    };
    let network = read(&[&one]);
    assert_eq!(network.patterns(), patterns.as_slice());
    let weights: Vec<f32> = network.tables().iter().map(|t| t.get(7)).collect();
    assert_eq!(weights, [1.0, 2.0, 3.0]);
    let ensemble = read(&[&one, &two]);
    let weights: Vec<f32> = ensemble.tables().iter().map(|t| t.get(7)).collect();
    assert_eq!(weights, [2.0, 4.0, 6.0]);
}

/// A 2048lab file records which tables are read without isomorphism: a
/// network named otherwise is refused, not read another way.
#[test]
fn naming_a_saved_network_with_another_isomorphism_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.nw");
    let saved = parse_patterns(["0123!", "4567"]).unwrap();
    Network::new(saved.clone())
        .unwrap()
        .save(&path, &Metadata::new())
        .unwrap();
    let source: ntuple::Source = path.display().to_string().parse().unwrap();
    let open = |names: [&str; 2]| {
        let expected = parse_patterns(names).unwrap();
        Network::open_sources(
            std::slice::from_ref(&source),
            Some(&expected),
            None,
            u64::MAX,
        )
    };
    assert_eq!(
        open(["0123!", "4567"]).unwrap().patterns(),
        saved.as_slice()
    );
    let error = open(["0123", "4567"]).unwrap_err().to_string();
    assert!(
        error.contains("holds network 0123! 4567, not 0123 4567 (the file records"),
        "{error}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A weight file of either format with bytes changed or cut short is
    /// an error in words or a readable network, never a panic, and never
    /// an allocation of what a corrupt header claims.
    #[test]
    fn damaged_weight_files_are_errors_in_words(
        tdl2048 in any::<bool>(),
        changes in prop::collection::vec((0usize..600, any::<u8>()), 1..4),
        cut in prop::option::of(0usize..2000),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(if tdl2048 { "net.w" } else { "net.nw" });
        let network = Network::new(parse_patterns(["0123", "4567!"]).unwrap()).unwrap();
        if tdl2048 {
            network.save_tdl2048(&path).unwrap();
        } else {
            network.save(&path, &Metadata::from([("seed".to_owned(), "x".to_owned())])).unwrap();
        }
        let mut bytes = std::fs::read(&path).unwrap();
        for (at, byte) in changes {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.min(bytes.len()));
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Err(error) = Network::open(&path, None, 1 << 30) {
            let message = error.to_string();
            prop_assert!(!message.contains(" { ") && !message.contains("Some("), "{}", message);
            prop_assert_eq!(message.lines().count(), 1, "{}", message);
        }
    }
}
