//! Building a table on disk: generation, then solving, one layer file at a
//! time, resumable after a kill.
//!
//! A table is a folder: `table.json` (the manifest: what the table is and
//! whether it is complete), `layer-NNNN.tbl` (the solved layers, see
//! [`crate::storage`]) and, while building, `work/` with the
//! generated layers (`boards-NNNN`) and the full-precision rates of the
//! layers solving still needs (`rates-NNNN`). Every file is written under a
//! temporary name and renamed, so a file under its real name is complete. A
//! killed build, run again, finds what is complete and goes on from there;
//! it gives the same files as a build that was never interrupted.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::solve::{self, Solved};
use crate::storage::{self, LayerHeader, Precision, write_atomically};
use crate::{Error, Formation, FormationSpec, Mover, Spec, generate, optimal};

/// The manifest's format version.
pub const MANIFEST_VERSION: u32 = 1;

/// How a table is stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// The precision of the stored rates.
    pub precision: Precision,
    /// Positions whose rate is at or below this are not stored (they read
    /// as 0). The reference stores every rate above 0: 0 here.
    pub prune: f64,
    /// The zstd level of the layer files.
    pub level: i32,
    /// Keep only the positions on optimal lines ([`crate::optimal`]).
    #[serde(default)]
    pub optimal_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            precision: Precision::U32,
            prune: 0.0,
            level: 3,
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
        if manifest.version != MANIFEST_VERSION {
            return Err(Error::File {
                path,
                problem: format!(
                    "manifest version {}, this build reads version {MANIFEST_VERSION}",
                    manifest.version
                ),
            });
        }
        Ok(manifest)
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
    /// The build starts, `done` layers of each phase already complete from
    /// an earlier run.
    Start {
        /// The number of layers.
        steps: usize,
        /// Layers generated before.
        generated: usize,
        /// Layers solved before.
        solved: usize,
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
/// `memory` is the budget of generation, in bytes: a layer whose children
/// would take more is generated in segments, each sorted into a run on disk,
/// and the runs merged (the layers themselves are held whole). `None`: no
/// limit.
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
    let steps = spec.steps();
    let solved_before = (0..steps)
        .rev()
        .take_while(|&i| layer_path(dir, i).exists())
        .count();
    let generated_marker = work.join("generated");
    let generated_before = if generated_marker.exists() || solved_before > 0 {
        steps
    } else {
        (0..steps)
            .take_while(|&i| boards_path(&work, i).exists())
            .count()
    };
    report(Event::Start {
        steps,
        generated: generated_before,
        solved: solved_before,
    });
    let mover = Mover::new(spec.formation().large());
    let mut summary = Summary::default();

    // Generation: each layer from the two before it.
    if generated_before < steps {
        // The layers generated last, kept for the next two; after a resume
        // they are read back.
        let mut recent: Vec<Option<Vec<u64>>> = vec![None; steps];
        for index in generated_before..steps {
            let began = Instant::now();
            let boards = if index == 0 {
                spec.formation().layer_zero()
            } else {
                let parents = [index.checked_sub(1), index.checked_sub(2)];
                for layer in parents.into_iter().flatten() {
                    if recent[layer].is_none() && spec.expands(layer) {
                        recent[layer] = Some(read_u64s(&boards_path(&work, layer))?);
                    }
                }
                let empty = Vec::new();
                let parent = |layer: Option<usize>| match layer {
                    Some(layer) if spec.expands(layer) => recent[layer].as_ref().unwrap_or(&empty),
                    _ => &empty,
                };
                generate_layer(
                    spec,
                    &mover,
                    index,
                    [parent(parents[0]), parent(parents[1])],
                    memory,
                    &work,
                )?
            };
            write_u64s(&boards_path(&work, index), &[&boards])?;
            summary.generated += boards.len() as u64;
            report(Event::Generated {
                layer: index,
                positions: boards.len(),
                elapsed: began.elapsed(),
            });
            if let Some(done) = index.checked_sub(2) {
                recent[done] = None;
            }
            recent[index] = Some(boards);
        }
        File::create(&generated_marker).map_err(io(&generated_marker))?;
    }

    // Solving: from the horizon down, each layer from the two after it.
    // While solving layer i, `next` holds layer i + 1 and `after` i + 2.
    let resume_at = steps - solved_before;
    let load = |layer: usize| {
        if layer < steps && resume_at > 0 {
            read_rates(&rates_path(&work, layer))
        } else {
            Ok(Solved::default())
        }
    };
    let mut next = load(resume_at)?;
    let mut after = load(resume_at + 1)?;
    for index in (0..resume_at).rev() {
        let began = Instant::now();
        let boards = read_u64s(&boards_path(&work, index))?;
        let rates = if spec.is_horizon(index) {
            solve::horizon(spec, &boards)
        } else {
            solve::layer(spec, &mover, index, &boards, &next, &after)
        };
        let positions = boards.len();
        // Only rates above 0 are kept: a missing position reads as 0.
        let (boards, rates) = boards
            .into_iter()
            .zip(rates)
            .filter(|&(_, rate)| rate > 0.0)
            .unzip();
        let solved = Solved::new(boards, rates);
        write_rates(&rates_path(&work, index), &solved)?;
        let pruned;
        let kept = if options.prune > 0.0 {
            pruned = solved.above(options.prune);
            &pruned
        } else {
            &solved
        };
        let header = LayerHeader {
            formation: spec.formation().name().to_owned(),
            target: 1 << spec.target(),
            four_rate: spec.four_rate(),
            precision: options.precision,
            layer: index,
            positions: kept.len() as u64,
        };
        let bytes = storage::write(&layer_path(dir, index), &header, kept, options.level)?;
        summary.stored += kept.len() as u64;
        summary.bytes += bytes;
        report(Event::Solved {
            layer: index,
            positions,
            stored: kept.len(),
            bytes,
            elapsed: began.elapsed(),
        });
        for done in [rates_path(&work, index + 2), boards_path(&work, index)] {
            remove_if_present(&done)?;
        }
        after = std::mem::replace(&mut next, solved);
    }
    if options.optimal_only {
        let (stored, bytes) =
            optimal::thin(spec, dir, options.level, &mut |layer, kept, bytes| {
                report(Event::Thinned { layer, kept, bytes });
            })?;
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

/// Bytes of generated children per parent allowed for: up to 16 empty
/// cells with 4 moves each, after the per-chunk deduplication, and the copy
/// that sorting the segment makes.
const CHILD_BYTES_PER_PARENT: u64 = 2 * 8 * 48;

/// Generates layer `index` from its parents ([`generate::layer_runs`]),
/// within `memory` if given: in segments whose sorted runs go to `work` and
/// are merged back.
fn generate_layer(
    spec: &Spec,
    mover: &Mover,
    index: usize,
    [after_two, after_four]: [&[u64]; 2],
    memory: Option<u64>,
    work: &Path,
) -> Result<Vec<u64>, Error> {
    let segment = memory.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / CHILD_BYTES_PER_PARENT)
            .unwrap_or(usize::MAX)
            .max(1 << 12)
    });
    let mut kept: Option<Vec<u64>> = None;
    let mut spilled: Vec<PathBuf> = Vec::new();
    let mut failed: Option<Error> = None;
    generate::layer_runs(
        spec,
        mover,
        index,
        after_two,
        after_four,
        segment,
        &mut |run| {
            if failed.is_some() {
                return;
            }
            match kept.take() {
                // The first run stays in memory, unless a second one comes.
                None if spilled.is_empty() => kept = Some(run),
                first => {
                    for run in first.into_iter().chain([run]) {
                        let path = work.join(format!("run-{index:04}-{:04}", spilled.len()));
                        if let Err(error) = write_u64s(&path, &[&run]) {
                            failed = Some(error);
                            return;
                        }
                        spilled.push(path);
                    }
                }
            }
        },
    );
    if let Some(error) = failed {
        return Err(error);
    }
    if spilled.is_empty() {
        return Ok(kept.unwrap_or_default());
    }
    let boards = merge_runs(&spilled)?;
    for path in &spilled {
        remove_if_present(path)?;
    }
    Ok(boards)
}

