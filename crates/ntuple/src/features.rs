//! Features: a table and how a board becomes its index, on the fastest path
//! each pattern allows, and the order in which TDL2048+ lists them.

use board::{Board, Symmetry};
use system::bits::pext;

use crate::Pattern;
use crate::pattern::feature_symmetries;
use crate::statistic::{self, Kind, LINE_ORDERS};

/// How a board becomes a table's index, on the fastest path the pattern
/// allows.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Indexer {
    /// One `pext` of the pattern's cells, which increase.
    Pext(u64),
    /// `m@0123` or `m@4567` (whose lines are two rows, read left to right):
    /// each row's code looked up by its nibbles, 16 bits from this shift
    /// and the next 16, instead of six comparisons a row.
    Rows(u32),
    /// `merge`.
    Merge,
    /// `num@lt`.
    LargeTiles,
    /// `num@st`.
    SmallTiles,
    /// Cell by cell: an n-tuple whose cells do not increase.
    Cells(Pattern),
}

impl Indexer {
    pub(crate) fn new(pattern: Pattern) -> Self {
        if let Some(mask) = pattern.pext_mask() {
            return Self::Pext(mask);
        }
        match (pattern, pattern.kind()) {
            (Pattern::MONO_OUTER, _) => Self::Rows(0),
            (Pattern::MONO_INNER, _) => Self::Rows(16),
            (_, Kind::Merge) => Self::Merge,
            (_, Kind::LargeTiles) => Self::LargeTiles,
            (_, Kind::SmallTiles) => Self::SmallTiles,
            _ => Self::Cells(pattern),
        }
    }

    /// The index of `board`, below the pattern's table length.
    #[inline(always)]
    pub(crate) fn index(&self, board: Board) -> usize {
        match *self {
            Self::Pext(mask) => pext(board.raw(), mask) as usize,
            Self::Rows(shift) => rows(board, shift),
            _ => self.once_a_board(board),
        }
    }

    /// [`Indexer::index`] of the indexers read once a board (the
    /// statistics of no cells), or cell by cell: out of line, so that the
    /// indexers read on every image stay a two-way choice where they are
    /// inlined (inlined, the six-way choice slowed the walk over
    /// `4x6patt mono` by a third).
    #[inline(never)]
    fn once_a_board(&self, board: Board) -> usize {
        match *self {
            Self::Pext(_) | Self::Rows(_) => self.index(board),
            Self::Merge => statistic::merge_index(board),
            Self::LargeTiles => statistic::large_tiles(board),
            Self::SmallTiles => statistic::small_tiles(board),
            Self::Cells(pattern) => pattern.index(board),
        }
    }
}

/// The monotonicity index of the two rows from bit `shift`.
#[inline(always)]
fn rows(board: Board, shift: u32) -> usize {
    let row = |shift: u32| usize::from(LINE_ORDERS[(board.raw() >> shift) as u16 as usize]);
    // Each row's code has 12 bits: the index is below 2^24.
    row(shift) | row(shift + 16) << 12
}

/// A pattern's features in TDL2048+'s list order: the pattern's own indexer,
/// read on the images of the board ([`images`]) that bring each feature's
/// cells to the pattern's, so that every feature of an isomorphic pattern
/// takes the pattern's fast path whatever its symmetry. The indexer is
/// chosen once a table, not once a feature.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Listed {
    indexer: Indexer,
    /// The image each feature reads, in list order; `count` of them.
    images: [u8; 8],
    count: usize,
}

impl Listed {
    /// The features of `pattern`.
    pub(crate) fn of(pattern: Pattern) -> Self {
        let symmetries = feature_symmetries(&pattern);
        let mut images = [0; 8];
        for (image, &symmetry) in images.iter_mut().zip(symmetries) {
            *image = image_showing(pattern, symmetry);
        }
        Self {
            indexer: Indexer::new(pattern),
            images,
            count: symmetries.len(),
        }
    }

    /// Whether its only feature reads the board itself, not another image.
    pub(crate) fn reads_the_board(&self) -> bool {
        self.count == 1 && self.images[0] == 0
    }

