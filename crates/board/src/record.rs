//! Whole games as text: the tiles a game started with, every move and
//! every spawn, so that a game can be replayed position by position.
//!
//! A record is one line (docs/records.md in the repository):
//!
//! ```text
//! episode=0 score=4 moves=3 max=4 0111#L21#L31#D01
//! ```
//!
//! `key=value` tags first (any, each once; `score`, `moves` and `max` are
//! checked against the game when present), then the actions, as the 2584
//! course's records write them: a **place** is two characters, the cell as
//! one hex digit (`0` upper-left, row by row to `F`) and the tile's
//! exponent as one character `1-9A-Z` (`1` for 2, `2` for 4, `B` for
//! 2048); a **move** is `#U`, `#R`, `#D` or `#L`. The places before the
//! first move are the starting board; every move is followed by the place
//! of the tile that spawned after it.

use std::fmt;
use std::str::FromStr;

use crate::{Afterstate, Direction, Error, WideBoard};

/// A whole game: its starting board, then each move with the tile that
/// spawned after it, and tags that say where it came from.
///
/// Every record is a game the rules allow: each move changes the board,
/// and each spawn is a 2 or a 4 on an empty cell. [`GameRecord::push`]
/// checks each step as it comes, and reading one ([`FromStr`]) checks the
/// whole game.
///
/// ```
/// use board::{Direction, GameRecord, WideBoard};
///
/// let start: WideBoard = "2 . . . / . . . . / . . . . / . . . 2".parse()?;
/// let mut record = GameRecord::new(start);
/// record.push(Direction::Left, 1, 2)?; // then a 4 in cell 1
/// record.set_tag("player", "me");
/// let text = record.to_string();
/// assert_eq!(text, "player=me score=0 moves=1 max=4 01F1#L12");
/// let back: GameRecord = text.parse()?;
/// assert_eq!(back, record);
/// assert_eq!(back.last().tile(1), 2);
/// # Ok::<(), board::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    start: WideBoard,
    steps: Vec<Spawned>,
    tags: Vec<(String, String)>,
    /// The board after the last step, and the score so far.
    last: WideBoard,
    score: u64,
}

/// One move of a recorded game and the tile that spawned after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spawned {
    /// The move.
    pub direction: Direction,
    /// The cell the tile spawned in (0 to 15).
    pub cell: u8,
    /// Its exponent: 1 for a 2, 2 for a 4.
    pub exponent: u8,
}

/// One position of a replayed game: the board, the move played on it, and
/// what followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The board to move on.
    pub board: WideBoard,
    /// The move played.
    pub direction: Direction,
    /// The board after the move, before the spawn, and the move's reward.
    pub afterstate: Afterstate<WideBoard>,
    /// The next board: the afterstate with the spawned tile.
    pub next: WideBoard,
}

/// The tags a record computes from its game, written after the others.
const COMPUTED: [&str; 3] = ["score", "moves", "max"];

impl GameRecord {
    /// A game starting from `start`, with no moves yet.
    pub fn new(start: WideBoard) -> Self {
        Self {
            start,
            steps: Vec::new(),
            tags: Vec::new(),
            last: start,
            score: 0,
        }
    }

    /// Plays `direction`, then spawns the tile of `exponent` in `cell`.
    ///
    /// # Errors
    /// [`Error::Record`] if the move changes nothing, or the spawn is not
    /// a 2 or a 4 on an empty cell; the record is left as it was.
    pub fn push(&mut self, direction: Direction, cell: u8, exponent: u8) -> Result<(), Error> {
        let step = self.steps.len() + 1;
        let fault = |problem: String| Error::Record {
            problem: format!("move {step} ({direction}): {problem}"),
        };
        let afterstate = self
            .last
            .slide(direction)
            .ok_or_else(|| fault("the move changes nothing".to_owned()))?;
        if !(1..=2).contains(&exponent) {
            return Err(fault(format!(
                "a {} spawned; only 2 and 4 spawn",
                1u64 << exponent
            )));
        }
        if cell >= 16 || afterstate.board.tile(usize::from(cell)) != 0 {
            return Err(fault(format!("the spawn's cell {cell} is not empty")));
        }
        self.last = afterstate.board.with_tile(usize::from(cell), exponent);
        self.score += u64::from(afterstate.reward);
        self.steps.push(Spawned {
            direction,
            cell,
            exponent,
        });
        Ok(())
    }

