//! A spawned board's four moves at once: which of them are children, and
//! those written first, in vector lanes where the build targets AVX2 (as
//! `.cargo/config.toml` has it), in plain code elsewhere, which the tests
//! hold the vector code to.
//!
//! One move at a time, listing took two compares, two flags, an add and
//! two stores for each move; four lanes at once took `L3 256 -p 2` at
//! `f64` about 1.05 times less CPU (the median of 4 pairs;
//! docs/tablebase-builder.md).

/// The moves among `moved` (a board's four, from `spawned`) that are
/// children: bit `i` is set if `moved[i]` changed the board and holds a
/// large tile (0xF) in every cell of `mask`.
#[inline(always)]
pub(crate) fn children(moved: [u64; 4], spawned: u64, mask: u64) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use std::arch::x86_64::{
            _mm256_andnot_si256, _mm256_castsi256_pd, _mm256_cmpeq_epi64, _mm256_movemask_pd,
            _mm256_set1_epi64x, _mm256_setzero_si256,
        };
        // SAFETY: AVX2 is available, as `target_feature` promises.
        unsafe {
            let moved = vector(moved);
            let same = _mm256_cmpeq_epi64(moved, _mm256_set1_epi64x(spawned as i64));
            let lost = _mm256_andnot_si256(moved, _mm256_set1_epi64x(mask as i64));
            let kept = _mm256_cmpeq_epi64(lost, _mm256_setzero_si256());
            let children = _mm256_andnot_si256(same, kept);
            _mm256_movemask_pd(_mm256_castsi256_pd(children)) as u32
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        portable::children(moved, spawned, mask)
    }
}

/// Writes the boards of `formed` whose bits are set in `children` to the
/// start of `out`, in order; what follows them there is left unspecified.
#[inline(always)]
pub(crate) fn write_children(out: &mut [u64; 4], formed: [u64; 4], children: u32) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use std::arch::x86_64::{
            _mm256_loadu_si256, _mm256_permutevar8x32_epi32, _mm256_storeu_si256,
        };
        // SAFETY: AVX2 is available, as `target_feature` promises; the
        // load reads the eight words of a row of `FIRST`, and the store
        // writes the four of `out`.
        unsafe {
            let formed = vector(formed);
            let order = _mm256_loadu_si256(FIRST[children as usize % 16].as_ptr().cast());
            let first = _mm256_permutevar8x32_epi32(formed, order);
            _mm256_storeu_si256(out.as_mut_ptr().cast(), first);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        portable::write_children(out, formed, children)
    }
}

/// The four words in a vector's lanes, first in the lowest. Built from
/// the values, not loaded from the array: where the words were just
/// computed and stored one by one, a load of all four at once would wait
/// for the stores (in the test profile, whose checked copies keep the
/// array in memory, that wait was a third of a table build's time).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn vector(words: [u64; 4]) -> std::arch::x86_64::__m256i {
    let [a, b, c, d] = words.map(|word| word as i64);
    // SAFETY: AVX2 (and so AVX) is available, as `target_feature` promises.
    unsafe { std::arch::x86_64::_mm256_set_epi64x(d, c, b, a) }
}

/// For each set of children (four bits), the 32-bit halves of the four
/// lanes that put them first: lane `i`'s are `2i` and `2i + 1`.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
static FIRST: [[u32; 8]; 16] = {
    let mut first = [[0; 8]; 16];
    let mut children = 0;
    while children < 16 {
        let (mut lane, mut written) = (0, 0);
        while lane < 4 {
            if children >> lane & 1 != 0 {
                first[children][2 * written] = 2 * lane as u32;
                first[children][2 * written + 1] = 2 * lane as u32 + 1;
                written += 1;
            }
            lane += 1;
        }
        children += 1;
    }
    first
};

/// The same a lane at a time: the code for builds without AVX2, and what
/// the tests hold the vector code to.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
mod portable {
    pub(super) fn children(moved: [u64; 4], spawned: u64, mask: u64) -> u32 {
        (0..4).fold(0, |children, lane| {
            let child = moved[lane] != spawned && mask & !moved[lane] == 0;
            children | u32::from(child) << lane
        })
    }

    pub(super) fn write_children(out: &mut [u64; 4], formed: [u64; 4], children: u32) {
        let mut written = 0;
        for (lane, formed) in formed.into_iter().enumerate() {
            out[written] = formed;
            written += (children >> lane & 1) as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Both ways find the children a move at a time finds, and write them
    /// first in order: random boards, with moves that change nothing and
    /// moves that keep the mask's large tiles mixed in.
    #[test]
    fn children_are_found_and_written_first() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(48);
        let mask = 0x0FFF_0FFF;
        for _ in 0..20_000 {
            let spawned = rng.next_u64() | mask;
            let moved: [u64; 4] = std::array::from_fn(|_| match rng.next_u32() % 4 {
                0 => spawned,
                1 => rng.next_u64() | mask,
                _ => rng.next_u64(),
            });
            let expected: Vec<u64> = (moved.into_iter())
                .filter(|&moved| moved != spawned && mask & !moved == 0)
                .collect();
            for (children, write) in [
                (
                    children as fn(_, _, _) -> _,
                    write_children as fn(&mut _, _, _),
                ),
                (portable::children, portable::write_children),
            ] {
                let found = children(moved, spawned, mask);
                assert_eq!(found.count_ones() as usize, expected.len());
                let formed = moved.map(|moved| !moved);
                let mut out = [0; 4];
                write(&mut out, formed, found);
                let written: Vec<u64> = out[..expected.len()].iter().map(|&out| !out).collect();
                assert_eq!(written, expected, "{moved:016x?} from {spawned:016x}");
            }
        }
    }
}
