//! Boards and moves as the API writes them.

use board::{Direction, WideBoard};

/// Reads a board as the API (and macroxue's server) writes it: sixteen
/// characters, cell 0 (upper left) first, row by row, each the exponent
/// of its tile in base 36: `0` for an empty cell, `1` for 2, `b` for
/// 2048, `g` for 65536, up to `i` (either case).
///
/// # Errors
/// One line saying what is wrong with the text.
pub fn parse_board(text: &str) -> Result<WideBoard, String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 16 {
        return Err(format!(
            "board {text:?}: 16 characters, one a cell (0 empty, 1 for 2, ..., b for 2048), not {}",
            chars.len()
        ));
    }
    let mut exponents = [0u8; 16];
    for (cell, (&char, exponent)) in chars.iter().zip(&mut exponents).enumerate() {
        *exponent = char
            .to_digit(36)
            .and_then(|digit| u8::try_from(digit).ok())
            .filter(|&digit| digit <= WideBoard::MAX_EXPONENT)
            .ok_or_else(|| {
                format!(
                    "board {text:?}: cell {cell} is {char:?}, not a tile (0-9, then a-i for 1024 to 262144)"
                )
            })?;
    }
    WideBoard::from_exponents(exponents).map_err(|error| format!("board {text:?}: {error}"))
}

/// The API's text of `board` ([`parse_board`]).
pub fn board_text(board: WideBoard) -> String {
    board
        .exponents()
        .iter()
        .map(|&exponent| char::from_digit(u32::from(exponent), 36).expect("exponents below 36"))
        .collect()
}

/// A table's board (sixteen nibbles, 0xF a large tile or wall) in the
/// API's text: the same characters, `f` for the large tiles.
pub fn nibbles_text(board: u64) -> String {
    board_text(WideBoard::from(board::Board::from_raw(board)))
}

/// Reads a move: `up`, `right`, `down`, `left` or their initials.
///
/// # Errors
/// One line naming the text.
pub fn parse_move(text: &str) -> Result<Direction, String> {
    match text.to_ascii_lowercase().as_str() {
        "u" | "up" => Ok(Direction::Up),
        "r" | "right" => Ok(Direction::Right),
        "d" | "down" => Ok(Direction::Down),
        "l" | "left" => Ok(Direction::Left),
        _ => Err(format!(
            "move {text:?}: up, right, down or left (or u, r, d, l)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_read_back_as_written_and_bad_ones_say_why() {
        let board: WideBoard = "2 4 2048 65536 / . . . . / . . . . / . . . 2"
            .parse()
            .unwrap();
        assert_eq!(board_text(board), "12bg000000000001");
        assert_eq!(parse_board("12BG000000000001"), Ok(board));
        assert!(parse_board("12bg").unwrap_err().contains("16 characters"));
        assert!(
            parse_board("12bz000000000001")
                .unwrap_err()
                .contains("cell 3 is 'z'")
        );
        assert!(
            parse_board("12b?000000000001")
                .unwrap_err()
                .contains("not a tile")
        );
        assert_eq!(parse_move("L"), Ok(Direction::Left));
        assert!(parse_move("north").is_err());
    }
}
