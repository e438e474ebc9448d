//! Formations seeded with every arrangement of their seeds' small tiles.

use crate::base::position::tile_sum;
use crate::{Error, Large};

use super::Formation;

/// The suffix that names a built-in formation seeded with every
/// arrangement: `L3x` is L3 so seeded.
pub(super) const SUFFIX: char = 'x';

impl Formation {
    /// The same formation seeded with every board that holds its walls and
    /// small tiles (2s, 4s, 8s, ...) of the seeds' sum in any of its other
    /// cells, named with an `x` after its name (`L3x`).
    ///
    /// A table stores the positions its seeds lead to, and a game meets
    /// others: of the moves of L3-32's positions in games, about a third
    /// lead to positions the two seeds of L3 never lead to. Seeded with
    /// every arrangement, a table holds those too, with the same rates for
    /// the positions both hold (a rate depends only on the position); L3x
    /// has 0.04% more positions than L3 at 256 (81,069,906 to 81,034,302).
    ///
    /// # Errors
    /// [`Error::Formation`] for a formation that is not one mask of large
    /// tiles that slide (the walls' cells would not be fixed), or a free
    /// one (its layer 0 is every arrangement already).
    pub fn with_every_seed(&self) -> Result<Self, Error> {
        let [mask] = self.masks[..] else {
            return Err(self.not_every("it has more than one mask"));
        };
        if self.free || self.large != Large::Sliding {
            return Err(self.not_every("it is free, or has walls"));
        }
        let small = tile_sum(self.seeds[0]) - tile_sum(mask);
        let cells: Vec<usize> = (0..16)
            .filter(|&cell| (mask >> (4 * cell)) & 0xF == 0)
            .collect();
        let mut seeds = Vec::new();
        place(mask, &cells, small, &mut seeds);
        let mut spec = self.spec();
        spec.name = format!("{}{SUFFIX}", self.name);
        spec.seeds = seeds
            .iter()
            .map(|&seed| crate::base::hex::format(seed))
            .collect();
        Self::new(spec)
    }

    fn not_every(&self, why: &str) -> Error {
        Error::Formation {
            name: format!("{}{SUFFIX}", self.name),
            problem: format!(
                "{} cannot be seeded with every arrangement: {why}",
                self.name
            ),
        }
    }
}

/// Pushes every `board` with tiles summing to `sum` added in `cells`
/// (each empty or one tile).
fn place(board: u64, cells: &[usize], sum: u32, seeds: &mut Vec<u64>) {
    let Some((&cell, rest)) = cells.split_first() else {
        if sum == 0 {
            seeds.push(board);
        }
        return;
    };
    place(board, rest, sum, seeds);
    for exponent in 1..=sum.checked_ilog2().unwrap_or(0) {
        if let Some(left) = sum.checked_sub(1 << exponent) {
            place(board | u64::from(exponent) << (4 * cell), rest, left, seeds);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l3x_holds_every_arrangement_of_eight() {
        let l3x = Formation::builtin("L3").unwrap().with_every_seed().unwrap();
        assert_eq!(l3x.name(), "L3x");
        // 8 as one tile (10 cells), 4+4 (45), 4+2+2 (10 x 36), 2+2+2+2 (210).
        assert_eq!(l3x.seeds().len(), 10 + 45 + 360 + 210);
        let l3 = Formation::builtin("L3").unwrap();
        assert!(l3.seeds().iter().all(|seed| l3x.seeds().contains(seed)));
        assert!(
            l3x.seeds()
                .iter()
                .all(|&seed| l3.fits(seed) && tile_sum(seed) == l3.seed_sum())
        );
        assert!(Formation::find("L3x").is_ok());
        for name in ["free8x", "L3fx", "3x3x"] {
            assert!(Formation::find(name).is_err(), "{name}");
        }
    }
}
