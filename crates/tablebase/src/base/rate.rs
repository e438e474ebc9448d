//! Success rates as the solver holds them: in the stored precision's own
//! type, as the reference solves.
//!
//! The reference builder solves each layer in the type it stores: with
//! `u32` rates (its default), a position's children are read as `u32`
//! (4,000,000,000 = 1), their spawn-weighted sum is taken in `f64`, and the
//! position's rate is that sum over the empty cells cast back to `u32`,
//! which truncates. Solving in `f64` and rounding only when storing gives
//! other numbers: 29.6% of L3-64's positions and 50.4% of 442-128's, by
//! up to 14 and 26 units (docs/tablebase.md). So 2048lab solves a `u32`
//! table in [`Fixed`], an `f32` table in `f32` and an `f64` table in
//! `f64`, and its tables hold the reference's numbers in each. `u16`
//! tables, which the reference has not, are solved in `f64` and rounded
//! when stored.

use std::fmt::Debug;

/// A success rate in the type a table is solved in.
pub trait Rate: Copy + Default + PartialOrd + Debug + Send + Sync + 'static {
    /// The rate of a won position.
    const ONE: Self;

    /// The rate in the type's own units (`ONE` is 1 for floats and
    /// 4,000,000,000 for [`Fixed`]): what the solver weighs and adds, in
    /// `f64`, exactly.
    fn units(self) -> f64;

    /// The rate of a position whose spawn-weighted average is `units`: the
    /// reference's cast, which rounds to `f32` and truncates to [`Fixed`].
    fn from_units(units: f64) -> Self;

    /// The rate as a probability.
    fn probability(self) -> f64;

    /// The rate of a stored `probability` (one that this type holds
    /// exactly, read back from a layer file of its precision).
    fn from_probability(probability: f64) -> Self;

    /// The rate's bits, for working files.
    fn to_bits(self) -> u64;

    /// A rate from [`Rate::to_bits`].
    fn from_bits(bits: u64) -> Self;
}

impl Rate for f64 {
    const ONE: Self = 1.0;

    #[inline(always)]
    fn units(self) -> f64 {
        self
    }

    #[inline(always)]
    fn from_units(units: f64) -> Self {
        units
    }

    fn probability(self) -> f64 {
        self
    }

    fn from_probability(probability: f64) -> Self {
        probability
    }

    fn to_bits(self) -> u64 {
        self.to_bits()
    }

    fn from_bits(bits: u64) -> Self {
        Self::from_bits(bits)
    }
}

impl Rate for f32 {
    const ONE: Self = 1.0;

    #[inline(always)]
    fn units(self) -> f64 {
        f64::from(self)
    }

    #[inline(always)]
    fn from_units(units: f64) -> Self {
        units as f32
    }

    fn probability(self) -> f64 {
        f64::from(self)
    }

    fn from_probability(probability: f64) -> Self {
        probability as f32
    }

    fn to_bits(self) -> u64 {
        u64::from(self.to_bits())
    }

    fn from_bits(bits: u64) -> Self {
        Self::from_bits(bits as u32)
    }
}

/// A rate in the reference's fixed point: 4,000,000,000 = 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fixed(pub u32);

impl Fixed {
    /// The units of a rate of 1.
    pub const SCALE: f64 = 4e9;
}

impl Rate for Fixed {
    const ONE: Self = Self(Self::SCALE as u32);

    #[inline(always)]
    fn units(self) -> f64 {
        f64::from(self.0)
    }

    /// Truncates, as the reference's cast from `f64` to `u32` does.
    #[inline(always)]
    fn from_units(units: f64) -> Self {
        Self(units as u32)
    }

    fn probability(self) -> f64 {
        f64::from(self.0) / Self::SCALE
    }

    fn from_probability(probability: f64) -> Self {
        Self((probability * Self::SCALE).round() as u32)
    }

    fn to_bits(self) -> u64 {
        u64::from(self.0)
    }

    fn from_bits(bits: u64) -> Self {
        Self(bits as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_truncates_and_round_trips() {
        assert_eq!(Fixed::from_units(3_999_999_999.99), Fixed(3_999_999_999));
        assert_eq!(Fixed::ONE.probability(), 1.0);
        // Every stored value comes back exactly, through its probability
        // and through its bits.
        for units in [0, 1, 2, 1_234_567_891, 3_999_999_999, 4_000_000_000] {
            let rate = Fixed(units);
            assert_eq!(Fixed::from_probability(rate.probability()), rate);
            assert_eq!(Fixed::from_bits(rate.to_bits()), rate);
        }
        let third = 1.0f32 / 3.0;
        assert_eq!(f32::from_probability(third.probability()), third);
        assert_eq!(f32::from_bits(third.to_bits()), third);
        assert_eq!(f32::from_units(1.0 / 3.0), third);
    }
}
