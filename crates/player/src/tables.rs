//! The tables a player consults, and the rule that picks a table's move.

use std::path::PathBuf;

use board::WideBoard;

use crate::book::{Book, Tiles};

/// The endgame tables of a player (possibly none) and its dispatch rule.
///
/// **The rule.** For a position, a table applies when the board's largest
/// tiles, as many as the table's walls and all different, stand in its
/// walls, every other tile is smaller than its target, and the smallest
/// wall beside a cell where the target counts is the target itself
/// ([`Book::move_rates`]): the table then plays to make a second such
/// tile, which merges into that wall and on up the chain. A table that
/// makes its target in one cell only (4421) applies too where the walls
/// beside that cell are larger: the tile it makes there is the next wall.
/// Of the tables that apply, the one with the most walls advises, of
/// those the one with the largest target (then the first given): it has
/// the fewest cells to manage, and the nearest goal or the largest new
/// wall. Its advice counts if its best move's rate reaches
/// [`Tables::min_rate`]; otherwise the search plays.
#[derive(Debug)]
pub struct Tables {
    books: Vec<Book>,
    /// The books' indices, most walls first, then the largest target (the
    /// order given among equals).
    order: Vec<usize>,
    min_rate: f32,
}

impl Tables {
    /// The rate a table's best move needs for the table to play it, unless
    /// told otherwise.
    pub const MIN_RATE: f32 = 0.5;

    /// No tables: the search plays every move.
    pub fn none() -> Self {
        Self::new(Vec::new())
    }

    /// `books`, in the order given, with the default [`Tables::MIN_RATE`].
    pub fn new(books: Vec<Book>) -> Self {
        let mut order: Vec<usize> = (0..books.len()).collect();
        order.sort_by_key(|&index| {
            std::cmp::Reverse((books[index].walls(), books[index].spec().target()))
        });
        Self {
            books,
            order,
            min_rate: Self::MIN_RATE,
        }
    }

    /// The same tables, a table's move played from `min_rate` on.
    #[must_use]
    pub fn with_min_rate(mut self, min_rate: f32) -> Self {
        self.min_rate = min_rate;
        self
    }

    /// Opens the tables in `dirs`, each a table's folder or a folder of
    /// tables' folders (as `tb-build set` writes them, read in the order
    /// of their names). A table that cannot be read (missing, unfinished,
    /// damaged) is left out with one line saying why, so that a player
    /// goes on with the others, or with none.
    pub fn open(dirs: &[PathBuf]) -> (Self, Vec<String>) {
        let mut books = Vec::new();
        let mut problems = Vec::new();
        for dir in dirs.iter().flat_map(|dir| tablebase::table_dirs(dir)) {
            match Book::open(&dir) {
                Ok(book) => books.push(book),
                Err(error) => problems.push(format!("table {} left out: {error}", dir.display())),
            }
        }
        (Self::new(books), problems)
    }

    /// The rate from which a table's move is played.
    pub fn min_rate(&self) -> f32 {
        self.min_rate
    }

    /// The tables, in their order.
    pub fn books(&self) -> &[Book] {
        &self.books
    }

    /// The tables' names, in their order.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.books.iter().map(|book| book.name().to_owned())
    }

    /// The rate of `afterstate` in the first table (in the order above)
    /// that applies to it, and that table's target: what a search's leaf
    /// is worth to the tables ([`crate::Settings::leaf_rates`]).
    pub fn leaf_rate(&self, afterstate: WideBoard) -> Option<(f32, u8)> {
        if self.books.is_empty() {
            return None;
        }
        let tiles = Tiles::of(afterstate);
        self.order.iter().find_map(|&index| {
            let book = &self.books[index];
            Some((book.afterstate_rate_of(&tiles)?, book.spec().target()))
        })
    }

    /// The table that advises on `board` by the rule above, by its index,
    /// and the rate of each of its moves (`None` for a move it does not
    /// allow); `None` if the search should play.
    pub fn advise(&self, board: WideBoard) -> Option<(usize, [Option<f32>; 4])> {
        let (index, rates) = self.order.iter().find_map(|&index| {
            let rates = self.books[index].move_rates(board);
            rates.iter().any(Option::is_some).then_some((index, rates))
        })?;
        let best = rates.iter().flatten().copied().fold(f32::MIN, f32::max);
        (best >= self.min_rate).then_some((index, rates))
    }
}
