//! Multistage networks: which copy of the tables plays which part of a game.

use std::fmt;
use std::str::FromStr;

use board::Board;

use crate::Error;

/// The most stages a network can have: TDL2048+'s `.w` files name a stage
/// with one hex digit.
pub const MAX_STAGES: usize = 16;

/// The tile sums at which a multistage network switches to its next copy of
/// the tables (TDL2048+'s `-@ 0,16384`).
///
/// A board belongs to the last stage whose threshold its tile sum has
/// reached. Moves keep the tile sum and spawns raise it, so a game goes
/// through the stages in order, and an afterstate is in the stage of the
/// board it came from. The first threshold is always 0.
///
/// ```
/// use board::Board;
/// use ntuple::Stages;
///
/// let stages: Stages = "0,16384".parse()?;
/// assert_eq!(stages.len(), 2);
/// assert_eq!(stages.of(Board::from_raw(0xd)), 0); // one 8192 tile
/// assert_eq!(stages.of(Board::from_raw(0xe)), 1); // one 16384 tile
/// # Ok::<(), ntuple::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stages(Vec<u32>);

impl Stages {
    /// One stage: the whole game on one set of tables.
    pub fn single() -> Self {
        Self(vec![0])
    }

    /// Stages from their thresholds.
    ///
    /// # Errors
    /// [`Error::Stages`] unless the thresholds start at 0, increase, and
    /// number at most [`MAX_STAGES`].
    pub fn new(thresholds: Vec<u32>) -> Result<Self, Error> {
        let problem = if thresholds.first() != Some(&0) {
            Some("the first stage must start at tile sum 0")
        } else if thresholds.len() > MAX_STAGES {
            Some("at most 16 stages")
        } else if thresholds.windows(2).any(|pair| pair[0] >= pair[1]) {
            Some("the thresholds must increase")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(Error::Stages {
                input: Self(thresholds).to_string(),
                problem: problem.to_owned(),
            }),
            None => Ok(Self(thresholds)),
        }
    }

    /// The number of stages.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no stages: never, as there is always a first.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The thresholds, the first 0.
    pub fn thresholds(&self) -> &[u32] {
        &self.0
    }

    /// The stage `board` belongs to.
    #[inline]
    pub fn of(&self, board: Board) -> usize {
        let sum = board.tile_sum();
        self.0.partition_point(|&threshold| threshold <= sum) - 1
    }
}

impl FromStr for Stages {
    type Err = Error;

    /// Reads comma-separated tile sums, `0,16384`.
    fn from_str(text: &str) -> Result<Self, Error> {
        let thresholds = text
            .split(',')
            .map(|part| part.trim().parse::<u32>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| Error::Stages {
                input: text.to_owned(),
                problem: "not a list of tile sums such as 0,16384".to_owned(),
            })?;
        Self::new(thresholds)
    }
}

impl fmt::Display for Stages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        write!(f, "{}", list.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!("0, 8192,16384".parse::<Stages>().unwrap().len(), 3);
        let error = |text: &str| text.parse::<Stages>().unwrap_err().to_string();
        assert_eq!(
            error("16384"),
            "stages \"16384\": the first stage must start at tile sum 0"
        );
        assert_eq!(
            error("0,16384,16384"),
            "stages \"0,16384,16384\": the thresholds must increase"
        );
        assert!(error("0,x").contains("not a list of tile sums"));
        let many: Vec<String> = (0..17).map(|i| (i * 100).to_string()).collect();
        assert!(error(&many.join(",")).contains("at most 16"));
    }

    #[test]
    fn boards_fall_in_the_last_stage_they_reached() {
        let stages: Stages = "0,100,200".parse().unwrap();
        // Tile sums 98 (64 + 32 + 2), 100 (64 + 32 + 4) and 228 (128 + 100).
        assert_eq!(stages.of(Board::from_raw(0x651)), 0);
        assert_eq!(stages.of(Board::from_raw(0x652)), 1);
        assert_eq!(stages.of(Board::from_raw(0x7652)), 2);
        assert_eq!(Stages::single().of(Board::from_raw(0xfff)), 0);
    }
}
