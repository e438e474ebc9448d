//! The transposition table: values of chance nodes already searched, shared
//! by threads without locks.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use board::Board;

/// A direct-mapped table of chance-node values: a power-of-two number of
/// 16-byte slots, each holding one board, its remaining depth and value.
///
/// - **Replacement**: always; a store overwrites whatever the slot held.
/// - **Lookup**: a hit needs the same board and the same depth; with `peek`,
///   the slot does not depend on the depth, so a deeper result also answers
///   a shallower query (deeper is better information, at the price of not
///   being the value of the exact depth asked).
/// - **Threads**: slots are two relaxed atomic words, the second holding the
///   board xor the first, as TDL2048+ does: a slot torn by two threads writing
///   at once fails the check and reads as a miss. No locks, no undefined
///   behaviour, and a race only costs a recomputation.
#[derive(Debug)]
pub struct TranspositionTable {
    slots: Vec<[AtomicU64; 2]>,
    peek: bool,
}

impl TranspositionTable {
    /// A table of at most `bytes` bytes (rounded down to a power of two of
    /// 16-byte slots, at least one: [`TranspositionTable::bytes_for`]).
    pub fn new(bytes: u64, peek: bool) -> Self {
        let slots = Self::bytes_for(bytes) / 16;
        Self {
            slots: (0..slots)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            peek,
        }
    }

    /// The bytes that a table of at most `bytes` takes, to check them
    /// against the memory there is before allocating.
    pub const fn bytes_for(bytes: u64) -> u64 {
        let slots = if bytes / 16 > 1 { bytes / 16 } else { 1 };
        16 << (63 - slots.leading_zeros())
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> u64 {
        self.slots.len() as u64 * 16
    }

    fn slot(&self, board: Board, depth: u32) -> &[AtomicU64; 2] {
        let key = if self.peek {
            board.raw()
        } else {
            board.raw() ^ u64::from(depth).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        };
        // SplitMix64's finaliser spreads nearby boards over the table.
        let mut x = key;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        &self.slots[(x as usize) & (self.slots.len() - 1)]
    }

    /// The stored value of `board` searched to `depth` layers, if any.
    #[inline]
    pub fn get(&self, board: Board, depth: u32) -> Option<f32> {
        let [data, check] = self.slot(board, depth);
        let (data, check) = (data.load(Relaxed), check.load(Relaxed));
        let stored = (data >> 32) as u32;
        let found =
            check ^ data == board.raw() && (stored == depth || (self.peek && stored > depth));
        found.then(|| f32::from_bits(data as u32))
    }

    /// Stores the value of `board` searched to `depth` layers.
    #[inline]
    pub fn put(&self, board: Board, depth: u32, value: f32) {
        let data = u64::from(depth) << 32 | u64::from(value.to_bits());
        let [slot_data, slot_check] = self.slot(board, depth);
        slot_data.store(data, Relaxed);
        slot_check.store(data ^ board.raw(), Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_down_to_powers_of_two() {
        assert_eq!(TranspositionTable::new(1 << 20, false).bytes(), 1 << 20);
        assert_eq!(TranspositionTable::new(3 << 20, false).bytes(), 2 << 20);
        assert_eq!(TranspositionTable::new(0, false).bytes(), 16);
        // What a table will take is known before it is allocated.
        for bytes in [0, 1, 31, 32, 100, 3 << 20, u64::MAX] {
            let expected = if bytes < 32 { 16 } else { 1 << bytes.ilog2() };
            assert_eq!(TranspositionTable::bytes_for(bytes), expected, "{bytes}");
        }
    }

    #[test]
    fn hits_need_the_board_and_the_depth_unless_peeking() {
        let board = Board::from_raw(0x1234_5678);
        let exact = TranspositionTable::new(1 << 16, false);
        exact.put(board, 3, 42.5);
        assert_eq!(exact.get(board, 3), Some(42.5));
        assert_eq!(exact.get(board, 2), None);
        assert_eq!(exact.get(Board::from_raw(0x1234_5679), 3), None);
        let peeking = TranspositionTable::new(1 << 16, true);
        peeking.put(board, 3, 42.5);
        assert_eq!(peeking.get(board, 2), Some(42.5), "a deeper result answers");
        assert_eq!(peeking.get(board, 4), None, "a shallower one does not");
    }

    #[test]
    fn a_torn_slot_reads_as_a_miss() {
        let table = TranspositionTable::new(16, false);
        let board = Board::from_raw(77);
        table.put(board, 1, 1.0);
        table.slots[0][0].store(u64::from(1u32) << 32 | u64::from(2.0f32.to_bits()), Relaxed);
        assert_eq!(table.get(board, 1), None);
    }
}
