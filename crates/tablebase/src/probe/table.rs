//! A built table opened for lookups.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use board::{Board, Direction, Symmetry};

use crate::Position;
use crate::base::hex;
use crate::base::position::{free_sum, large_count, tile_sum};
use crate::format::layer_file::{LayerFile, LayerHeader, Precision};
use crate::format::layer_path;
use crate::format::manifest::Manifest;
use crate::format::partition::{LayerParts, Partitions, part_path};
use crate::probe::stored::StoredLayer;
use crate::probe::unreached;
use crate::probe::verify::{self, Verified};
use crate::{Error, Fixed, Mover, Spec};

/// A finished table in its folder: success rates by position.
#[derive(Debug)]
pub struct Table {
    dir: PathBuf,
    manifest: Manifest,
    spec: Spec,
    mover: Mover,
    layers: Vec<OnceLock<StoredLayer>>,
}

/// The success rate of each move of a position, `None` for a move that is
/// not allowed (it changes nothing, or leaves the formation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveRates {
    /// Rates in [`Direction::ALL`] order: up, right, down, left.
    pub rates: [Option<f64>; 4],
    /// The board as read, turned into the formation's orientation (in
    /// 2048lab's order): `rates` are its moves', each turned back to the
    /// direction it is on the board asked about.
    pub read_as: Position,
}

impl MoveRates {
    /// The best move and its rate, the earlier direction on a tie.
    pub fn best(&self) -> Option<(Direction, f64)> {
        Direction::ALL
            .into_iter()
            .zip(self.rates)
            .filter_map(|(direction, rate)| rate.map(|rate| (direction, rate)))
            .fold(None, |best, (direction, rate)| match best {
                Some((_, best_rate)) if best_rate >= rate => best,
                _ => Some((direction, rate)),
            })
    }
}

