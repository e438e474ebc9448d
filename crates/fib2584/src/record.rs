//! The course framework's episode records: one line per game,
//! `PLAYER:ENV@TICK|ACTIONS|WINNER@TOCK`, that a judge replays to check the
//! score. Written by the evaluator ([`play_recorded`]), read and checked
//! back ([`Record::parse`], [`Record::replay`]).
//!
//! ACTIONS lists every action in turn order: two placed tiles, then a slide
//! and a placed tile in turn (the final, failing slide is not recorded). A
//! placed tile is two characters, the cell as a hex digit and the tile index
//! in `0-9A-Z` (`A1`: index 1 on cell 10); a slide is `#U`, `#R`, `#D` or
//! `#L`. After an action, `[reward]` if its reward is not zero and `(ms)` if
//! a time was recorded.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use board::Direction;
use learn::{Outcome, best_move};
use rand::Rng;

use crate::tile::{self, from_symbol, symbol};
use crate::{Board, Error, Fibonacci, Network};

/// The framework's letters for the slides, in [`Direction`] order.
const SLIDES: [char; 4] = ['U', 'R', 'D', 'L'];

/// One action of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The environment places tile `index` on `cell`.
    Place {
        /// The cell, 0 to 15.
        cell: u8,
        /// The tile index (1 or 2 in a game by the rules).
        index: u8,
    },
    /// The player slides.
    Slide(Direction),
}

/// An action as recorded, with its reward and the time it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// What was done.
    pub action: Action,
    /// The reward written after it (0 when none was).
    pub reward: u32,
    /// The milliseconds written after it (0 when none were).
    pub millis: u64,
}

/// One game as the framework records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The player's name.
    pub player: String,
    /// The environment's name.
    pub environment: String,
    /// When the game started, in milliseconds since the Unix epoch.
    pub start: u64,
    /// The actions in turn order.
    pub steps: Vec<Step>,
    /// The name of the side that acted last.
    pub winner: String,
    /// When the game ended, in milliseconds since the Unix epoch.
    pub end: u64,
}

/// What replaying a record found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The sum of the slides' rewards, recomputed.
    pub score: u64,
    /// The number of slides.
    pub slides: u64,
    /// The final position.
    pub board: Board,
}

impl Replayed {
    /// The game as the statistics count it.
    pub fn outcome(&self) -> Outcome {
        Outcome {
            score: self.score,
            moves: self.slides,
            max_tile: self.board.max_tile(),
            nodes: 0,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Place { cell, index } => write!(f, "{:X}{}", cell, symbol(index)),
            Self::Slide(direction) => write!(f, "#{}", SLIDES[direction.index()]),
        }
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}@{}|", self.player, self.environment, self.start)?;
        for step in &self.steps {
            write!(f, "{}", step.action)?;
            if step.reward != 0 {
                write!(f, "[{}]", step.reward)?;
            }
            if step.millis != 0 {
                write!(f, "({})", step.millis)?;
            }
        }
        write!(f, "|{}@{}", self.winner, self.end)
    }
}

impl Record {
    /// Reads the record on `line`, the `number`th of its file (for errors).
    ///
    /// # Errors
    /// [`Error::Record`] saying which field or action is malformed.
    pub fn parse(line: &str, number: usize) -> Result<Self, Error> {
        let error = |place: &str, problem: String| Error::Record {
            record: number,
            place: place.to_owned(),
            problem,
        };
        let fields: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('|').collect();
        let [open, actions, close] = fields[..] else {
            return Err(error(
                "layout",
                format!(
                    "{} fields separated by '|', expected 3 (PLAYER:ENV@TICK|ACTIONS|WINNER@TOCK)",
                    fields.len()
                ),
            ));
        };
        let (names, start) = stamped(open)
            .ok_or_else(|| error("opening", format!("{open:?} is not NAMES@MILLISECONDS")))?;
        let (player, environment) = names
            .split_once(':')
            .ok_or_else(|| error("opening", format!("{names:?} is not PLAYER:ENVIRONMENT")))?;
        let (winner, end) = stamped(close)
            .ok_or_else(|| error("closing", format!("{close:?} is not WINNER@MILLISECONDS")))?;
        let mut steps = Vec::new();
        let mut rest = actions;
        while !rest.is_empty() {
            let place = format!("action {}", steps.len() + 1);
            let (step, after) = parse_step(rest).map_err(|problem| error(&place, problem))?;
            steps.push(step);
            rest = after;
        }
        Ok(Self {
            player: player.to_owned(),
            environment: environment.to_owned(),
            start,
            steps,
            winner: winner.to_owned(),
            end,
        })
    }

