//! Gathering and scattering bits: the BMI2 instructions `pext` and `pdep`,
//! one cycle each on the CPUs 2048lab targets (x86-64-v3, docs/build.md),
//! which read a board's cells as an index and put an index back. Builds
//! without BMI2 use the portable versions, which the tests always exercise
//! against the fast ones.

/// Gathers the bits of `x` selected by `mask` into the low bits of the result.
#[inline]
pub fn pext(x: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the instruction is available, as `target_feature` promises.
        unsafe { core::arch::x86_64::_pext_u64(x, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        portable::pext(x, mask)
    }
}

/// Scatters the low bits of `x` to the positions selected by `mask`.
#[inline]
pub fn pdep(x: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the instruction is available, as `target_feature` promises.
        unsafe { core::arch::x86_64::_pdep_u64(x, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        portable::pdep(x, mask)
    }
}

/// Loops over the set bits of the mask: the fallback without BMI2, and the
/// reference the fast paths are tested against.
pub mod portable {
    /// Gathers the bits of `x` selected by `mask` into the low bits.
    pub fn pext(x: u64, mut mask: u64) -> u64 {
        let mut out = 0;
        let mut bit = 1;
        while mask != 0 {
            if x & mask & mask.wrapping_neg() != 0 {
                out |= bit;
            }
            mask &= mask - 1;
            bit <<= 1;
        }
        out
    }

    /// Scatters the low bits of `x` to the positions selected by `mask`.
    pub fn pdep(x: u64, mut mask: u64) -> u64 {
        let mut out = 0;
        let mut bit = 1;
        while mask != 0 {
            let lowest = mask & mask.wrapping_neg();
            if x & bit != 0 {
                out |= lowest;
            }
            mask &= mask - 1;
            bit <<= 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_and_portable_agree() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mask = x.rotate_left(17) ^ (x >> 7);
            assert_eq!(
                pext(x, mask),
                portable::pext(x, mask),
                "pext {x:#x} {mask:#x}"
            );
            assert_eq!(
                pdep(x, mask),
                portable::pdep(x, mask),
                "pdep {x:#x} {mask:#x}"
            );
        }
    }
}
