//! Inputs shared by the criterion suites in `benches/`: realistic boards,
//! and plain reference answers each suite checks before it times anything.

use board::reference::slide_cells;
use board::{Board, Direction, Game, RandomPolicy, SpawnRule};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The boards met in random games from fixed seeds, `count` of them.
pub fn random_game_boards(count: usize) -> Vec<Board> {
    let mut boards = Vec::with_capacity(count);
    let mut seed = 0;
    while boards.len() < count {
        let mut spawns = Pcg64Mcg::seed_from_u64(seed);
        let game = Game::new(SpawnRule::STANDARD, &mut spawns);
        let mut policy = RandomPolicy(Pcg64Mcg::seed_from_u64(seed ^ 0x5eed));
        let episode = game
            .play_out(&mut policy, &mut spawns)
            .expect("random moves are legal");
        boards.extend(episode.steps.iter().map(|step| step.board));
        seed += 1;
    }
    boards.truncate(count);
    boards
}

/// A move computed cell by cell from the plain line rule: the answer a fast
/// path must give, as (board, reward), or `None` when the move is illegal.
pub fn reference_slide(board: Board, direction: Direction) -> Option<(Board, u32)> {
    let (slid, reward) = slide_cells(board.exponents(), direction, Board::MAX_EXPONENT);
    let slid = Board::from_exponents(slid).expect("slides keep exponents in range");
    (slid != board).then_some((slid, reward))
}
