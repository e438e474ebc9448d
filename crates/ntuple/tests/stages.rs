//! Multistage networks: each stage values its boards with its own tables,
//! and both file formats keep the stages.

use std::path::Path;

use board::Board;
use ntuple::{Error, Metadata, Network, Source, Stages, parse_patterns};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const PATTERNS: &str = "0123 4567";

/// A network of [`PATTERNS`] in `stages`, every weight distinct per table.
fn staged(stages: &str) -> Network {
    let patterns = parse_patterns([PATTERNS]).unwrap();
    let network = Network::with_stages(patterns, stages.parse().unwrap(), u64::MAX).unwrap();
    for (number, table) in network.tables().iter().enumerate() {
        for index in 0..table.len() {
            table.set(index, (number * 1000 + index % 997) as f32);
        }
    }
    network
}

/// A one-stage network holding the tables of `stage` of `network`.
fn stage_copy(network: &Network, stage: usize) -> Network {
    let copy = Network::new(network.patterns().to_vec()).unwrap();
    let per_stage = network.patterns().len();
    for (target, source) in copy
        .tables()
        .iter()
        .zip(&network.tables()[stage * per_stage..])
    {
        for index in 0..source.len() {
            target.set(index, source.get(index));
        }
    }
    copy
}

/// Boards with small tiles, many on each side of a threshold of 100.
fn boards(count: usize) -> Vec<Board> {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    (0..count)
        .map(|_| {
            let mut exponents = [0u8; 16];
            for exponent in &mut exponents {
                *exponent = (rng.next_u32() % 6) as u8;
            }
            Board::from_exponents(exponents).unwrap()
        })
        .collect()
}

#[test]
fn each_stage_values_and_learns_with_its_own_tables() {
    let network = staged("0,100");
    let stages = network.stages().clone();
    assert_eq!(network.tables().len(), 4);
    assert_eq!(network.feature_count(), 16, "an update touches one stage");
    let copies = [stage_copy(&network, 0), stage_copy(&network, 1)];
    let boards = boards(500);
    let seen: Vec<usize> = boards.iter().map(|&board| stages.of(board)).collect();
    assert!(seen.contains(&0) && seen.contains(&1));
    for (&board, &stage) in boards.iter().zip(&seen) {
        assert_eq!(network.estimate(board), copies[stage].estimate(board));
    }
    for (&board, &stage) in boards.iter().zip(&seen).take(50) {
        assert_eq!(network.update(board, 0.5), copies[stage].update(board, 0.5));
    }
    for (&board, &stage) in boards.iter().zip(&seen) {
        assert_eq!(network.estimate(board), copies[stage].estimate(board));
    }
}

#[test]
fn own_files_keep_the_stages() {
    let dir = tempfile::tempdir().unwrap();
    let network = staged("0,100");
    let path = dir.path().join("staged.nw");
    network.save(&path, &Metadata::new()).unwrap();
    let loaded = Network::load(&path, None).unwrap().network;
    assert_eq!(loaded.stages(), network.stages());
    for board in boards(100) {
        assert_eq!(loaded.estimate(board), network.estimate(board));
    }
    let again = dir.path().join("again.nw");
    loaded.save(&again, &Metadata::new()).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

fn source(path: &Path) -> Source {
    path.display().to_string().parse().unwrap()
}

#[test]
fn tdl2048_files_name_the_stage_in_the_top_digit() {
    let dir = tempfile::tempdir().unwrap();
    let network = staged("0,100");
    let path = dir.path().join("staged.w");
    network.save_tdl2048(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[1..5].try_into().unwrap()), 4);
    let record = 1 + 8 + 2 + 8 + 4 * 65536 + 2;
    let name = |table: usize| {
        let at = 5 + table * record + 1;
        (
            u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()),
            u16::from_le_bytes(bytes[at + 4..at + 6].try_into().unwrap()),
        )
    };
    assert_eq!(
        [name(0), name(1), name(2), name(3)],
        [(0x0123, 4), (0x4567, 4), (0x1000_0123, 4), (0x1000_4567, 4)]
    );

    // The thresholds are not in the file: they must be given.
    let error = Network::load_tdl2048(&path, None, u64::MAX).unwrap_err();
    assert!(matches!(error, Error::Stages { .. }), "{error}");
    let error = Network::open_sources(&[source(&path)], None, None, u64::MAX).unwrap_err();
    assert!(error.to_string().contains("--stages 0,16384"), "{error}");
    // Fewer stages than the file holds are refused; more are promoted: a
    // new stage starts from the weights of the last one held.
    let one: Stages = "0".parse().unwrap();
    let error = Network::open_sources(&[source(&path)], None, Some(&one), u64::MAX).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("2 stages of tables, but 1 thresholds"),
        "{error}"
    );
    let three: Stages = "0,100,200".parse().unwrap();
    let promoted = Network::open_sources(&[source(&path)], None, Some(&three), u64::MAX).unwrap();
    assert_eq!(promoted.stages(), &three);
    let (old, new) = (network.tables(), promoted.tables());
    assert_eq!(new.len(), 6);
    for weight in (0..65536).step_by(97) {
        let held: Vec<f32> = old.iter().map(|table| table.get(weight)).collect();
        let grown: Vec<f32> = new.iter().map(|table| table.get(weight)).collect();
        assert_eq!(grown, [&held[..], &held[2..]].concat(), "weight {weight}");
    }
    let error = Network::open_sources(&[source(&path)], None, Some(&three), 1 << 20).unwrap_err();
    assert!(matches!(error, Error::TooLarge { .. }), "{error}");

    let stages: Stages = "0,100".parse().unwrap();
    let patterns = parse_patterns([PATTERNS]).unwrap();
    let loaded =
        Network::open_sources(&[source(&path)], Some(&patterns), Some(&stages), u64::MAX).unwrap();
    assert_eq!(loaded.stages(), &stages);
    for board in boards(100) {
        assert_eq!(loaded.estimate(board), network.estimate(board));
    }
    let again = dir.path().join("again.w");
    loaded.save_tdl2048(&again).unwrap();
    assert_eq!(bytes, std::fs::read(&again).unwrap());

    // The first stage's tables alone are a one-stage network.
    let first: Source = format!("[0-1]|{}", path.display()).parse().unwrap();
    let alone = Network::open_sources(&[first], None, None, u64::MAX).unwrap();
    assert_eq!(alone.stages().len(), 1);
    let copy = stage_copy(&network, 0);
    for board in boards(100) {
        assert_eq!(alone.estimate(board), copy.estimate(board));
    }

    // Stages out of order are refused.
    let mut swapped = bytes.clone();
    swapped[6..10].copy_from_slice(&0x1000_0123u32.to_le_bytes());
    std::fs::write(&path, &swapped).unwrap();
    let error = Network::open_sources(&[source(&path)], None, Some(&stages), u64::MAX).unwrap_err();
    assert!(error.to_string().contains("out of order"), "{error}");
}