    /// The starting board.
    pub fn start(&self) -> WideBoard {
        self.start
    }

    /// The moves and spawns, in order.
    pub fn steps(&self) -> &[Spawned] {
        &self.steps
    }

    /// The board after the last move and spawn.
    pub fn last(&self) -> WideBoard {
        self.last
    }

    /// The sum of the moves' rewards.
    pub fn score(&self) -> u64 {
        self.score
    }

    /// Whether the game is over: no move changes the last board.
    pub fn is_over(&self) -> bool {
        self.last.is_game_over()
    }

    /// The tags other than those computed from the game (`score`, `moves`
    /// and `max`), in the order set.
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// The value of tag `key`, if set.
    pub fn tag(&self, key: &str) -> Option<&str> {
        let found = self.tags.iter().find(|(name, _)| name == key);
        found.map(|(_, value)| value.as_str())
    }

    /// Sets tag `key` to `value` (replacing it if set).
    ///
    /// # Panics
    /// If `key` is not a word of lower-case letters, digits and `_`, or is
    /// one of the computed tags, or `value` is empty or holds a space or
    /// an `=`: the text would not read back.
    pub fn set_tag(&mut self, key: &str, value: &str) {
        assert!(valid_key(key), "{key:?} is not a tag name");
        assert!(valid_value(value), "{value:?} is not a tag value");
        match self.tags.iter_mut().find(|(name, _)| name == key) {
            Some(tag) => tag.1 = value.to_owned(),
            None => self.tags.push((key.to_owned(), value.to_owned())),
        }
    }

    /// The game replayed position by position.
    pub fn turns(&self) -> impl Iterator<Item = Turn> + '_ {
        self.steps.iter().scan(self.start, |board, step| {
            let afterstate = board
                .slide(step.direction)
                .expect("a record holds legal moves only");
            let turn = Turn {
                board: *board,
                direction: step.direction,
                afterstate,
                next: afterstate
                    .board
                    .with_tile(usize::from(step.cell), step.exponent),
            };
            *board = turn.next;
            Some(turn)
        })
    }
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !COMPUTED.contains(&key)
}

fn valid_value(value: &str) -> bool {
    !value.is_empty() && !value.contains(|c: char| c.is_whitespace() || c == '=')
}

/// The character of a tile's exponent in a place: `1-9`, then `A-Z`.
fn exponent_char(exponent: u8) -> char {
    char::from_digit(u32::from(exponent), 36)
        .expect("exponents are below 36")
        .to_ascii_uppercase()
}

fn direction_char(direction: Direction) -> char {
    match direction {
        Direction::Up => 'U',
        Direction::Right => 'R',
        Direction::Down => 'D',
        Direction::Left => 'L',
    }
}

impl fmt::Display for GameRecord {
    /// The record's line: its tags, the computed ones, then the actions.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (key, value) in &self.tags {
            write!(f, "{key}={value} ")?;
        }
        write!(
            f,
            "score={} moves={} max={} ",
            self.score,
            self.steps.len(),
            1u64 << self.last.max_tile()
        )?;
        for (cell, exponent) in self.start.exponents().into_iter().enumerate() {
            if exponent != 0 {
                write!(f, "{cell:X}{}", exponent_char(exponent))?;
            }
        }
        for step in &self.steps {
            write!(
                f,
                "#{}{:X}{}",
                direction_char(step.direction),
                step.cell,
                exponent_char(step.exponent)
            )?;
        }
        Ok(())
    }
}

impl FromStr for GameRecord {
    type Err = Error;

    /// Reads a record's line, replaying the game to check it.
    fn from_str(line: &str) -> Result<Self, Error> {
        let bad = |problem: String| Error::Record { problem };
        let mut words: Vec<&str> = line.split_whitespace().collect();
        let actions = words
            .pop()
            .filter(|word| !word.contains('='))
            .ok_or_else(|| bad("no actions: a record ends with its moves".to_owned()))?;
        let mut claimed = Vec::new();
        let mut tags: Vec<(String, String)> = Vec::new();
        for word in words {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| bad(format!("{word:?} is not a tag (key=value)")))?;
            let known = COMPUTED.contains(&key);
            if !(known || valid_key(key)) || !valid_value(value) {
                return Err(bad(format!("{word:?} is not a tag (key=value)")));
            }
            if tags.iter().any(|(name, _)| name == key) || claimed.iter().any(|&(k, _)| k == key) {
                return Err(bad(format!("tag {key} is given twice")));
            }
            if known {
                claimed.push((key, value));
            } else {
                tags.push((key.to_owned(), value.to_owned()));
            }
        }
        let mut record = read_actions(actions)?;
        record.tags = tags;
        let actual = [
            record.score,
            record.steps.len() as u64,
            1u64 << record.last.max_tile(),
        ];
        for (key, value) in claimed {
            let index = COMPUTED
                .iter()
                .position(|&name| name == key)
                .expect("known");
            if value.parse::<u64>().ok() != Some(actual[index]) {
                return Err(bad(format!(
                    "{key}={value}, but the game's actions make {}",
                    actual[index]
                )));
            }
        }
        Ok(record)
    }
}

