//! The space of a layer's boards: every board of its tile sum with the
//! large tiles in place (or, for a free formation, placed anywhere), and
//! the rank of each among them.

use std::ops::Range;
use std::sync::Arc;

use crate::Spec;
use crate::base::position::free_sum;
use crate::base::slide::LARGE;

use super::half::{Half, NONE, boards_of_sum, table_bytes};
use super::marks::Listing;
use super::placement::Placements;
use super::{MOST_FREE, Tables};

/// Every board with large tiles in some cells (and nowhere else) and free
/// tiles of some sum, each with its rank: the number of those boards below
/// it. Or, for a free formation, whose large tiles go anywhere, every
/// class of boards that the symmetries of the square turn into one
/// another ([`Space::placed`]).
///
/// Generation marks the ranks its children reach ([`crate::build::generate`]);
/// [`Ranked`](super::Ranked) finds a layer's positions by rank.
#[derive(Clone, Debug)]
pub struct Space {
    /// The nibbles of the large tiles (0xF each), which every board holds;
    /// for a free formation, the nibbles above those of a content of its
    /// free cells, as gathered by [`Placements::place`].
    pub(super) large: u64,
    /// The high half of the free cells: for each of its contents, the
    /// ranks below those of that high half.
    pub(super) high: Half<u32>,
    /// The low half: for each of its contents, its rank among the low
    /// halves of its tile sum.
    pub(super) low: Half<u16>,
    /// Half the free tiles' sum.
    pub(super) half_sum: u64,
    /// The number of contents of the free cells of that sum.
    contents: u64,
    /// For a free formation, the classes of placements of its large tiles:
    /// a board's rank is its class's index times the number of contents,
    /// plus the rank of the smallest content its symmetries give it with
    /// the class's smallest placement.
    placements: Option<Arc<Placements>>,
}

impl Space {
    /// The boards with 0xF in the cells of `large` and free tiles of sum
    /// `sum`, if they have at most [`MOST_FREE`] free cells, fewer than
    /// 2^32 - 1 boards, and tiles under 32768 (so that no free cell can
    /// hold 0xF), and if `accept(table bytes, boards)` accepts what its
    /// tables would take and how many boards it has, before they are made.
    pub fn within(large: u64, sum: u64, accept: impl FnOnce(u64, u64) -> bool) -> Option<Self> {
        let free = !large;
        let cells = free.count_ones() / 4;
        if cells > MOST_FREE || sum >= 1 << LARGE {
            return None;
        }
        // No tile is over the sum.
        let top = u64::from(sum.max(1).ilog2());
        let low_cells = cells / 2;
        let tables = table_bytes(cells, top);
        let count = boards_of_sum(cells, sum, top);
        if count >= u64::from(NONE) || !accept(tables, count) {
            return None;
        }
        // The low half: the lowest free cells.
        let mut low = 0;
        for _ in 0..low_cells {
            low |= 0xF << (free & !low).trailing_zeros();
        }
        // Each low half is ranked among those of its own sum, even a sum
        // over the space's, which no board of the space holds (and which
        // `exact_rank` tells by the sums): the count fits 16 bits.
        let mut per_sum = vec![0u16; (u64::from(low_cells) << top) as usize / 2 + 1];
        let low = Half::new(low, top, |half| {
            let count = &mut per_sum[(half / 2) as usize];
            *count += 1;
            *count - 1
        });
        let mut total = 0;
        let high = Half::new(free & !low.cells, top, |half| {
            let Some(rest) = sum.checked_sub(half) else {
                return NONE;
            };
            let below = total;
            total += per_sum
                .get((rest / 2) as usize)
                .map_or(0, |&count| u64::from(count));
            below as u32
        });
        debug_assert_eq!(total, count);
        Some(Self {
            large,
            high,
            low,
            half_sum: sum / 2,
            contents: count,
            placements: None,
        })
    }

    /// Every class of boards with `large` large tiles anywhere, the other
    /// cells free with tiles of sum `sum`, that the eight symmetries of the
    /// square turn into one another: the positions of a free formation
    /// (`freeN`), whose ranks are those of the classes, whichever board of
    /// a class is ranked, so that its children need no canonical form. As
    /// [`Space::within`], for at most [`MOST_FREE`] free cells and if
    /// `accept(table bytes, boards)` accepts.
    pub fn placed(large: u32, sum: u64, accept: impl FnOnce(u64, u64) -> bool) -> Option<Self> {
        let cells = 16u32.checked_sub(large)?;
        if cells == 0 || cells > MOST_FREE {
            return None;
        }
        let placements = Placements::shared(large);
        let mut space = Self::within(u64::MAX << (4 * cells), sum, |tables, contents| {
            accept(tables + placements.bytes(), contents * placements.classes())
        })?;
        space.placements = Some(placements);
        Some(space)
    }