    /// The `pext` mask that is its index, when its only feature reads the
    /// board itself by one `pext`.
    pub(crate) fn mask_on_the_board(&self) -> Option<u64> {
        match self.indexer {
            Indexer::Pext(mask) if self.reads_the_board() => Some(mask),
            _ => None,
        }
    }

    /// Folds `step` over its features' indices on the board whose images
    /// are `images`, in list order.
    #[inline(always)]
    pub(crate) fn fold<T>(
        &self,
        init: T,
        images: &[Board; 8],
        step: impl FnMut(T, usize) -> T,
    ) -> T {
        match self.indexer {
            Indexer::Pext(mask) => {
                self.each(init, images, |board| pext(board.raw(), mask) as usize, step)
            }
            Indexer::Rows(shift) => self.each(init, images, |board| rows(board, shift), step),
            indexer => self.each(init, images, |board| indexer.once_a_board(board), step),
        }
    }

    /// [`Listed::fold`] with the index function chosen: eight features
    /// (an isomorphic pattern) in a loop the compiler unrolls.
    #[inline(always)]
    fn each<T>(
        &self,
        init: T,
        images: &[Board; 8],
        index: impl Fn(Board) -> usize,
        mut step: impl FnMut(T, usize) -> T,
    ) -> T {
        let mut visit = |acc, &image: &u8| step(acc, index(images[usize::from(image)]));
        if self.count == 8 {
            self.images.iter().fold(init, &mut visit)
        } else {
            self.images[..self.count].iter().fold(init, &mut visit)
        }
    }
}

/// The image ([`images`]) whose cells under `pattern`'s show the cells of
/// `pattern`'s feature seen through `symmetry`.
fn image_showing(pattern: Pattern, symmetry: Symmetry) -> u8 {
    let feature = pattern.transformed(symmetry);
    // Cell i of this board holds tile i: an image's tile at a cell names
    // the board's cell it shows there.
    let cells = images(Board::from_raw(0xfedc_ba98_7654_3210));
    (0..8)
        .find(|&image| {
            let shown = |&cell: &u8| cells[usize::from(image)].tile(usize::from(cell));
            pattern
                .cells()
                .iter()
                .map(shown)
                .eq(feature.cells().iter().copied())
        })
        .expect("every symmetry is one of the eight images")
}

/// The eight images of `board` in the order the estimates visit them: the
/// board, then alternately flipped top to bottom and transposed.
#[inline(always)]
pub(crate) fn images(board: Board) -> [Board; 8] {
    let mut images = [board; 8];
    for image in 1..8 {
        images[image] = if image % 2 == 1 {
            images[image - 1].flip()
        } else {
            images[image - 1].transpose()
        };
    }
    images
}

/// A weight table's feature: where the table starts, and how a board
/// becomes its index.
pub(crate) trait Feature {
    /// The index `board` selects, below the table's length.
    fn index(&self, board: Board) -> usize;

    /// The first byte of the table.
    fn base(&self) -> *const u8;

    /// The weight `board` selects, an `E` ([`std::sync::atomic::AtomicU32`]
    /// for `f32` weights, [`std::sync::atomic::AtomicU16`] for `f16`).
    ///
    /// # Safety
    /// The feature's table must hold entries of type `E`, and outlive the
    /// reference.
    #[inline(always)]
    unsafe fn entry<E>(&self, board: Board) -> &E {
        // SAFETY: the index is below the table's length; the caller
        // promises the entry type and the table's life.
        unsafe { entry_at(self.base(), self.index(board)) }
    }
}

/// The entry `index` of a table of `E` starting at `base`.
///
/// # Safety
/// The table must hold entries of type `E`, more than `index` of them, and
/// outlive the reference.
#[inline(always)]
pub(crate) unsafe fn entry_at<'a, E>(base: *const u8, index: usize) -> &'a E {
    // SAFETY: as the caller promises.
    unsafe { &*base.cast::<E>().add(index) }
}

