//! The tasks of a partitioned build, each over one part of one layer.

use std::fmt;
use std::ops::AddAssign;
use std::path::Path;
use std::str::FromStr;

use crate::build::WORK;
use crate::format::layer_file::Precision;
use crate::format::manifest::Manifest;
use crate::format::partition::Partitions;
use crate::{Error, Fixed, Mover, Rate};

use super::folder::Folder;

/// One task of a partitioned build ([`super::plan`]), named in text as
/// `seed`, `expand/LAYER/PART`, `merge/LAYER/PART`, `ask/LAYER/PART`,
/// `answer/LAYER/PART`, `solve/LAYER/PART`, `release/LAYER` and `finish`.
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
    /// The children that part `part` of layer `layer` looks up, sorted
    /// into the parts of the next two layers that hold them.
    Ask {
        /// The layer solved next.
        layer: usize,
        /// Its part.
        part: usize,
    },
    /// The rates of what the parts of layer `layer` asked of part `part`
    /// of the next two layers.
    Answer {
        /// The layer solved next.
        layer: usize,
        /// The part of the two layers after it.
        part: usize,
    },
    /// Part `part` of layer `layer`, solved from the rates it was answered,
    /// into its layer file.
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
            | Self::Ask { layer, .. }
            | Self::Answer { layer, .. }
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
            Self::Ask { layer, part } => write!(f, "ask/{layer}/{part}"),
            Self::Answer { layer, part } => write!(f, "answer/{layer}/{part}"),
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
                 ask/LAYER/PART, answer/LAYER/PART, solve/LAYER/PART, release/LAYER or finish"
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
            ("ask", 3) => Self::Ask {
                layer: number(1)?,
                part: number(2)?,
            },
            ("answer", 3) => Self::Answer {
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

impl Folder<'_> {
    /// Checks that `task` is one of the table's: its layer and part exist
    /// (asks and answers for the layers solved from the two after them).
    fn check(&self, task: Task) -> Result<(), Error> {
        let (steps, count) = (self.spec.steps(), self.parts.count());
        let fits = match task {
            Task::Seed | Task::Finish => true,
            Task::Expand { layer, part } | Task::Merge { layer, part } => {
                (1..steps).contains(&layer) && part < count
            }
            Task::Ask { layer, part } | Task::Answer { layer, part } => {
                !self.spec.is_horizon(layer) && part < count
            }
            Task::Solve { layer, part } => layer < steps && part < count,
            Task::Release { layer } => layer < steps,
        };
        if fits {
            Ok(())
        } else {
            Err(Error::Build(format!(
                "task {task}: not one of the table's, which has layers 0 to {} in {count} \
                 parts (`tb-build plan` lists its tasks)",
                steps - 1
            )))
        }
    }

    fn run<R: Rate>(&self, task: Task) -> Result<Done, Error> {
        match task {
            Task::Seed => self.seed(),
            Task::Expand { layer, part } => self.expand(layer, part),
            Task::Merge { layer, part } => self.merge(layer, part),
            Task::Ask { layer, part } => self.ask(layer, part),
            Task::Answer { layer, part } => self.answer::<R>(layer, part),
            Task::Solve { layer, part } => self.solve::<R>(layer, part),
            Task::Release { layer } => self.release(layer).map(|()| Done::default()),
            Task::Finish => self.finish().map(|()| Done::default()),
        }
    }
}
