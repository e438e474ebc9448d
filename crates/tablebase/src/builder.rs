//! Building a table on disk: generation, then solving, one layer file at a
//! time, resumable after a kill.
//!
//! A table is a folder: `table.json` (the manifest: what the table is and
//! whether it is complete), `layer-NNNN.tbl` (the solved layers, see
//! [`crate::storage`]) and, while building, `work/` with the
//! generated layers (`boards-NNNN`, or `marks-NNNN` for those generated
//! by rank), the rates of the layers solving
//! still needs, as solved (`rates-NNNN`; none for a layer solved whole
//! whose layer file holds the same), the runs of a layer
//! generated in segments (`run-NNNN-NNNN`) and, when thinning to optimal
//! lines, the boards reached (`reached-*`), the positions kept
//! (`kept-NNNN`) and child layers unpacked (`unpacked-NNNN`). Every file is
//! written under a temporary name and renamed, so a file under its real
//! name is complete. A killed build, run again, finds what is complete and
//! goes on from there; it gives the same files as a build that was never
//! interrupted.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::rank::{Marks, Ranked};
use crate::solve::{self, Solved};
use crate::storage::{self, LayerFile, LayerHeader, LayerWriter, Precision, write_atomically};
use crate::work::{
    GENERATED, Generated, RatesFile, Runs, WordWriter, boards_path, check_all, rates_path,
    remove_if_present, unpack, write_solved, write_words,
};
use crate::{Error, Fixed, Formation, FormationSpec, Mover, Rate, Spec, generate, optimal};

/// The manifest's format version: 2 since u32 and f32 tables are solved in
/// their own type ([`crate::rate`]); tables of version 1 were solved in
/// `f64` whatever their precision. Both are read.
pub const MANIFEST_VERSION: u32 = 2;

/// How a table is stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// The precision of the stored rates.
    pub precision: Precision,
    /// Positions whose rate is at or below this are not stored (they read
    /// as 0). The reference stores every rate above 0: 0 here.
    pub prune: f64,
    /// The zstd level of the layer files: 1 by default, which took whole
    /// builds of L3-128 and L3-256 about 4% less CPU time than level 3
    /// for files 2% larger (docs/tablebase-builder.md, "Compression").
    pub level: i32,
    /// Keep only the positions on optimal lines ([`crate::optimal`]).
    #[serde(default)]
    pub optimal_only: bool,
}

impl Options {
    /// Whether the layer files hold every position that solving looks up,
    /// at the very rate it was solved at: for every precision but `u16`
    /// (solved in `f64`, rounded when stored), with nothing pruned. A layer
    /// solved whole then writes no working rates beside its file (they
    /// would be a copy: 1.3 GB for L3-256), and a layer that needs them
    /// later has them written from memory or unpacked from the file.
    fn layers_hold_solved_rates(&self) -> bool {
        self.precision != Precision::U16 && self.prune == 0.0
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            precision: Precision::U32,
            prune: 0.0,
            level: 1,
            optimal_only: false,
        }
    }
}

/// `table.json`: what the table is, how it is stored, whether it is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_VERSION`].
    pub version: u32,
    /// The formation, boards in the reference's order.
    pub formation: FormationSpec,
    /// The target tile (64, 256, ...).
    pub target: u32,
    /// The probability of a 4.
    pub four_rate: f64,
    /// How the layers are stored.
    pub options: Options,
    /// The number of layers.
    pub steps: usize,
    /// The first layer where the target can show.
    pub docheck: usize,
    /// Whether every layer is solved and stored.
    pub complete: bool,
}

impl Manifest {
    fn new(spec: &Spec, options: Options) -> Self {
        Self {
            version: MANIFEST_VERSION,
            formation: spec.formation().spec(),
            target: 1 << spec.target(),
            four_rate: spec.four_rate(),
            options,
            steps: spec.steps(),
            docheck: spec.docheck(),
            complete: false,
        }
    }

    /// The table's definition.
    ///
    /// # Errors
    /// [`Error::Formation`] or [`Error::Target`] for a manifest that does not
    /// define a valid table.
    pub fn spec(&self) -> Result<Spec, Error> {
        let formation = Formation::new(self.formation.clone())?;
        if !self.target.is_power_of_two() {
            return Err(Error::Target {
                target: u64::from(self.target),
                problem: "not a power of two".to_owned(),
            });
        }
        Spec::new(
            formation,
            self.target.trailing_zeros() as u8,
            self.four_rate,
        )
    }

