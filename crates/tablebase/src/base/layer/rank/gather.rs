//! The content of a free formation's free cells, seen through a symmetry
//! of the square, as the codes of its two halves: the first part of a
//! board's rank after its placement's class.
//!
//! A content's digits are the nibbles of the board's free cells, taken in
//! the order of the cells of its class's smallest placement once the board
//! is turned to it. Turning a board takes up to three reflections, and
//! gathering its free cells a `pext`; here the board's sixteen nibbles are
//! spread over the sixteen bytes of a vector register, a byte shuffle of
//! the symmetry's sources by the class's cells says where each digit comes
//! from, a second shuffle fetches the digits, and two multiply-adds weigh
//! them by the powers of the radix.

/// A layout byte for no cell: its digit is 0.
pub(super) const NO_CELL: u8 = 0x80;

/// The layout of the free cells `free` (a bit a cell), as [`codes`] takes
/// it: the lowest `count / 2` cells from byte 0 (the low half), the others
/// from byte 8 (the high half), in increasing order, [`NO_CELL`] in the
/// other bytes.
pub(super) fn layout(free: u16) -> [u8; 16] {
    let cells: Vec<u8> = (0..16).filter(|&cell| free >> cell & 1 != 0).collect();
    let low = cells.len() / 2;
    let mut layout = [NO_CELL; 16];
    layout[..low].copy_from_slice(&cells[..low]);
    layout[8..8 + cells.len() - low].copy_from_slice(&cells[low..]);
    layout
}

// `codes`: in a vector register where SSSE3 is there (every x86-64 build
// of the workspace), else a digit at a time.
#[cfg(not(all(target_arch = "x86_64", target_feature = "ssse3")))]
pub(super) use portable::codes;
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
pub(super) use ssse3::codes;

/// [`codes`] a digit at a time: the fallback without SSSE3, and the
/// reference the tests check the fast one against.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "ssse3"))))]
pub(super) mod portable {
    use super::NO_CELL;

    /// The codes of the high and the low half of the content that
    /// `layout` gathers from `board` seen through a symmetry: digit `j` of
    /// a half is the nibble of cell `sources[layout[j]]`, and the half's
    /// code is the sum of its digits times `radix` to the power `j`.
    /// `None` if a digit is over `radix - 1` (at most 15).
    pub(crate) fn codes(
        board: u64,
        sources: &[u8; 16],
        layout: &[u8; 16],
        radix: u32,
    ) -> Option<(u32, u32)> {
        let half = |cells: &[u8]| {
            let mut cells = cells.iter().filter(|&&cell| cell != NO_CELL).rev();
            cells.try_fold(0, |code, &cell| {
                let digit = (board >> (4 * sources[usize::from(cell)]) & 0xF) as u32;
                (digit < radix).then_some(code * radix + digit)
            })
        };
        Some((half(&layout[8..])?, half(&layout[..8])?))
    }
}

/// The intrinsics are `unsafe` to call because they need SSSE3. This
/// module is compiled only where the whole build targets CPUs that have it
/// (`target_feature = "ssse3"`, as every x86-64 build of the workspace
/// does), so each `unsafe` block below holds for that one reason.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
mod ssse3 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpgt_epi8, _mm_cvtsi64_si128, _mm_loadu_si128, _mm_madd_epi16,
        _mm_maddubs_epi16, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_set1_epi16,
        _mm_set1_epi32, _mm_shuffle_epi8, _mm_srli_epi16, _mm_unpacklo_epi8,
    };

    use super::NO_CELL;

    /// The portable `codes`, in one register.
    #[inline(always)]
    pub(crate) fn codes(
        board: u64,
        sources: &[u8; 16],
        layout: &[u8; 16],
        radix: u32,
    ) -> Option<(u32, u32)> {
        // SAFETY: SSSE3 is there (see the module); each load reads the 16
        // bytes of an array, and `__m128i` and `[u32; 4]` are 16 bytes of
        // plain data.
        unsafe {
            // Byte `cell` holds the nibble of `cell`.
            let nibbles = _mm_cvtsi64_si128(board as i64);
            let low = _mm_set1_epi8(0xF);
            let cells = _mm_unpacklo_epi8(
                _mm_and_si128(nibbles, low),
                _mm_and_si128(_mm_srli_epi16::<4>(nibbles), low),
            );
            // Where each digit comes from; a shuffle clears the bytes whose
            // index has its high bit set, so `NO_CELL` is put back.
            let layout = _mm_loadu_si128(layout.as_ptr().cast());
            let from = _mm_or_si128(
                _mm_shuffle_epi8(_mm_loadu_si128(sources.as_ptr().cast()), layout),
                _mm_and_si128(layout, _mm_set1_epi8(NO_CELL as i8)),
            );
            let digits = _mm_shuffle_epi8(cells, from);
            let over = _mm_cmpgt_epi8(digits, _mm_set1_epi8(radix as i8 - 1));
            if _mm_movemask_epi8(over) != 0 {
                return None;
            }
            // Digits in pairs, then pairs of pairs: the codes of the first
            // four digits of each half, and of the fifth.
            let pairs = _mm_maddubs_epi16(digits, _mm_set1_epi16(((radix << 8) | 1) as i16));
            let fours: __m128i =
                _mm_madd_epi16(pairs, _mm_set1_epi32((((radix * radix) << 16) | 1) as i32));
            let [low, low_fifth, high, high_fifth] =
                std::mem::transmute::<__m128i, [u32; 4]>(fours);
            let fourth = radix.pow(4);
            Some((high + fourth * high_fifth, low + fourth * low_fifth))
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};

    use super::*;

    /// The vector codes are the portable ones, for every radix, halves of
    /// two to five cells and any symmetry's sources, and boards with digits
    /// over the radix are told.
    #[test]
    fn vector_codes_are_the_portable_ones() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut told = 0;
        for _ in 0..100_000 {
            let radix = rng.random_range(2..=15);
            let free = loop {
                let free: u16 = rng.random();
                if (4..=10).contains(&free.count_ones()) {
                    break free;
                }
            };
            let mut sources: [u8; 16] = std::array::from_fn(|cell| cell as u8);
            for cell in (1..16).rev() {
                sources.swap(cell, rng.random_range(0..=cell));
            }
            // Mostly digits under the radix.
            let board = (0..16).fold(0u64, |board, cell| {
                let most = if rng.random_ratio(1, 50) {
                    15
                } else {
                    radix - 1
                };
                board | u64::from(rng.random_range(0..=most)) << (4 * cell)
            });
            let layout = layout(free);
            let expected = portable::codes(board, &sources, &layout, radix);
            assert_eq!(codes(board, &sources, &layout, radix), expected);
            told += usize::from(expected.is_none());
        }
        assert!(told > 1_000, "{told} boards told");
    }
}