    /// The space of layer `index` of `spec`: every board of the layer's
    /// tile sum with the formation's large tiles, if they never move
    /// ([`crate::Formation::fixed_large`]), or every class of them up to
    /// the symmetries if they may sit anywhere
    /// ([`crate::Formation::anywhere_large`]), and `accept(table bytes,
    /// boards)` accepts what the space takes.
    pub fn of_layer(
        spec: &Spec,
        index: usize,
        accept: impl FnOnce(u64, u64) -> bool,
    ) -> Option<Self> {
        let formation = spec.formation();
        let sum = u64::from(free_sum(formation.seeds()[0])) + 2 * index as u64;
        match formation.fixed_large() {
            Some(large) => Self::within(large, sum, accept),
            None => Self::placed(formation.anywhere_large()?, sum, accept),
        }
    }

    /// Whether the large tiles may sit anywhere: ranks are those of
    /// classes of boards ([`Space::placed`]).
    pub fn is_free(&self) -> bool {
        self.placements.is_some()
    }

    /// The number of boards.
    pub fn len(&self) -> u64 {
        self.contents
            * self
                .placements
                .as_ref()
                .map_or(1, |placements| placements.classes())
    }

    /// The bytes its tables take.
    pub(crate) fn table_bytes(&self) -> u64 {
        let placements = self
            .placements
            .as_ref()
            .map_or(0, |placements| placements.bytes());
        table_bytes((!self.large).count_ones() / 4, self.low.top) + placements
    }

    /// The rank of `board`, a board of the space's tile sum, or `None` if
    /// it is not one of the boards: if it has a tile over the largest or a
    /// high half over the sum, or lacks a large tile. A board of another
    /// sum may get the rank of another board: the tables read hold no
    /// sums, which halves them (whole builds took 2-5% less CPU), so
    /// callers ask for boards of the right sum (the children of the layer
    /// before) or check the sum ([`Space::exact_rank`]).
    #[inline(always)]
    pub fn rank(&self, board: u64) -> Option<u64> {
        self.rank_by(board, Self::rank_of_codes)
    }

    /// Its tables as plain values ([`Tables`]), for a loop that ranks
    /// many boards.
    #[inline(always)]
    pub(crate) fn tables(&self) -> Tables<'_> {
        Tables {
            high: self.high.codes(),
            low: self.low.codes(),
            contents: self.contents,
            large: self.large,
        }
    }

    /// The rank of `board`, or `None` if it is not one of the boards
    /// (large tiles in their cells, none elsewhere, free tiles of the sum),
    /// whatever its sum.
    pub fn exact_rank(&self, board: u64) -> Option<u64> {
        self.rank_by(board, Self::exact_rank_of_codes)
    }

    /// The rank of `board` given `of_codes`, which ranks a content of the
    /// free cells from the codes of its high and low halves: the content
    /// of the board itself, or for a free formation, its content with its
    /// class's smallest placement, after the classes before.
    #[inline(always)]
    fn rank_by(
        &self,
        board: u64,
        of_codes: impl Fn(&Self, usize, usize) -> Option<u64>,
    ) -> Option<u64> {
        match &self.placements {
            None => self.fixed_rank_by(board, of_codes),
            Some(placements) => {
                let radix = self.high.top as u32 + 1;
                let (class, (high, low)) = placements.place(board, radix)?;
                let rank = of_codes(self, high as usize, low as usize)?;
                Some(class as u64 * self.contents + rank)
            }
        }
    }

    /// [`Space::rank_by`] where the large tiles never move: the content
    /// of the board itself, which must hold every large tile.
    #[inline(always)]
    fn fixed_rank_by(
        &self,
        board: u64,
        of_codes: impl Fn(&Self, usize, usize) -> Option<u64>,
    ) -> Option<u64> {
        let tables = self.tables();
        of_codes(self, tables.high.code(board), tables.low.code(board))
            .filter(|_| board & self.large == self.large)
    }

    /// [`Space::rank`] among the contents of the free cells.
    #[inline(always)]
    fn rank_of_codes(&self, high: usize, low: usize) -> Option<u64> {
        self.tables().rank_of_codes(high, low)
    }

    /// [`Space::exact_rank`] among the contents of the free cells.
    fn exact_rank_of_codes(&self, high: usize, low: usize) -> Option<u64> {
        let half_sum = self.high.half_sum(high)? + self.low.half_sum(low)?;
        // Of the sum, the high entry is not NONE.
        (half_sum == self.half_sum)
            .then(|| u64::from(self.high.table[high]) + u64::from(self.low.table[low]))
    }

    /// Calls `visit` with the boards whose ranks, within `ranks`, are set
    /// in `bits` (words of the bitmap from the word numbered beside them),
    /// in increasing order of rank: for a free formation, the
    /// board of each class with the class's smallest placement and, of
    /// those, the smallest.
    pub(super) fn visit_marked(
        &self,
        listing: &Listing,
        bits: (&[u64], u64),
        ranks: Range<u64>,
        mut visit: impl FnMut(u64),
    ) {
        let Some(placements) = &self.placements else {
            return listing.visit(self, bits, 0, ranks, visit);
        };
        if self.contents == 0 {
            return;
        }
        for class in ranks.start / self.contents..placements.classes() {
            let base = class * self.contents;
            if base >= ranks.end {
                break;
            }
            let within = ranks.start.saturating_sub(base)..(ranks.end - base).min(self.contents);
            listing.visit(self, bits, base, within, |board| {
                visit(placements.board(class as usize, board & !self.large));
            });
        }
    }
}
