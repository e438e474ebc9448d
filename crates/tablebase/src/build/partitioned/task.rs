//! The tasks of a partitioned build, each over one part of one layer.

use std::fmt;
use std::fs;
use std::ops::AddAssign;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::base::expectation;
use crate::base::layer::Solved;
use crate::base::sort::{concat, sort_unique, sort_with_values, union};
use crate::build::generate;
use crate::build::solve;
use crate::build::work::{RatesFile, WordReader, WordWriter, write_words};
use crate::build::{WORK, io_error};
use crate::format::layer_file::Precision;
use crate::format::layer_file::{LayerHeader, LayerWriter};
use crate::format::manifest::Manifest;
use crate::format::partition::{Partitions, part_path, parts_dir};
use crate::{Error, Fixed, Mover, Rate, Spec};

/// One task of a partitioned build ([`super::plan`]), named in text as
/// `seed`, `expand/LAYER/PART`, `merge/LAYER/PART`, `solve/LAYER/PART`,
/// `release/LAYER` and `finish`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Layer 0, split into its parts.
    Seed,
    /// The children of part `part` of the two layers before `layer`,
    /// sorted into `layer`'s parts.
    Expand {
        /// The layer generated.
        layer: usize,
        /// The parents' part expanded.
        part: usize,
    },
    /// Part `part` of layer `layer`: what the expansions sent it, merged
    /// without repeats.
    Merge {
        /// The layer generated.
        layer: usize,
        /// Its part.
        part: usize,
    },
    /// Part `part` of layer `layer`, solved from the parts of the two
    /// layers after it that hold its children, into its layer file.
    Solve {
        /// The layer solved.
        layer: usize,
        /// Its part.
        part: usize,
    },
    /// The working files that nothing after solving `layer` reads
    /// (its generated boards, the working rates of `layer + 2`), removed.
    Release {
        /// The layer solved.
        layer: usize,
    },
    /// The table checked whole and marked complete; the working folder
    /// removed.
    Finish,
}

/// What a task came to, for progress lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Done {
    /// The positions generated (seed, merge) or solved (solve).
    pub positions: u64,
    /// The positions stored (solve).
    pub stored: u64,
    /// The bytes of the layer files written (solve).
    pub bytes: u64,
}

impl AddAssign for Done {
    fn add_assign(&mut self, other: Self) {
        self.positions += other.positions;
        self.stored += other.stored;
        self.bytes += other.bytes;
    }
}

impl Task {
    /// The layer the task works on, but for `seed` and `finish`.
    pub fn layer(self) -> Option<usize> {
        match self {
            Self::Seed | Self::Finish => None,
            Self::Expand { layer, .. }
            | Self::Merge { layer, .. }
            | Self::Solve { layer, .. }
            | Self::Release { layer } => Some(layer),
        }
    }

    /// Runs the task on the partitioned table prepared in `dir`
    /// ([`super::prepare`]); a task whose files are there already does
    /// nothing more.
    ///
    /// # Errors
    /// [`Error::Build`] for a task that is not one of the table's, or whose
    /// inputs are missing (a task of an earlier stage has not run);
    /// [`Error::File`] and [`Error::Io`] for its files.
    pub fn run(self, dir: &Path) -> Result<Done, Error> {
        let manifest = Manifest::read(dir)?;
        let spec = manifest.spec()?;
        let Some(count) = manifest.options.partitions else {
            return Err(Error::Build(format!(
                "{}: not a partitioned table",
                dir.display()
            )));
        };
        let at = Folder {
            dir,
            work: dir.join(WORK),
            spec: &spec,
            mover: Mover::new(spec.formation().large()),
            parts: Partitions::new(count)?,
            manifest: &manifest,
        };
        at.check(self)?;
        match manifest.options.precision {
            Precision::F64 | Precision::U16 => at.run::<f64>(self),
            Precision::F32 => at.run::<f32>(self),
            Precision::U32 => at.run::<Fixed>(self),
        }
    }
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Seed => write!(f, "seed"),
            Self::Expand { layer, part } => write!(f, "expand/{layer}/{part}"),
            Self::Merge { layer, part } => write!(f, "merge/{layer}/{part}"),
            Self::Solve { layer, part } => write!(f, "solve/{layer}/{part}"),
            Self::Release { layer } => write!(f, "release/{layer}"),
            Self::Finish => write!(f, "finish"),
        }
    }
}

