//! One endgame table held in memory for play: the rate of every move of a
//! game's position, read in a few hundred nanoseconds.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use board::{Board, Direction, Symmetry, WideBoard};
use tablebase::{Large, Mover, Position, Spec, Table};

use crate::packed::PackedLayer;

/// An endgame table loaded whole for play, shared by all threads.
///
/// A table for target T with n walls answers "how do I make a T here,
/// keeping n large tiles in place" (../shared/docs/tablebase.md): its walls
/// are large tiles (0xF, which never merge), whatever they are. A game
/// position is read by it when its n largest tiles differ from each other
/// and stand in the table's walls (in one of the eight orientations), every
/// other tile is smaller than T, and the smallest wall beside a cell where
/// the table's target counts is T itself ([`Book::masked`],
/// [`Book::move_rates`]): the T the table makes there merges into that
/// wall and on up. Where the table makes T in one cell only, that wall may
/// be larger too: the T made there is a new wall beside the others, which
/// a table of one more wall builds on.
///
/// Its layers are read into memory, packed, when it is opened: read from
/// the layer files, each lookup would decompress a block (tens of
/// microseconds), and a move asks for four.
#[derive(Debug)]
pub struct Book {
    name: String,
    spec: Spec,
    mover: Mover,
    /// The number of large tiles of every position of the table.
    large: u32,
    /// For each symmetry in [`Symmetry::ALL`] order, the formation's masks
    /// of walls turned back by it: the cells a board must hold its walls
    /// in to fit the formation once turned by that symmetry.
    walls_seen: [Vec<u64>; 8],
    /// Whether the table makes its target in one cell only: there a tile
    /// smaller than the walls beside it is a new wall, not a tile to move
    /// into a merge.
    grows: bool,
    layers: Vec<PackedLayer>,
}

impl Book {
    /// Opens the table built in `dir` and reads every layer.
    ///
    /// # Errors
    /// What [`Table::open`] and reading its layers give: a missing,
    /// unfinished or damaged table; [`tablebase::Error::File`] for a table
    /// of the variants (2x4, 3x3, 3x4), whose walls never move as a game's
    /// large tiles do.
    pub fn open(dir: &Path) -> Result<Self, tablebase::Error> {
        let table = Table::open(dir)?;
        let spec = table.spec().clone();
        if spec.formation().large() == Large::Wall {
            return Err(tablebase::Error::File {
                path: dir.to_owned(),
                problem: format!(
                    "{} is a table of a variant board, whose walls never move: it does not play 2048",
                    spec.name()
                ),
            });
        }
        let layers = read_layers(&table)?;
        let seed = spec.formation().seeds()[0];
        Ok(Self {
            name: spec.name(),
            mover: Mover::new(spec.formation().large()),
            large: Position::from_bits(seed).large_count(),
            grows: nibble_cells(spec.formation().target_cells()).count_ones() == 1,
            walls_seen: Symmetry::ALL.map(|symmetry| {
                let inverse = symmetry.inverse();
                let masks = spec.formation().masks().iter();
                masks
                    .map(|&mask| Board::from_raw(mask).transform(inverse).raw())
                    .collect()
            }),
            layers,
            spec,
        })
    }

    /// The table's name, `L3-512`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the table is.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// The bytes of memory its positions and rates take.
    pub fn bytes(&self) -> u64 {
        self.layers.iter().map(PackedLayer::bytes).sum()
    }

    /// The number of large tiles of its positions: its walls.
    pub fn walls(&self) -> u32 {
        self.large
    }

    /// The number of positions it holds.
    pub fn positions(&self) -> u64 {
        self.layers.iter().map(|layer| layer.len() as u64).sum()
    }

    /// The board as this table sees it, and its layer: the table's number
    /// of largest tiles read as large tiles, its walls. `None` if the table
    /// has nothing to say about it: those tiles must differ from each
    /// other (a chain, not tiles waiting to merge), every other tile must
    /// be smaller than the target, and their sum one of the table's
    /// layers. (Where the target is made is [`Book::move_rates`]' to say.)
    pub fn masked(&self, board: WideBoard) -> Option<(u64, usize)> {
        let tiles = Tiles::of(board);
        self.masked_tiles(&tiles)
    }

