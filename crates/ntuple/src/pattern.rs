//! Patterns: what indexes a weight table, the n-tuples of cells whose tiles
//! make the index or TDL2048+'s statistic features.

use std::fmt;
use std::str::FromStr;

use board::{Board, Symmetry};

use crate::Error;
use crate::statistic::{self, Kind};

/// The most cells a pattern may have: 16^8 entries (16 GiB of `f32`) is the
/// largest table any known network uses, and the index fits a `u32`.
pub const MAX_CELLS: usize = 8;

/// What indexes one weight table: an n-tuple of up to eight distinct cells,
/// written as hex digits (`012345` is cells 0 to 5), or one of TDL2048+'s
/// statistic features.
///
/// The index of a board is the sum of `tile(cells[j]) << 4j`: the first cell
/// is the least significant nibble, as in TDL2048+. An *isomorphic* pattern
/// (the default) is read on all eight symmetric images of the board, so one
/// table holds the weights of eight features; a trailing `!` (`0123!`) makes
/// it read the board only as it is, as in the course's 8x4 network.
///
/// The statistic features, named as TDL2048+ names their tables:
/// - `merge`: 2^16 weights, read once on the board, indexed by the number
///   of merges (0 to 2) a left move would make in each row (bits
///   `2r..2r+2`) and an up move in each column (bits `8+2c..8+2c+2`);
/// - `m@0123` and `m@4567` (the `mono` network): 2^24 weights, read on the
///   eight images of the board, indexed by the order of the tiles along
///   the outer row and its neighbour (`m@0123`) or the two inner rows
///   (`m@4567`): for each line, two bits for each of its six pairs of
///   cells, saying which tile is at least the other;
/// - `num@lt` and `num@st` (the `num` network): 2^24 weights, read once,
///   indexed by how many tiles the board holds of each of 256 to 32768, or
///   how many empty cells and tiles of each of 2 to 128 (three bits each,
///   at most 7).
///
/// ```
/// use ntuple::Pattern;
///
/// let pattern: Pattern = "0145".parse()?;
/// assert_eq!(pattern.cells(), &[0, 1, 4, 5]);
/// assert_eq!(pattern.table_len(), 65536);
/// assert!("01x5".parse::<Pattern>().is_err());
/// # Ok::<(), ntuple::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pattern {
    cells: [u8; MAX_CELLS],
    /// The number of cells; 0 for the statistics read on the whole board.
    len: u8,
    isomorphic: bool,
    kind: Kind,
}

impl Pattern {
    /// TDL2048+'s `merge` statistic: merges per row and column.
    pub const MERGE: Pattern = Self::statistic(Kind::Merge);

    /// TDL2048+'s `m@0123` statistic: the order of the tiles along the
    /// outer row and the row beside it, on each image of the board.
    pub const MONO_OUTER: Pattern = Self::lines([0, 1, 2, 3, 4, 5, 6, 7]);

    /// TDL2048+'s `m@4567` statistic: the order of the tiles along the two
    /// inner rows, on each image of the board.
    pub const MONO_INNER: Pattern = Self::lines([4, 5, 6, 7, 8, 9, 10, 11]);

    /// TDL2048+'s `num@lt` statistic: the number of tiles of each of 256 to
    /// 32768.
    pub const LARGE_TILES: Pattern = Self::statistic(Kind::LargeTiles);

    /// TDL2048+'s `num@st` statistic: the number of empty cells and of
    /// tiles of each of 2 to 128.
    pub const SMALL_TILES: Pattern = Self::statistic(Kind::SmallTiles);

