//! Sliding the 64-bit board: afterstates and rewards from the row tables.

use std::ops::Index;

use crate::line::slide_towards_first;
use crate::{Board, Direction};

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod avx2;

mod rows {
    include!(concat!(env!("OUT_DIR"), "/rows.rs"));
}

/// The result of a legal move: the board after the slide, before the spawn,
/// and the reward, the sum of the values of the tiles made by merges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Afterstate<B = Board> {
    /// The slid board.
    pub board: B,
    /// The points the move scored.
    pub reward: u32,
}

/// The outcomes of all four moves from one board, indexed by [`Direction`].
///
/// ```
/// use board::{Board, Direction};
///
/// let board: Board = "2 . . . / . . . . / . . . . / . . . .".parse()?;
/// let moves = board.afterstates();
/// assert!(moves[Direction::Up].is_none()); // the 2 is already at the top
/// assert_eq!(moves.iter().count(), 2); // right and down
/// # Ok::<(), board::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Afterstates<B = Board>(pub [Option<Afterstate<B>>; 4]);

impl<B: Copy> Afterstates<B> {
    /// The outcome of the move in `direction`, if it is legal.
    #[inline]
    pub fn get(&self, direction: Direction) -> Option<Afterstate<B>> {
        self.0[direction.index()]
    }

    /// The legal moves and their outcomes, in direction order.
    pub fn iter(&self) -> impl Iterator<Item = (Direction, Afterstate<B>)> + '_ {
        Direction::ALL
            .into_iter()
            .zip(self.0)
            .filter_map(|(direction, outcome)| Some((direction, outcome?)))
    }

    /// Whether no move is legal.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

impl<B> Index<Direction> for Afterstates<B> {
    type Output = Option<Afterstate<B>>;

    fn index(&self, direction: Direction) -> &Self::Output {
        &self.0[direction.index()]
    }
}

/// Slides sixteen exponents (cell 0 first) cell by cell with
/// [`slide_towards_first`]: the plain whole-board move, which [`WideBoard`]
/// falls back on and which checks the tables in benches. Returns the slid
/// cells and the reward; a move is legal when the cells change.
///
/// [`WideBoard`]: crate::WideBoard
pub fn slide_cells(cells: [u8; 16], direction: Direction, max_exponent: u8) -> ([u8; 16], u32) {
    let mut slid = [0; 16];
    let mut reward = 0;
    for line in 0..4 {
        // The cells of one row or column, from the wall slid towards.
        let order: [usize; 4] = std::array::from_fn(|k| match direction {
            Direction::Left => 4 * line + k,
            Direction::Right => 4 * line + 3 - k,
            Direction::Up => line + 4 * k,
            Direction::Down => line + 12 - 4 * k,
        });
        let (tiles, points) = slide_towards_first(order.map(|cell| cells[cell]), max_exponent);
        for (cell, tile) in order.into_iter().zip(tiles) {
            slid[cell] = tile;
        }
        reward += points;
    }
    (slid, reward)
}

/// Sums the table entries of the four rows of `board`: the slid board, and
/// the reward divided by 4.
#[inline(always)]
fn slide_rows(board: Board, table: &[u32; 65536]) -> (u64, u32) {
    let mut slid = 0;
    let mut reward = 0;
    for row in 0..4 {
        let entry = table[usize::from(board.row(row))];
        slid |= u64::from(entry & 0xFFFF) << (16 * row);
        reward += entry >> 16;
    }
    (slid, reward)
}

#[inline(always)]
fn outcome(before: Board, (slid, reward): (u64, u32)) -> Option<Afterstate> {
    let board = Board::from_raw(slid);
    (board != before).then_some(Afterstate {
        board,
        reward: reward * 4,
    })
}

impl Board {
    /// Slides the board in `direction`, or `None` if that leaves it unchanged
    /// (an illegal move).
    #[inline]
    pub fn slide(self, direction: Direction) -> Option<Afterstate> {
        match direction {
            Direction::Left => outcome(self, slide_rows(self, &rows::LEFT)),
            Direction::Right => outcome(self, slide_rows(self, &rows::RIGHT)),
            Direction::Up => self.slide_columns(&rows::LEFT),
            Direction::Down => self.slide_columns(&rows::RIGHT),
        }
    }

    /// Slides the columns as rows of the transposed board.
    #[inline(always)]
    fn slide_columns(self, table: &[u32; 65536]) -> Option<Afterstate> {
        let (slid, reward) = slide_rows(self.transpose(), table);
        outcome(self, (Board::from_raw(slid).transpose().raw(), reward))
    }

    /// All four moves at once: cheaper than four calls of [`Board::slide`],
    /// since the transposition and the rewards are shared (and, with AVX2,
    /// the four slides are one, without tables).
    #[inline]
    pub fn afterstates(self) -> Afterstates {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        return avx2::afterstates(self);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        self.afterstates_from_tables()
    }

    /// [`Board::afterstates`] from the row tables.
    #[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
    #[inline]
    fn afterstates_from_tables(self) -> Afterstates {
        let transposed = self.transpose();
        let left = slide_rows(self, &rows::LEFT);
        let right = slide_rows(self, &rows::RIGHT);
        let up = slide_rows(transposed, &rows::LEFT);
        let down = slide_rows(transposed, &rows::RIGHT);
        let untranspose =
            |(slid, reward): (u64, u32)| (Board::from_raw(slid).transpose().raw(), reward);
        Afterstates([
            outcome(self, untranspose(up)),
            outcome(self, right),
            outcome(self, untranspose(down)),
            outcome(self, left),
        ])
    }

    /// Whether sliding in `direction` changes the board.
    #[inline]
    pub fn can_slide(self, direction: Direction) -> bool {
        self.slide(direction).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row value in every row and, through the transposition, in every
    /// column, each beside three other rows.
    #[test]
    fn all_four_moves_at_once_agree_with_the_tables_on_every_line() {
        for row in 0..=u16::MAX {
            let rows = [0, 4, 8, 12].map(|bits| u64::from(row.rotate_left(bits)));
            let board = Board::from_raw(rows[0] | rows[1] << 16 | rows[2] << 32 | rows[3] << 48);
            for board in [board, board.transpose()] {
                assert_eq!(
                    board.afterstates(),
                    board.afterstates_from_tables(),
                    "{board:?}"
                );
            }
        }
    }
}