    /// [`Book::masked`] of a board's tiles.
    fn masked_tiles(&self, tiles: &Tiles) -> Option<(u64, usize)> {
        let Tiles { exponents, sorted } = *tiles;
        let target = self.spec.target();
        let walls = self.large as usize;
        let smallest_wall = sorted[walls.checked_sub(1)?];
        let distinct = sorted[..walls].windows(2).all(|pair| pair[0] > pair[1]);
        if !distinct || sorted.get(walls).is_some_and(|&next| next >= target) {
            return None;
        }
        let masked = exponents
            .iter()
            .enumerate()
            .fold(0u64, |masked, (cell, &exponent)| {
                let nibble = if exponent >= smallest_wall {
                    0xF
                } else {
                    exponent
                };
                masked | u64::from(nibble) << (4 * cell)
            });
        let layer = self
            .spec
            .layer_of_sum(Position::from_bits(masked).tile_sum())?;
        Some((masked, layer))
    }

    /// The success rate of each move of `board` (a position to move from,
    /// with its real tiles), in [`Direction::ALL`] order: `None` for a move
    /// that changes nothing or leaves the formation, and all `None` where
    /// the table does not apply ([`Book::masked`], or in no orientation
    /// that fits the formation is the smallest wall beside a target cell
    /// the target, or larger where the target has one cell). A move to a
    /// position the table does not hold reads 0, as the table's own
    /// builder reads it (for a player that is a move to leave to the
    /// search; `tb-build query` solves such positions instead).
    ///
    /// A board that fits the formation in several orientations is read in
    /// the one whose best move is best.
    pub fn move_rates(&self, board: WideBoard) -> [Option<f32>; 4] {
        let tiles = Tiles::of(board);
        let Some((layer, readings)) = self.readings(&tiles) else {
            return [None; 4];
        };
        let formation = self.spec.formation();
        let mut best: ([Option<f32>; 4], f32) = ([None; 4], f32::MIN);
        for (symmetry, seen) in readings {
            let rates = Direction::ALL.map(|direction| {
                let moved = self.mover.slide(seen, symmetry.direction(direction));
                (moved != seen && formation.fits(moved))
                    .then(|| layer.rate(formation.canon().canonical(moved)))
            });
            let top = rates.iter().flatten().copied().fold(f32::MIN, f32::max);
            if top > best.1 {
                best = (rates, top);
            }
        }
        best.0
    }

    /// The success rate of `afterstate` (a board after a move, before the
    /// spawn, with its real tiles), read in the orientation that reads
    /// best: `None` where the table does not apply to it (as to a position
    /// in [`Book::move_rates`]), 0 where it applies but the table does not
    /// hold it.
    pub fn afterstate_rate(&self, afterstate: WideBoard) -> Option<f32> {
        self.afterstate_rate_of(&Tiles::of(afterstate))
    }

    /// [`Book::afterstate_rate`] of an afterstate's tiles.
    pub(crate) fn afterstate_rate_of(&self, tiles: &Tiles) -> Option<f32> {
        let (layer, readings) = self.readings(tiles)?;
        let canon = self.spec.formation().canon();
        readings
            .map(|(_, seen)| layer.rate(canon.canonical(seen)))
            .reduce(f32::max)
    }

    /// The layer of `board` and the orientations in which the table reads
    /// it, each with the masked board so turned: those where the board
    /// holds the formation and the smallest wall beside a cell where the
    /// target counts is the target (the tile it merges with), or, where
    /// that cell is the only one, larger (the T made there is a new wall).
    fn readings<'t>(
        &'t self,
        tiles: &'t Tiles,
    ) -> Option<(&'t PackedLayer, impl Iterator<Item = (Symmetry, u64)> + 't)> {
        let target = self.spec.target();
        // The target is at least the smallest wall, unless it is a new one.
        let walls = self.large as usize;
        if !self.grows && tiles.sorted.get(walls.checked_sub(1)?) > Some(&target) {
            return None;
        }
        let (masked, layer) = self.masked_tiles(tiles)?;
        let exponents = tiles.exponents;
        let formation = self.spec.formation();
        let targets = nibble_cells(formation.target_cells());
        let walls = Position::from_bits(masked).large_cells();
        let readings =
            Symmetry::ALL
                .into_iter()
                .zip(&self.walls_seen)
                .filter_map(move |(symmetry, masks)| {
                    // The formation's walls as the board stands, before turning it.
                    if !masks.iter().any(|&mask| mask & !walls == 0) {
                        return None;
                    }
                    let seen = Board::from_raw(masked).transform(symmetry).raw();
                    let inverse = symmetry.inverse();
                    let beside = (0..16)
                        .filter(|&cell| {
                            targets & (1 << cell) != 0 && seen >> (4 * cell) & 0xF != 0xF
                        })
                        .flat_map(|cell| cells_of(neighbours(cell)))
                        .filter(|&cell| seen >> (4 * cell) & 0xF == 0xF)
                        .map(|cell| exponents[inverse.cell(cell)])
                        .min()?;
                    (beside == target || self.grows && beside > target).then_some((symmetry, seen))
                });
        Some((&self.layers[layer], readings))
    }
}

