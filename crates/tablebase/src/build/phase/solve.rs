//! Solving a generated table's layers into their layer files within the
//! budget: each layer whole, or in segments against the two layers after
//! it, held in memory or fetched from their working files.

use std::path::Path;
use std::time::Instant;

use crate::base::expectation;
use crate::base::layer::Solved;
use crate::base::layer::rank::{
    MOST_BYTES_PER_FREE_POSITION, MOST_BYTES_PER_POSITION, Marks, Ranked,
};
use crate::base::sort::sort_with_values;
use crate::build::segment::{LEAST_SEGMENT, Segments};
use crate::build::solve;
use crate::build::work::{
    Generated, RatesFile, WordWriter, WriteBehind, fetch_children, rates_path, remove_if_present,
    unpack, write_solved,
};
use crate::build::{Event, Options, WORK, layer_path};
use crate::format::layer_file::{LayerFile, LayerHeader, LayerWriter};
use crate::{Error, Mover, Rate, Spec};

/// Solves the layers of a generated table from the horizon down to
/// layer 0, from `resume_at` (the lowest layer solved before, or `steps`),
/// in `R`, each as [`Plan::within`] the budget says: whole, or in
/// segments against the two layers after it in memory, or in segments
/// fetching from their working files only the children each looks up
/// (the two layers after stay in memory from the layers solved before
/// when they are held). Returns the positions stored and the bytes of
/// their files.
pub(crate) fn solve_all<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    options: Options,
    dir: &Path,
    resume_at: usize,
    budget: Option<u64>,
    report: &mut dyn FnMut(Event),
) -> Result<(u64, u64), Error> {
    let steps = spec.steps();
    let work = dir.join(WORK);
    let mut total = (0, 0);
    // The working rates of a solved layer (`None` past the last). A layer
    // solved whole may have none ([`Options::layers_hold_solved_rates`]):
    // they are written from the layer, if `held` in memory, or else
    // unpacked from its layer file.
    let working_rates = |layer: usize, held: Option<&Solved<R>>| {
        if layer >= steps {
            return Ok(None);
        }
        let path = rates_path(&work, layer);
        if !path.exists() {
            match held {
                Some(solved) => write_solved(&path, solved)?,
                None => {
                    let file = LayerFile::open(&layer_path(dir, layer))?;
                    return unpack::<R>(&file, &path).map(Some);
                }
            }
        }
        RatesFile::open(&path).map(Some)
    };
    // Less the solving threads' scratch, if the child layers left to solve
    // from (at most the layers generated) outgrow the caches. A resumed
    // build unpacks the two layers solved last here, for the next layer.
    let (mut largest, mut left) = (0, 0);
    for layer in 0..steps.min(resume_at + 2) {
        let len = if layer < resume_at {
            let len = Generated::len_of(&work, layer)?;
            left += len as u64;
            len
        } else {
            working_rates(layer, None)?.map_or(0, |file| file.len())
        };
        largest = largest.max(len);
    }
    report(Event::Solving {
        layers: resume_at,
        positions: left,
    });
    // The batches' scratch takes at most a quarter of the budget.
    let threads = rayon::current_num_threads() as u64;
    let batch_most = budget.map_or(solve::BATCH_MOST, |bytes| {
        solve::batch_within(bytes / 4 / threads)
    });
    let scratch = threads * solve::scratch_bytes(largest, batch_most);
    let budget = budget.map(|bytes| bytes.saturating_sub(scratch));
    // Layers index + 1 and index + 2, when in memory.
    let mut held: [Option<Solved<R>>; 2] = [None, None];
    let mut writing = WriteBehind::default();
    for index in (0..resume_at).rev() {
        let began = Instant::now();
        let parents = Generated::open(spec, &work, index)?;
        // The layers not held are read from their working rates.
        let mut children = [None, None];
        for side in 0..2 {
            if held[side].is_none() {
                children[side] = working_rates(index + 1 + side, None)?;
            }
        }
        let lens = [0, 1].map(|side| match (&held[side], &children[side]) {
            (Some(layer), _) => layer.len(),
            (None, file) => file.as_ref().map_or(0, RatesFile::len),
        });
        let solving = Solving {
            spec,
            mover,
            index,
            batch_most,
            options,
            dir,
            work: &work,
        };
        // A free formation's layer solved by class holds lookups that may
        // take more, and writes its file from a sorted copy of the
        // positions it keeps (8 and a rate).
        let by_class = parents.marks().is_some_and(Marks::is_free);
        let whole = whole_bytes_per_position::<R>()
            + u64::from(by_class) * (FREE_LOOKUP_BYTES + 8 + size_of::<R>() as u64);
        let held_bytes = [0, 1]
            .map(|side| match &held[side] {
                Some(layer) => layer.bytes() + HELD_ROOM * layer.len() as u64,
                None => held_bytes_per_position::<R>() * lens[side] as u64,
            })
            .iter()
            .sum();
        let plan = Plan::within(budget, parents.len(), whole, held_bytes);
        // Segments read their positions in increasing order, which a free
        // formation's marks list in order of rank.
        let parents = match plan {
            Plan::Whole => parents,
            Plan::Held(_) | Plan::Fetched(_) => {
                let words = budget.map_or(usize::MAX, |bytes| {
                    usize::try_from(bytes / 4 / 8).unwrap_or(usize::MAX)
                });
                parents.into_sorted(&work, index, words)?
            }
        };
        let stored = if let Plan::Fetched(segment_bytes) = plan {
            // Segments fetch their children from working rates, and write
            // their file after the file written behind.
            writing.wait()?;
            for side in 0..2 {
                if let Some(layer) = held[side].take() {
                    children[side] = working_rates(index + 1 + side, Some(&layer))?;
                }
            }
            let seek = (!spec.is_horizon(index)).then_some((spec, mover, index));
            let cost: FetchingBytes = |batch, sought| fetching_bytes::<R>(batch.len(), sought);
            let children = Children::Files(&children, Segments::new(segment_bytes, cost, seek));
            let stored = solving.in_segments::<R>(&parents, children)?;
            layer_done(&work, index)?;
            stored
        } else {
            // The two layers after it in memory, held or read whole.
            let [next, after] = [0, 1].map(|side| match held[side].take() {
                Some(layer) => Ok(layer),
                None => children[side]
                    .as_ref()
                    .map_or(Ok(Solved::default()), RatesFile::read_all),
            });
            let (next, after) = (next?, after?);
            if let Plan::Held(segment) = plan {
                writing.wait()?;
                let children = Children::Held([&next, &after], segment);
                let stored = solving.in_segments(&parents, children)?;
                layer_done(&work, index)?;
                // The layers below read this one from its working rates.
                held = [None, Some(next)];
                stored
            } else {
                let (solved, stored) = solving.whole(&parents, &next, &after, &mut writing)?;
                held = [Some(solved), Some(next)];
                stored
            }
        };
        total.0 += stored.positions;
        total.1 += stored.bytes;
        report(Event::Solved {
            layer: index,
            positions: parents.len(),
            stored: stored.positions as usize,
            bytes: stored.bytes,
            segments: stored.segments,
            fetched: matches!(plan, Plan::Fetched(_)),
            elapsed: began.elapsed(),
        });
    }
    writing.wait()?;
    Ok(total)
}

