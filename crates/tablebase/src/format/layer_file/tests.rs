use std::path::Path;

use crate::Error;
use crate::base::layer::Solved;

use super::block::{compress, from_planes, planes};
use super::*;

/// Writes `layer` as a layer file of the test header at `precision`.
fn write_layer(path: &Path, precision: Precision, layer: &Solved) {
    write(path, &header(precision), layer.boards(), layer.rates(), 3).unwrap();
}

fn layer() -> Solved {
    let boards: Vec<u64> = (0..10_000u64).map(|i| 0xFFF0_0000 + i * i).collect();
    let rates = (0..10_000).map(|i| f64::from(i) / 10_000.0).collect();
    Solved::new(boards, rates)
}

/// A thread's reused context compresses each block as a fresh one
/// would, whatever level it was set to before.
#[test]
fn reused_contexts_compress_as_fresh_ones() {
    let layer = layer();
    let blocks = layer.boards().chunks(1024).zip(layer.rates().chunks(1024));
    for (level, (boards, rates)) in [3, 3, 19, 1, -1, 3, 1].into_iter().zip(blocks) {
        let values = boards
            .iter()
            .zip(rates)
            .map(|(&board, &rate)| board ^ rate.to_bits());
        let raw = planes(values, 8);
        assert_eq!(
            compress(&raw, level),
            zstd::bulk::compress(&raw, level).unwrap()
        );
    }
}

/// Files of format version 1, whose blocks stored
/// their rates one after another in the boards' frame, are still read:
/// two written by that build, of 5,000 positions (two blocks) at `f64`
/// and `u16`.
#[test]
fn version_1_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let boards: Vec<u64> = (0..5000u64).map(|i| 0xFFF0_0000 + i * i).collect();
    let rates: Vec<f64> = (0..5000).map(|i| f64::from(i % 16) / 16.0).collect();
    for (precision, bytes, tolerance) in [
        (
            Precision::F64,
            &include_bytes!("../../../tests/data/layer-v1-f64.tbl")[..],
            0.0,
        ),
        (
            Precision::U16,
            &include_bytes!("../../../tests/data/layer-v1-u16.tbl")[..],
            1e-5,
        ),
    ] {
        let path = dir.path().join("layer.tbl");
        std::fs::write(&path, bytes).unwrap();
        let file = LayerFile::open(&path).unwrap();
        assert_eq!(file.version, 1);
        assert_eq!(file.header().precision, precision);
        let all = file.read_all().unwrap();
        assert_eq!(all.boards(), boards);
        for (&stored, &exact) in all.rates().iter().zip(&rates) {
            assert!((stored - exact).abs() <= tolerance, "{precision:?}");
        }
        assert_eq!(file.rate(boards[4500]).unwrap(), all.rates()[4500]);
    }
}