    /// The statistic features, as they are named.
    const STATISTICS: [(&'static str, Pattern); 5] = [
        ("merge", Self::MERGE),
        ("m@0123", Self::MONO_OUTER),
        ("m@4567", Self::MONO_INNER),
        ("num@lt", Self::LARGE_TILES),
        ("num@st", Self::SMALL_TILES),
    ];

    /// A statistic read once on the board, of no cells.
    const fn statistic(kind: Kind) -> Self {
        Self {
            cells: [0; MAX_CELLS],
            len: 0,
            isomorphic: false,
            kind,
        }
    }

    /// A monotonicity statistic over two lines of four cells.
    const fn lines(cells: [u8; MAX_CELLS]) -> Self {
        Self {
            cells,
            len: MAX_CELLS as u8,
            isomorphic: true,
            kind: Kind::Monotonicity,
        }
    }

    /// Whether this is the `merge` statistic rather than an n-tuple.
    pub const fn is_merge(&self) -> bool {
        matches!(self.kind, Kind::Merge)
    }

    /// Whether this is one of the statistic features rather than an
    /// n-tuple.
    pub const fn is_statistic(&self) -> bool {
        !matches!(self.kind, Kind::Tuple)
    }

    /// What its index is made of.
    pub(crate) const fn kind(&self) -> Kind {
        self.kind
    }

    /// The pattern over `cells`, read on all eight symmetric images if
    /// `isomorphic`.
    ///
    /// # Errors
    /// [`Error::Pattern`] if there are no cells, more than eight, a cell above
    /// 15, or a cell twice.
    pub fn new(cells: &[u8], isomorphic: bool) -> Result<Self, Error> {
        let text = || cells.iter().map(|&c| format!("{c:x}")).collect::<String>();
        let problem = if cells.is_empty() {
            Some("it has no cells".to_owned())
        } else if cells.len() > MAX_CELLS {
            Some(format!(
                "it has {} cells, at most {MAX_CELLS} are allowed",
                cells.len()
            ))
        } else if let Some(&cell) = cells.iter().find(|&&cell| cell > 15) {
            Some(format!("cell {cell} is off the board"))
        } else {
            (1..cells.len())
                .find(|&i| cells[..i].contains(&cells[i]))
                .map(|i| format!("cell {:x} appears twice", cells[i]))
        };
        if let Some(problem) = problem {
            return Err(Error::Pattern {
                input: text(),
                problem,
            });
        }
        let mut stored = [0; MAX_CELLS];
        stored[..cells.len()].copy_from_slice(cells);
        Ok(Self {
            cells: stored,
            len: cells.len() as u8,
            isomorphic,
            kind: Kind::Tuple,
        })
    }

    /// The cells, first (least significant) first; none for the statistics
    /// read on the whole board (`merge`, `num@lt`, `num@st`), the two lines
    /// of a monotonicity statistic.
    pub fn cells(&self) -> &[u8] {
        &self.cells[..usize::from(self.len)]
    }

    /// Whether the pattern is read on all eight images of the board.
    pub const fn is_isomorphic(&self) -> bool {
        self.isomorphic
    }

    /// The number of features it contributes: 8 if isomorphic, else 1.
    pub const fn features(&self) -> usize {
        if self.isomorphic { 8 } else { 1 }
    }

    /// The number of entries in its table, 16^n (2^16 for `merge`, 2^24 for
    /// the other statistics).
    pub const fn table_len(&self) -> usize {
        self.entries(16)
    }

    /// The number of entries of the pattern's table when a cell takes
    /// `radix` values (16 in 2048; the tile kinds kept apart in other
    /// games): radix^n for n cells. Statistics have a size of their own.
    pub const fn entries(&self, radix: u32) -> usize {
        self.kind.entries(self.len as u32, radix)
    }

    /// This pattern with its cells moved by `symmetry`: the feature that
    /// reads the board as this pattern reads the board's image.
    #[must_use]
    pub fn transformed(&self, symmetry: board::Symmetry) -> Self {
        let mut moved = *self;
        for cell in &mut moved.cells[..usize::from(self.len)] {
            *cell = symmetry.cell(usize::from(*cell)) as u8;
        }
        moved
    }

    /// The bits of its cells in a board, when its cells are in increasing
    /// order: then one `pext` with this mask is the index. `None` otherwise.
    pub(crate) fn pext_mask(&self) -> Option<u64> {
        let cells = self.cells();
        if self.is_statistic() {
            return None;
        }
        cells
            .windows(2)
            .all(|pair| pair[0] < pair[1])
            .then(|| cells.iter().fold(0, |mask, &cell| mask | 0xF << (4 * cell)))
    }

    /// The index of `board` in this pattern's table, cell by cell: the plain
    /// definition the fast paths are tested against.
    pub fn index(&self, board: Board) -> usize {
        match self.kind {
            Kind::Tuple => self
                .cells()
                .iter()
                .enumerate()
                .map(|(j, &cell)| usize::from(board.tile(usize::from(cell))) << (4 * j))
                .sum(),
            Kind::Merge => statistic::merge_index(board),
            Kind::Monotonicity => statistic::monotonicity(board, self.cells()),
            Kind::LargeTiles => statistic::large_tiles(board),
            Kind::SmallTiles => statistic::small_tiles(board),
        }
    }
}

impl FromStr for Pattern {
    type Err = Error;

