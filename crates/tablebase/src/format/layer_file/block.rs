//! A block of a layer file: up to [`BLOCK`](super::BLOCK) boards and their rates, each
//! byte of them in a plane of its own and compressed with zstd.

use std::cell::RefCell;

use super::Precision;

thread_local! {
    /// Each thread's compression context and the level it is set to: made
    /// once, not for every block (a context's tables cost more to set up
    /// than a small block takes to compress), and set to each frame's
    /// level in turn (the boards' and the rates'), where a context for
    /// each level took 2-5 MiB more peak memory.
    static COMPRESSOR: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
}

/// `raw` compressed at `level`, the same bytes as `zstd::bulk::compress`.
pub(super) fn compress(raw: &[u8], level: i32) -> Vec<u8> {
    const INFALLIBLE: &str = "compressing to memory cannot fail";
    COMPRESSOR.with_borrow_mut(|slot| {
        let (set, compressor) = slot.get_or_insert_with(|| {
            let compressor = zstd::bulk::Compressor::new(level).expect(INFALLIBLE);
            (level, compressor)
        });
        if *set != level {
            compressor
                .set_compression_level(level)
                .expect("a level zstd knows");
            *set = level;
        }
        compressor.compress(raw).expect(INFALLIBLE)
    })
}

/// The level of a block's rates' frame, for blocks whose boards are
/// compressed at `level`: two levels lower (and -1 for 2, as zstd's level
/// 0 is its default, 3). Below their leading bytes the rates are nearly
/// random, which zstd's search for repeats at the higher level spends
/// its time on for nothing: at level 1 the rates of L3-256 took a third
/// less time to compress at -1, at `f64`, and the files were the same
/// size (L3-128's and free8-128's up to 4.5% larger, 442-128's up to 4.4%
/// smaller: docs/tablebase.md, "Layer files").
pub(super) fn rates_level(level: i32) -> i32 {
    match level - 2 {
        0 => -1,
        lower => lower,
    }
}

/// One block, compressed: a frame of its boards, then a frame of its rates
/// at `precision` (at [`rates_level`]), each before compression as byte
/// planes of its values: all lowest bytes, then all second bytes, and so
/// on. The boards are the first and the differences between neighbours
/// (small numbers in sorted boards), whose zero high bytes compress to
/// nothing; the rates' leading bytes (the sign and exponent of a float,
/// the high digits of fixed point) compress well and the others hardly.
/// The differences wrap, as [`decode_block`]'s sums do, so that any boards
/// come back as they went in: their order is checked where a layer is
/// read through ([`super::LayerFile::visit_blocks`]).
pub(super) fn compress_block(
    boards: &[u64],
    rates: &[f64],
    precision: Precision,
    level: i32,
) -> Vec<u8> {
    let mut previous = 0;
    let differences = boards.iter().map(|&board| {
        let difference = board.wrapping_sub(previous);
        previous = board;
        difference
    });
    let mut block = compress(&planes(differences, size_of::<u64>()), level);
    // One loop for each precision, of its own width: one loop matching on
    // the precision for each rate ran 2% more instructions building L3-64.
    let rates = match precision {
        Precision::F64 => planes(rates.iter().map(|&rate| Precision::F64.encode(rate)), 8),
        Precision::F32 => planes(rates.iter().map(|&rate| Precision::F32.encode(rate)), 4),
        Precision::U32 => planes(rates.iter().map(|&rate| Precision::U32.encode(rate)), 4),
        Precision::U16 => planes(rates.iter().map(|&rate| Precision::U16.encode(rate)), 2),
    };
    block.extend(compress(&rates, rates_level(level)));
    block
}

/// The low `width` bytes of each of `values`, as byte planes.
pub(super) fn planes(values: impl ExactSizeIterator<Item = u64>, width: usize) -> Vec<u8> {
    let n = values.len();
    let mut planes = vec![0; width * n];
    for (i, value) in values.enumerate() {
        for (plane, byte) in value.to_le_bytes()[..width].iter().enumerate() {
            planes[plane * n + i] = *byte;
        }
    }
    planes
}

/// The `n` values stored as `width` byte planes in `planes`, in order.
pub(super) fn from_planes(planes: &[u8], n: usize, width: usize) -> impl Iterator<Item = u64> + '_ {
    (0..n).map(move |i| {
        (0..width).fold(0, |value, plane| {
            value | u64::from(planes[plane * n + i]) << (8 * plane)
        })
    })
}

/// The boards and rates of a decompressed block of `n` positions, of
/// format `version`: in version 1, the rates were stored one after another
/// (little-endian) rather than as planes.
pub(super) fn decode_block(
    raw: &[u8],
    n: usize,
    precision: Precision,
    version: u32,
) -> Option<(Vec<u64>, Vec<f64>)> {
    let width = precision.bytes();
    if raw.len() != n * (8 + width) {
        return None;
    }
    let (differences, rates) = raw.split_at(8 * n);
    let mut previous = 0u64;
    let boards = from_planes(differences, n, size_of::<u64>())
        .map(|difference| {
            previous = previous.wrapping_add(difference);
            previous
        })
        .collect();
    let rates = match version {
        1 => rates
            .chunks_exact(width)
            .map(|bytes| {
                bytes
                    .iter()
                    .rev()
                    .fold(0, |value, &byte| value << 8 | u64::from(byte))
            })
            .map(|bits| precision.decode(bits))
            .collect(),
        _ => from_planes(rates, n, width)
            .map(|bits| precision.decode(bits))
            .collect(),
    };
    Some((boards, rates))
}