/// Byte planes hold byte `p` of value `i` at `p * n + i`, and give
/// back the values' low bytes, at every width a layer file stores.
#[test]
fn planes_hold_each_byte_in_its_place() {
    let all: Vec<u64> = (0..300u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    for n in [1, 7, 300] {
        let values = &all[..n];
        for width in [2, 4, 8] {
            let planes = planes(values.iter().copied(), width);
            assert_eq!(planes.len(), width * n);
            for (i, &value) in values.iter().enumerate() {
                for (plane, &byte) in value.to_le_bytes()[..width].iter().enumerate() {
                    assert_eq!(planes[plane * n + i], byte, "{n} values, {width} bytes");
                }
            }
            let low: Vec<u64> = values
                .iter()
                .map(|&value| value & (u64::MAX >> (64 - 8 * width)))
                .collect();
            assert_eq!(from_planes(&planes, n, width).collect::<Vec<_>>(), low);
        }
    }
}

fn header(precision: Precision) -> LayerHeader {
    LayerHeader {
        formation: "L3".into(),
        target: 64,
        four_rate: 0.1,
        precision,
        layer: 3,
        positions: 10_000,
        partition: None,
    }
}

#[test]
fn layers_round_trip_at_every_precision() {
    let dir = tempfile::tempdir().unwrap();
    let layer = layer();
    for (precision, tolerance) in [
        (Precision::F64, 0.0),
        (Precision::F32, 1e-7),
        (Precision::U32, 2e-10),
        (Precision::U16, 1e-5),
    ] {
        let path = dir.path().join("layer.tbl");
        write_layer(&path, precision, &layer);
        let file = LayerFile::open(&path).unwrap();
        assert_eq!(file.header(), &header(precision));
        let all = file.read_all().unwrap();
        assert_eq!(all.boards(), layer.boards());
        for (&stored, &exact) in all.rates().iter().zip(layer.rates()) {
            assert!((stored - exact).abs() <= tolerance, "{precision:?}");
        }
        assert_eq!(file.rate(layer.boards()[5000]).unwrap(), all.rates()[5000]);
        assert_eq!(file.rate(layer.boards()[5000] + 1).unwrap(), 0.0);
        assert_eq!(file.rate(1).unwrap(), 0.0);
    }
}

/// Each piece is read into buffers emptied first, those a thread read
/// a piece into before where it read one, and the positions found are
/// those a plain filter finds.
#[test]
fn pieces_are_read_into_emptied_buffers_used_again() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let boards: Vec<u64> = (0..800).map(|i| 10 * i).collect();
    let fences: Vec<u64> = boards.iter().step_by(100).copied().collect();
    let wanted: Vec<u64> = (0..9000).step_by(7).collect();
    let used_again = AtomicUsize::new(0);
    let read = |number: usize, piece: &mut Piece<f64>| {
        assert!(piece.boards.is_empty() && piece.rates.is_empty());
        if piece.boards.capacity() > 0 {
            used_again.fetch_add(1, Ordering::Relaxed);
        }
        for &board in &boards[100 * number..100 * (number + 1)] {
            piece.boards.push(board);
            piece.rates.push(board as f64 / 8000.0);
        }
        Ok(())
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let fetched = pool.install(|| fetch(&fences, &wanted, read)).unwrap();
    let expected: Vec<u64> = boards
        .iter()
        .copied()
        .filter(|board| wanted.binary_search(board).is_ok())
        .collect();
    assert_eq!(fetched.0, expected);
    let rates: Vec<f64> = expected.iter().map(|&b| b as f64 / 8000.0).collect();
    assert_eq!(fetched.1, rates);
    assert!(used_again.load(Ordering::Relaxed) > 0);
}

#[test]
fn fetching_reads_the_wanted_positions_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("layer.tbl");
    let layer = layer();
    write_layer(&path, Precision::F64, &layer);
    let file = LayerFile::open(&path).unwrap();
    let boards = layer.boards();
    // Before, between, on and after the stored boards, in the first,
    // middle and last of three blocks.
    let wanted: Vec<u64> = [0, 1, boards[0], boards[0] + 1, boards[4095], boards[4096]]
        .into_iter()
        .chain((0..10_000).step_by(777).map(|i| boards[i]))
        .chain([boards[9999] - 1, boards[9999], boards[9999] + 1, u64::MAX])
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let fetched = file.fetch(&wanted).unwrap();
    let expected = layer.only(&wanted);
    assert_eq!(fetched.boards(), expected.boards());
    assert_eq!(fetched.rates(), expected.rates());
    assert!(file.fetch(&[]).unwrap().is_empty());
}