    /// Replays the record from the empty board by the rules, checking that
    /// every action is allowed in its turn, every written reward is the
    /// slide's, and the game ends with no slide left; `number` names the
    /// record in errors.
    ///
    /// # Errors
    /// [`Error::Record`] naming the first action that breaks the rules.
    pub fn replay(&self, number: usize) -> Result<Replayed, Error> {
        let mut board = Board::EMPTY;
        let (mut score, mut slides) = (0u64, 0u64);
        for (turn, step) in self.steps.iter().enumerate() {
            let error = |problem: String| Error::Record {
                record: number,
                place: format!("action {} ({})", turn + 1, step.action),
                problem,
            };
            let place_due = turn < 2 || turn % 2 == 1;
            match step.action {
                Action::Place { cell, index } => {
                    if !place_due {
                        return Err(error("a tile is placed where a slide is due".into()));
                    }
                    if board.tile(usize::from(cell)) != 0 {
                        return Err(error(format!("cell {cell:X} is not empty")));
                    }
                    if !(1..=2).contains(&index) {
                        return Err(error(format!(
                            "tile {} is placed, but only 1 and 2 appear",
                            tile::value(index)
                        )));
                    }
                    if step.reward != 0 {
                        return Err(error(format!(
                            "a placed tile scores nothing, not {}",
                            step.reward
                        )));
                    }
                    board = board.with_tile(usize::from(cell), index);
                }
                Action::Slide(direction) => {
                    if place_due {
                        return Err(error("a slide where a tile is due to be placed".into()));
                    }
                    let (after, reward) = board
                        .slide(direction)
                        .ok_or_else(|| error("the slide changes nothing".into()))?;
                    if reward != step.reward {
                        return Err(error(format!(
                            "the slide scores {reward}, but {} is written",
                            step.reward
                        )));
                    }
                    board = after;
                    score += u64::from(reward);
                    slides += 1;
                }
            }
        }
        // A record is a whole game: two tiles placed, then a slide and a
        // placed tile in turn, until no slide is left.
        let unfinished = |problem: &str| Error::Record {
            record: number,
            place: format!("after action {}", self.steps.len()),
            problem: problem.to_owned(),
        };
        if self.steps.len() < 2 {
            return Err(unfinished(
                "a game starts with two placed tiles: the record is empty or cut off",
            ));
        }
        if self.steps.len() % 2 == 1 {
            return Err(unfinished(
                "a slide with no tile placed after it: the record is cut off",
            ));
        }
        if !board.is_over() {
            return Err(unfinished(
                "a slide is still possible: the record is cut off before the game ended",
            ));
        }
        Ok(Replayed {
            score,
            slides,
            board,
        })
    }
}

/// `NAME@NUMBER`, split at the last `@`.
fn stamped(text: &str) -> Option<(&str, u64)> {
    let (name, number) = text.rsplit_once('@')?;
    Some((name, number.parse().ok()?))
}

/// The action at the start of `text`, with its reward and time, and the
/// text after it.
fn parse_step(text: &str) -> Result<(Step, &str), String> {
    let mut chars = text.chars();
    let (first, second) = match (chars.next(), chars.next()) {
        (Some(first), Some(second)) => (first, second),
        _ => return Err(format!("{text:?} is cut short")),
    };
    let action = if first == '#' {
        let direction = SLIDES
            .iter()
            .position(|&letter| letter == second)
            .ok_or_else(|| format!("#{second} is not a slide (#U, #R, #D or #L)"))?;
        Action::Slide(Direction::from_index(direction))
    } else {
        let cell = first
            .to_digit(16)
            .filter(|_| !first.is_ascii_lowercase())
            .ok_or_else(|| format!("{first:?} is neither a cell (0-9, A-F) nor '#'"))?;
        let index = from_symbol(second)
            .ok_or_else(|| format!("{second:?} is not a tile index (0-9, A-V)"))?;
        Action::Place {
            cell: cell as u8,
            index,
        }
    };
    let rest = &text[first.len_utf8() + second.len_utf8()..];
    let (reward, rest) = bracketed(rest, '[', ']')?;
    let (millis, rest) = bracketed(rest, '(', ')')?;
    let reward = u32::try_from(reward).map_err(|_| format!("reward {reward} is too large"))?;
    Ok((
        Step {
            action,
            reward,
            millis,
        },
        rest,
    ))
}

/// A number between `open` and `close` at the start of `text`, if there is
/// one there (0 if not), and the text after it.
fn bracketed(text: &str, open: char, close: char) -> Result<(u64, &str), String> {
    let Some(inside) = text.strip_prefix(open) else {
        return Ok((0, text));
    };
    let (number, rest) = inside
        .split_once(close)
        .ok_or_else(|| format!("{open} without {close}"))?;
    let number = number
        .parse()
        .map_err(|_| format!("{open}{number}{close} is not a number"))?;
    Ok((number, rest))
}

/// The names written in records by [`play_recorded`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// The player's name.
    pub player: String,
    /// The environment's name.
    pub environment: String,
}

impl Default for Names {
    /// The course framework's default names.
    fn default() -> Self {
        Self {
            player: "player".to_owned(),
            environment: "rndenv".to_owned(),
        }
    }
}

/// Plays one game greedily on `network`, without learning, and records it.
/// The game is the one `learn::play` plays with the same generator.
pub fn play_recorded<R: Rng>(
    game: &Fibonacci,
    network: &Network,
    names: &Names,
    rng: &mut R,
) -> (Outcome, Record) {
    let start = now();
    let mut steps = Vec::with_capacity(4096);
    let place = |board: Board, rng: &mut R, steps: &mut Vec<Step>| {
        let (board, cell, index) = game
            .place(board, rng)
            .expect("the first tiles and legal slides leave room");
        steps.push(Step {
            action: Action::Place {
                cell: cell as u8,
                index,
            },
            reward: 0,
            millis: 0,
        });
        board
    };
    let mut board = place(Board::EMPTY, rng, &mut steps);
    board = place(board, rng, &mut steps);
    let (mut score, mut moves) = (0u64, 0u64);
    while let Some(choice) = best_move(game, network, board) {
        steps.push(Step {
            action: Action::Slide(choice.direction),
            reward: choice.reward,
            millis: 0,
        });
        score += u64::from(choice.reward);
        moves += 1;
        board = place(choice.afterstate, rng, &mut steps);
    }
    let outcome = Outcome {
        score,
        moves,
        max_tile: board.max_tile(),
        nodes: 0,
    };
    let record = Record {
        player: names.player.clone(),
        environment: names.environment.clone(),
        start,
        steps,
        // The player's slide failed: the environment acted last.
        winner: names.environment.clone(),
        end: now(),
    };
    (outcome, record)
}

/// Milliseconds since the Unix epoch.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as u64)
}
