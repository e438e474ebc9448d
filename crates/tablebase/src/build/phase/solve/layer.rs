//! Solving one layer ([`Solving`]): whole, held for the layers below, or
//! a segment at a time through its working rates; its layer file written.

use std::path::Path;

use system::AtomicFile;

use crate::base::expectation;
use crate::base::layer::Solved;
use crate::base::layer::rank::{Marks, Ranked};
use crate::base::sort::sort_with_values;
use crate::build::segment::Segments;
use crate::build::solve;
use crate::build::work::{
    Generated, RatesFile, WordWriter, fetch_children, rates_path, write_solved,
};
use crate::build::{Options, layer_path};
use crate::format::layer_file::{LayerHeader, LayerWriter};
use crate::{Error, Mover, Rate, Spec};

use super::budget::FetchingBytes;

/// The positions of `boards` whose rate in `rates` is above 0, with their
/// lookups: by rank from `marks` (the layer's, if given) where they take
/// little memory ([`Ranked::of_kept`]), else by rank or through an index
/// as [`Solved::new`] finds them (for a free formation's layer, listed in
/// order of rank, sorted in place and indexed).
pub(super) fn held<R: Rate>(boards: &[u64], rates: Vec<R>, marks: Option<&Marks>) -> Solved<R> {
    let (mut kept_boards, mut kept_rates) = solve::kept(boards, &rates);
    // The rates are held while the lookups are made (as
    // `whole_bytes_per_position` allows for), which saves working out the
    // rank of every position kept.
    let ranked =
        marks.and_then(|marks| Ranked::of_kept(marks, |position| rates[position] > R::default()));
    drop(rates);
    match (ranked, marks) {
        (Some(ranked), _) => Solved::with_ranks(kept_boards, kept_rates, Some(ranked)),
        (None, Some(marks)) if marks.is_free() => {
            sort_with_values(&mut kept_boards, &mut kept_rates);
            Solved::with_ranks(kept_boards, kept_rates, None)
        }
        (None, Some(_)) => Solved::with_ranks(kept_boards, kept_rates, None),
        (None, None) => Solved::new(kept_boards, kept_rates),
    }
}

/// Positions per piece when a layer file is written from working rates.
const STORE_PIECE: usize = 1 << 16;

/// What a solved layer's file came to.
pub(super) struct Stored {
    /// The positions in the file.
    pub(super) positions: u64,
    /// Its size.
    pub(super) bytes: u64,
    /// The segments the layer was solved in.
    pub(super) segments: usize,
}

/// Where the segments of a layer find the children they look up, and how
/// large the segments are.
pub(super) enum Children<'a, R> {
    /// The two layers after it, in memory; segments of this many positions.
    Held([&'a Solved<R>; 2], usize),
    /// Their working rates (`None` past the last layer), from which each
    /// segment fetches the children it looks up; segments cut by what
    /// their positions and those children take ([`fetching_bytes`](super::fetching_bytes)).
    Files(&'a [Option<RatesFile>; 2], Segments<'a, FetchingBytes>),
}

/// One layer being solved, and where its files go.
pub(super) struct Solving<'a> {
    pub(super) spec: &'a Spec,
    pub(super) mover: &'a Mover,
    pub(super) index: usize,
    /// The most children a batch of the solve lists for each spawn.
    pub(super) batch_most: usize,
    pub(super) options: Options,
    pub(super) dir: &'a Path,
    pub(super) work: &'a Path,
}

