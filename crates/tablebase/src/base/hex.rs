//! Boards as the reference builder writes them: a 64-bit hex number in
//! reading order, the upper-left cell in the first (highest) digit.
//!
//! 2048lab keeps cell 0 (upper-left) in the lowest nibble, as TDL2048+ does,
//! so the two orders are nibble reversals of each other. Every board that
//! crosses the boundary (command lines, formation files, printed boards)
//! goes through [`from_reference`] or [`to_reference`]; inside the library
//! all boards are in 2048lab's order.

use crate::Error;

/// Reverses the order of the sixteen nibbles: its own inverse.
const fn reverse_nibbles(raw: u64) -> u64 {
    let bytes = raw.swap_bytes();
    ((bytes & 0x0F0F_0F0F_0F0F_0F0F) << 4) | ((bytes >> 4) & 0x0F0F_0F0F_0F0F_0F0F)
}

/// A board in 2048lab's order from the reference's number.
pub const fn from_reference(reference: u64) -> u64 {
    reverse_nibbles(reference)
}

/// The reference's number for a board in 2048lab's order.
pub const fn to_reference(board: u64) -> u64 {
    reverse_nibbles(board)
}

/// Reads a board written in the reference's order (`0x100000001fff2fff`,
/// the `0x` optional, leading zeros optional).
///
/// # Errors
/// [`Error::Board`] for anything but 1 to 16 hex digits.
pub fn parse(text: &str) -> Result<u64, Error> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() || digits.len() > 16 {
        return Err(Error::Board {
            input: text.to_owned(),
            problem: "write 1 to 16 hex digits, upper-left cell first".to_owned(),
        });
    }
    u64::from_str_radix(digits, 16)
        .map(from_reference)
        .map_err(|_| Error::Board {
            input: text.to_owned(),
            problem: "not a hex number".to_owned(),
        })
}

/// Reads a board as a user writes it: a grid of tile values, upper-left
/// cell first, cells split by white space or `/` (`board::Board`'s text,
/// as read off a game), in which `f` stands for a large tile or a wall;
/// else the reference's hex ([`parse`]).
///
/// # Errors
/// [`Error::Board`] for a grid of another size than 16 or with a cell that
/// is no tile, and as [`parse`] for anything else.
pub fn parse_board(text: &str) -> Result<u64, Error> {
    // Trimmed first: `board`'s text reads hex too, in 2048lab's order.
    let text = text.trim();
    if !text.contains(|c: char| c.is_whitespace() || c == '/') {
        return parse(text);
    }
    // `f` is read as 32768, whose code is 0xF: a wall has no tile value.
    let cells: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|cell| !cell.is_empty())
        .map(|cell| {
            if cell.eq_ignore_ascii_case("f") {
                "32768"
            } else {
                cell
            }
        })
        .collect();
    cells
        .join(" ")
        .parse::<board::Board>()
        .map(board::Board::raw)
        .map_err(|error| Error::Board {
            input: format!("{text:?}"),
            problem: match error {
                board::Error::CellCount { count, .. } => {
                    format!("{count} cells, a board has 16")
                }
                board::Error::Tile { token, .. } => format!(
                    "{token:?} is not a tile (2, 4, 8, ..., . for empty, f for a large tile \
                     or a wall)"
                ),
                error => error.to_string(),
            },
        })
}

/// Writes a board in the reference's order, as `0x` and 16 digits.
pub fn format(board: u64) -> String {
    format!("{:#018x}", to_reference(board))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_order_puts_the_upper_left_cell_first() {
        // 2 . . . / . . . . / 2 F F F / 4 F F F
        let board = parse("0x100000001fff2fff").unwrap();
        let cells: Vec<u64> = (0..16).map(|cell| (board >> (4 * cell)) & 0xF).collect();
        assert_eq!(
            cells,
            [1, 0, 0, 0, 0, 0, 0, 0, 1, 15, 15, 15, 2, 15, 15, 15]
        );
        assert_eq!(format(board), "0x100000001fff2fff");
        assert_eq!(
            parse("12fff1fff").unwrap(),
            parse("0x000000012fff1fff").unwrap()
        );
        assert_eq!(
            to_reference(from_reference(0x0123_4567_89ab_cdef)),
            0x0123_4567_89ab_cdef
        );
    }

    #[test]
    fn grids_read_as_the_reference_hex() {
        let grid = parse_board("2 . . . / . . . . / 2 f f f / 4 f f f").unwrap();
        assert_eq!(grid, parse("0x100000001fff2fff").unwrap());
        assert_eq!(grid & 0xF, 1, "a 2 in the upper-left cell");
        assert!(parse_board("2 . . / f f f").is_err());
        assert!(parse_board("2 . . . / . . . . / 2 f f f / 4 f f x").is_err());
    }

    #[test]
    fn bad_text_is_refused() {
        for text in ["", "0x", "0x1g", "0x11111111111111111", "-1"] {
            assert!(parse(text).is_err(), "{text}");
        }
    }
}
