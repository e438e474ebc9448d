//! Playing whole games: a policy picks moves, a seeded generator spawns tiles.

use rand::Rng;

use crate::{Afterstate, Afterstates, Board, Direction, Error, SpawnRule};

/// Chooses the move to play on a board.
///
/// [`Game::play_out`] calls it only when at least one move is legal, with
/// the outcomes of all four moves already computed. Returning `None` resigns.
/// Closures of the same shape are policies.
pub trait Policy {
    /// The move to play on `board`, whose moves lead to `afterstates`.
    fn choose(&mut self, board: Board, afterstates: &Afterstates) -> Option<Direction>;
}

impl<F: FnMut(Board, &Afterstates) -> Option<Direction>> Policy for F {
    fn choose(&mut self, board: Board, afterstates: &Afterstates) -> Option<Direction> {
        self(board, afterstates)
    }
}

/// Plays a random legal move, drawing from its own generator (32 random bits
/// scaled to the number of legal moves: uniform to within 1e-9).
#[derive(Clone, Debug)]
pub struct RandomPolicy<R>(pub R);

impl<R: Rng> Policy for RandomPolicy<R> {
    fn choose(&mut self, _: Board, afterstates: &Afterstates) -> Option<Direction> {
        let legal = afterstates.iter().count() as u64;
        let pick = ((self.0.next_u64() >> 32) * legal) >> 32;
        afterstates
            .iter()
            .nth(pick as usize)
            .map(|(direction, _)| direction)
    }
}

/// One move of an episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The board the move was played on (after the previous spawn).
    pub board: Board,
    /// The move played.
    pub direction: Direction,
    /// Its afterstate and reward.
    pub afterstate: Afterstate,
}

/// A finished game: every move in order and the board it ended on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Episode {
    /// The moves, first to last.
    pub steps: Vec<Step>,
    /// The last board, on which no move was legal or the policy resigned.
    pub last: Board,
}

impl Episode {
    /// The score: the sum of the rewards of all moves.
    pub fn score(&self) -> u64 {
        self.steps
            .iter()
            .map(|step| u64::from(step.afterstate.reward))
            .sum()
    }

    /// The largest tile exponent reached (it is on the last board).
    pub fn max_tile(&self) -> u8 {
        self.last.max_tile()
    }
}

/// A game in progress: the board, the score so far and the spawn rule.
///
/// ```
/// use board::{Game, RandomPolicy, SpawnRule};
/// use rand::SeedableRng;
/// use rand_pcg::Pcg64Mcg;
///
/// let mut rng = Pcg64Mcg::seed_from_u64(1);
/// let game = Game::new(SpawnRule::STANDARD, &mut rng);
/// let mut policy = RandomPolicy(Pcg64Mcg::seed_from_u64(2));
/// let episode = game.play_out(&mut policy, &mut rng)?;
/// assert!(episode.last.is_game_over());
/// assert!(episode.score() > 0);
/// # Ok::<(), board::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    board: Board,
    score: u64,
    moves: u32,
    rule: SpawnRule,
}

impl Game {
    /// A new game: two tiles spawned on the empty board.
    pub fn new<R: Rng + ?Sized>(rule: SpawnRule, rng: &mut R) -> Self {
        Self::from_board(rule.initial(rng), rule)
    }

    /// A game going on from `board`, with no score yet.
    pub fn from_board(board: Board, rule: SpawnRule) -> Self {
        Self {
            board,
            score: 0,
            moves: 0,
            rule,
        }
    }

    /// The board to move on.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The sum of the rewards so far.
    pub fn score(&self) -> u64 {
        self.score
    }

    /// The number of moves played.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// Whether no move is legal.
    pub fn is_over(&self) -> bool {
        self.board.is_game_over()
    }

    /// Plays `direction`, then spawns a tile; returns the move's afterstate.
    ///
    /// # Errors
    /// [`Error::IllegalMove`] if the move does not change the board.
    pub fn play<R: Rng + ?Sized>(
        &mut self,
        direction: Direction,
        rng: &mut R,
    ) -> Result<Afterstate, Error> {
        let afterstate = self.board.slide(direction).ok_or(Error::IllegalMove {
            board: self.board,
            direction,
        })?;
        self.advance(afterstate, rng);
        Ok(afterstate)
    }

    fn advance<R: Rng + ?Sized>(&mut self, afterstate: Afterstate, rng: &mut R) {
        self.score += u64::from(afterstate.reward);
        self.moves += 1;
        // A legal move always leaves room: it emptied a cell or moved a tile
        // into an empty one.
        self.board = self
            .rule
            .spawn(afterstate.board, rng)
            .expect("a legal move leaves an empty cell");
    }

    /// Lets `policy` play until no move is legal or it resigns, recording
    /// every move.
    ///
    /// # Errors
    /// [`Error::IllegalMove`] if the policy picks a move that does not change
    /// the board.
    pub fn play_out<P: Policy + ?Sized, R: Rng + ?Sized>(
        mut self,
        policy: &mut P,
        rng: &mut R,
    ) -> Result<Episode, Error> {
        let mut steps = Vec::new();
        loop {
            let afterstates = self.board.afterstates();
            if afterstates.is_empty() {
                break;
            }
            let Some(direction) = policy.choose(self.board, &afterstates) else {
                break;
            };
            let afterstate = afterstates.get(direction).ok_or(Error::IllegalMove {
                board: self.board,
                direction,
            })?;
            steps.push(Step {
                board: self.board,
                direction,
                afterstate,
            });
            self.advance(afterstate, rng);
        }
        Ok(Episode {
            steps,
            last: self.board,
        })
    }
}
