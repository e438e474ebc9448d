//! Where the large tiles of a free formation sit, up to the symmetries of
//! the square: the first part of a free formation's ranks.

use std::sync::{Arc, OnceLock};

use board::Board;
use system::bits::{pdep, pext};

use super::gather;

/// One bit of every nibble.
const NIBBLE_BITS: u64 = 0x1111_1111_1111_1111;

/// The cells of a board's large tiles (0xF), one bit a cell.
#[inline(always)]
pub(super) fn large_cells(board: u64) -> usize {
    pext(
        board & (board >> 1) & (board >> 2) & (board >> 3),
        NIBBLE_BITS,
    ) as usize
}

/// `board` seen through the symmetry of code `symmetry` (0 to 7): reflected
/// in its main diagonal if bit 0 is set, then top to bottom if bit 1 is,
/// then left to right if bit 2 is. The eight codes are the eight
/// symmetries of the square, each made of at most three cheap reflections
/// and chosen without a branch.
#[inline(always)]
pub(super) fn turn(board: u64, symmetry: u32) -> u64 {
    let pick = |bit: u32, turned: Board, board: Board| {
        if symmetry & bit != 0 { turned } else { board }
    };
    let board = Board::from_raw(board);
    let board = pick(1, board.transpose(), board);
    let board = pick(2, board.flip(), board);
    pick(4, board.mirror(), board).raw()
}

/// Every placement of a number of large tiles, in classes of placements
/// that a symmetry of the square takes one to another, each class
/// represented by its smallest placement (as a bitmap of cells).
#[derive(Debug)]
pub(super) struct Placements {
    /// By the cells of a board's large tiles (a bit a cell): its class's
    /// index (classes numbered in increasing order of their smallest
    /// placement) above 8 bits, and below them the codes of the symmetries
    /// ([`turn`]) that take it to the class's smallest; [`UNPLACED`] for
    /// another number of large tiles.
    by_cells: Box<[u32]>,
    /// By class, the nibbles of the cells of its smallest placement that
    /// do not hold a large tile.
    free: Box<[u64]>,
    /// By class, those cells as [`gather`] takes them: the low half's
    /// (the first `cells / 2`) from byte 0, the high half's from byte 8,
    /// [`gather::NO_CELL`] in the other bytes.
    layouts: Box<[[u8; 16]]>,
    /// By symmetry code, the cell of a board that [`turn`] puts in each
    /// cell.
    sources: [[u8; 16]; 8],
}

/// A placement of another number of large tiles.
const UNPLACED: u32 = u32::MAX;

impl Placements {
    /// The placements of `large` large tiles.
    pub(super) fn new(large: u32) -> Self {
        let mut by_cells = vec![UNPLACED; 1 << 16].into_boxed_slice();
        let mut free = Vec::new();
        // A placement is met before any other of its class but its
        // smallest, which numbers the class.
        let mut class_of = vec![UNPLACED; 1 << 16];
        let mut layouts = Vec::new();
        for cells in (0u32..1 << 16).filter(|cells| cells.count_ones() == large) {
            let board = pdep(u64::from(cells), NIBBLE_BITS) * 0xF;
            let images = (0..8).map(|symmetry| large_cells(turn(board, symmetry)));
            let smallest = images.clone().min().expect("eight images");
            let symmetries = (images.enumerate())
                .filter(|&(_, image)| image == smallest)
                .fold(0, |set, (symmetry, _)| set | 1 << symmetry);
            if class_of[smallest] == UNPLACED {
                class_of[smallest] = free.len() as u32;
                free.push(!(pdep(smallest as u64, NIBBLE_BITS) * 0xF));
                layouts.push(gather::layout(!smallest as u16));
            }
            by_cells[cells as usize] = class_of[smallest] << 8 | symmetries;
        }
        // A board whose nibble in each cell is that cell's number shows,
        // turned, where each cell's nibble comes from.
        let numbered = 0xFEDC_BA98_7654_3210;
        let sources = std::array::from_fn(|symmetry| {
            let turned = turn(numbered, symmetry as u32);
            std::array::from_fn(|cell| (turned >> (4 * cell) & 0xF) as u8)
        });
        Self {
            by_cells,
            free: free.into_boxed_slice(),
            layouts: layouts.into_boxed_slice(),
            sources,
        }
    }