impl FromStr for Task {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let bad = || {
            Error::Build(format!(
                "task {text:?}: write seed, expand/LAYER/PART, merge/LAYER/PART, \
                 solve/LAYER/PART, release/LAYER or finish"
            ))
        };
        let fields: Vec<&str> = text.split('/').collect();
        let number = |at: usize| fields[at].parse::<usize>().map_err(|_| bad());
        Ok(match (fields[0], fields.len()) {
            ("seed", 1) => Self::Seed,
            ("finish", 1) => Self::Finish,
            ("release", 2) => Self::Release { layer: number(1)? },
            ("expand", 3) => Self::Expand {
                layer: number(1)?,
                part: number(2)?,
            },
            ("merge", 3) => Self::Merge {
                layer: number(1)?,
                part: number(2)?,
            },
            ("solve", 3) => Self::Solve {
                layer: number(1)?,
                part: number(2)?,
            },
            _ => return Err(bad()),
        })
    }
}

/// A partitioned table's folder, as a task sees it.
struct Folder<'a> {
    dir: &'a Path,
    work: PathBuf,
    spec: &'a Spec,
    mover: Mover,
    parts: Partitions,
    manifest: &'a Manifest,
}

impl Folder<'_> {
    /// Checks that `task` is one of the table's: its layer and part exist.
    fn check(&self, task: Task) -> Result<(), Error> {
        let (steps, count) = (self.spec.steps(), self.parts.count());
        let fits = match task {
            Task::Seed | Task::Finish => true,
            Task::Expand { layer, part } | Task::Merge { layer, part } => {
                (1..steps).contains(&layer) && part < count
            }
            Task::Solve { layer, part } => layer < steps && part < count,
            Task::Release { layer } => layer < steps,
        };
        if fits {
            Ok(())
        } else {
            Err(Error::Build(format!(
                "task {task}: the table has layers 0 to {} in {count} parts",
                steps - 1
            )))
        }
    }

    fn run<R: Rate>(&self, task: Task) -> Result<Done, Error> {
        match task {
            Task::Seed => self.seed(),
            Task::Expand { layer, part } => self.expand(layer, part).map(|()| Done::default()),
            Task::Merge { layer, part } => self.merge(layer, part),
            Task::Solve { layer, part } => self.solve::<R>(layer, part),
            Task::Release { layer } => self.release(layer).map(|()| Done::default()),
            Task::Finish => self.finish().map(|()| Done::default()),
        }
    }

    /// The generated boards of part `part` of layer `layer`.
    fn boards_path(&self, layer: usize, part: usize) -> PathBuf {
        self.work
            .join(format!("boards-{layer:04}"))
            .join(format!("part-{part:04}"))
    }

    /// The children that the expansion of part `from` sends to the parts
    /// of layer `layer`: where each part's begin (P + 1 words, counted
    /// after them), then the parts' children in turn, each sorted.
    fn sent_path(&self, layer: usize, from: usize) -> PathBuf {
        self.work
            .join(format!("sent-{layer:04}"))
            .join(format!("from-{from:04}"))
    }

    /// The working rates of part `part` of solved layer `layer`.
    fn rates_path(&self, layer: usize, part: usize) -> PathBuf {
        self.work
            .join(format!("rates-{layer:04}"))
            .join(format!("part-{part:04}"))
    }

    /// Whether part `part` of layer `layer` is generated: its boards
    /// are there, or it is solved already (its boards then let go).
    fn merged(&self, layer: usize, part: usize) -> bool {
        self.boards_path(layer, part).exists() || part_path(self.dir, layer, part).exists()
    }

    /// Whether every part of layer `layer` is generated.
    fn generated(&self, layer: usize) -> bool {
        (0..self.parts.count()).all(|part| self.merged(layer, part))
    }

    /// Reads a working file of boards a task of an earlier stage wrote.
    fn read_input(&self, path: &Path) -> Result<Vec<u64>, Error> {
        if !path.exists() {
            return Err(missing(path));
        }
        WordReader::open(path)?.read_all()
    }

    /// The children that the expansion of part `from` sent to part `to`
    /// of layer `layer`.
    fn read_sent(&self, layer: usize, from: usize, to: usize) -> Result<Vec<u64>, Error> {
        let path = self.sent_path(layer, from);
        if !path.exists() {
            return Err(missing(&path));
        }
        let sent = WordReader::open(&path)?;
        let count = self.parts.count();
        let starts = sent.read(to, 2)?;
        let first = count + 1 + starts[0] as usize;
        sent.read(first, (starts[1] - starts[0]) as usize)
    }

    /// Writes `boards` to `path`, its folder made if need be.
    fn write(path: &Path, boards: &[u64]) -> Result<(), Error> {
        make_folder_of(path)?;
        write_words(path, boards)
    }

    fn seed(&self) -> Result<Done, Error> {
        let boards = self.spec.formation().layer_zero();
        if !self.generated(0) {
            for (part, boards) in self.parts.split(&boards).iter().enumerate() {
                Self::write(&self.boards_path(0, part), boards)?;
            }
        }
        Ok(Done {
            positions: boards.len() as u64,
            ..Done::default()
        })
    }

    fn expand(&self, layer: usize, part: usize) -> Result<(), Error> {
        if self.generated(layer) || self.sent_path(layer, part).exists() {
            return Ok(());
        }
        let mut runs = Vec::new();
        for (parent, exponent) in [(layer.checked_sub(1), 1), (layer.checked_sub(2), 2)] {
            if let Some(parent) = parent.filter(|&parent| self.spec.expands(parent)) {
                let boards = self.read_input(&self.boards_path(parent, part))?;
                runs.push(generate::run(
                    self.spec,
                    &self.mover,
                    parent,
                    exponent,
                    &boards,
                ));
            }
        }
        let runs: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
        let sent = self.parts.split(&union(&runs));
        let starts = sent.iter().scan(0, |start, boards| {
            let at = *start;
            *start += boards.len() as u64;
            Some(at)
        });
        let mut starts: Vec<u64> = starts.collect();
        starts.push(sent.iter().map(|boards| boards.len() as u64).sum());
        let path = self.sent_path(layer, part);
        make_folder_of(&path)?;
        let mut out = WordWriter::create(&path)?;
        out.extend(&starts)?;
        for boards in &sent {
            out.extend(boards)?;
        }
        out.finish()
    }

    fn merge(&self, layer: usize, part: usize) -> Result<Done, Error> {
        let path = self.boards_path(layer, part);
        let count = self.parts.count();
        if part_path(self.dir, layer, part).exists() {
            return Ok(Done::default());
        }
        if !path.exists() {
            let sent = (0..count)
                .map(|from| self.read_sent(layer, from, part))
                .collect::<Result<Vec<_>, Error>>()?;
            // One radix sort of them all: a merge of P runs by a heap
            // took a tenth of a partitioned build's time.
            Self::write(&path, &sort_unique(concat(sent)))?;
        }
        // The last part merged lets the expansions go.
        if self.generated(layer) {
            let sent = self.work.join(format!("sent-{layer:04}"));
            if let Err(error) = fs::remove_dir_all(&sent)
                && error.kind() != std::io::ErrorKind::NotFound
            {
                return Err(io_error(&sent)(error));
            }
        }
        Ok(Done {
            positions: WordReader::open(&path)?.len() as u64,
            ..Done::default()
        })
    }

    fn solve<R: Rate>(&self, layer: usize, part: usize) -> Result<Done, Error> {
        let (rates_path, file) = (
            self.rates_path(layer, part),
            part_path(self.dir, layer, part),
        );
        // The layer file, written last, says the part is solved: its
        // working rates are there, or let go once nothing reads them.
        let mut positions = None;
        if !file.exists() {
            let boards = self.read_input(&self.boards_path(layer, part))?;
            positions = Some(boards.len() as u64);
            let rates: Vec<R> = if self.spec.is_horizon(layer) {
                expectation::horizon(self.spec, &boards)
            } else {
                let [two, four] = expectation::wanted(self.spec, &self.mover, layer, &boards);
                let next = self.fetch::<R>(layer + 1, &two)?;
                let after = self.fetch::<R>(layer + 2, &four)?;
                solve::layer(
                    self.spec,
                    &self.mover,
                    layer,
                    &boards,
                    [&next, &after],
                    solve::BATCH_MOST,
                )
            };
            let (kept_boards, kept_rates) = solve::kept(&boards, &rates);
            make_folder_of(&rates_path)?;
            let mut out = WordWriter::create(&rates_path)?;
            out.extend_solved(&kept_boards, &kept_rates)?;
            out.finish()?;
            self.store(layer, part, &kept_boards, &kept_rates)?;
        }
        let stored = crate::LayerFile::open(&file)?;
        let stored_positions = stored.header().positions;
        Ok(Done {
            positions: positions.unwrap_or(stored_positions),
            stored: stored_positions,
            bytes: stored.file_bytes(),
        })
    }

    /// The rates in layer `layer` of the `wanted` boards, sorted, from the
    /// working rates of the parts that hold them: none past the last
    /// layer, and 0 (absent) for a board the layer does not hold.
    fn fetch<R: Rate>(&self, layer: usize, wanted: &[u64]) -> Result<Solved<R>, Error> {
        if layer >= self.spec.steps() {
            return Ok(Solved::default());
        }
        let (mut boards, mut rates) = (Vec::new(), Vec::new());
        for (part, wanted) in self.parts.split(wanted).iter().enumerate() {
            let path = self.rates_path(layer, part);
            if !path.exists() {
                return Err(missing(&path));
            }
            let (found_boards, found_rates) = RatesFile::open(&path)?.fetch_pairs::<R>(wanted)?;
            boards.extend(found_boards);
            rates.extend(found_rates);
        }
        sort_with_values(&mut boards, &mut rates);
        Ok(Solved::new(boards, rates))
    }

    /// Writes the layer file of part `part` of layer `layer` from its
    /// positions above 0, those above the table's pruning level.
    fn store<R: Rate>(
        &self,
        layer: usize,
        part: usize,
        boards: &[u64],
        rates: &[R],
    ) -> Result<(), Error> {
        let options = self.manifest.options;
        let (boards, rates): (Vec<u64>, Vec<R>) = boards
            .iter()
            .zip(rates)
            .filter(|&(_, rate)| rate.probability() > options.prune)
            .unzip();
        let mut header = LayerHeader::new(self.spec, options.precision, layer, boards.len() as u64);
        header.partition = Some(part as u32);
        let path = part_path(self.dir, layer, part);
        make_folder_of(&path)?;
        let mut writer = LayerWriter::create(&path, &header, options.level)?;
        writer.push(&boards, &rates)?;
        writer.finish()?;
        Ok(())
    }

    fn release(&self, layer: usize) -> Result<(), Error> {
        for folder in [
            self.work.join(format!("boards-{layer:04}")),
            self.work.join(format!("sent-{layer:04}")),
            self.work.join(format!("rates-{:04}", layer + 2)),
        ] {
            if folder.exists() {
                fs::remove_dir_all(&folder).map_err(io_error(&folder))?;
            }
        }
        Ok(())
    }

    fn finish(&self) -> Result<(), Error> {
        if self.manifest.complete {
            return Ok(());
        }
        for layer in 0..self.spec.steps() {
            for part in 0..self.parts.count() {
                let path = part_path(self.dir, layer, part);
                if !path.exists() {
                    return Err(missing(&path));
                }
            }
            system::remove_temporaries(&parts_dir(self.dir, layer), |_| true)?;
        }
        if self.work.exists() {
            fs::remove_dir_all(&self.work).map_err(io_error(&self.work))?;
        }
        Manifest {
            complete: true,
            ..self.manifest.clone()
        }
        .write(self.dir)
    }
}

/// Makes the folder `path` goes in, if it is not there.
fn make_folder_of(path: &Path) -> Result<(), Error> {
    let folder = path.parent().expect("a task's file has a folder");
    fs::create_dir_all(folder).map_err(io_error(folder))
}

/// The error of a task whose input `path`, a file of an earlier stage, is
/// not there.
fn missing(path: &Path) -> Error {
    Error::Build(format!(
        "{}: missing; run the tasks of the stages before this one first",
        path.display()
    ))
}
