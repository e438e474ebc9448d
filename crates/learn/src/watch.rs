//! What an episode came to, and what follows a game as it is played.

use board::{Board, Direction, GameRecord, WideBoard};

/// What one episode came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The sum of the rewards.
    pub score: u64,
    /// The number of moves played.
    pub moves: u64,
    /// The largest tile exponent reached.
    pub max_tile: u8,
    /// The search nodes visited choosing the moves (0 for the 1-ply player).
    pub nodes: u64,
}

/// What follows a game as it is played: its first board, then each move
/// with the board after the spawn. `()` follows nothing, at no cost; a
/// [`GameRecord`] writes the game down.
pub trait Watch<B> {
    /// The game starts on `board`.
    fn start(&mut self, board: B);
    /// `direction` was played, making `afterstate`; a tile then spawned,
    /// making `next`.
    fn step(&mut self, direction: Direction, afterstate: B, next: B);
}

impl<B> Watch<B> for () {
    #[inline(always)]
    fn start(&mut self, _: B) {}

    #[inline(always)]
    fn step(&mut self, _: Direction, _: B, _: B) {}
}

impl Watch<WideBoard> for GameRecord {
    /// Starts the record afresh on `board` (its tags kept).
    fn start(&mut self, board: WideBoard) {
        let tags = self.tags().to_vec();
        *self = GameRecord::new(board);
        for (key, value) in tags {
            self.set_tag(&key, &value);
        }
    }

    fn step(&mut self, direction: Direction, afterstate: WideBoard, next: WideBoard) {
        let cell = (0..16)
            .find(|&cell| afterstate.tile(cell) != next.tile(cell))
            .expect("a tile spawned");
        self.push(direction, cell as u8, next.tile(cell))
            .expect("a game's moves and spawns follow the rules");
    }
}

impl Watch<Board> for GameRecord {
    fn start(&mut self, board: Board) {
        Watch::<WideBoard>::start(self, board.into());
    }

    fn step(&mut self, direction: Direction, afterstate: Board, next: Board) {
        Watch::<WideBoard>::step(self, direction, afterstate.into(), next.into());
    }
}