/// The game of a record's actions, checked move by move.
fn read_actions(actions: &str) -> Result<GameRecord, Error> {
    let bad = |problem: String| Error::Record { problem };
    let bytes = actions.as_bytes();
    let place = |at: usize| -> Result<(u8, u8), Error> {
        let pair = bytes.get(at..at + 2).ok_or_else(|| {
            bad(format!(
                "the actions stop at character {}, inside a place",
                at + 1
            ))
        })?;
        let digit = |byte: u8| char::from(byte).to_digit(36).map(|d| d as u8);
        match (digit(pair[0]).filter(|&cell| cell < 16), digit(pair[1])) {
            (Some(cell), Some(exponent)) if exponent > 0 => Ok((cell, exponent)),
            _ => Err(bad(format!(
                "{:?} at character {} is not a place (a cell 0-F, then a tile 1-9A-Z)",
                String::from_utf8_lossy(pair),
                at + 1
            ))),
        }
    };
    let mut at = 0;
    let mut start = WideBoard::default();
    while at < bytes.len() && bytes[at] != b'#' {
        let (cell, exponent) = place(at)?;
        if start.tile(usize::from(cell)) != 0 || exponent > WideBoard::MAX_EXPONENT {
            return Err(bad(format!(
                "the starting place at character {} puts a {} on cell {cell}, which is taken or too large",
                at + 1,
                1u64 << exponent.min(63)
            )));
        }
        start = start.with_tile(usize::from(cell), exponent);
        at += 2;
    }
    if start == WideBoard::default() {
        return Err(bad("no starting tiles before the first move".to_owned()));
    }
    let mut record = GameRecord::new(start);
    while at < bytes.len() {
        let direction = match bytes.get(at + 1).map(u8::to_ascii_uppercase) {
            Some(b'U') => Direction::Up,
            Some(b'R') => Direction::Right,
            Some(b'D') => Direction::Down,
            Some(b'L') => Direction::Left,
            _ => {
                return Err(bad(format!(
                    "the move at character {} is not #U, #R, #D or #L",
                    at + 1
                )));
            }
        };
        if bytes.get(at + 2).is_none() {
            return Err(bad(format!(
                "move {} has no spawn after it: the record is cut off",
                record.steps.len() + 1
            )));
        }
        let (cell, exponent) = place(at + 2)?;
        record.push(direction, cell, exponent)?;
        at += 4;
    }
    Ok(record)
}