impl Table {
    /// Opens the table built in `dir`.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] for a missing, unreadable or
    /// unfinished table.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        let manifest = Manifest::read(dir).map_err(|error| match error {
            // A file given for the folder: its own name says more.
            Error::Io { .. } if dir.is_file() => Error::File {
                path: dir.to_owned(),
                problem: "a file, not a table's folder".to_owned(),
            },
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                Error::File {
                    path: dir.to_owned(),
                    problem: "no table here (no table.json): build one with `tb-build build`"
                        .to_owned(),
                }
            }
            error => error,
        })?;
        if !manifest.complete {
            return Err(Error::File {
                path: dir.to_owned(),
                problem: "the table is not finished: run the build again to complete it".to_owned(),
            });
        }
        let spec = manifest.spec()?;
        Ok(Self {
            dir: dir.to_owned(),
            mover: Mover::new(spec.formation().large()),
            layers: (0..spec.steps()).map(|_| OnceLock::new()).collect(),
            manifest,
            spec,
        })
    }

    /// What the table is.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Its manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Layer `index`, its file or its parts' files opened and checked on
    /// first use.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`] if a file is missing or damaged,
    /// or if its header names another table (formation, target, 4-rate,
    /// precision, layer or part).
    pub fn layer(&self, index: usize) -> Result<&StoredLayer, Error> {
        if let Some(layer) = self.layers[index].get() {
            return Ok(layer);
        }
        let layer = match self.manifest.options.partitions {
            None => {
                StoredLayer::Whole(self.open_file(&layer_path(&self.dir, index), index, None)?)
            }
            Some(count) => {
                let files = (0..count as usize)
                    .map(|part| {
                        let path = part_path(&self.dir, index, part);
                        self.open_file(&path, index, Some(part as u32))
                    })
                    .collect::<Result<Vec<_>, Error>>()?;
                let parts = Partitions::new(count)?;
                let ranked = self.manifest.options.ranked_parts;
                StoredLayer::Parts(LayerParts::new(&self.spec, index, parts, ranked)?, files)
            }
        };
        Ok(self.layers[index].get_or_init(|| layer))
    }

    /// Opens the layer file at `path`, checked to hold part `partition`
    /// (`None`: the whole) of layer `index` of this table.
    fn open_file(
        &self,
        path: &Path,
        index: usize,
        partition: Option<u32>,
    ) -> Result<LayerFile, Error> {
        let file = LayerFile::open(path)?;
        let header = file.header();
        let mut expected = LayerHeader::new(
            &self.spec,
            self.manifest.options.precision,
            index,
            header.positions,
        );
        expected.partition = partition;
        if *header != expected {
            return Err(Error::File {
                path: path.to_owned(),
                problem: "belongs to another table".to_owned(),
            });
        }
        Ok(file)
    }

    /// Checks the table: reads every layer file through (its checksum,
    /// every block, the boards in order) and recomputes up to `samples`
    /// positions of each layer but the horizon from the stored layers
    /// after it, in the type the table was solved in. Where the table
    /// stores the rates it was solved in
    /// ([`Manifest::stores_solved_rates`]) they must come out exactly;
    /// else within the precision; in a pruned table, at most as stored
    /// (pruned children read 0). The positions are drawn by a fixed
    /// sequence, the same on every run.
    ///
    /// # Errors
    /// [`Error::File`] naming the layer file and, for a rate its children
    /// do not give, the position; [`Error::Io`].
    pub fn verify(&self, samples: usize) -> Result<Verified, Error> {
        match self.manifest.options.precision {
            Precision::F64 | Precision::U16 => verify::table::<f64>(self, &self.mover, samples),
            Precision::F32 => verify::table::<f32>(self, &self.mover, samples),
            Precision::U32 => verify::table::<Fixed>(self, &self.mover, samples),
        }
    }

    /// The success rate of an afterstate (a position after a move, before
    /// the spawn: what the table stores), in any of the eight orientations
    /// of the formation.
    ///
    /// A position the table does not hold is solved from the positions it
    /// leads to (as the builder would have, had the seeds led to it), so
    /// that a board from a game gets its rate even where the seeds never
    /// lead to it, except in a pruned table or one thinned to optimal
    /// lines: there, a position the table does not hold reads 0.
    ///
    /// A board may fit the formation in more than one orientation (with
    /// several masks, or a large tile free to move): each is a way to go on
    /// playing the formation, so the board gets the best of them. Every
    /// orientation of a board then gets the same rate.
    ///
    /// # Errors
    /// As [`Table::move_rates`].
    pub fn afterstate_rate(&self, afterstate: Position) -> Result<f64, Error> {
        let afterstate = afterstate.bits();
        let layer = self.layer_of(afterstate)?;
        let canon = self.spec.formation().canon();
        let boards: Vec<u64> = self
            .orientations(afterstate)?
            .into_iter()
            .map(|(seen, _)| canon.canonical(seen))
            .collect();
        Ok(self
            .rates(afterstate, layer, &boards)?
            .into_iter()
            .fold(0.0, f64::max))
    }

    /// The success rate of each move of `board`, a position to move from
    /// (after the spawn), in any of the eight orientations of the
    /// formation. A move is allowed only if it changes the board and keeps
    /// it in the formation, as the table was solved; a move to a position
    /// the table does not hold gets its rate as in
    /// [`Table::afterstate_rate`].
    ///
    /// A board that fits the formation in more than one orientation is
    /// read in the one whose best move is best (see
    /// [`Table::afterstate_rate`]); of those, in the one whose turned
    /// board is smallest, so that every orientation of a board gets the
    /// same rates for the same moves. (A board that is its own image under
    /// a symmetry has two ways to be turned into one board; where they
    /// differ, which is read depends on the board's orientation.)
    ///
    /// # Errors
    /// [`Error::Board`] if no orientation of the board fits the formation
    /// or its tile sum is not the table's, or if solving a position the
    /// table does not hold would take too many more; file errors as
    /// [`Table::layer`].
    pub fn move_rates(&self, board: Position) -> Result<MoveRates, Error> {
        let board = board.bits();
        let layer = self.layer_of(board)?;
        let orientations = self.orientations(board)?;
        // Every allowed move of every orientation, read together.
        let moves: Vec<[Option<u64>; 4]> = orientations
            .iter()
            .map(|&(seen, symmetry)| self.moves(seen, symmetry))
            .collect();
        let moved: Vec<u64> = moves.iter().flatten().flatten().copied().collect();
        let mut rates = self.rates(board, layer, &moved)?.into_iter();
        let readings = orientations
            .iter()
            .zip(moves)
            .map(|(&(seen, _), moves)| MoveRates {
                rates: moves
                    .map(|moved| moved.map(|_| rates.next().expect("a rate for each move"))),
                read_as: Position::from_bits(seen),
            });
        // The best move's rate, then the smaller turned board.
        let score = |rates: &MoveRates| rates.best().map_or(-1.0, |(_, rate)| rate);
        let rates = readings
            .max_by(|rates, other| {
                score(rates)
                    .total_cmp(&score(other))
                    .then(other.read_as.cmp(&rates.read_as))
            })
            .expect("orientations are never empty");
        Ok(rates)
    }

    /// The canonical result of each allowed move of `seen`, a board in the
    /// formation's orientation made by `symmetry`, in the directions of
    /// the board's own orientation.
    fn moves(&self, seen: u64, symmetry: Symmetry) -> [Option<u64>; 4] {
        let formation = self.spec.formation();
        Direction::ALL.map(|direction| {
            let moved = self.mover.slide(seen, symmetry.direction(direction));
            (moved != seen && formation.fits(moved)).then(|| formation.canon().canonical(moved))
        })
    }

    /// The rates of `boards`, canonical positions of layer `index`, in
    /// their order: stored, or solved ([`Table::afterstate_rate`]) for the
    /// query about `asked`.
    fn rates(&self, asked: u64, index: usize, boards: &[u64]) -> Result<Vec<f64>, Error> {
        let file = self.layer(index)?;
        let mut rates = boards
            .iter()
            .map(|&board| file.rate(board))
            .collect::<Result<Vec<f64>, Error>>()?;
        let options = self.manifest.options;
        if options.prune > 0.0 || options.optimal_only {
            return Ok(rates);
        }
        // Positions of rate 0 are not stored either, so every 0 read is a
        // position the table does not hold.
        let missing: Vec<u64> = boards
            .iter()
            .zip(&rates)
            .filter(|&(_, &rate)| rate == 0.0)
            .map(|(&board, _)| board)
            .collect();
        if missing.is_empty() {
            return Ok(rates);
        }
        let Some(solved) = unreached::solve(self, &self.mover, index, &missing, unreached::MOST)?
        else {
            return Err(Error::Board {
                input: hex::format(asked),
                problem: format!(
                    "the table does not hold a position it leads to, and solving that from \
                     the table means solving more than {} positions it does not hold either",
                    unreached::MOST
                ),
            });
        };
        let mut solved = solved.into_iter();
        for rate in rates.iter_mut().filter(|rate| **rate == 0.0) {
            *rate = solved
                .next()
                .expect("one solved rate for each missing board");
        }
        Ok(rates)
    }

    /// The images of `board` that fit the formation, each with the
    /// symmetry that makes it; at least one.
    fn orientations(&self, board: u64) -> Result<Vec<(u64, Symmetry)>, Error> {
        let formation = self.spec.formation();
        let fitting: Vec<(u64, Symmetry)> = Symmetry::ALL
            .into_iter()
            .map(|symmetry| (Board::from_raw(board).transform(symmetry).raw(), symmetry))
            .filter(|&(seen, _)| formation.holds(seen))
            .collect();
        if fitting.is_empty() {
            return Err(Error::Board {
                input: hex::format(board),
                problem: format!("no orientation of it fits formation {}", formation.name()),
            });
        }
        Ok(fitting)
    }

    /// The layer of `board`, found from its tile sum; where no layer has
    /// it, the error says which tiles differ from the table's positions:
    /// the count of large tiles, or the sum of the others.
    fn layer_of(&self, board: u64) -> Result<usize, Error> {
        self.spec.layer_of_sum(tile_sum(board)).ok_or_else(|| {
            let seed = self.spec.formation().seeds()[0];
            let name = self.spec.name();
            let problem = if large_count(board) != large_count(seed) {
                format!(
                    "it holds {} large tiles (f) where the positions of {name} hold {}",
                    large_count(board),
                    large_count(seed)
                )
            } else {
                let first = free_sum(seed);
                let last = first as usize + 2 * (self.spec.steps() - 1);
                format!(
                    "its tiles other than large ones sum to {}, where the layers of {name} \
                         hold sums of {first} to {last} in steps of 2",
                    free_sum(board)
                )
            };
            Error::Board {
                input: hex::format(board),
                problem,
            }
        })
    }
}

/// The tables `dir` names: itself if it is a table's folder (or nothing
/// like a folder of tables, so that opening it says what is wrong), else
/// every folder in it that holds a table, as `tb-build set` writes them,
/// in the order of their names.
pub fn table_dirs(dir: &Path) -> Vec<PathBuf> {
    if dir.join("table.json").exists() {
        return vec![dir.to_owned()];
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![dir.to_owned()];
    };
    let mut tables: Vec<PathBuf> = entries
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.join("table.json").exists())
        .collect();
    if tables.is_empty() {
        return vec![dir.to_owned()];
    }
    tables.sort();
    tables
}
