//! One line of four cells sliding towards its first cell: the plain, obviously
//! correct rule from which every move of every board is derived.
//!
//! The build script includes this file to generate the row tables, and the
//! tests use it as the oracle that the tables are checked against, so the
//! tables can never disagree with the rule written here.

/// Slides a line of tile exponents towards index 0, as a left move slides a
/// row: tiles pack towards the wall, and two equal neighbours (after packing)
/// merge into one tile of the next exponent, each tile merging at most once,
/// pairing from the wall outwards.
///
/// Returns the new line and the reward, the sum of the values of the tiles
/// made by merges.
///
/// `max_exponent` is the largest exponent a cell can hold. Two tiles of that
/// exponent still merge and pay the merged value, but the merged tile does
/// not fit, so its cell is left empty (the line is not packed again). This is
/// what the 64-bit boards of TDL2048+ do with two 32768 tiles
/// (`max_exponent = 15`), and it makes the rule total for every input.
pub fn slide_towards_first(line: [u8; 4], max_exponent: u8) -> ([u8; 4], u32) {
    let mut out = [0u8; 4];
    let mut reward = 0u32;
    let mut len = 0;
    // The last placed tile, if it may still merge with the next one.
    let mut open = false;
    for tile in line.into_iter().filter(|&tile| tile != 0) {
        if open && out[len - 1] == tile {
            let merged = tile + 1;
            reward += 1u32 << merged;
            out[len - 1] = if merged > max_exponent { 0 } else { merged };
            open = false;
        } else {
            out[len] = tile;
            len += 1;
            open = true;
        }
    }
    (out, reward)
}
