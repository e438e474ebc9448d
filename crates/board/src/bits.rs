//! Bit tricks over the sixteen nibbles of a board.

/// One bit at the bottom of every nibble.
pub(crate) const NIBBLE_LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// Marks each zero nibble of `x` with a 1 in that nibble's lowest bit.
#[inline]
pub(crate) const fn zero_nibbles(x: u64) -> u64 {
    let x = x | (x >> 2);
    let x = x | (x >> 1);
    !x & NIBBLE_LOW_BITS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_nibbles_marks_exactly_the_empty_cells() {
        assert_eq!(zero_nibbles(0), NIBBLE_LOW_BITS);
        assert_eq!(zero_nibbles(0xF0F0_0000_0000_1234), 0x0101_1111_1111_0000);
    }
}
