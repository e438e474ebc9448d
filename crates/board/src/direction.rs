//! The four directions a board can be slid in.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// A direction to slide the tiles in.
///
/// The discriminants follow TDL2048+ and the course frameworks (up 0, right 1,
/// down 2, left 3): clockwise from up. Ties between equally good moves go to
/// the earlier direction in this order wherever 2048lab chooses a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Direction {
    /// Towards row 0 (the top).
    Up = 0,
    /// Towards column 3.
    Right = 1,
    /// Towards row 3 (the bottom).
    Down = 2,
    /// Towards column 0.
    Left = 3,
}

impl Direction {
    /// All four directions in their order, up, right, down, left.
    pub const ALL: [Direction; 4] = [Self::Up, Self::Right, Self::Down, Self::Left];

    /// The direction of the largest of `values` (in [`Direction::ALL`]
    /// order, `None` for a move without one), the first of equals; `None`
    /// if no move has a value.
    ///
    /// ```
    /// use board::Direction;
    ///
    /// assert_eq!(Direction::best_of([None, Some(2.0), Some(5.0), Some(5.0)]), Some(Direction::Down));
    /// assert_eq!(Direction::best_of([None; 4]), None);
    /// ```
    pub fn best_of(values: [Option<f32>; 4]) -> Option<Self> {
        let mut best: Option<(Self, f32)> = None;
        for (direction, value) in Self::ALL.into_iter().zip(values) {
            if let Some(value) = value
                && best.is_none_or(|(_, best)| value > best)
            {
                best = Some((direction, value));
            }
        }
        best.map(|(direction, _)| direction)
    }

    /// The direction with this index (0 up, 1 right, 2 down, 3 left).
    ///
    /// # Panics
    /// If `index` is 4 or more.
    pub const fn from_index(index: usize) -> Self {
        Self::ALL[index]
    }

    /// The index of this direction, 0 to 3.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The direction a quarter turn clockwise from this one.
    pub const fn clockwise(self) -> Self {
        Self::from_index((self.index() + 1) % 4)
    }

    /// The direction facing the other way.
    pub const fn opposite(self) -> Self {
        Self::from_index((self.index() + 2) % 4)
    }

    /// The direction reflected in a vertical axis: left and right swap.
    pub const fn mirrored(self) -> Self {
        Self::from_index((4 - self.index()) % 4)
    }

    /// The lower-case name, as used in text formats (`up`, `right`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Right => "right",
            Self::Down => "down",
            Self::Left => "left",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Direction {
    type Err = Error;

    /// Accepts the names and their initials in any case (`up`, `U`), and the
    /// indices `0` to `3`.
    fn from_str(text: &str) -> Result<Self, Error> {
        let found = match text.to_ascii_lowercase().as_str() {
            "up" | "u" | "0" => Self::Up,
            "right" | "r" | "1" => Self::Right,
            "down" | "d" | "2" => Self::Down,
            "left" | "l" | "3" => Self::Left,
            _ => {
                return Err(Error::Direction {
                    input: text.to_owned(),
                });
            }
        };
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_indices_round_trip() {
        for (index, direction) in Direction::ALL.into_iter().enumerate() {
            assert_eq!(direction.index(), index);
            assert_eq!(Direction::from_index(index), direction);
            assert_eq!(direction.name().parse::<Direction>().unwrap(), direction);
            assert_eq!(index.to_string().parse::<Direction>().unwrap(), direction);
        }
        assert!("north".parse::<Direction>().is_err());
    }

    #[test]
    fn turns() {
        assert_eq!(Direction::Left.clockwise(), Direction::Up);
        assert_eq!(Direction::Up.opposite(), Direction::Down);
        assert_eq!(Direction::Left.mirrored(), Direction::Right);
        assert_eq!(Direction::Up.mirrored(), Direction::Up);
    }
}
