//! Tiles: indices into the Fibonacci sequence, and which pairs merge.

/// The largest tile index a [`crate::Board`] holds (5 bits a cell):
/// 2,178,309.
pub const MAX_INDEX: u8 = 31;

/// The index of the 2584 tile, the course's goal.
pub const GOAL: u8 = 17;

/// The value of each tile index: 0 for an empty cell, then 1, 2, 3, 5, 8, ...
const VALUES: [u32; MAX_INDEX as usize + 1] = {
    let mut values = [0u32; MAX_INDEX as usize + 1];
    values[1] = 1;
    values[2] = 2;
    let mut index = 3;
    while index < values.len() {
        values[index] = values[index - 1] + values[index - 2];
        index += 1;
    }
    values
};

/// The value of the tile of `index` (0 for an empty cell): F(1) = 1,
/// F(2) = 2, F(17) = 2584, F(24) = 75025.
///
/// # Panics
/// If `index` is above [`MAX_INDEX`].
#[inline]
pub const fn value(index: u8) -> u32 {
    VALUES[index as usize]
}

/// The index of the tile worth `value`, if one is.
pub fn index_of(value: u32) -> Option<u8> {
    VALUES
        .iter()
        .position(|&v| v == value && v != 0)
        .map(|index| index as u8)
}

/// The tile two tiles of indices `a` and `b` merge into, if they merge:
/// neighbours in the sequence (indices one apart) or two 1s, giving the
/// larger index plus one. Equal tiles other than 1 never merge, and a merge
/// that would pass [`MAX_INDEX`] does not happen on this board.
#[inline]
pub const fn merged(a: u8, b: u8) -> Option<u8> {
    let (low, high) = if a < b { (a, b) } else { (b, a) };
    if low == 0 || high >= MAX_INDEX {
        return None;
    }
    if high - low == 1 || high == 1 {
        Some(high + 1)
    } else {
        None
    }
}

/// The character of a tile index in the course's records: `0-9`, then
/// `A-Z` for 10 to 35.
pub const fn symbol(index: u8) -> char {
    let symbols = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    symbols[index as usize] as char
}

/// The tile index a record's character stands for.
pub fn from_symbol(symbol: char) -> Option<u8> {
    symbol
        .to_digit(36)
        .filter(|&index| index <= u32::from(MAX_INDEX) && !symbol.is_ascii_lowercase())
        .map(|index| index as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_the_sequence() {
        assert_eq!(&VALUES[..8], &[0, 1, 2, 3, 5, 8, 13, 21]);
        assert_eq!(value(GOAL), 2584);
        assert_eq!(value(24), 75025);
        assert_eq!(value(MAX_INDEX), 2_178_309);
        assert_eq!(index_of(2584), Some(GOAL));
        assert_eq!(index_of(4), None);
        assert_eq!(index_of(0), None);
    }

    #[test]
    fn neighbours_and_ones_merge() {
        assert_eq!(merged(1, 1), Some(2));
        assert_eq!(merged(1, 2), Some(3));
        assert_eq!(merged(3, 2), Some(4));
        assert_eq!(merged(16, 17), Some(18));
        for (a, b) in [(2, 2), (3, 3), (1, 3), (0, 1), (0, 0), (5, 8)] {
            assert_eq!(merged(a, b), None, "{a} {b}");
        }
        assert_eq!(merged(30, 31), None, "index 32 does not fit a cell");
    }

    #[test]
    fn symbols_round_trip() {
        for index in 0..=MAX_INDEX {
            assert_eq!(from_symbol(symbol(index)), Some(index));
        }
        assert_eq!(symbol(10), 'A');
        assert_eq!(from_symbol('a'), None);
        assert_eq!(from_symbol('W'), None);
        assert_eq!(from_symbol('#'), None);
    }
}
