//! Who gives hints and plays in Watch: the player (its tables, else its
//! search), or an expectimax search over a network or the heuristic.

use board::{Direction, WideBoard};
use player::{Player, Source};
use search::{Evaluator, Expectimax, Settings};

/// One way of valuing a position's moves, as `eval` can play.
pub enum Advisor {
    /// The strong player: an endgame table's rates where one applies,
    /// else its own search (docs/player.md).
    Player(Player),
    /// An expectimax search over an evaluator (a network, the heuristic).
    Search {
        /// What the page calls it: `network 2p`, `heuristic 2p`.
        name: String,
        /// What values the leaves.
        evaluator: Box<dyn Evaluator + Send + Sync>,
        /// How deep it searches.
        settings: Settings,
    },
}

/// What an advisor makes of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    /// Each move's value in [`Direction::ALL`] order, `None` for a move it
    /// does not allow (illegal, or leaving a table's formation).
    pub values: [Option<f32>; 4],
    /// The move it plays, `None` when no move is legal.
    pub best: Option<Direction>,
    /// Where the values come from: `table L3-512`, `search`, `network 1p`.
    pub source: String,
    /// Whether the values are success rates (0 to 1) or a search's values.
    pub rates: bool,
}

impl Advisor {
    /// The advisor's name on the page.
    pub fn name(&self) -> &str {
        match self {
            Self::Player(_) => "player",
            Self::Search { name, .. } => name,
        }
    }

    /// The values of the moves of `board` and the move to play.
    pub fn advise(&self, board: WideBoard) -> Advice {
        match self {
            Self::Player(player) => {
                let mut search = player.search();
                let Some(analysis) = player.analyze(board, &mut search) else {
                    return Advice::game_over("player");
                };
                let (source, rates) = match analysis.source {
                    Source::Table(index) => (
                        format!("table {}", player.tables().books()[index].name()),
                        true,
                    ),
                    Source::Search => ("search".to_owned(), false),
                };
                Advice {
                    values: analysis.values,
                    best: Some(analysis.direction),
                    source,
                    rates,
                }
            }
            Self::Search {
                name,
                evaluator,
                settings,
            } => {
                // Past 32768 the search sees the board with its largest
                // tiles moved down, as the player's does.
                let seen = player::search_view(board);
                let values = Expectimax::with_settings(evaluator.as_ref(), *settings, None)
                    .move_values(seen);
                // A move of the copy that the board cannot make (clamped
                // tiles) is left out.
                let values = Direction::ALL.map(|direction| {
                    values[direction.index()].filter(|_| board.slide(direction).is_some())
                });
                let best = Direction::best_of(values).or_else(|| first_legal(board));
                Advice {
                    values,
                    best,
                    source: name.clone(),
                    rates: false,
                }
            }
        }
    }
}

impl Advice {
    fn game_over(source: &str) -> Self {
        Self {
            values: [None; 4],
            best: None,
            source: source.to_owned(),
            rates: false,
        }
    }
}

fn first_legal(board: WideBoard) -> Option<Direction> {
    board
        .afterstates()
        .iter()
        .next()
        .map(|(direction, _)| direction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_values_every_legal_move_and_plays_the_best() {
        let advisor = Advisor::Search {
            name: "heuristic 2p".to_owned(),
            evaluator: Box::new(search::Heuristic::new()),
            settings: Settings::new("2p".parse().unwrap()),
        };
        // Only right and down move this board.
        let board: WideBoard = "2 4 8 16 / 4 . . . / . . . . / . . . .".parse().unwrap();
        let advice = advisor.advise(board);
        let legal = advice.values.map(|value| value.is_some());
        assert_eq!(legal, [false, true, true, false]);
        let best = advice.best.unwrap();
        let top = advice
            .values
            .iter()
            .flatten()
            .copied()
            .fold(f32::MIN, f32::max);
        assert_eq!(advice.values[best.index()], Some(top));
        let over: WideBoard = "2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2".parse().unwrap();
        assert_eq!(advisor.advise(over).best, None);
    }
}