impl Solving<'_> {
    /// The rates of `boards`, given the two layers after.
    fn rates<R: Rate>(&self, boards: &[u64], next: &Solved<R>, after: &Solved<R>) -> Vec<R> {
        let Self {
            spec,
            mover,
            index,
            batch_most,
            ..
        } = *self;
        if spec.is_horizon(index) {
            expectation::horizon(spec, boards)
        } else {
            solve::layer(spec, mover, index, boards, [next, after], batch_most)
        }
    }

    /// The positions of `boards` whose rate is above 0 (a missing position
    /// reads as 0), given the two layers after, with their lookups, to be
    /// held for the layers below ([`held`]).
    fn solve<R: Rate>(
        &self,
        boards: &[u64],
        marks: Option<&Marks>,
        next: &Solved<R>,
        after: &Solved<R>,
    ) -> Solved<R> {
        held(boards, self.rates(boards, next, after), marks)
    }

    /// The header of the layer file, which stores `positions`.
    fn header(&self, positions: u64) -> LayerHeader {
        LayerHeader::new(self.spec, self.options.precision, self.index, positions)
    }

    /// Solves the layer whole, writes its layer file (and its working rates
    /// if the file does not hold them: [`Options::layers_hold_solved_rates`]),
    /// and returns it with what the file came to and the file, to be
    /// flushed to disk and renamed into place behind, after the one before.
    pub(super) fn whole<R: Rate>(
        &self,
        parents: &Generated,
        next: &Solved<R>,
        after: &Solved<R>,
    ) -> Result<(Solved<R>, Stored, AtomicFile), Error> {
        let solved = self.solve(&parents.read_all_canonical()?, parents.marks(), next, after);
        if !self.options.layers_hold_solved_rates() {
            write_solved(&rates_path(self.work, self.index), &solved)?;
        }
        // Pruned, the positions stored are a copy, which needs no lookups.
        let (boards, rates) = solved.sorted();
        let pruned: (Vec<u64>, Vec<R>);
        let (boards, rates) = if self.options.prune > 0.0 {
            pruned = (boards.iter().zip(rates.iter()))
                .filter(|&(_, &rate)| rate.probability() > self.options.prune)
                .unzip();
            (&pruned.0[..], &pruned.1[..])
        } else {
            (&boards[..], &rates[..])
        };
        let header = self.header(boards.len() as u64);
        let path = layer_path(self.dir, self.index);
        let mut writer = LayerWriter::create(&path, &header, self.options.level)?;
        writer.push(boards, rates)?;
        let (file, bytes) = writer.finish_unsynced()?;
        let stored = Stored {
            positions: header.positions,
            bytes,
            segments: 1,
        };
        Ok((solved, stored, file))
    }

    /// Solves the layer a segment at a time against its `children`; writes
    /// its working rates as they come, then its layer file from them.
    /// Returns what the file came to.
    pub(super) fn in_segments<R: Rate>(
        &self,
        parents: &Generated,
        mut children: Children<'_, R>,
    ) -> Result<Stored, Error> {
        let prune = self.options.prune;
        let path = rates_path(self.work, self.index);
        let mut out = WordWriter::create(&path)?;
        let (mut stored, mut segments) = (0, 0);
        let mut start = 0;
        while start < parents.len() {
            segments += 1;
            let (boards, fetched): (Vec<u64>, [Solved<R>; 2]);
            let [next, after] = match &mut children {
                Children::Held(layers, segment) => {
                    boards = parents.read(start, (*segment).min(parents.len() - start))?;
                    *layers
                }
                Children::Files(files, cut) => {
                    let sought;
                    (boards, sought) =
                        cut.next(start, parents.len(), |at, count| parents.piece(at, count))?;
                    fetched = fetch_children(files, &sought.finish())?;
                    [&fetched[0], &fetched[1]]
                }
            };
            start += boards.len();
            // A segment is written, not held: it needs no lookups.
            let rates = self.rates(&boards, next, after);
            let (kept_boards, kept_rates) = solve::kept(&boards, &rates);
            stored += kept_rates
                .iter()
                .filter(|&&rate| rate.probability() > prune)
                .count() as u64;
            out.extend_solved(&kept_boards, &kept_rates)?;
        }
        out.finish()?;
        let header = self.header(stored);
        let bytes = store_layer(
            &layer_path(self.dir, self.index),
            &header,
            &RatesFile::open(&path)?,
            |rate: R| rate.probability() > prune,
            self.options.level,
        )?;
        Ok(Stored {
            positions: stored,
            bytes,
            segments,
        })
    }
}

/// Writes the layer file of `header` from a layer's working rates, a piece
/// at a time, with the positions whose rate `keep` accepts. Returns its
/// size in bytes.
pub(crate) fn store_layer<R: Rate>(
    path: &Path,
    header: &LayerHeader,
    rates: &RatesFile,
    keep: impl Fn(R) -> bool,
    level: i32,
) -> Result<u64, Error> {
    let mut writer = LayerWriter::create(path, header, level)?;
    for start in (0..rates.len()).step_by(STORE_PIECE) {
        let (boards, rates) = rates.read(start, STORE_PIECE.min(rates.len() - start))?;
        let (boards, rates): (Vec<u64>, Vec<R>) = boards
            .into_iter()
            .zip(rates)
            .filter(|&(_, rate)| keep(rate))
            .unzip();
        writer.push(&boards, &rates)?;
    }
    writer.finish()
}
