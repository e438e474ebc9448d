//! Where new tiles appear, at random or enumerated with their probabilities.

use rand::Rng;
use system::bits;

use crate::{Board, Error};

/// How new tiles appear: in a uniformly random empty cell, a 4 with
/// probability `four_rate`, else a 2.
///
/// Random draws use one `u64` from the generator for each tile (and rarely
/// more, to keep the cell choice exactly uniform), decoded by 2048lab itself,
/// so seeded games stay the same whatever version of `rand` is in use.
///
/// ```
/// use board::{Board, SpawnRule};
/// use rand::SeedableRng;
///
/// let board: Board = "2 4 8 16 / 2 4 8 16 / 2 4 8 16 / 2 4 8 .".parse()?;
/// // At random, as a game plays: the one empty cell gets a 2 or a 4.
/// let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
/// let spawned = SpawnRule::STANDARD.spawn(board, &mut rng).expect("a cell is empty");
/// assert!([1, 2].contains(&spawned.tile(15)));
/// // Enumerated, as a search or a tablebase weighs them.
/// let outcomes: Vec<(Board, f64)> = SpawnRule::STANDARD.outcomes(board).collect();
/// assert_eq!(outcomes, [(board.with_tile(15, 1), 0.9), (board.with_tile(15, 2), 0.1)]);
/// # Ok::<(), board::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpawnRule {
    four_rate: f64,
    /// `four_rate` scaled to 2^32: a 32-bit draw below it spawns a 4.
    four_threshold: u64,
}

impl Default for SpawnRule {
    /// The standard game: a 4 one time in ten.
    fn default() -> Self {
        Self::STANDARD
    }
}

impl SpawnRule {
    /// The standard game: a 4 with probability 0.1.
    pub const STANDARD: SpawnRule = SpawnRule {
        four_rate: 0.1,
        four_threshold: 429_496_730,
    };

    /// The rule spawning a 4 with probability `four_rate`.
    ///
    /// # Errors
    /// [`Error::FourRate`] unless `0 <= four_rate <= 1`.
    pub fn new(four_rate: f64) -> Result<Self, Error> {
        if !(0.0..=1.0).contains(&four_rate) {
            return Err(Error::FourRate { rate: four_rate });
        }
        Ok(Self {
            four_rate,
            four_threshold: (four_rate * 4_294_967_296.0).round() as u64,
        })
    }

    /// The probability that a new tile is a 4.
    pub const fn four_rate(&self) -> f64 {
        self.four_rate
    }

    /// Draws a cell among those set in `empty` (a mask as
    /// [`Board::empty_mask`] returns) and the exponent of the new tile
    /// (1 or 2); `None` if no cell is empty.
    #[inline]
    pub fn draw<R: Rng + ?Sized>(&self, empty: u16, rng: &mut R) -> Option<(usize, u8)> {
        let count = u64::from(empty.count_ones());
        if count == 0 {
            return None;
        }
        // Lemire's multiply-shift with rejection: exactly uniform. The
        // rejection bound, 2^32 mod count, is below count, so the division
        // is only needed when the low bits are: almost never.
        let mut word = rng.next_u64();
        let mut product = (word >> 32) * count;
        if product & 0xFFFF_FFFF < count {
            let rejected_below = (1u64 << 32) % count;
            while product & 0xFFFF_FFFF < rejected_below {
                word = rng.next_u64();
                product = (word >> 32) * count;
            }
        }
        let nth = product >> 32;
        let cell = bits::pdep(1 << nth, u64::from(empty)).trailing_zeros() as usize;
        let exponent = if word & 0xFFFF_FFFF < self.four_threshold {
            2
        } else {
            1
        };
        Some((cell, exponent))
    }

    /// `board` with a new tile in a random empty cell, or `None` if it is full.
    #[inline]
    pub fn spawn<R: Rng + ?Sized>(&self, board: Board, rng: &mut R) -> Option<Board> {
        let (cell, exponent) = self.draw(board.empty_mask(), rng)?;
        Some(board.with_tile(cell, exponent))
    }

    /// The first board of a game: two tiles spawned on the empty board.
    pub fn initial<R: Rng + ?Sized>(&self, rng: &mut R) -> Board {
        let one = self
            .spawn(Board::EMPTY, rng)
            .expect("the empty board has room");
        self.spawn(one, rng)
            .expect("a board with one tile has room")
    }

    /// Every board a spawn can make from `board`, with its probability: each
    /// empty cell with a 2, then with a 4 (outcomes of probability 0 left
    /// out). The probabilities sum to 1 unless the board is full.
    pub fn outcomes(&self, board: Board) -> impl Iterator<Item = (Board, f64)> + use<> {
        let empty = board.empty_mask();
        let share = 1.0 / f64::from(empty.count_ones().max(1));
        let tiles = [(1, 1.0 - self.four_rate), (2, self.four_rate)];
        (0..16)
            .filter(move |&cell| empty & (1 << cell) != 0)
            .flat_map(move |cell| {
                tiles
                    .into_iter()
                    .filter(|&(_, probability)| probability > 0.0)
                    .map(move |(exponent, probability)| {
                        (board.with_tile(cell, exponent), share * probability)
                    })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_is_what_new_makes() {
        assert_eq!(SpawnRule::new(0.1).unwrap(), SpawnRule::STANDARD);
    }

    #[test]
    fn rates_outside_zero_to_one_are_refused() {
        for rate in [-0.1, 1.5, f64::NAN] {
            assert!(matches!(SpawnRule::new(rate), Err(Error::FourRate { .. })));
        }
        assert!(SpawnRule::new(0.0).is_ok() && SpawnRule::new(1.0).is_ok());
    }

    #[test]
    fn outcomes_of_a_board_with_two_empty_cells() {
        let board = Board::from_raw(0x1111_1111_1111_1100);
        let outcomes: Vec<_> = SpawnRule::STANDARD.outcomes(board).collect();
        assert_eq!(outcomes.len(), 4);
        assert_eq!(outcomes[0], (board.with_tile(0, 1), 0.45));
        assert_eq!(outcomes[3].0, board.with_tile(1, 2));
    }
}
