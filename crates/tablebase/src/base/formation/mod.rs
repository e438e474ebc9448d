//! Formations: where the large tiles sit, where the target counts, which
//! symmetries apply and where the tables start.

use crate::Canon;
use crate::base::position::{large_count, large_nibbles, tile_sum};
use crate::base::slide::{LARGE, Large};

mod builtin;
mod definition;
mod every;

pub use definition::FormationSpec;

/// A formation: the shape an endgame keeps while it is played out.
///
/// Boards hold small tiles and 0xF nibbles, the large tiles ([`Large`]). A
/// board *fits* the formation when every cell of at least one of its masks
/// holds 0xF (any board fits a formation without masks). Boards are in
/// 2048lab's order here; the built-in definitions and formation files are
/// written in the reference's order ([`Position`](crate::Position)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formation {
    name: String,
    masks: Vec<u64>,
    target_cells: u64,
    canon: Canon,
    large: Large,
    seeds: Vec<u64>,
    extra_steps: i32,
    free: bool,
}

impl Formation {
    /// The formation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The symmetries it admits.
    pub fn canon(&self) -> Canon {
        self.canon
    }

    /// What its 0xF nibbles are.
    pub fn large(&self) -> Large {
        self.large
    }

    /// The canonical seeds, in 2048lab's order.
    pub fn seeds(&self) -> &[u64] {
        &self.seeds
    }

    /// The masks, in 2048lab's order.
    pub fn masks(&self) -> &[u64] {
        &self.masks
    }

    /// The cells where the target counts, 0xF each.
    pub fn target_cells(&self) -> u64 {
        self.target_cells
    }

    /// Layers after the target's first possible one.
    pub fn extra_steps(&self) -> i32 {
        self.extra_steps
    }

    /// The same formation with another number of extra steps: a nearer or
    /// farther horizon.
    #[must_use]
    pub fn with_extra_steps(mut self, extra_steps: i32) -> Self {
        self.extra_steps = extra_steps;
        self
    }

    /// Whether layer 0 is every arrangement of the seed's tiles.
    pub fn is_free(&self) -> bool {
        self.free
    }

    /// The cells of the large tiles (0xF each) if every position of the
    /// formation holds them there: the seeds' walls, or the one mask when
    /// the seeds hold large tiles in its cells only (the symmetries keep
    /// walls and masks in place: [`Formation::new`] checks). Tiles of
    /// 16384 merging into another 0xF aside, which the layers that count
    /// on this (generation by rank) leave out.
    pub fn fixed_large(&self) -> Option<u64> {
        let large = large_nibbles(self.seeds[0]);
        let held = match self.large {
            Large::Wall => true,
            Large::Sliding => self.masks == [large],
        };
        let same = self.seeds.iter().all(|&seed| large_nibbles(seed) == large);
        (held && same && !self.free).then_some(large)
    }

    /// The number of large tiles if they may sit anywhere and every
    /// symmetry of the square keeps the formation (no masks or walls, the
    /// full canonical mode, whose target cells [`Formation::new`] checks
    /// the symmetries keep), as in the free formations: every position
    /// then holds as many as the seeds, and its symmetric images are
    /// positions too, which generation and lookups by rank count on
    /// (`rank::Space::placed`). Tiles of 16384 merging into another 0xF
    /// aside, as for [`Formation::fixed_large`].
    pub fn anywhere_large(&self) -> Option<u32> {
        let count = large_count(self.seeds[0]);
        let symmetric =
            self.masks.is_empty() && self.large == Large::Sliding && self.canon == Canon::Full;
        let same = self.seeds.iter().all(|&seed| large_count(seed) == count);
        (symmetric && same).then_some(count)
    }

    /// The tile sum of the seeds, large tiles counted as 32768.
    pub fn seed_sum(&self) -> u32 {
        tile_sum(self.seeds[0])
    }

    /// Whether `board` keeps the formation: every cell of some mask holds a
    /// large tile. A formation of one mask (L3, 442, ...) checks it without
    /// a loop: the loop cost generation a tenth of its kernel's samples,
    /// as every child is checked (docs/tablebase-builder.md).
    #[inline(always)]
    pub fn fits(&self, board: u64) -> bool {
        match self.masks.as_slice() {
            [] => true,
            [mask] => mask & !board == 0,
            masks => masks.iter().any(|&mask| mask & !board == 0),
        }
    }

    /// Whether `board` is laid out as the formation's positions are: it
    /// [`fits`](Formation::fits), and holds the walls, if any, in their
    /// cells. Moves never take walls elsewhere, so only a board given from
    /// outside (turned, say) needs the second check.
    pub fn holds(&self, board: u64) -> bool {
        self.fits(board)
            && (self.large != Large::Wall || large_nibbles(board) == large_nibbles(self.seeds[0]))
    }

    /// Whether `board` shows the tile of exponent `target` in a target cell.
    #[inline]
    pub fn shows(&self, board: u64, target: u8) -> bool {
        // Nibbles equal to the target become 0; flag the zero nibbles exactly.
        let x = board ^ (0x1111_1111_1111_1111 * u64::from(target));
        let any = x | (x >> 1);
        let any = any | (any >> 2);
        !any & self.target_cells & 0x1111_1111_1111_1111 != 0
    }

    /// The boards of layer 0, canonical, sorted and without repeats: the
    /// seeds, or for a free formation every arrangement of the first seed's
    /// tiles moved in each direction, an arrangement that a move leaves
    /// unchanged counting as its own result (as the reference's free
    /// tables: layer 0 holds positions after a move).
    pub fn layer_zero(&self) -> Vec<u64> {
        let mut boards = if self.free {
            let mover = crate::Mover::new(self.large);
            let mut tiles: Vec<u8> = (0..16)
                .map(|cell| ((self.seeds[0] >> (4 * cell)) & 0xF) as u8)
                .collect();
            tiles.sort_unstable();
            let mut boards = Vec::new();
            permutations(&mut tiles, &mut |cells| {
                let board = cells.iter().enumerate().fold(0u64, |board, (cell, &tile)| {
                    board | u64::from(tile) << (4 * cell)
                });
                // Layer 0 holds positions after a move: each arrangement
                // moved each way, kept unchanged where a move changes nothing.
                for moved in mover.slide_all(board) {
                    if self.fits(moved) {
                        boards.push(self.canon.canonical(moved));
                    }
                }
            });
            boards
        } else {
            self.seeds.clone()
        };
        boards.sort_unstable();
        boards.dedup();
        boards
    }
}

/// Calls `visit` with every distinct permutation of `items` (sorted on
/// entry), in lexicographic order.
fn permutations(items: &mut [u8], visit: &mut impl FnMut(&[u8])) {
    loop {
        visit(items);
        // The next permutation, or stop after the last.
        let Some(pivot) = (0..items.len().saturating_sub(1))
            .rev()
            .find(|&i| items[i] < items[i + 1])
        else {
            return;
        };
        let successor = (pivot + 1..items.len())
            .rev()
            .find(|&j| items[j] > items[pivot])
            .expect("a larger item follows the pivot");
        items.swap(pivot, successor);
        items[pivot + 1..].reverse();
    }
}

const _: () = assert!(LARGE == 0xF);

#[cfg(test)]
mod tests;