#[test]
fn a_layer_pushed_in_pieces_is_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.tbl");
    let pieces = dir.path().join("pieces.tbl");
    // Enough positions for more than one batch of blocks.
    let boards: Vec<u64> = (0..300_000u64).map(|i| 0xFFF0_0000 + 3 * i).collect();
    let rates: Vec<f64> = (0..300_000).map(|i| f64::from(i % 1000) / 1000.0).collect();
    let header = LayerHeader {
        positions: 300_000,
        ..header(Precision::F64)
    };
    write(&whole, &header, &boards, &rates, 3).unwrap();
    let mut writer = LayerWriter::create(&pieces, &header, 3).unwrap();
    let mut start = 0;
    for size in [1, 4095, 5000, 262_144, 7].into_iter().cycle() {
        let end = (start + size).min(boards.len());
        writer
            .push(&boards[start..end], &rates[start..end])
            .unwrap();
        start = end;
        if start == boards.len() {
            break;
        }
    }
    writer.finish().unwrap();
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&pieces).unwrap()
    );
    let names = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(names, 2, "no temporary file is left behind");
}

/// A layer file is under its name only once finished: dropped while
/// pushed to, or written out but dropped before its flush and rename,
/// it leaves nothing.
#[test]
fn an_unfinished_layer_file_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("layer.tbl");
    let files = || std::fs::read_dir(dir.path()).unwrap().count();
    let mut writer = LayerWriter::create(&path, &header(Precision::U32), 3).unwrap();
    writer.push(&[1, 2, 3], &[0.5; 3]).unwrap();
    drop(writer);
    assert_eq!(files(), 0);
    let layer = layer();
    for rename in [false, true] {
        let mut writer = LayerWriter::create(&path, &header(Precision::F64), 3).unwrap();
        writer.push(layer.boards(), layer.rates()).unwrap();
        let (file, bytes) = writer.finish_unsynced().unwrap();
        assert!(!path.exists(), "not under its name before the rename");
        if rename {
            file.commit().unwrap();
            assert_eq!(std::fs::metadata(&path).unwrap().len(), bytes);
            let read = LayerFile::open(&path).unwrap();
            assert_eq!(read.rate(layer.boards()[77]).unwrap(), layer.rates()[77]);
        } else {
            drop(file);
            assert_eq!(files(), 0);
        }
    }
}

#[test]
fn damaged_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("layer.tbl");
    let layer = layer();
    write_layer(&path, Precision::U32, &layer);
    let bytes = std::fs::read(&path).unwrap();
    let error = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        LayerFile::open(&path).unwrap_err().to_string()
    };
    assert!(error(&bytes[..bytes.len() / 2]).contains("checksum mismatch"));
    assert!(error(&bytes[..10]).contains("not a 2048lab tablebase layer file"));
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 1;
    assert!(error(&flipped).contains("checksum mismatch"));
    assert!(error(b"hello").contains("not a 2048lab"));
    // A later format, intact.
    let mut later = bytes.clone();
    later[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
    let body = later.len() - 4;
    let checksum = crc32fast::hash(&later[..body]);
    later[body..].copy_from_slice(&checksum.to_le_bytes());
    let expected = format!(
        "format version {}, this build reads versions 1 to",
        VERSION + 1
    );
    assert!(error(&later).contains(&expected));
}

/// Whichever byte of a layer file is damaged, and wherever it was cut
/// short, opening it says the file is damaged: no panic, and no layer
/// read from a bad file.
#[test]
fn every_damaged_byte_and_every_cut_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("layer.tbl");
    let boards: Vec<u64> = (0..100u64).map(|i| 0xFFF0_0000 + i * i).collect();
    let rates: Vec<f64> = (0..100).map(|i| f64::from(i) / 100.0).collect();
    let header = LayerHeader {
        positions: 100,
        ..header(Precision::U32)
    };
    write(&path, &header, &boards, &rates, 3).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let opens = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        LayerFile::open(&path)
    };
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5A;
        let result = opens(&damaged);
        assert!(
            matches!(result, Err(Error::File { .. })),
            "byte {at} damaged: {result:?}"
        );
        let result = opens(&bytes[..at]);
        assert!(
            matches!(result, Err(Error::File { .. })),
            "cut at {at}: {result:?}"
        );
    }
    assert_eq!(opens(&bytes).unwrap().read_all().unwrap().boards(), boards);
}