/// A board's exponents, cell by cell and largest first: what every table
/// reads a board by, worked out once for all of them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tiles {
    exponents: [u8; 16],
    sorted: [u8; 16],
}

impl Tiles {
    pub(crate) fn of(board: WideBoard) -> Self {
        let exponents = board.exponents();
        let mut sorted = exponents;
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        Self { exponents, sorted }
    }
}

/// The cells of a mask of cells.
fn cells_of(mask: u16) -> impl Iterator<Item = usize> {
    (0..16).filter(move |&cell| mask & (1 << cell) != 0)
}

/// The cells beside `cell`, as a mask of cells.
fn neighbours(cell: usize) -> u16 {
    let (row, column) = (cell / 4, cell % 4);
    let mut mask = 0u16;
    if row > 0 {
        mask |= 1 << (cell - 4);
    }
    if row < 3 {
        mask |= 1 << (cell + 4);
    }
    if column > 0 {
        mask |= 1 << (cell - 1);
    }
    if column < 3 {
        mask |= 1 << (cell + 1);
    }
    mask
}

/// The cells whose nibble in `nibbles` is not 0, as a mask of cells.
fn nibble_cells(nibbles: u64) -> u16 {
    (0..16).fold(0, |mask, cell| {
        if (nibbles >> (4 * cell)) & 0xF != 0 {
            mask | 1 << cell
        } else {
            mask
        }
    })
}

/// Every layer of `table`, packed, read on as many threads as the machine
/// has (each layer's blocks are decompressed once).
fn read_layers(table: &Table) -> Result<Vec<PackedLayer>, tablebase::Error> {
    let steps = table.spec().steps();
    let next = AtomicUsize::new(0);
    let layers: Mutex<Vec<Option<PackedLayer>>> = Mutex::new((0..steps).map(|_| None).collect());
    let read = || -> Result<(), tablebase::Error> {
        // A layer's positions and rates as read, before packing: kept from
        // one layer to the next, so that a reader touches fresh memory for
        // its largest layer only (the system clears every page it hands
        // out, and the whole set reads at 16 bytes a position).
        let (mut boards, mut rates) = (Vec::new(), Vec::new());
        loop {
            let index = next.fetch_add(1, Relaxed);
            if index >= steps {
                return Ok(());
            }
            let layer = table.layer(index)?;
            let positions = layer.positions() as usize;
            boards.clear();
            rates.clear();
            boards.reserve(positions);
            rates.reserve(positions);
            layer.visit_blocks(|block_boards, block_rates| {
                boards.extend_from_slice(block_boards);
                rates.extend_from_slice(block_rates);
                Ok(())
            })?;
            // A partitioned table's parts are each in order, not together.
            if layer.files().len() > 1 {
                sort_by_board(&mut boards, &mut rates);
            }
            let packed = PackedLayer::new(&boards, &rates);
            layers.lock().expect("no reader panics")[index] = Some(packed);
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    std::thread::scope(|scope| {
        let readers: Vec<_> = (0..threads).map(|_| scope.spawn(read)).collect();
        readers
            .into_iter()
            .try_for_each(|reader| reader.join().expect("no reader panics"))
    })?;
    Ok(layers
        .into_inner()
        .expect("no reader panics")
        .into_iter()
        .map(|layer| layer.expect("every layer read"))
        .collect())
}

/// Sorts `boards` and their `rates` alike, by board.
fn sort_by_board(boards: &mut Vec<u64>, rates: &mut Vec<f64>) {
    let mut pairs: Vec<(u64, f64)> = boards.iter().copied().zip(rates.iter().copied()).collect();
    pairs.sort_unstable_by_key(|&(board, _)| board);
    (*boards, *rates) = pairs.into_iter().unzip();
}
