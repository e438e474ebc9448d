//! All four moves at once in the lanes of one AVX2 register, without tables.
//!
//! The row tables cost 512 KiB that the weights of a large network keep
//! pushing out of the caches while learning, so a move there often waits on
//! the last-level cache. Here each 64-bit lane holds the board arranged so
//! that the move becomes a left slide of its rows (up: transposed, right:
//! mirrored, down: transposed and mirrored), the sixteen rows slide together
//! in 16-bit lanes, and the lanes are turned back. TDL2048+ moves the same
//! way. The row tables stay the reference: a test checks every row against
//! them.
//!
//! The intrinsics are `unsafe` to call because they need AVX2. This module is
//! compiled only where the whole build targets CPUs that have it
//! (`target_feature = "avx2"`, as every x86-64 build of the workspace is), so
//! each `unsafe` block below holds for that one reason. (`#[target_feature]`
//! functions would need no blocks, but cannot be `#[inline(always)]`, and
//! the kernel then stayed a call in the learning and search loops.)

use std::arch::x86_64::{
    __m256i, _mm256_add_epi16, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256,
    _mm256_blend_epi32, _mm256_blendv_epi8, _mm256_cmpeq_epi16, _mm256_extract_epi64,
    _mm256_or_si256, _mm256_sad_epu8, _mm256_set_epi64x, _mm256_set1_epi16, _mm256_setr_epi8,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_slli_epi64,
    _mm256_srli_epi16,
};

use super::outcome;
use crate::symmetry::avx2::transpose;
use crate::{Afterstates, Board};

/// The 64-bit lanes that are mirrored (right and down), as a mask of 32-bit
/// lanes for `_mm256_blend_epi32`.
const MIRRORED: i32 = 0b0011_1100;
/// The 64-bit lanes that are transposed (up and down).
const TRANSPOSED: i32 = 0b0011_0011;

/// The afterstates of `board` in direction order, as
/// [`Board::afterstates`] defines them.
#[inline(always)]
pub(super) fn afterstates(board: Board) -> Afterstates {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        let raw = board.raw() as i64;
        let transposed = board.transpose().raw() as i64;
        // Lanes from the lowest: up, right, down, left.
        let lanes = _mm256_set_epi64x(raw, transposed, raw, transposed);
        let lanes = _mm256_blend_epi32::<MIRRORED>(lanes, mirror_rows(lanes));
        let (slid, quarter_rewards) = slide_rows_left(lanes);
        let slid = _mm256_blend_epi32::<MIRRORED>(slid, mirror_rows(slid));
        let slid = _mm256_blend_epi32::<TRANSPOSED>(slid, transpose(slid));
        let boards = [
            _mm256_extract_epi64::<0>(slid),
            _mm256_extract_epi64::<1>(slid),
            _mm256_extract_epi64::<2>(slid),
            _mm256_extract_epi64::<3>(slid),
        ];
        let rewards = [
            _mm256_extract_epi64::<0>(quarter_rewards),
            _mm256_extract_epi64::<1>(quarter_rewards),
            _mm256_extract_epi64::<2>(quarter_rewards),
            _mm256_extract_epi64::<3>(quarter_rewards),
        ];
        Afterstates(std::array::from_fn(|lane| {
            outcome(board, (boards[lane] as u64, rewards[lane] as u32))
        }))
    }
}