/// Removes what solving layer `index` no longer needs once its file is in
/// place: its generated layer and the working rates of layer `index + 2`.
fn layer_done(work: &Path, index: usize) -> Result<(), Error> {
    remove_if_present(&rates_path(work, index + 2))?;
    Generated::remove(work, index)
}

/// Bytes per position of a layer solved whole in `R`: its boards, rates
/// and lookups (12 and a rate), and the copy of those above 0 that a
/// pruned layer stores (8 and a rate), with 8 of room for the allocator,
/// which cannot always give freed layers back (measured: 32 in all for
/// `f64` let L3-256 within 64 MiB peak 5% over).
const fn whole_bytes_per_position<R>() -> u64 {
    28 + 2 * size_of::<R>() as u64
}

/// Bytes per position of a solved layer read whole from its working rates
/// in `R`, to be held for lookups: board, rate and lookups (up to
/// [`MOST_BYTES_PER_POSITION`]: [`Ranked::new`]), with [`HELD_ROOM`]. A
/// layer held since it was solved counts what it takes
/// ([`Solved::bytes`]): its lookups by rank may take more a position
/// kept ([`Ranked::of_kept`]).
pub(crate) const fn held_bytes_per_position<R>() -> u64 {
    8 + size_of::<R>() as u64 + MOST_BYTES_PER_POSITION + HELD_ROOM
}

