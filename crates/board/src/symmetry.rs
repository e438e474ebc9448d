//! The eight symmetries of the square, applied to boards with a few shifts
//! and masks, and the canonical forms that identify symmetric positions.

use crate::{Board, Direction};

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub(crate) mod avx2;

impl Board {
    /// Reflects the board in its main diagonal: cell (r, c) goes to (c, r).
    #[inline]
    #[must_use]
    pub const fn transpose(self) -> Self {
        let x = self.0;
        let a = (x & 0xF0F0_0F0F_F0F0_0F0F)
            | ((x & 0x0000_F0F0_0000_F0F0) << 12)
            | ((x & 0x0F0F_0000_0F0F_0000) >> 12);
        Self(
            (a & 0xFF00_FF00_00FF_00FF)
                | ((a & 0x00FF_00FF_0000_0000) >> 24)
                | ((a & 0x0000_0000_FF00_FF00) << 24),
        )
    }

    /// Reflects the board top to bottom: row r goes to row 3 - r.
    #[inline]
    #[must_use]
    pub const fn flip(self) -> Self {
        // Swap the halves (rows 0, 1 with rows 2, 3), then the rows of each.
        let x = self.0.rotate_left(32);
        Self(((x & 0x0000_FFFF_0000_FFFF) << 16) | ((x >> 16) & 0x0000_FFFF_0000_FFFF))
    }

    /// Reflects the board left to right: column c goes to column 3 - c.
    #[inline]
    #[must_use]
    pub const fn mirror(self) -> Self {
        let x = self.0;
        let x = ((x & 0x00FF_00FF_00FF_00FF) << 8) | ((x >> 8) & 0x00FF_00FF_00FF_00FF);
        Self(((x & 0x0F0F_0F0F_0F0F_0F0F) << 4) | ((x >> 4) & 0x0F0F_0F0F_0F0F_0F0F))
    }

    /// The board seen through `symmetry`.
    #[inline]
    #[must_use]
    pub const fn transform(self, symmetry: Symmetry) -> Self {
        let mirrored = if symmetry.is_reflection() {
            self.mirror()
        } else {
            self
        };
        match symmetry.quarter_turns() {
            0 => mirrored,
            1 => mirrored.transpose().mirror(),
            2 => mirrored.flip().mirror(),
            _ => mirrored.mirror().transpose(),
        }
    }

    /// The numerically smallest of the eight symmetric images: one board for
    /// every class of positions that play alike.
    #[inline]
    #[must_use]
    pub fn canonical(self) -> Self {
        // The eight images are the board and its transpose, each as it is,
        // flipped, mirrored, and both: computed side by side rather than
        // each from the one before, so that they need not wait on each other.
        let smallest = |board: Self| {
            let mirrored = board.mirror();
            board.min(board.flip()).min(mirrored.min(mirrored.flip()))
        };
        smallest(self).min(smallest(self.transpose()))
    }

    /// The canonical forms of four boards, as [`Board::canonical`] makes
    /// them one at a time: for callers that have boards four at once, such
    /// as the four moves of a position ([`Board::afterstates`]).
    ///
    /// Where the build has AVX2 (`-C target-cpu=x86-64-v3` or a later CPU,
    /// as every x86-64 build of the 2048lab workspace is), the four boards
    /// go through the eight images side by side in the 64-bit lanes of one
    /// vector register, which leaves the scalar units free for the work
    /// around them: building free endgame tables this way, rather than one
    /// board at a time, took about a tenth less CPU time. Elsewhere it is
    /// four calls of [`Board::canonical`].
    ///
    /// ```
    /// use board::Board;
    ///
    /// let board: Board = "2 4 . . / . . . . / . . . . / . . . .".parse()?;
    /// let boards = [board, board.mirror(), board.transpose(), board.flip()];
    /// assert_eq!(Board::canonical_four(boards), [board.canonical(); 4]);
    /// # Ok::<(), board::Error>(())
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn canonical_four(boards: [Self; 4]) -> [Self; 4] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        return avx2::canonical_four(boards);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        boards.map(Self::canonical)
    }
}

/// A symmetry of the square board, as it acts on cells.
///
/// Each element is a number of clockwise quarter turns, preceded by a
/// left-right mirror for the four reflections. [`Symmetry::then`] composes
/// them, and [`Symmetry::direction`] says where a move goes, so that sliding
/// a transformed board in the transformed direction gives the transformed
/// afterstate.
///
/// ```
/// use board::{Board, Direction, Symmetry};
///
/// let board: Board = "2 . . . / 4 . . . / . . . . / . . . .".parse()?;
/// let turned = board.transform(Symmetry::RotateClockwise);
/// assert_eq!(turned, ". . 4 2 / . . . . / . . . . / . . . .".parse()?);
/// // Moves turn with the board: down on the board is left on its turn.
/// let turn = Symmetry::RotateClockwise;
/// assert_eq!(turn.direction(Direction::Down), Direction::Left);
/// let down = board.slide(Direction::Down).expect("the tiles slide down");
/// let left = turned.slide(Direction::Left).expect("the tiles slide left");
/// assert_eq!(left.board, down.board.transform(turn));
/// // Symmetric boards share one canonical form.
/// assert_eq!(turned.canonical(), board.canonical());
/// # Ok::<(), board::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Symmetry {
    /// Leaves every cell in place.
    Identity = 0,
    /// A quarter turn clockwise: (r, c) goes to (c, 3 - r).
    RotateClockwise = 1,
    /// A half turn: (r, c) goes to (3 - r, 3 - c).
    Rotate180 = 2,
    /// A quarter turn anticlockwise: (r, c) goes to (3 - c, r).
    RotateAnticlockwise = 3,
    /// Left-right reflection: (r, c) goes to (r, 3 - c).
    Mirror = 4,
    /// Reflection in the anti-diagonal: (r, c) goes to (3 - c, 3 - r).
    AntiTranspose = 5,
    /// Top-bottom reflection: (r, c) goes to (3 - r, c).
    Flip = 6,
    /// Reflection in the main diagonal: (r, c) goes to (c, r).
    Transpose = 7,
}