/// A feature by its pattern's indexer (any pattern).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TableFeature {
    pub(crate) indexer: Indexer,
    /// The first byte of its table, which has the pattern's entries.
    pub(crate) base: *const u8,
}

impl Feature for TableFeature {
    #[inline(always)]
    fn index(&self, board: Board) -> usize {
        self.indexer.index(board)
    }

    #[inline(always)]
    fn base(&self) -> *const u8 {
        self.base
    }
}

/// A feature whose cells increase, indexed by one `pext`: the fast path
/// of the image walk, without a branch on the indexer's kind. The mask
/// has 4 bits a cell, so the index is below 16^n, the table's length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PextFeature {
    pub(crate) mask: u64,
    /// The first byte of its table, which has 16^(cells) entries.
    pub(crate) base: *const u8,
}

impl Feature for PextFeature {
    #[inline(always)]
    fn index(&self, board: Board) -> usize {
        pext(board.raw(), self.mask) as usize
    }

    #[inline(always)]
    fn base(&self) -> *const u8 {
        self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_patterns;

    /// Every feature's index, in TDL2048+'s list order, against the indices
    /// TDL2048+ itself computed for the network `0123 mono num`
    /// (tests/fixtures/README.md says how), cell by cell and on the fast
    /// paths of the list order.
    #[test]
    fn features_index_boards_as_tdl2048s_do() {
        let fixture = include_str!("../tests/fixtures/tdl2048-statistic-indices.tsv");
        let patterns = parse_patterns(["0123 mono num"]).unwrap();
        let plain: Vec<Pattern> = patterns
            .iter()
            .flat_map(|pattern| {
                feature_symmetries(pattern)
                    .iter()
                    .map(|&symmetry| pattern.transformed(symmetry))
            })
            .collect();
        let listed: Vec<Listed> = patterns.iter().map(|&p| Listed::of(p)).collect();
        let mut boards = 0;
        for line in fixture.lines().filter(|line| !line.starts_with('#')) {
            let mut fields = line.split('\t');
            let raw = fields.next().unwrap().trim_start_matches("0x");
            let board = Board::from_raw(u64::from_str_radix(raw, 16).unwrap());
            let expected: Vec<usize> = fields.map(|field| field.parse().unwrap()).collect();
            let indices: Vec<usize> = plain.iter().map(|f| f.index(board)).collect();
            assert_eq!(indices, expected, "{board:?}");
            assert_eq!(listed_indices(&listed, board), expected, "{board:?}");
            boards += 1;
        }
        assert_eq!(boards, 120);
    }

    /// Every feature of the list order takes its pattern's fast path, and
    /// gives the plain index of the pattern seen through its symmetry.
    #[test]
    fn features_read_on_images_are_the_plain_ones() {
        let networks = [
            "4x6patt",
            "2x4patt",
            "8x4patt",
            "3210 0145! 01489a",
            "mono num merge",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for network in networks {
            let patterns = parse_patterns([network]).unwrap();
            let listed: Vec<Listed> = patterns.iter().map(|&p| Listed::of(p)).collect();
            let plain: Vec<Pattern> = patterns
                .iter()
                .flat_map(|pattern| {
                    feature_symmetries(pattern)
                        .iter()
                        .map(|&symmetry| pattern.transformed(symmetry))
                })
                .collect();
            for table in &listed {
                let slow = matches!(table.indexer, Indexer::Cells(_));
                assert!(
                    !slow || network == "3210 0145! 01489a",
                    "{network}: {table:?}"
                );
            }
            for _ in 0..200 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let board = Board::from_raw(state);
                let plain: Vec<usize> = plain.iter().map(|f| f.index(board)).collect();
                assert_eq!(listed_indices(&listed, board), plain, "{network} {board:?}");
            }
        }
    }

    /// The indices of every feature of `listed`, in list order.
    fn listed_indices(listed: &[Listed], board: Board) -> Vec<usize> {
        let images = images(board);
        listed.iter().fold(Vec::new(), |indices, table| {
            table.fold(indices, &images, |mut indices, index| {
                indices.push(index);
                indices
            })
        })
    }
}
