//! How weights are stored: `f32`, or IEEE half precision (`f16`) to halve
//! a network's memory, and the atomic entries that hold each.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering::Relaxed};

use half::f16;

/// How a network stores its weights. Values are always computed in `f32`:
/// an `f16` weight is widened when read and rounded to the nearest `f16`
/// when written.
///
/// Half precision halves the memory (4x6patt: 128 MiB instead of 256 MiB)
/// and the cache lines a board's features touch, but keeps 11 significant
/// bits: near 1,000 its steps are 0.5, and an update smaller than half a
/// step is lost. docs/learning.md measures what that does to learning.
///
/// ```
/// use ntuple::Precision;
///
/// assert_eq!("f16".parse::<Precision>()?, Precision::F16);
/// assert_eq!(Precision::F16.bytes(), 2);
/// # Ok::<(), ntuple::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// 4-byte IEEE single precision, as TDL2048+ trains.
    #[default]
    F32,
    /// 2-byte IEEE half precision.
    F16,
}

impl Precision {
    /// The bytes of one weight.
    pub const fn bytes(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::F16 => 2,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::F32 => "f32",
            Self::F16 => "f16",
        })
    }
}

impl FromStr for Precision {
    type Err = crate::Error;

    fn from_str(text: &str) -> Result<Self, crate::Error> {
        match text {
            "f32" => Ok(Self::F32),
            "f16" => Ok(Self::F16),
            _ => Err(crate::Error::Precision(text.to_owned())),
        }
    }
}

/// A weight as a table holds it: a relaxed atomic of the right width, so
/// that threads share tables without locks (see [`crate::Table`]).
pub(crate) trait Entry {
    /// The weight.
    fn value(&self) -> f32;

    /// Adds `amount` to the weight and returns the new one.
    fn add(&self, amount: f32) -> f32;
}

impl Entry for AtomicU32 {
    #[inline(always)]
    fn value(&self) -> f32 {
        f32::from_bits(self.load(Relaxed))
    }

    #[inline(always)]
    fn add(&self, amount: f32) -> f32 {
        let weight = self.value() + amount;
        self.store(weight.to_bits(), Relaxed);
        weight
    }
}

impl Entry for AtomicU16 {
    #[inline(always)]
    fn value(&self) -> f32 {
        f16::from_bits(self.load(Relaxed)).to_f32()
    }

    #[inline(always)]
    fn add(&self, amount: f32) -> f32 {
        let weight = f16::from_f32(self.value() + amount);
        self.store(weight.to_bits(), Relaxed);
        weight.to_f32()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_weights_round_to_the_nearest_half() {
        let entry = AtomicU16::new(0);
        assert_eq!(entry.add(1000.0), 1000.0);
        // Steps of 0.5 near 1000: a quarter is lost, 0.3 rounds up.
        assert_eq!(entry.add(0.25), 1000.0);
        assert_eq!(entry.add(0.3), 1000.5);
        assert_eq!(entry.value(), 1000.5);
        assert!("f64".parse::<Precision>().is_err());
    }
}