    /// The placements of `large` large tiles (1 to 15), made once in a
    /// process and shared: a partitioned build's tasks make the space of
    /// a layer each, and making the placements anew for each took 3% of
    /// their time (free8-32 in 16 parts).
    pub(super) fn shared(large: u32) -> Arc<Self> {
        static MADE: [OnceLock<Arc<Placements>>; 16] = [const { OnceLock::new() }; 16];
        Arc::clone(MADE[large as usize].get_or_init(|| Arc::new(Self::new(large))))
    }

    /// The number of classes.
    pub(super) fn classes(&self) -> u64 {
        self.free.len() as u64
    }

    /// The bytes its tables take.
    pub(super) fn bytes(&self) -> u64 {
        (size_of_val(&*self.by_cells) + size_of_val(&*self.free) + size_of_val(&*self.layouts))
            as u64
    }

    /// The class of `board`'s placement and, of the boards its symmetries
    /// make with that class's smallest placement, the smallest content of
    /// the free cells (their nibbles in increasing order of cell, the last
    /// the most significant), as the codes of its high and low halves in
    /// `radix` ([`gather::codes`], which gathers them without turning the
    /// board: free8-32's builds took 1.07 times less CPU than with three
    /// reflections and a `pext`, the median of 4 pairs;
    /// docs/tablebase-builder.md). `None` if the board holds another
    /// number of large tiles, or a tile over `radix - 1`.
    #[inline(always)]
    pub(super) fn place(&self, board: u64, radix: u32) -> Option<(usize, (u32, u32))> {
        let entry = self.by_cells[large_cells(board)];
        if entry == UNPLACED {
            return None;
        }
        let class = (entry >> 8) as usize;
        let layout = &self.layouts[class];
        let codes =
            |symmetry: u32| gather::codes(board, &self.sources[symmetry as usize], layout, radix);
        let mut symmetries = entry & 0xFF;
        let mut smallest = codes(symmetries.trailing_zeros())?;
        // Symmetric placements (a few percent): the smallest content.
        symmetries &= symmetries - 1;
        while symmetries != 0 {
            smallest = smallest.min(codes(symmetries.trailing_zeros())?);
            symmetries &= symmetries - 1;
        }
        Some((class, smallest))
    }

    /// The board of class `class` with `content` in its free cells.
    pub(super) fn board(&self, class: usize, content: u64) -> u64 {
        let free = self.free[class];
        !free | pdep(content, free)
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};

    use super::*;

    /// A board's content is that of the board turned to its class's
    /// smallest placement, the smallest where the placement is symmetric:
    /// its free cells' nibbles gathered, the lower half's code from the
    /// first `cells / 2` of them, the high half's from the others.
    #[test]
    fn contents_are_those_of_the_turned_boards() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for large in [6, 8, 9, 12] {
            let placements = Placements::new(large);
            let low_cells = (16 - large) / 2;
            let code = |nibbles: u64, count: u32, radix: u32| {
                (0..count).rev().fold(0, |code, cell| {
                    code * radix + (nibbles >> (4 * cell) & 0xF) as u32
                })
            };
            let mut symmetric = 0;
            for _ in 0..20_000 {
                let radix = rng.random_range(2..=15);
                let mut cells: Vec<u32> = (0..16).collect();
                for cell in (1..16).rev() {
                    cells.swap(cell, rng.random_range(0..=cell));
                }
                let board = (0..16).fold(0u64, |board, at| {
                    let nibble = if at < large as usize {
                        0xF
                    } else {
                        rng.random_range(0..radix)
                    };
                    board | u64::from(nibble) << (4 * cells[at])
                });
                let (class, symmetries) = {
                    let entry = placements.by_cells[large_cells(board)];
                    ((entry >> 8) as usize, entry & 0xFF)
                };
                symmetric += usize::from(symmetries.count_ones() > 1);
                let content = (0..8)
                    .filter(|symmetry| symmetries >> symmetry & 1 != 0)
                    .map(|symmetry| pext(turn(board, symmetry), placements.free[class]))
                    .min()
                    .unwrap();
                let high_cells = 16 - large - low_cells;
                let expected = (
                    code(content >> (4 * low_cells), high_cells, radix),
                    code(content, low_cells, radix),
                );
                assert_eq!(placements.place(board, radix), Some((class, expected)));
                // A tile over the radix, another number of large tiles.
                let free = (0..16)
                    .find(|&cell| board >> (4 * cell) & 0xF != 0xF)
                    .unwrap();
                let over = board | 0xE << (4 * free);
                assert_eq!(placements.place(over, radix.min(14)), None);
                assert_eq!(placements.place(board | 0xF << (4 * free), radix), None);
            }
            assert!(symmetric > 10, "{large}: {symmetric} symmetric placements");
        }
    }
}
