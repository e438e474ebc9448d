//! The rule of one slide on one line of four cells, written plainly: the
//! row tables are generated from it and the tests compare against it.

use crate::tile::{merged, value};

/// Slides the tiles of `line` towards its first cell: the line is read from
/// that end holding one tile; the next tile merges with the held one if they
/// merge (the merged tile is then final for this slide), otherwise the held
/// tile is placed and the next one held. Returns the new line and the sum of
/// the merged tiles' values.
pub fn slide_towards_first(line: [u8; 4]) -> ([u8; 4], u32) {
    let mut slid = [0u8; 4];
    let mut placed = 0;
    let mut reward = 0;
    let mut held: Option<u8> = None;
    for tile in line.into_iter().filter(|&tile| tile != 0) {
        match held.map(|held| (held, merged(held, tile))) {
            Some((_, Some(merge))) => {
                slid[placed] = merge;
                placed += 1;
                reward += value(merge);
                held = None;
            }
            Some((previous, None)) => {
                slid[placed] = previous;
                placed += 1;
                held = Some(tile);
            }
            None => held = Some(tile),
        }
    }
    if let Some(held) = held {
        slid[placed] = held;
    }
    (slid, reward)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_lines() {
        let cases = [
            ([1, 1, 0, 0], [2, 0, 0, 0], 2),
            ([1, 1, 1, 0], [2, 1, 0, 0], 2),
            ([1, 2, 3, 4], [3, 5, 0, 0], 3 + 8),
            ([2, 2, 2, 2], [2, 2, 2, 2], 0),
            ([0, 3, 0, 1], [3, 1, 0, 0], 0),
            ([1, 3, 1, 3], [1, 3, 1, 3], 0),
            ([4, 3, 2, 1], [5, 3, 0, 0], 8 + 3),
            ([0, 0, 16, 17], [18, 0, 0, 0], 4181),
        ];
        for (line, slid, reward) in cases {
            assert_eq!(slide_towards_first(line), (slid, reward), "{line:?}");
        }
    }
}
