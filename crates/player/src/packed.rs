//! One layer of an endgame table packed for lookups: about 6 bytes a
//! position where the table's own layout needs 12 in memory.

use system::bits::pext;

/// A layer's positions and rates, packed.
///
/// - The cells that hold the same nibble in every position (a formation's
///   fixed walls) are stored once; a position's key is its other nibbles,
///   gathered (40 bits for L3's ten free cells, 44 for 4421's eleven).
/// - Keys of up to 48 bits are split: their top bits index a list of where
///   each value's keys start, and only the low 32 bits are stored. Longer
///   keys (free formations) are stored whole.
/// - Rates are stored in 16 bits (steps of 1/65535): a player only compares
///   a position's moves, and a table's rates differ by more than that
///   wherever the choice matters.
#[derive(Debug)]
pub(crate) struct PackedLayer {
    fixed_mask: u64,
    fixed: u64,
    keys: Keys,
    rates: Vec<u16>,
}

#[derive(Debug)]
enum Keys {
    Split { starts: Vec<u32>, lows: Vec<u32> },
    Whole(Vec<u64>),
}

/// The longest keys that are split: 2^16 starts of 4 bytes at most.
const MOST_SPLIT_BITS: u32 = 48;

impl PackedLayer {
    /// Packs a layer of sorted `boards` and their `rates` (in [0, 1]).
    ///
    /// # Panics
    /// If the lengths differ.
    pub(crate) fn new(boards: &[u64], rates: &[f64]) -> Self {
        assert_eq!(boards.len(), rates.len(), "one rate per board");
        let first = boards.first().copied().unwrap_or(0);
        let differing = boards.iter().fold(0, |bits, &board| bits | (board ^ first));
        let varying = nibbles_of(differing);
        let fixed_mask = !varying;
        let key_bits = varying.count_ones();
        let keys = boards.iter().map(|&board| pext(board, varying));
        let keys = if key_bits <= MOST_SPLIT_BITS {
            let top_bits = key_bits.saturating_sub(32);
            // Count the keys of each top value, then sum the counts up.
            let mut starts = vec![0u32; (1 << top_bits) + 1];
            let mut lows = Vec::with_capacity(boards.len());
            for key in keys {
                starts[(key >> 32) as usize + 1] += 1;
                lows.push(key as u32);
            }
            for top in 1..starts.len() {
                starts[top] += starts[top - 1];
            }
            Keys::Split { starts, lows }
        } else {
            Keys::Whole(keys.collect())
        };
        Self {
            fixed_mask,
            fixed: first & fixed_mask,
            keys,
            rates: rates
                .iter()
                .map(|&rate| (rate.clamp(0.0, 1.0) * f64::from(u16::MAX)).round() as u16)
                .collect(),
        }
    }

    /// The rate of `board`, 0 if the layer does not hold it.
    #[inline]
    pub(crate) fn rate(&self, board: u64) -> f32 {
        if board & self.fixed_mask != self.fixed {
            return 0.0;
        }
        let key = pext(board, !self.fixed_mask);
        let found = match &self.keys {
            Keys::Split { starts, lows } => {
                let top = (key >> 32) as usize;
                let Some(&[start, end]) = starts.get(top..top + 2) else {
                    return 0.0;
                };
                let (start, end) = (start as usize, end as usize);
                lows[start..end]
                    .binary_search(&(key as u32))
                    .ok()
                    .map(|at| start + at)
            }
            Keys::Whole(keys) => keys.binary_search(&key).ok(),
        };
        found.map_or(0.0, |at| f32::from(self.rates[at]) / f32::from(u16::MAX))
    }

    /// The number of positions.
    pub(crate) fn len(&self) -> usize {
        self.rates.len()
    }

    /// The bytes its lists take.
    pub(crate) fn bytes(&self) -> u64 {
        let keys = match &self.keys {
            Keys::Split { starts, lows } => 4 * (starts.len() + lows.len()),
            Keys::Whole(keys) => 8 * keys.len(),
        };
        (keys + 2 * self.rates.len()) as u64
    }
}

/// Every nibble of `bits` that has a bit set, as a mask of whole nibbles.
fn nibbles_of(bits: u64) -> u64 {
    let any = bits | (bits >> 1);
    let any = any | (any >> 2);
    (any & 0x1111_1111_1111_1111) * 0xF
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(mut boards: Vec<u64>) {
        boards.sort_unstable();
        boards.dedup();
        let rates: Vec<f64> = (0..boards.len())
            .map(|i| (i as f64 + 1.0) / (boards.len() as f64 + 1.0))
            .collect();
        let layer = PackedLayer::new(&boards, &rates);
        assert_eq!(layer.len(), boards.len());
        for (&board, &rate) in boards.iter().zip(&rates) {
            let read = f64::from(layer.rate(board));
            assert!(
                (read - rate).abs() < 1.0 / 65535.0,
                "{board:#x}: {read} for {rate}"
            );
            // Nearby boards the layer lacks read 0.
            for other in [
                board ^ 1,
                board ^ 0xF0,
                board ^ (1 << 62),
                board.wrapping_add(3),
            ] {
                if boards.binary_search(&other).is_err() {
                    assert_eq!(layer.rate(other), 0.0, "{other:#x}");
                }
            }
        }
    }

    proptest! {
        /// Boards with fixed walls (keys split) and without (keys whole).
        #[test]
        fn every_board_reads_its_rate(
            free in proptest::collection::vec(0u64..(1 << 40), 1..300),
            whole in proptest::collection::vec(any::<u64>(), 1..300),
            walls in prop_oneof![Just(0xFFF0_FFF0_0000_0000u64), Just(0xFF00_0000_0000_0000)],
        ) {
            check(free.iter().map(|&key| system::bits::pdep(key, !walls) | walls).collect());
            check(whole);
        }
    }

    #[test]
    fn an_empty_layer_holds_nothing() {
        let layer = PackedLayer::new(&[], &[]);
        assert_eq!(layer.rate(0x1234), 0.0);
        assert_eq!(layer.len(), 0);
    }
}
