//! Boards as text: a grid of tile values, or the raw encoding in hex.

use std::fmt;
use std::str::FromStr;

use crate::{Board, Error};

/// Writes sixteen exponents as a grid of values, `.` for empty cells: four
/// right-aligned lines, or with `{:#}` one line with rows split by ` / `,
/// which [`parse_grid`] reads back.
pub(crate) fn write_grid(f: &mut fmt::Formatter<'_>, exponents: [u8; 16]) -> fmt::Result {
    let texts = exponents.map(|exponent| match exponent {
        0 => ".".to_owned(),
        _ => Board::tile_value(exponent).to_string(),
    });
    let one_line = f.alternate();
    let width = if one_line {
        0
    } else {
        texts.iter().map(String::len).max().unwrap_or(1)
    };
    for (row, cells) in texts.chunks(4).enumerate() {
        if row > 0 {
            f.write_str(if one_line { " / " } else { "\n" })?;
        }
        for (column, text) in cells.iter().enumerate() {
            let separator = if column > 0 { " " } else { "" };
            write!(f, "{separator}{text:>width$}")?;
        }
    }
    Ok(())
}

/// Reads a grid of sixteen tile values, cell 0 first. Cells are separated by
/// white space, `/`, `,` or `|`; `.`, `-`, `_` and `0` are empty cells.
/// The board types check that the exponents fit.
pub(crate) fn parse_grid(input: &str) -> Result<[u8; 16], Error> {
    let tokens: Vec<&str> = input
        .split(|c: char| c.is_whitespace() || matches!(c, '/' | ',' | '|'))
        .filter(|token| !token.is_empty())
        .collect();
    if tokens.len() != 16 {
        return Err(Error::CellCount {
            input: input.to_owned(),
            count: tokens.len(),
        });
    }
    let mut exponents = [0; 16];
    for (cell, token) in tokens.into_iter().enumerate() {
        exponents[cell] = match token {
            "." | "-" | "_" | "0" => 0,
            _ => match token.parse::<u64>() {
                Ok(value) if value >= 2 && value.is_power_of_two() => value.trailing_zeros() as u8,
                _ => {
                    return Err(Error::Tile {
                        input: input.to_owned(),
                        token: token.to_owned(),
                    });
                }
            },
        };
    }
    Ok(exponents)
}

/// Reads the raw encoding in hex, `0x` first: at most 16 digits, cell 0 in
/// the last digit.
fn parse_hex(input: &str, digits: &str) -> Result<Board, Error> {
    if let Some(bad) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(Error::HexDigit {
            input: input.to_owned(),
            digit: bad,
        });
    }
    if digits.is_empty() || digits.len() > 16 {
        return Err(Error::HexLength {
            input: input.to_owned(),
            count: digits.len(),
        });
    }
    Ok(Board::from_raw(
        u64::from_str_radix(digits, 16).expect("checked digits"),
    ))
}

impl FromStr for Board {
    type Err = Error;

    /// Reads `0x` and the raw encoding in hex (`0x0000000000001b21`), or a
    /// grid of sixteen tile values, cell 0 first (`2 4 2048 2 / . . . . / ...`).
    ///
    /// # Errors
    /// A typed [`Error`] saying what is wrong: a bad hex digit, too many
    /// digits, a token that is no tile, a tile above 32768, or a count of
    /// cells other than 16.
    fn from_str(input: &str) -> Result<Self, Error> {
        let trimmed = input.trim();
        match trimmed
            .strip_prefix("0x")
            .or_else(|| trimmed.strip_prefix("0X"))
        {
            Some(digits) => parse_hex(input, digits),
            None => Board::from_exponents(parse_grid(input)?),
        }
    }
}

impl fmt::Display for Board {
    /// The grid of tile values; `{:#}` writes it on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_grid(f, self.exponents())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({:#018x})", self.0)
    }
}

impl fmt::LowerHex for Board {
    /// The raw encoding, as `u64` formats it (`{:#018x}` gives `0x` and all
    /// sixteen digits).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_layout() {
        let board = Board::from_raw(0x0000_0000_0000_1b21);
        assert_eq!(
            board.to_string(),
            "   2    4 2048    2\n   .    .    .    .\n   .    .    .    .\n   .    .    .    ."
        );
        assert_eq!(
            format!("{board:#}"),
            "2 4 2048 2 / . . . . / . . . . / . . . ."
        );
        assert_eq!(format!("{board:?}"), "Board(0x0000000000001b21)");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let message = |text: &str| text.parse::<Board>().unwrap_err().to_string();
        assert_eq!(
            message("0x12g4"),
            "\"0x12g4\" is not a board: 'g' is not a hex digit"
        );
        assert_eq!(
            message("0x11112222333344445"),
            "\"0x11112222333344445\" is not a board: 17 hex digits, at most 16 fit"
        );
        assert_eq!(
            message("2 4 8"),
            "\"2 4 8\" is not a board: 3 cells, a board has 16"
        );
        assert_eq!(
            message("2 3 . . / . . . . / . . . . / . . . ."),
            "\"2 3 . . / . . . . / . . . . / . . . .\" is not a board: \"3\" is not a tile (2, 4, 8, ... or . for empty)"
        );
        assert_eq!(
            message("65536 . . . / . . . . / . . . . / . . . ."),
            "cell 0 holds 65536, above the largest tile that fits (32768)"
        );
    }
}