/// Reads a file of records: one game per line, blank lines and lines
/// starting with `#` skipped.
///
/// # Errors
/// [`Error::Record`] for the first line that is not a record, naming it.
pub fn read_records(text: &str) -> Result<Vec<GameRecord>, Error> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(index, line)| {
            line.parse().map_err(|error| match error {
                Error::Record { problem } => Error::Record {
                    problem: format!("line {}: {problem}", index + 1),
                },
                error => error,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, RandomPolicy, SpawnRule};
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    /// A random game's record, made by watching the game's steps.
    fn random_record(seed: u64) -> (GameRecord, crate::Episode) {
        let mut spawns = Pcg64Mcg::seed_from_u64(seed);
        let game = Game::new(SpawnRule::STANDARD, &mut spawns);
        let start = WideBoard::from(game.board());
        let episode = game
            .play_out(
                &mut RandomPolicy(Pcg64Mcg::seed_from_u64(!seed)),
                &mut spawns,
            )
            .unwrap();
        let mut record = GameRecord::new(start);
        let nexts = episode.steps.iter().skip(1).map(|step| step.board);
        for (step, next) in episode.steps.iter().zip(nexts.chain([episode.last])) {
            let cell = (0..16)
                .find(|&cell| step.afterstate.board.tile(cell) != next.tile(cell))
                .unwrap();
            record
                .push(step.direction, cell as u8, next.tile(cell))
                .unwrap();
        }
        (record, episode)
    }

    proptest! {
        /// A game written and read back is the same game, and replays to
        /// the boards, rewards and score the game had.
        #[test]
        fn records_read_back_and_replay_the_game(seed in any::<u64>()) {
            let (mut record, episode) = random_record(seed);
            record.set_tag("seed", &seed.to_string());
            let back: GameRecord = record.to_string().parse().unwrap();
            prop_assert_eq!(&back, &record);
            prop_assert_eq!(back.score(), episode.score());
            prop_assert_eq!(back.last(), WideBoard::from(episode.last));
            prop_assert!(back.is_over());
            let turns: Vec<Turn> = back.turns().collect();
            prop_assert_eq!(turns.len(), episode.steps.len());
            for (turn, step) in turns.iter().zip(&episode.steps) {
                prop_assert_eq!(turn.board, WideBoard::from(step.board));
                prop_assert_eq!(turn.direction, step.direction);
                prop_assert_eq!(turn.afterstate.reward, step.afterstate.reward);
            }
        }
    }

    proptest! {
        /// Any text, and any record with characters changed, cut or
        /// added, reads as a game the rules allow or is refused in words:
        /// never a panic.
        #[test]
        fn any_text_is_a_lawful_game_or_one_clear_error(
            seed in any::<u64>(),
            changes in prop::collection::vec((any::<prop::sample::Index>(), "[0-9A-Z#a-z= ]"), 0..4),
            cut in any::<prop::sample::Index>(),
            noise in "[0-9A-Z#=a-z ]{0,40}",
        ) {
            let mut line: Vec<char> = random_record(seed).0.to_string().chars().collect();
            for (at, text) in changes {
                let at = at.index(line.len());
                line.splice(at..=at, text.chars());
            }
            line.truncate(cut.index(line.len() + 1));
            let line: String = line.into_iter().collect::<String>() + &noise;
            match line.parse::<GameRecord>() {
                Ok(record) => {
                    // Replaying a record read back never fails.
                    prop_assert_eq!(record.turns().count(), record.steps().len());
                }
                Err(error) => {
                    let message = error.to_string();
                    prop_assert!(message.starts_with("not a game record: "), "{}", message);
                    prop_assert_eq!(message.lines().count(), 1);
                }
            }
        }
    }

    #[test]
    fn records_that_break_the_rules_are_refused_with_the_place() {
        let problem = |line: &str| match line.parse::<GameRecord>() {
            Err(Error::Record { problem }) => problem,
            other => panic!("{line}: {other:?}"),
        };
        // 2 in cells 0 and 1; left merges them.
        assert!("0111#L21".parse::<GameRecord>().is_ok());
        assert!(problem("0111#R21#R31").contains("move 2 (right): the move changes nothing"));
        assert!(problem("0111#L03").contains("only 2 and 4 spawn"));
        assert!(problem("0111#L01").contains("cell 0 is not empty"));
        assert!(problem("0111#L").contains("cut off"));
        assert!(problem("0111#L2").contains("inside a place"));
        assert!(problem("0111#X21").contains("not #U, #R, #D or #L"));
        assert!(problem("0101").contains("taken"));
        assert!(problem("G1").contains("not a place"));
        assert!(problem("#L21").contains("no starting tiles"));
        assert!(problem("score=4").contains("no actions"));
        assert!(problem("score=8 0111#L21").contains("score=8, but the game's actions make 4"));
        assert!(problem("a=1 a=2 0111").contains("given twice"));
        assert!(problem("Bad=1 0111").contains("not a tag"));
        assert!(
            "score=4 moves=1 max=4 0111#L21"
                .parse::<GameRecord>()
                .is_ok()
        );
    }

    #[test]
    fn files_of_records_name_the_bad_line() {
        let text = "# games\n0111#L21\n\n0111#L21#R31\n";
        assert_eq!(read_records("# x\n0111\n\n0111#L21\n").unwrap().len(), 2);
        match read_records(text) {
            Err(Error::Record { problem }) => {
                assert!(problem.starts_with("line 4: move 2"), "{problem}")
            }
            other => panic!("{other:?}"),
        }
    }
}