    /// Reads hex digits, one per cell, with an optional trailing `!` for a
    /// pattern without isomorphism, or a statistic's name.
    fn from_str(input: &str) -> Result<Self, Error> {
        if let Some(&(_, statistic)) = Self::STATISTICS.iter().find(|(name, _)| *name == input) {
            return Ok(statistic);
        }
        let (digits, isomorphic) = match input.strip_suffix('!') {
            Some(digits) => (digits, false),
            None => (input, true),
        };
        let cells = digits
            .chars()
            .map(|c| c.to_digit(16).map(|d| d as u8))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| Error::Pattern {
                input: input.to_owned(),
                problem: "cells are hex digits 0-9 and a-f".to_owned(),
            })?;
        Self::new(&cells, isomorphic).map_err(|error| match error {
            Error::Pattern { problem, .. } => Error::Pattern {
                input: input.to_owned(),
                problem,
            },
            other => other,
        })
    }
}

impl fmt::Display for Pattern {
    /// The hex digits, with `!` after a pattern without isomorphism, or a
    /// statistic's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((name, _)) = Self::STATISTICS.iter().find(|(_, pattern)| pattern == self) {
            return f.write_str(name);
        }
        if self.kind == Kind::Monotonicity {
            // A feature of m@0123 or m@4567 on an image: its first line.
            f.write_str("m@")?;
            return self.cells[..4]
                .iter()
                .try_for_each(|cell| write!(f, "{cell:x}"));
        }
        for cell in self.cells() {
            write!(f, "{cell:x}")?;
        }
        if !self.isomorphic {
            f.write_str("!")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({self})")
    }
}

/// Whether two lists of patterns read the same tables, in order.
pub(crate) fn same_tables(a: &[Pattern], b: &[Pattern]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_table(a, b))
}

/// Whether two patterns read the same table (isomorphism aside, which
/// TDL2048+'s weight files do not record).
pub(crate) fn same_table(a: &Pattern, b: &Pattern) -> bool {
    a.cells() == b.cells() && a.kind == b.kind
}

/// The order in which TDL2048+ lists the eight features of an isomorphic
/// pattern (`0123 37bf fedc c840 cdef fb73 3210 048c` for `0123`).
pub(crate) const FEATURE_ORDER: [Symmetry; 8] = [
    Symmetry::Identity,
    Symmetry::RotateClockwise,
    Symmetry::Rotate180,
    Symmetry::RotateAnticlockwise,
    Symmetry::Flip,
    Symmetry::AntiTranspose,
    Symmetry::Mirror,
    Symmetry::Transpose,
];