impl Symmetry {
    /// All eight symmetries, the identity first.
    pub const ALL: [Symmetry; 8] = [
        Self::Identity,
        Self::RotateClockwise,
        Self::Rotate180,
        Self::RotateAnticlockwise,
        Self::Mirror,
        Self::AntiTranspose,
        Self::Flip,
        Self::Transpose,
    ];

    const fn from_parts(quarter_turns: u8, reflection: bool) -> Self {
        Self::ALL[(quarter_turns % 4 + 4 * reflection as u8) as usize]
    }

    /// The clockwise quarter turns done after the optional mirror.
    pub const fn quarter_turns(self) -> u8 {
        self as u8 % 4
    }

    /// Whether this symmetry reverses orientation (mirrors first).
    pub const fn is_reflection(self) -> bool {
        self as u8 >= 4
    }

    /// This symmetry followed by `next`.
    #[must_use]
    pub const fn then(self, next: Symmetry) -> Self {
        // Moving a mirror past a turn reverses the turn: M R = R^-1 M.
        let turns = if next.is_reflection() {
            next.quarter_turns() + 4 - self.quarter_turns()
        } else {
            next.quarter_turns() + self.quarter_turns()
        };
        Self::from_parts(turns, self.is_reflection() != next.is_reflection())
    }

    /// The symmetry that undoes this one.
    #[must_use]
    pub const fn inverse(self) -> Self {
        if self.is_reflection() {
            self
        } else {
            Self::from_parts(4 - self.quarter_turns(), false)
        }
    }

    /// Where this symmetry takes a move in `direction`.
    pub const fn direction(self, direction: Direction) -> Direction {
        let reflected = if self.is_reflection() {
            direction.mirrored()
        } else {
            direction
        };
        Direction::from_index((reflected.index() + self.quarter_turns() as usize) % 4)
    }

    /// Where this symmetry takes `cell` (0 to 15).
    ///
    /// # Panics
    /// If `cell` is 16 or more.
    pub const fn cell(self, cell: usize) -> usize {
        assert!(cell < 16, "cells are numbered 0 to 15");
        let (mut row, mut column) = (cell / 4, cell % 4);
        if self.is_reflection() {
            column = 3 - column;
        }
        let mut turns = self.quarter_turns();
        while turns > 0 {
            (row, column) = (column, 3 - row);
            turns -= 1;
        }
        4 * row + column
    }
}

/// The set of symmetries under which two boards count as the same position,
/// named as in the endgame tablebases, where a formation fixed on the board
/// only admits the symmetries that keep it in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymmetryGroup {
    /// No symmetry: every board is its own canonical form.
    Identity,
    /// The board and its reflection in the main diagonal.
    Diagonal,
    /// The board and its left-right mirror.
    Horizontal,
    /// All eight symmetries.
    Full,
}

impl SymmetryGroup {
    /// The symmetries in the group, the identity first.
    pub const fn elements(self) -> &'static [Symmetry] {
        match self {
            Self::Identity => &[Symmetry::Identity],
            Self::Diagonal => &[Symmetry::Identity, Symmetry::Transpose],
            Self::Horizontal => &[Symmetry::Identity, Symmetry::Mirror],
            Self::Full => &Symmetry::ALL,
        }
    }

    /// The numerically smallest image of `board` under the group.
    #[inline]
    pub fn canonical(self, board: Board) -> Board {
        match self {
            Self::Identity => board,
            Self::Diagonal => board.min(board.transpose()),
            Self::Horizontal => board.min(board.mirror()),
            Self::Full => board.canonical(),
        }
    }

    /// The canonical form of `board` and a symmetry that maps `board` onto it
    /// (the first in [`SymmetryGroup::elements`] order when several do).
    pub fn canonical_with_symmetry(self, board: Board) -> (Board, Symmetry) {
        self.elements()
            .iter()
            .map(|&symmetry| (board.transform(symmetry), symmetry))
            .min_by_key(|&(image, _)| image)
            .expect("every group holds the identity")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_reflections_move_cells_where_documented() {
        let board = Board::from_raw(0xfedc_ba98_7654_3210);
        for symmetry in Symmetry::ALL {
            let image = board.transform(symmetry);
            for cell in 0..16 {
                assert_eq!(
                    usize::from(image.tile(symmetry.cell(cell))),
                    cell,
                    "{symmetry:?} moves cell {cell}"
                );
            }
        }
    }

    #[test]
    fn named_elements_match_their_bit_operations() {
        let board = Board::from_raw(0x0123_4567_89ab_cdef);
        assert_eq!(board.transform(Symmetry::Transpose), board.transpose());
        assert_eq!(board.transform(Symmetry::Flip), board.flip());
        assert_eq!(board.transform(Symmetry::Mirror), board.mirror());
    }
}
