//! Values of chance nodes already searched, one table per searching thread.

use board::Board;

/// A direct-mapped table of chance-node values for one search at a time.
///
/// An entry answers a query when it was searched at least as deep and
/// reached with at least the probability asked for: a node reached more
/// likely is cut off later, so its value was searched at least as far.
/// Replacement: always. Unlike `search::TranspositionTable` it is not
/// shared between threads: the player's searches of one game reuse each
/// other's nodes, those of another game never do, and a table of one's own
/// needs no atomics.
#[derive(Clone, Debug)]
pub(crate) struct Cache {
    /// Each slot: the board, then its value's bits in the low half and in
    /// the high half the depth and probability it was searched with (the
    /// probability's low 8 mantissa bits give way to the depth; a query's
    /// probability is compared cut the same way, a relative difference of
    /// 2^-15 at most). All zeros is an
    /// empty slot, so a new table is memory the system hands out zeroed,
    /// touched only as it fills.
    slots: Vec<[u64; 2]>,
}

impl Cache {
    /// A table of `2^bits` slots of 16 bytes.
    pub(crate) fn new(bits: u32) -> Self {
        Self {
            slots: vec![[0; 2]; 1 << bits],
        }
    }

    /// Forgets every entry (a new game).
    pub(crate) fn clear(&mut self) {
        self.slots.fill([0; 2]);
    }

    fn slot(&self, board: Board) -> usize {
        slot(board, self.slots.len().trailing_zeros())
    }

    /// The value of `board` if it was searched with at least `layers` and
    /// `probability`. (Only nodes searched a layer deep or more are
    /// stored and asked for, so empty slots never answer.)
    #[inline]
    pub(crate) fn get(&self, board: Board, layers: u32, probability: f32) -> Option<f32> {
        let [stored, data] = self.slots[self.slot(board)];
        let reach = (data >> 32) as u32;
        let stored_layers = reach & 0xFF;
        // Positive floats order as their bits; both probabilities are cut
        // to the bits kept, so that a node asked for with the probability
        // it was stored with is found.
        let likely_enough = reach & !0xFF >= probability.to_bits() & !0xFF;
        (stored == board.raw() && stored_layers >= layers && likely_enough)
            .then_some(f32::from_bits(data as u32))
    }

    /// Stores the value of `board` searched with `layers` and `probability`.
    #[inline]
    pub(crate) fn put(&mut self, board: Board, layers: u32, probability: f32, value: f32) {
        let reach = (probability.to_bits() & !0xFF) | layers.min(0xFF);
        let slot = self.slot(board);
        self.slots[slot] = [
            board.raw(),
            u64::from(reach) << 32 | u64::from(value.to_bits()),
        ];
    }
}

/// The slot of `board` in a direct-mapped table of `2^bits` slots: the
/// high bits of the board times the golden ratio, which spreads the few
/// bits that differ between nearby boards over the whole index.
pub(crate) fn slot(board: Board, bits: u32) -> usize {
    let mixed = board.raw().wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> (64 - bits)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_need_as_deep_and_as_likely() {
        let mut cache = Cache::new(10);
        let board = Board::from_raw(0x1234);
        cache.put(board, 3, 0.25, 7.5);
        assert_eq!(cache.get(board, 3, 0.25), Some(7.5));
        assert_eq!(cache.get(board, 2, 0.1), Some(7.5));
        assert_eq!(cache.get(board, 4, 0.1), None);
        assert_eq!(cache.get(board, 3, 0.5), None);
        assert_eq!(cache.get(Board::from_raw(0x1235), 3, 0.25), None);
        // A probability whose low bits the slot cannot keep is found with
        // itself: a node met again along another order of its spawns.
        let likely = 0.9 / 7.0 * 0.1 / 5.0;
        cache.put(board, 2, likely, 1.5);
        assert_eq!(cache.get(board, 2, likely), Some(1.5));
        assert_eq!(cache.get(board, 2, likely * 1.001), None);
        cache.clear();
        assert_eq!(cache.get(board, 3, 0.25), None);
        assert_eq!(
            cache.get(Board::EMPTY, 1, 0.0),
            None,
            "empty slots never answer"
        );
    }
}
