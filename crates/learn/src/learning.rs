//! How an episode is learnt from: the learning rate, when the updates
//! happen, and what each afterstate is moved towards.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::Error;

/// When the afterstates of an episode are updated (TDL2048+'s modes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// TDL2048+'s default (`optimize`): each afterstate is updated as soon as
    /// the next move is chosen, from the value cached when it was chosen.
    #[default]
    Online,
    /// The same, but the afterstate is estimated again before its update.
    Forward,
    /// After the episode, from the last afterstate to the first.
    Backward,
}

impl FromStr for Mode {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        match text {
            "online" | "optimize" => Ok(Self::Online),
            "forward" => Ok(Self::Forward),
            "backward" => Ok(Self::Backward),
            _ => Err(Error::Mode {
                input: text.to_owned(),
            }),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Online => "online",
            Self::Forward => "forward",
            Self::Backward => "backward",
        })
    }
}

/// TD settings: the learning rate, when updates happen, and their target.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Learning {
    /// The learning rate before division (TDL2048+'s default 0.1).
    pub alpha: f32,
    /// The divisor of alpha; `None` divides by the network's feature count
    /// (32 for 4x6patt).
    pub norm: Option<u32>,
    /// When afterstates are updated.
    pub mode: Mode,
    /// What each afterstate is moved towards.
    #[serde(default)]
    pub target: Target,
    /// Restarts from partway through each episode; they learn by TD(0),
    /// whatever `target` says.
    #[serde(default)]
    pub restart: Option<Restart>,
    /// Carousel shaping: each episode a chain of games, each from a board
    /// of the one before with its large tiles raised; they learn by TD(0),
    /// whatever `target` says.
    #[serde(default)]
    pub carousel: Option<Carousel>,
}

/// Carousel shaping (TDL2048+'s `block` mode, `-b 2048 65536`): after each
/// game, play again from the game's last afterstate whose move earned at
/// least `block`, its large tiles raised to the next combination (2048,
/// 4096, 4096 and 2048, 8192, ...), until the combination would reach
/// `limit`. Late positions are learnt from long before games reach them.
/// Only the first game counts in the statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carousel {
    /// The smallest tile of the combinations, and the reward that marks a
    /// board to restart from (TDL2048+'s `block`, 2048 by default).
    pub block: u32,
    /// The combination at which the chain stops (TDL2048+'s `limit`, 65536
    /// by default).
    pub limit: u32,
}

impl Default for Carousel {
    fn default() -> Self {
        Self {
            block: 2048,
            limit: 65536,
        }
    }
}

impl fmt::Display for Carousel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "from {} up to {}", self.block, self.limit)
    }
}

/// Matsuzaki's restarts (TDL2048+'s `restart` mode): after an episode of at
/// least `min_moves` moves, play again from the afterstate a fraction `at`
/// of the way through it, and again from partway through that, until a
/// game is shorter. The late positions, rare in whole games, are learnt
/// from more often. Only the first game counts in the statistics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Restart {
    /// Where to restart, as a fraction of the game's moves (TDL2048+'s
    /// `at`, 0.5 by default).
    pub at: f32,
    /// The fewest moves a game has for another restart (TDL2048+'s `L`,
    /// 10 by default).
    pub min_moves: u32,
}

impl Default for Restart {
    fn default() -> Self {
        Self {
            at: 0.5,
            min_moves: 10,
        }
    }
}

impl fmt::Display for Restart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {} while {} moves or more", self.at, self.min_moves)
    }
}

impl Default for Learning {
    fn default() -> Self {
        Self {
            alpha: 0.1,
            norm: None,
            mode: Mode::Online,
            target: Target::OneStep,
            restart: None,
            carousel: None,
        }
    }
}

impl Learning {
    /// The step applied to every feature per unit of error: alpha divided by
    /// the norm.
    pub fn rate(&self, feature_count: usize) -> f32 {
        let norm = self.norm.map_or(feature_count, |norm| norm as usize);
        self.alpha / norm.max(1) as f32
    }
}

/// What an afterstate a(t) is moved towards: its return, estimated from the
/// rewards r(t+1), r(t+2), ... of the moves after it and the values V of
/// the afterstates they make (0 past the end of the episode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Target {
    /// TD(0): r(t+1) + V(a(t+1)).
    #[default]
    OneStep,
    /// n-step TD (TDL2048+'s `-N n`): r(t+1) + ... + r(t+n) + V(a(t+n)).
    Steps(u32),
    /// TD(lambda) (TDL2048+'s `-l lambda [n]`): the lambda-return z(t+1),
    /// where z(k) = r(k) + lambda z(k+1) + (1 - lambda) V(a(k)): over the
    /// whole episode after it (`window` none), or truncated to `window`
    /// moves, z(t+n) = r(t+n) + V(a(t+n)).
    Lambda {
        /// The decay, in (0, 1].
        lambda: f32,
        /// The moves the return looks ahead, at least 2.
        window: Option<u32>,
    },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OneStep => f.write_str("1-step"),
            Self::Steps(n) => write!(f, "{n}-step"),
            Self::Lambda {
                lambda,
                window: None,
            } => write!(f, "lambda {lambda} over the episode"),
            Self::Lambda {
                lambda,
                window: Some(n),
            } => write!(f, "lambda {lambda} over {n} steps"),
        }
    }
}

/// What a greedy player's network values, and so how it chooses its moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Valued {
    /// Positions after a slide, before the random tile (TDL2048+'s way):
    /// the move of the largest reward + value of its afterstate.
    #[default]
    Afterstates,
    /// Positions after the random tile (state-value TD,
    /// [`crate::play_states`]): the move of the largest reward + value
    /// expected over the tiles that may appear.
    States,
}

impl fmt::Display for Valued {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Afterstates => "afterstates",
            Self::States => "states",
        })
    }
}
