//! Symmetries of four boards at once, in the four 64-bit lanes of one AVX2
//! register: the transpose that the moves share, and the canonical forms.
//!
//! The intrinsics are `unsafe` to call because they need AVX2. This module is
//! compiled only where the whole build targets CPUs that have it
//! (`target_feature = "avx2"`, as every x86-64 build of the workspace is), so
//! each `unsafe` block below holds for that one reason.

use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpgt_epi64, _mm256_loadu_si256,
    _mm256_or_si256, _mm256_set1_epi8, _mm256_set1_epi64x, _mm256_setr_epi8, _mm256_shuffle_epi8,
    _mm256_slli_epi16, _mm256_slli_epi64, _mm256_srli_epi16, _mm256_srli_epi64,
    _mm256_storeu_si256, _mm256_xor_si256,
};

use crate::Board;

/// [`Board::canonical`] of each board.
#[inline(always)]
pub(super) fn canonical_four(boards: [Board; 4]) -> [Board; 4] {
    // SAFETY: AVX2 is there (see the module); `Board` is a transparent
    // `u64`, so the load reads the 32 bytes of `boards`, and the store
    // writes those of `out`.
    unsafe {
        let board = _mm256_loadu_si256(boards.as_ptr().cast());
        let smallest = min(
            smallest_reflection(board),
            smallest_reflection(transpose(board)),
        );
        let mut out = [Board(0); 4];
        _mm256_storeu_si256(out.as_mut_ptr().cast(), unbias(smallest));
        out
    }
}

/// [`Board::transpose`] of each lane.
#[inline(always)]
pub(crate) fn transpose(boards: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        let mask = |bits: u64| _mm256_set1_epi64x(bits as i64);
        let boards = _mm256_or_si256(
            _mm256_and_si256(boards, mask(0xF0F0_0F0F_F0F0_0F0F)),
            _mm256_or_si256(
                _mm256_slli_epi64::<12>(_mm256_and_si256(boards, mask(0x0000_F0F0_0000_F0F0))),
                _mm256_srli_epi64::<12>(_mm256_and_si256(boards, mask(0x0F0F_0000_0F0F_0000))),
            ),
        );
        _mm256_or_si256(
            _mm256_and_si256(boards, mask(0xFF00_FF00_00FF_00FF)),
            _mm256_or_si256(
                _mm256_srli_epi64::<24>(_mm256_and_si256(boards, mask(0x00FF_00FF_0000_0000))),
                _mm256_slli_epi64::<24>(_mm256_and_si256(boards, mask(0x0000_0000_FF00_FF00))),
            ),
        )
    }
}

/// The smallest of each lane's board, flipped top to bottom, mirrored left
/// to right, and both, biased for [`min`].
#[inline(always)]
fn smallest_reflection(board: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        // In each 64-bit lane: the 16-bit rows in reverse order (flip), and
        // the bytes in reverse order (a flip and each row's bytes swapped:
        // a mirror but for the nibbles within each byte).
        let rows_reversed = _mm256_setr_epi8(
            6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9, //
            6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9,
        );
        let bytes_reversed = _mm256_setr_epi8(
            7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, //
            7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
        );
        let flipped = _mm256_shuffle_epi8(board, rows_reversed);
        let mirrored_flipped = swap_nibbles(_mm256_shuffle_epi8(board, bytes_reversed));
        let mirrored = _mm256_shuffle_epi8(mirrored_flipped, rows_reversed);
        min(
            min(bias(board), bias(flipped)),
            min(bias(mirrored), bias(mirrored_flipped)),
        )
    }
}

/// Swaps the two nibbles of every byte.
#[inline(always)]
fn swap_nibbles(x: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe {
        let low = _mm256_set1_epi8(0x0F);
        _mm256_or_si256(
            _mm256_slli_epi16::<4>(_mm256_and_si256(x, low)),
            _mm256_and_si256(_mm256_srli_epi16::<4>(x), low),
        )
    }
}

/// The lanes with their top bit flipped, so that the signed comparison of
/// [`min`] orders them as unsigned numbers (AVX2 has no unsigned one).
#[inline(always)]
fn bias(x: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe { _mm256_xor_si256(x, _mm256_set1_epi64x(i64::MIN)) }
}

/// The lanes as they were before [`bias`].
#[inline(always)]
fn unbias(x: __m256i) -> __m256i {
    bias(x)
}

/// The smaller of each pair of biased lanes.
#[inline(always)]
fn min(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 is there (see the module).
    unsafe { _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)) }
}