    /// Reads `DIR/table.json`.
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`].
    pub fn read(dir: &Path) -> Result<Self, Error> {
        let path = manifest_path(dir);
        let text = fs::read_to_string(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let manifest: Self = serde_json::from_str(&text).map_err(|error| Error::File {
            path: path.clone(),
            problem: format!("not a table manifest: {error}"),
        })?;
        if !(1..=MANIFEST_VERSION).contains(&manifest.version) {
            return Err(Error::File {
                path,
                problem: format!(
                    "manifest version {}, this build reads versions 1 to {MANIFEST_VERSION}",
                    manifest.version
                ),
            });
        }
        Ok(manifest)
    }

    /// Whether the stored rates are the very values the table was solved
    /// in, so that a position recomputed from its stored children gives
    /// its stored rate exactly: for every precision but `u16` (solved in
    /// `f64`, rounded when stored), since manifest version 2.
    pub fn stores_solved_rates(&self) -> bool {
        self.version >= 2 && self.options.precision != Precision::U16
    }

    fn write(&self, dir: &Path) -> Result<(), Error> {
        let path = manifest_path(dir);
        let text = serde_json::to_string_pretty(self).expect("a manifest serialises");
        write_atomically(&path, |mut file| {
            file.write_all(text.as_bytes())?;
            file.write_all(b"\n")?;
            Ok(file)
        })
        .map_err(|source| Error::Io { path, source })
    }
}

fn manifest_path(dir: &Path) -> PathBuf {
    dir.join("table.json")
}

/// The file of solved layer `index`.
pub fn layer_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("layer-{index:04}.tbl"))
}

/// What a build reports as it goes.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The build starts, with the layers of each phase that an earlier run
    /// completed.
    Start {
        /// The number of layers.
        steps: usize,
        /// Layers generated before.
        generated: usize,
        /// Layers solved before.
        solved: usize,
        /// Whether the table was finished before: nothing is left to do.
        /// (A build killed while thinning to optimal lines has every layer
        /// solved, and thins them again.)
        complete: bool,
    },
    /// A layer was generated.
    Generated {
        /// Its index.
        layer: usize,
        /// Its positions.
        positions: usize,
        /// The time it took.
        elapsed: Duration,
    },
    /// A layer was solved and stored.
    Solved {
        /// Its index.
        layer: usize,
        /// The positions it has.
        positions: usize,
        /// The positions stored.
        stored: usize,
        /// The bytes of its file.
        bytes: u64,
        /// The segments it was solved in: 1 when whole, more when it did
        /// not fit the memory budget.
        segments: usize,
        /// The time it took.
        elapsed: Duration,
    },
    /// A layer was thinned to the positions on optimal lines.
    Thinned {
        /// Its index.
        layer: usize,
        /// The positions kept.
        kept: usize,
        /// The bytes of its file.
        bytes: u64,
    },
}

/// What a finished build comes to.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    /// Positions generated by this run.
    pub generated: u64,
    /// Positions stored by this run.
    pub stored: u64,
    /// Bytes of the layer files written by this run.
    pub bytes: u64,
    /// The wall-clock time.
    pub elapsed: Duration,
    /// The peak resident memory of the process, where the system says.
    pub peak_memory: Option<u64>,
}

/// Builds the table of `spec` in `dir`, or finishes building it there.
///
/// `memory` is the budget in bytes (`None`: no limit). Generation reads a
/// layer's parents in segments whose children fit it, and sorts each
/// segment into a run; the runs are merged in memory when they outgrow a
/// quarter of it, and spilled to disk (then merged into the layer's file)
/// only if their union is still large. Solving holds a layer and the two
/// after it in memory when they fit; otherwise it solves the layer in
/// segments, each fetching from the two layers' working files only the
/// children it looks up. Thinning to optimal lines keeps to the budget
/// too ([`optimal::thin`]). Either way the files are the same.
///
/// # Errors
/// [`Error::File`] if `dir` holds another table (or the same one stored
/// otherwise); [`Error::Io`] for files that cannot be read or written.
pub fn build(
    spec: &Spec,
    dir: &Path,
    options: Options,
    memory: Option<u64>,
    report: &mut dyn FnMut(Event),
) -> Result<Summary, Error> {
    let start = Instant::now();
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Io { path, source }
    };
    fs::create_dir_all(dir).map_err(io(dir))?;
    let manifest = Manifest::new(spec, options);
    match Manifest::read(dir) {
        Ok(existing) if existing.version != MANIFEST_VERSION => {
            return Err(Error::File {
                path: manifest_path(dir),
                problem: format!(
                    "holds a table of manifest version {}, built by an earlier 2048lab whose \
                     rates differ: build in another folder or remove it",
                    existing.version
                ),
            });
        }
        Ok(existing) => {
            let same = Manifest {
                complete: existing.complete,
                ..manifest.clone()
            } == existing;
            if !same {
                return Err(Error::File {
                    path: manifest_path(dir),
                    problem: format!(
                        "holds another table ({}-{}, 4-rate {}, {} rates, pruned at {}, level {}): \
                         build in another folder or remove it",
                        existing.formation.name,
                        existing.target,
                        existing.four_rate,
                        existing.options.precision,
                        existing.options.prune,
                        existing.options.level
                    ),
                });
            }
            if existing.complete {
                let steps = spec.steps();
                report(Event::Start {
                    steps,
                    generated: steps,
                    solved: steps,
                    complete: true,
                });
                return Ok(Summary {
                    elapsed: start.elapsed(),
                    peak_memory: peak_resident_bytes(),
                    ..Summary::default()
                });
            }
        }
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            manifest.write(dir)?;
        }
        Err(error) => return Err(error),
    }
    let work = dir.join("work");
    fs::create_dir_all(&work).map_err(io(&work))?;
    // A killed build may have left files half-written under temporary
    // names; nothing reads them, and the files they were for are rewritten.
    // The files it finished are checked before any is trusted.
    for folder in [dir, &work] {
        remove_temporaries(folder)?;
    }
    check_all(&work)?;
    let steps = spec.steps();
    let solved_before = (0..steps)
        .rev()
        .take_while(|&i| layer_path(dir, i).exists())
        .count();
    let generated_marker = work.join(GENERATED);
    let generated_before = if generated_marker.exists() || solved_before > 0 {
        steps
    } else {
        (0..steps)
            .take_while(|&i| Generated::exists(&work, i))
            .count()
    };
    report(Event::Start {
        steps,
        generated: generated_before,
        solved: solved_before,
        complete: false,
    });
    let mover = Mover::new(spec.formation().large());
    let mut summary = Summary::default();
    // What the layers may take.
    let budget = memory.map(|bytes| bytes.saturating_sub(RESERVE));

    // Generation: each layer from the two before it, a segment at a time
    // (held open from generating them, or read back from their files).
    if generated_before < steps {
        // The last two layers generated, the next layer's parents.
        let mut recent: [Option<Generated>; 2] = [None, None];
        for index in generated_before..steps {
            let began = Instant::now();
            let layer = if index == 0 {
                write_words(&boards_path(&work, 0), &spec.formation().layer_zero())?;
                Generated::open(spec, &work, 0)?
            } else {
                generate_layer(spec, &mover, index, budget, &work, &mut recent)?
            };
            let positions = layer.len();
            recent = [Some(layer), recent[0].take()];
            summary.generated += positions as u64;
            report(Event::Generated {
                layer: index,
                positions,
                elapsed: began.elapsed(),
            });
        }
        File::create(&generated_marker).map_err(io(&generated_marker))?;
    }

    // Solving, in the type the table's precision is solved in
    // ([`crate::rate`]: the reference's numbers).
    let solve_all = match options.precision {
        Precision::F64 | Precision::U16 => solve_all::<f64>,
        Precision::F32 => solve_all::<f32>,
        Precision::U32 => solve_all::<Fixed>,
    };
    let (stored, bytes) = solve_all(
        spec,
        &mover,
        options,
        dir,
        steps - solved_before,
        budget,
        report,
    )?;
    summary.stored += stored;
    summary.bytes += bytes;
    if options.optimal_only {
        let (stored, bytes) = optimal::thin(
            spec,
            dir,
            &work,
            options.level,
            budget,
            &mut |layer, kept, bytes| report(Event::Thinned { layer, kept, bytes }),
        )?;
        (summary.stored, summary.bytes) = (stored, bytes);
    }
    fs::remove_dir_all(&work).map_err(io(&work))?;
    Manifest {
        complete: true,
        ..manifest
    }
    .write(dir)?;
    summary.elapsed = start.elapsed();
    summary.peak_memory = peak_resident_bytes();
    Ok(summary)
}

/// Solves the layers of a generated table from the horizon down to
/// layer 0, from `resume_at` (the lowest layer solved before, or `steps`),
/// in `R`. A layer is solved whole when it and the two after it fit the
/// budget (those two then stay in memory from the layers solved before);
/// otherwise in segments, each fetching from the two layers' working files
/// only the children it looks up. Returns the positions stored and the
/// bytes of their files.
fn solve_all<R: Rate>(
    spec: &Spec,
    mover: &Mover,
    options: Options,
    dir: &Path,
    resume_at: usize,
    budget: Option<u64>,
    report: &mut dyn FnMut(Event),
) -> Result<(u64, u64), Error> {
    let steps = spec.steps();
    let work = dir.join("work");
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
    let mut largest = 0;
    for layer in 0..steps.min(resume_at + 2) {
        let len = if layer < resume_at {
            Generated::len_of(&work, layer)?
        } else {
            working_rates(layer, None)?.map_or(0, |file| file.len())
        };
        largest = largest.max(len);
    }
    // The batches' scratch takes at most a quarter of the budget.
    let threads = rayon::current_num_threads() as u64;
    let batch_most = budget.map_or(solve::BATCH_MOST, |bytes| {
        solve::batch_within(bytes / 4 / threads)
    });
    let scratch = threads * solve::scratch_bytes(largest, batch_most);
    let budget = budget.map(|bytes| bytes.saturating_sub(scratch));
    // Layers index + 1 and index + 2, when in memory.
    let mut held: [Option<Solved<R>>; 2] = [None, None];
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
        let whole = budget.is_none_or(|bytes| {
            whole_bytes_per_position::<R>() * parents.len() as u64
                + held_bytes_per_position::<R>() * (lens[0] + lens[1]) as u64
                <= bytes
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
        let stored = if whole {
            let [next, after] = [0, 1].map(|side| match held[side].take() {
                Some(layer) => Ok(layer),
                None => children[side]
                    .as_ref()
                    .map_or(Ok(Solved::default()), RatesFile::read_all),
            });
            let next = next?;
            let (solved, stored) = solving.whole(&parents, &next, &after?)?;
            held = [Some(solved), Some(next)];
            stored
        } else {
            // Segments fetch their children from working rates.
            for side in 0..2 {
                if let Some(layer) = held[side].take() {
                    children[side] = working_rates(index + 1 + side, Some(&layer))?;
                }
            }
            solving.in_segments::<R>(&parents, &children, segment_positions(budget))?
        };
        total.0 += stored.positions;
        total.1 += stored.bytes;
        report(Event::Solved {
            layer: index,
            positions: parents.len(),
            stored: stored.positions as usize,
            bytes: stored.bytes,
            segments: stored.segments,
            elapsed: began.elapsed(),
        });
        remove_if_present(&rates_path(&work, index + 2))?;
        Generated::remove(&work, index)?;
    }
    Ok(total)
}

/// Bytes of generated children per parent allowed for: up to 16 empty
/// cells with 4 moves each, fewer after the pre-deduplication, and the
/// copy that gathers them for sorting.
const CHILD_BYTES_PER_PARENT: u64 = 2 * 8 * 48;

/// Memory the budget leaves aside for what does not grow with the layers:
/// the program, its move and symmetry tables, the threads' stacks, the
/// buffers of the files being written (16 MiB), and the rank lookups'
/// spare bytes of up to four layers in memory at once
/// ([`crate::rank::SPARE_BYTES`]).
const RESERVE: u64 = (16 << 20) + 4 * crate::rank::SPARE_BYTES;

/// Bytes per position of a layer solved whole in `R`: its boards, rates
/// and lookups (12 and a rate), and the copy of those above 0 that a
/// pruned layer stores (8 and a rate), with 8 of room for the allocator,
/// which cannot always give freed layers back (measured: 32 in all for
/// `f64` let L3-256 within 64 MiB peak 5% over).
const fn whole_bytes_per_position<R>() -> u64 {
    28 + 2 * size_of::<R>() as u64
}

/// Bytes per position of a solved layer held for lookups in `R`: board,
/// rate and lookups (up to 4: [`crate::rank::MOST_BYTES_PER_POSITION`]),
/// with 4 of room.
pub(crate) const fn held_bytes_per_position<R>() -> u64 {
    16 + size_of::<R>() as u64
}

/// Bytes per position of a layer solved in segments: its boards and rates,
/// and the children it looks up (up to 16 empty cells, 2 spawns, 4 moves;
/// far fewer after removing repeats), noted and fetched with their rates.
/// L3 needs about 400.
const SEGMENT_BYTES_PER_POSITION: u64 = 1024;

/// The positions of a layer solved (or thinned) a segment at a time within
/// `budget` bytes: all of them without a budget.
pub(crate) fn segment_positions(budget: Option<u64>) -> usize {
    budget.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / SEGMENT_BYTES_PER_POSITION)
            .unwrap_or(usize::MAX)
            .max(1 << 12)
    })
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
            solve::horizon(spec, boards)
        } else {
            solve::layer(spec, mover, index, boards, [next, after], batch_most)
        }
    }

    /// The positions of `boards` whose rate is above 0 (a missing position
    /// reads as 0), given the two layers after, with their lookups (by rank
    /// from `marks`, the layer's, if given), to be held for the layers
    /// below.
    fn solve<R: Rate>(
        &self,
        boards: &[u64],
        marks: Option<&Marks>,
        next: &Solved<R>,
        after: &Solved<R>,
    ) -> Solved<R> {
        let rates = self.rates(boards, next, after);
        let (kept_boards, kept_rates) = solve::kept(boards, &rates);
        match marks {
            // The rates are held while the lookups are made (as
            // `whole_bytes_per_position` allows for), which saves working
            // out the rank of every position kept.
            Some(marks) => {
                let ranked = Ranked::of_kept(marks, |position| rates[position] > R::default());
                Solved::with_ranks(kept_boards, kept_rates, ranked)
            }
            None => {
                // Not held while the kept positions' lookups are built.
                drop(rates);
                Solved::new(kept_boards, kept_rates)
            }
        }
    }

    /// The header of the layer file, which stores `positions`.
    fn header(&self, positions: u64) -> LayerHeader {
        LayerHeader {
            formation: self.spec.formation().name().to_owned(),
            target: 1 << self.spec.target(),
            four_rate: self.spec.four_rate(),
            precision: self.options.precision,
            layer: self.index,
            positions,
        }
    }

    /// Solves the layer whole, writes its layer file (and its working rates
    /// if the file does not hold them: [`Options::layers_hold_solved_rates`]),
    /// and returns it with what the file came to.
    fn whole<R: Rate>(
        &self,
        parents: &Generated,
        next: &Solved<R>,
        after: &Solved<R>,
    ) -> Result<(Solved<R>, Stored), Error> {
        let solved = self.solve(&parents.read_all()?, parents.marks(), next, after);
        if !self.options.layers_hold_solved_rates() {
            write_solved(&rates_path(self.work, self.index), &solved)?;
        }
        // Pruned, the positions stored are a copy, which needs no lookups.
        let pruned: (Vec<u64>, Vec<R>);
        let (boards, rates) = if self.options.prune > 0.0 {
            pruned = (solved.boards().iter().zip(solved.rates()))
                .filter(|&(_, &rate)| rate.probability() > self.options.prune)
                .unzip();
            (&pruned.0[..], &pruned.1[..])
        } else {
            (solved.boards(), solved.rates())
        };
        let header = self.header(boards.len() as u64);
        let path = layer_path(self.dir, self.index);
        let bytes = storage::write(&path, &header, boards, rates, self.options.level)?;
        let stored = Stored {
            positions: header.positions,
            bytes,
            segments: 1,
        };
        Ok((solved, stored))
    }

    /// Solves the layer `segment` positions at a time, each against the
    /// children it looks up, fetched from the two layers' working `rates`
    /// (`None` past the last layer); writes its working rates as they come,
    /// then its layer file from them. Returns what the file came to.
    fn in_segments<R: Rate>(
        &self,
        parents: &Generated,
        children: &[Option<RatesFile>; 2],
        segment: usize,
    ) -> Result<Stored, Error> {
        let Self {
            spec, mover, index, ..
        } = *self;
        let prune = self.options.prune;
        let path = rates_path(self.work, index);
        let mut out = WordWriter::create(&path)?;
        let (mut stored, mut segments) = (0, 0);
        for start in (0..parents.len()).step_by(segment) {
            segments += 1;
            let boards = parents.read(start, segment.min(parents.len() - start))?;
            let [next, after]: [Solved<R>; 2] = if spec.is_horizon(index) {
                [Solved::default(), Solved::default()]
            } else {
                let wanted = solve::wanted(spec, mover, index, &boards);
                let fetch = |side: usize| {
                    children[side]
                        .as_ref()
                        .map_or(Ok(Solved::default()), |file| file.fetch(&wanted[side]))
                };
                [fetch(0)?, fetch(1)?]
            };
            // A segment is written, not held: it needs no lookups.
            let rates = self.rates(&boards, &next, &after);
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
            &layer_path(self.dir, index),
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

/// Generates layer `index` into its working file from its parent layers,
/// within `memory` if given: the parents (`recent`, the two layers before
/// it, as the build has them open; those it has not are opened there) are
/// read in segments. The children of each are marked by rank when the
/// layer allows it ([`generate::Reached`], its bitmaps within a quarter of
/// the budget), or else sorted into a run; the runs are held within a
/// quarter of the budget, merged in memory when they outgrow it, and go to
/// disk only if their union still takes over half of that (`Runs::push`).
/// Returns the layer, open.
fn generate_layer(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    memory: Option<u64>,
    work: &Path,
    recent: &mut [Option<Generated>; 2],
) -> Result<Generated, Error> {
    let segment = memory.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / 2 / CHILD_BYTES_PER_PARENT)
            .unwrap_or(usize::MAX)
            .max(1 << 12)
    });
    let held_words = memory.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / 4 / 8).unwrap_or(usize::MAX)
    });
    // The layer before (its children after a 2) and the one before it
    // (after a 4).
    let parents: Vec<(usize, u8)> = [(index - 1, 1)]
        .into_iter()
        .chain((index >= 2).then(|| (index - 2, 2)))
        .filter(|&(layer, _)| spec.expands(layer))
        .collect();
    for &(layer, _) in &parents {
        let slot = &mut recent[index - 1 - layer];
        if slot.is_none() {
            *slot = Some(Generated::open(spec, work, layer)?);
        }
    }
    let parents: Vec<(&Generated, usize, u8)> = parents
        .into_iter()
        .map(|(layer, exponent)| {
            let boards = recent[index - 1 - layer].as_ref().expect("opened above");
            (boards, layer, exponent)
        })
        .collect();
    // Each parent layer a segment at a time.
    let pieces = || {
        parents.iter().flat_map(|(boards, layer, exponent)| {
            (0..boards.len()).step_by(segment).map(move |start| {
                let piece = boards.read(start, segment.min(boards.len() - start))?;
                Ok::<_, Error>((piece, *layer, *exponent))
            })
        })
    };
    let count: usize = parents.iter().map(|(boards, ..)| boards.len()).sum();
    let most = (generate::REACHED_BYTES_PER_PARENT * count as u64)
        .min(memory.map_or(u64::MAX, |bytes| bytes / 4));
    if let Some(mut reached) = generate::Reached::new(spec, index, most) {
        let mut inside = true;
        for piece in pieces() {
            let (piece, layer, exponent) = piece?;
            inside &= reached.mark(spec, mover, layer, exponent, &piece);
        }
        if inside {
            let marks = reached.into_marks();
            Generated::write_marks(work, index, &marks)?;
            return Ok(Generated::Marked(Box::new(marks)));
        }
    }
    let mut runs = Runs::new(work.join(format!("run-{index:04}")), held_words);
    for piece in pieces() {
        let (piece, layer, exponent) = piece?;
        runs.push(generate::run(spec, mover, layer, exponent, &piece))?;
    }
    runs.finish(&boards_path(work, index))?;
    Generated::open(spec, work, index)
}

/// Removes the files of `folder` left under temporary names
/// ([`write_atomically`]'s `NAME.tmp-PID`) by a build that was killed.
fn remove_temporaries(folder: &Path) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: folder.to_owned(),
        source,
    };
    for entry in fs::read_dir(folder).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().contains(".tmp-"))
        {
            remove_if_present(&path)?;
        }
    }
    Ok(())
}

/// The peak resident memory of this process (Linux: `VmHWM`).
pub fn peak_resident_bytes() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