/// The order in which TDL2048+ lists the eight features of a monotonicity
/// statistic (`m@0123 m@37bf m@fedc m@c840 m@3210 m@fb73 m@cdef m@048c`):
/// [`FEATURE_ORDER`] with the flip and the mirror swapped.
const MONOTONICITY_ORDER: [Symmetry; 8] = [
    Symmetry::Identity,
    Symmetry::RotateClockwise,
    Symmetry::Rotate180,
    Symmetry::RotateAnticlockwise,
    Symmetry::Mirror,
    Symmetry::AntiTranspose,
    Symmetry::Flip,
    Symmetry::Transpose,
];

/// The symmetries `pattern`'s features see the board through, in
/// TDL2048+'s list order: eight for an isomorphic pattern, the identity
/// alone otherwise.
pub(crate) fn feature_symmetries(pattern: &Pattern) -> &'static [Symmetry] {
    match (pattern.is_isomorphic(), pattern.kind()) {
        (false, _) => &FEATURE_ORDER[..1],
        (true, Kind::Monotonicity) => &MONOTONICITY_ORDER,
        (true, _) => &FEATURE_ORDER,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_patterns_say_why() {
        let message = |text: &str| text.parse::<Pattern>().unwrap_err().to_string();
        assert_eq!(message(""), "pattern \"\" is not valid: it has no cells");
        assert_eq!(
            message("0123456789"),
            "pattern \"0123456789\" is not valid: it has 10 cells, at most 8 are allowed"
        );
        assert_eq!(
            message("0113"),
            "pattern \"0113\" is not valid: cell 1 appears twice"
        );
        assert_eq!(
            message("01g3"),
            "pattern \"01g3\" is not valid: cells are hex digits 0-9 and a-f"
        );
    }

    #[test]
    fn display_round_trips() {
        for text in ["012345", "0123!", "fedc", "01489a"] {
            assert_eq!(text.parse::<Pattern>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn index_puts_the_first_cell_lowest() {
        let board = Board::from_raw(0x0000_0000_0000_4321);
        let pattern: Pattern = "0123".parse().unwrap();
        assert_eq!(pattern.index(board), 0x4321);
        let reversed: Pattern = "3210".parse().unwrap();
        assert_eq!(reversed.index(board), 0x1234);
        assert_eq!(pattern.pext_mask(), Some(0xFFFF));
        assert_eq!(reversed.pext_mask(), None);
    }

    #[test]
    fn statistics_are_named_as_in_tdl2048() {
        // Row 0: 2 2 4 4 (two merges); column 0: 2 . 2 . (one merge).
        let board: Board = "2 2 4 4 / . . . . / 2 . . . / . . . .".parse().unwrap();
        let merge: Pattern = "merge".parse().unwrap();
        assert_eq!(merge.index(board), 0b10 | 0b01 << 8);
        assert_eq!((merge.table_len(), merge.features()), (65536, 1));
        for (name, pattern) in Pattern::STATISTICS {
            assert_eq!(name.parse::<Pattern>().unwrap(), pattern);
            assert_eq!(pattern.to_string(), name);
            assert!(pattern.is_statistic() && pattern.pext_mask().is_none());
        }
        for pattern in [Pattern::MONO_OUTER, Pattern::LARGE_TILES] {
            assert_eq!(pattern.table_len(), 1 << 24);
        }
        assert_eq!(Pattern::MONO_INNER.features(), 8);
        assert_eq!(Pattern::SMALL_TILES.features(), 1);
        assert!("m@0123!".parse::<Pattern>().is_err());
    }

    #[test]
    fn transformed_patterns_list_tdl2048s_features() {
        use board::Symmetry::*;
        let pattern: Pattern = "0123".parse().unwrap();
        let listed: Vec<String> = [
            Identity,
            RotateClockwise,
            Rotate180,
            RotateAnticlockwise,
            Flip,
            AntiTranspose,
            Mirror,
            Transpose,
        ]
        .map(|s| pattern.transformed(s).to_string())
        .to_vec();
        assert_eq!(
            listed,
            [
                "0123", "37bf", "fedc", "c840", "cdef", "fb73", "3210", "048c"
            ]
        );
    }
}