/// The sorted union, without repeats, of sorted runs of u64 in files.
fn merge_runs(paths: &[PathBuf]) -> Result<Vec<u64>, Error> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    use std::io::{BufReader, Read};
    let mut readers = paths
        .iter()
        .map(|path| {
            File::open(path)
                .map(|file| BufReader::with_capacity(1 << 16, file))
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut next = |run: usize| -> Result<Option<u64>, Error> {
        let mut bytes = [0u8; 8];
        match readers[run].read_exact(&mut bytes) {
            Ok(()) => Ok(Some(u64::from_le_bytes(bytes))),
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(source) => Err(Error::Io {
                path: paths[run].clone(),
                source,
            }),
        }
    };
    let mut heap = BinaryHeap::new();
    for run in 0..paths.len() {
        if let Some(board) = next(run)? {
            heap.push(Reverse((board, run)));
        }
    }
    let mut boards: Vec<u64> = Vec::new();
    while let Some(Reverse((board, run))) = heap.pop() {
        if boards.last() != Some(&board) {
            boards.push(board);
        }
        if let Some(following) = next(run)? {
            heap.push(Reverse((following, run)));
        }
    }
    Ok(boards)
}

fn boards_path(work: &Path, index: usize) -> PathBuf {
    work.join(format!("boards-{index:04}"))
}

fn rates_path(work: &Path, index: usize) -> PathBuf {
    work.join(format!("rates-{index:04}"))
}

fn remove_if_present(path: &Path) -> Result<(), Error> {
    match fs::remove_file(path) {
        Err(source) if source.kind() != io::ErrorKind::NotFound => Err(Error::Io {
            path: path.to_owned(),
            source,
        }),
        _ => Ok(()),
    }
}

/// Writes arrays of u64 one after another, little-endian, atomically.
fn write_u64s(path: &Path, arrays: &[&[u64]]) -> Result<(), Error> {
    write_atomically(path, |file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        for array in arrays {
            for value in *array {
                out.write_all(&value.to_le_bytes())?;
            }
        }
        out.into_inner().map_err(io::IntoInnerError::into_error)
    })
    .map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}

fn read_u64s(path: &Path) -> Result<Vec<u64>, Error> {
    let bytes = fs::read(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    if bytes.len() % 8 != 0 {
        return Err(Error::File {
            path: path.to_owned(),
            problem: "a working file of whole u64 values is cut short".to_owned(),
        });
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|chunk| u64::from_le_bytes(chunk.try_into().expect("8 bytes")))
        .collect())
}

/// A solved layer at full precision: the boards, then the bits of the rates.
fn write_rates(path: &Path, solved: &Solved) -> Result<(), Error> {
    let bits: Vec<u64> = solved.rates().iter().map(|rate| rate.to_bits()).collect();
    write_u64s(path, &[solved.boards(), &bits])
}

fn read_rates(path: &Path) -> Result<Solved, Error> {
    let mut values = read_u64s(path)?;
    if values.len() % 2 != 0 {
        return Err(Error::File {
            path: path.to_owned(),
            problem: "a working file of rates is cut short".to_owned(),
        });
    }
    let rates = values
        .split_off(values.len() / 2)
        .into_iter()
        .map(f64::from_bits)
        .collect();
    Ok(Solved::new(values, rates))
}

/// The peak resident memory of this process (Linux: `VmHWM`).
pub fn peak_resident_bytes() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