/// Bytes of room for the allocator beside each position of a layer held.
const HELD_ROOM: u64 = 4;

/// The bytes a position of a free formation's layer solved by class may
/// take for its lookups beyond [`held_bytes_per_position`]'s.
const FREE_LOOKUP_BYTES: u64 = MOST_BYTES_PER_FREE_POSITION - MOST_BYTES_PER_POSITION;

/// Bytes of `positions` of a segment that fetches its children, solved in `R`,
/// and of the `sought` boards they look up
/// ([`Sought::len`](crate::base::expectation::Sought::len)): 8 and a rate for a
/// position's board and rate, as much again for the copies the segment keeps; 8
/// for a sought board in the lists, then, fetched, its board, rate and lookups
/// ([`held_bytes_per_position`]). Merging the lists takes no more: 8 bytes a
/// board for the lists, 8 for the merged.
pub(crate) const fn fetching_bytes<R>(positions: usize, sought: usize) -> u64 {
    let rate = size_of::<R>() as u64;
    (16 + 2 * rate) * positions as u64 + (8 + held_bytes_per_position::<R>()) * sought as u64
}

/// How a layer is solved within the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// Whole, with the two layers after it in memory.
    Whole,
    /// In segments of this many positions, against the two layers after it
    /// in memory.
    Held(usize),
    /// In segments of this many bytes, each fetching the children it looks
    /// up from the two layers' working rates.
    Fetched(u64),
}

impl Plan {
    /// The plan for a layer of `parents` positions, each taking `whole`
    /// bytes to be solved whole, whose two layers after take `held` bytes
    /// in memory, within `budget` bytes (`None`: no limit). Children held
    /// in memory cost no reads and no sorting, where each segment that
    /// fetches them reads the pieces of their files that hold them (for
    /// free8, nearly all: `tb-build build free8 16 --memory 150M -p 2`
    /// took 16.0 s to solve its layers so, 7.8 s with them held, and 5.6 s
    /// without a budget), so they are held whenever a segment of
    /// [`LEAST_SEGMENT`] positions fits beside them.
    fn within(budget: Option<u64>, parents: usize, whole: u64, held: u64) -> Self {
        let Some(bytes) = budget else {
            return Self::Whole;
        };
        let room = bytes.checked_sub(held).map_or(0, |left| left / whole);
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        if room >= parents && held <= bytes {
            Self::Whole
        } else if room >= LEAST_SEGMENT {
            Self::Held(room)
        } else {
            Self::Fetched(bytes)
        }
    }
}