/// Slides every 16-bit row towards its lowest nibble, as the left row table
/// does: returns the rows and, per 64-bit lane, the reward divided by 4.
#[inline(always)]
fn slide_rows_left(rows: __m256i) -> (__m256i, __m256i) {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        // Pack: for nibbles 2, 1, 0 in turn, an empty one takes the nibbles
        // above it one step down. The nibbles above it are packed by then.
        let mut rows = rows;
        for nibble in [2, 1, 0] {
            let below = _mm256_set1_epi16(low_mask(nibble));
            let empty = _mm256_cmpeq_epi16(
                _mm256_and_si256(rows, _mm256_set1_epi16(0xF << (4 * nibble))),
                _mm256_setzero_si256(),
            );
            let packed = _mm256_or_si256(
                _mm256_and_si256(rows, below),
                _mm256_andnot_si256(below, _mm256_srli_epi16::<4>(rows)),
            );
            rows = _mm256_blendv_epi8(rows, packed, empty);
        }
        // Merge: from the wall outwards, a tile equal to the next one takes
        // the next exponent (wrapping 15 + 1 to an empty cell, as the tables
        // do), and the nibbles past the pair come one step down.
        let mut quarter_rewards = _mm256_setzero_si256();
        for nibble in [0, 1, 2] {
            let cell = _mm256_set1_epi16(0xF << (4 * nibble));
            let tile = _mm256_and_si256(rows, cell);
            let next = _mm256_and_si256(_mm256_srli_epi16::<4>(rows), cell);
            let merges = _mm256_andnot_si256(
                _mm256_cmpeq_epi16(tile, _mm256_setzero_si256()),
                _mm256_cmpeq_epi16(tile, next),
            );
            let below = _mm256_set1_epi16(low_mask(nibble));
            let beyond = _mm256_set1_epi16(!low_mask(nibble + 1));
            let merged_tile = _mm256_and_si256(
                _mm256_add_epi16(rows, _mm256_set1_epi16(1 << (4 * nibble))),
                cell,
            );
            let merged = _mm256_or_si256(
                _mm256_or_si256(_mm256_and_si256(rows, below), merged_tile),
                _mm256_and_si256(_mm256_srli_epi16::<4>(rows), beyond),
            );
            rows = _mm256_blendv_epi8(rows, merged, merges);
            let exponent = match nibble {
                0 => tile,
                1 => _mm256_srli_epi16::<4>(tile),
                _ => _mm256_srli_epi16::<8>(tile),
            };
            quarter_rewards = _mm256_add_epi16(
                quarter_rewards,
                _mm256_and_si256(quarter_reward(exponent), merges),
            );
        }
        (rows, sum_rows(quarter_rewards))
    }
}

/// The nibbles below `nibble` of a 16-bit row.
const fn low_mask(nibble: i16) -> i16 {
    ((1u32 << (4 * nibble)) - 1) as u16 as i16
}

/// A quarter of the reward of merging two tiles of each 16-bit lane's
/// exponent (1 to 15): 2^(exponent + 1) / 4, which fits 16 bits, and twice
/// it (two merges in a row) still does. Looked up a byte at a time.
#[inline(always)]
fn quarter_reward(exponent: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        #[rustfmt::skip]
        let low = _mm256_setr_epi8(
            0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0,
            0, 1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0,
        );
        #[rustfmt::skip]
        let high = _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64,
        );
        // The high byte of each lane is 0 and looks up entry 0, which is 0.
        _mm256_or_si256(
            _mm256_shuffle_epi8(low, exponent),
            _mm256_slli_epi16::<8>(_mm256_shuffle_epi8(high, exponent)),
        )
    }
}

/// The sum of the four 16-bit rows of each 64-bit lane.
#[inline(always)]
fn sum_rows(rows: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        let zero = _mm256_setzero_si256();
        let low_bytes = _mm256_sad_epu8(_mm256_and_si256(rows, _mm256_set1_epi16(0xFF)), zero);
        let high_bytes = _mm256_sad_epu8(_mm256_srli_epi16::<8>(rows), zero);
        _mm256_add_epi64(low_bytes, _mm256_slli_epi64::<8>(high_bytes))
    }
}

/// Each 16-bit row with its nibbles in reverse order.
#[inline(always)]
fn mirror_rows(rows: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        let nibble_1 = _mm256_set1_epi16(0x00F0);
        _mm256_or_si256(
            _mm256_or_si256(
                _mm256_slli_epi16::<12>(rows),
                _mm256_slli_epi16::<4>(_mm256_and_si256(rows, nibble_1)),
            ),
            _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi16::<4>(rows), nibble_1),
                _mm256_srli_epi16::<12>(rows),
            ),
        )
    }
}
