//! Where the large tiles of a free formation sit, up to the symmetries of
//! the square: the first part of a free formation's ranks.

use board::Board;
use board::bits::{pdep, pext};

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
            }
            by_cells[cells as usize] = class_of[smallest] << 8 | symmetries;
        }
        Self {
            by_cells,
            free: free.into_boxed_slice(),
        }
    }

    /// The number of classes.
    pub(super) fn classes(&self) -> u64 {
        self.free.len() as u64
    }

    /// The bytes its tables take.
    pub(super) fn bytes(&self) -> u64 {
        (size_of_val(&*self.by_cells) + size_of_val(&*self.free)) as u64
    }

    /// The class of `board`'s placement and, of the boards its symmetries
    /// make with that class's smallest placement, the smallest content of
    /// the free cells (their nibbles gathered, lowest cell lowest), or
    /// `None` if the board holds another number of large tiles.
    #[inline(always)]
    pub(super) fn place(&self, board: u64) -> Option<(usize, u64)> {
        let entry = self.by_cells[large_cells(board)];
        if entry == UNPLACED {
            return None;
        }
        let class = (entry >> 8) as usize;
        let free = self.free[class];
        let mut symmetries = entry & 0xFF;
        let mut content = pext(turn(board, symmetries.trailing_zeros()), free);
        // Symmetric placements (a few percent): the smallest content.
        symmetries &= symmetries - 1;
        while symmetries != 0 {
            content = content.min(pext(turn(board, symmetries.trailing_zeros()), free));
            symmetries &= symmetries - 1;
        }
        Some((class, content))
    }

    /// The board of class `class` with `content` in its free cells.
    pub(super) fn board(&self, class: usize, content: u64) -> u64 {
        let free = self.free[class];
        !free | pdep(content, free)
    }
}