/// The positions of `boards` whose rate in `rates` is above 0, with their
/// lookups: by rank from `marks` (the layer's, if given) where they take
/// little memory ([`Ranked::of_kept`]), else by rank or through an index
/// as [`Solved::new`] finds them (for a free formation's layer, listed in
/// order of rank, sorted in place and indexed).
fn held<R: Rate>(boards: &[u64], rates: Vec<R>, marks: Option<&Marks>) -> Solved<R> {
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
struct Stored {
    /// The positions in the file.
    positions: u64,
    /// Its size.
    bytes: u64,
    /// The segments the layer was solved in.
    segments: usize,
}

/// Where the segments of a layer find the children they look up, and how
/// large the segments are.
enum Children<'a, R> {
    /// The two layers after it, in memory; segments of this many positions.
    Held([&'a Solved<R>; 2], usize),
    /// Their working rates (`None` past the last layer), from which each
    /// segment fetches the children it looks up; segments cut by what
    /// their positions and those children take ([`fetching_bytes`]).
    Files(&'a [Option<RatesFile>; 2], Segments<'a, FetchingBytes>),
}

/// What a batch of positions of a segment that fetches its children
/// takes, given the children it adds to the segment's: [`fetching_bytes`]
/// in the layer's rates.
type FetchingBytes = fn(&[u64], usize) -> u64;

/// One layer being solved, and where its files go.
struct Solving<'a> {
    spec: &'a Spec,
    mover: &'a Mover,
    index: usize,
    /// The most children a batch of the solve lists for each spawn.
    batch_most: usize,
    options: Options,
    dir: &'a Path,
    work: &'a Path,
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
    /// and returns it with what the file came to. The file is flushed to
    /// disk and renamed into place behind (`writing`), after the one
    /// before; the files the layer needed are removed once it is in place
    /// ([`layer_done`]).
    fn whole<R: Rate>(
        &self,
        parents: &Generated,
        next: &Solved<R>,
        after: &Solved<R>,
        writing: &mut WriteBehind,
    ) -> Result<(Solved<R>, Stored), Error> {
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
        let (work, index) = (self.work.to_owned(), self.index);
        writing.start(move || {
            file.commit()?;
            layer_done(&work, index)
        })?;
        let stored = Stored {
            positions: header.positions,
            bytes,
            segments: 1,
        };
        Ok((solved, stored))
    }

    /// Solves the layer a segment at a time against its `children`; writes
    /// its working rates as they come, then its layer file from them.
    /// Returns what the file came to.
    fn in_segments<R: Rate>(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept positions of a free formation's layer listed in order of
    /// rank are held as ranked where that takes little memory, and else
    /// sorted and indexed: either way, every board reads its rate.
    #[test]
    fn free_layers_are_held_ranked_or_sorted() {
        use crate::base::layer::rank::{Marks, Space, bitmap_words};
        let space = Space::placed(8, 24, |_, _| true).unwrap();
        let words = bitmap_words(space.len()) as usize;
        let marks = |ranks: &mut dyn Iterator<Item = u64>| {
            let mut bits = vec![0; words];
            for rank in ranks {
                bits[(rank / 64) as usize] |= 1 << (rank % 64);
            }
            Marks::new(space.clone(), bits).unwrap()
        };
        let rate = |board: u64| (board % 5) as f64 / 4.0;
        for (step, ranked) in [(40, true), (1300, false)] {
            // The boards listed for every step-th rank, marked by their own
            // ranks (a content that a symmetry of its placement makes
            // smaller ranks as the smaller).
            let listed = marks(&mut (0..space.len()).step_by(step)).read(0, usize::MAX);
            let marks = marks(&mut listed.iter().map(|&board| space.rank(board).unwrap()));
            let boards = marks.read_canonical(0, usize::MAX);
            let rates = boards.iter().map(|&board| rate(board)).collect();
            let solved = held(&boards, rates, Some(&marks));
            let kept = boards.iter().filter(|&&board| rate(board) > 0.0).count();
            assert_eq!(solved.len(), kept);
            // Ranked, in order of rank; else sorted.
            assert_eq!(solved.boards().is_sorted(), !ranked, "{step}");
            for &board in &boards {
                assert_eq!(solved.rate(board), rate(board), "{board:016x}");
            }
        }
    }

    /// Whole while the layer and the two after it fit; then in segments
    /// as large as fit beside the two after, held in memory, down to
    /// [`LEAST_SEGMENT`] positions; then fetching.
    #[test]
    fn a_layer_is_solved_as_the_budget_allows() {
        let (parents, children) = (100_000, 50_000);
        let held = held_bytes_per_position::<f64>() * children as u64;
        let per_parent = whole_bytes_per_position::<f64>();
        let plan = |budget| Plan::within(budget, parents, per_parent, held);
        let fits = held + per_parent * parents as u64;
        assert_eq!(plan(None), Plan::Whole);
        assert_eq!(plan(Some(fits)), Plan::Whole);
        assert_eq!(plan(Some(fits - 1)), Plan::Held(parents - 1));
        let least = held + per_parent * LEAST_SEGMENT as u64;
        assert_eq!(plan(Some(least)), Plan::Held(LEAST_SEGMENT));
        for budget in [least - 1, held, held - 1, 0] {
            assert_eq!(plan(Some(budget)), Plan::Fetched(budget), "{budget}");
        }
        // A layer of no positions does not read the layers after it whole
        // when they are over the budget.
        let plan = Plan::within(Some(held - 1), 0, per_parent, held);
        assert!(matches!(plan, Plan::Fetched(_)), "{plan:?}");
    }
}
