//! Checkpoints: a training run saved after a block so that a killed run
//! resumes where it stopped and ends as an uninterrupted one would.

use std::path::Path;

use ntuple::{Metadata, Network};
use serde::{Deserialize, Serialize};

use crate::{Carousel, Error, Learning, Plan, Restart, Stats};

/// The settings that decide a run's episodes: a checkpoint resumes only the
/// run it was written by.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The patterns, as text.
    pub network: String,
    /// The blocks of the run.
    pub plan: Plan,
    /// The seed.
    pub seed: u64,
    /// The learning settings.
    pub learning: Learning,
    /// The probability of a 4.
    pub four_rate: f64,
}

/// How far a run got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// What the run is.
    pub settings: Settings,
    /// Blocks finished.
    pub blocks_done: u64,
    /// The statistics of all finished blocks.
    pub total: Stats,
    /// The seed as given, or as drawn from the clock (the settings hold
    /// its value): a run given no seed resumes with this one. Checkpoints
    /// written before it was kept have none.
    #[serde(default)]
    pub seed_text: Option<String>,
}

/// The metadata key holding the progress, as JSON.
const KEY: &str = "checkpoint";

/// Weights a checkpoint holds: a network of any game that saves itself
/// with metadata and loads back.
pub trait Weights: Sized {
    /// Writes the weights and `metadata` to `path`, atomically.
    ///
    /// # Errors
    /// As the network's own save.
    fn save(&self, path: &Path, metadata: &Metadata) -> Result<(), ntuple::Error>;

    /// Reads weights and their metadata from `path`.
    ///
    /// # Errors
    /// As the network's own load.
    fn load(path: &Path) -> Result<(Self, Metadata), ntuple::Error>;
}

impl Weights for Network {
    fn save(&self, path: &Path, metadata: &Metadata) -> Result<(), ntuple::Error> {
        Network::save(self, path, metadata)
    }

    fn load(path: &Path) -> Result<(Self, Metadata), ntuple::Error> {
        let loaded = Network::load(path, None)?;
        Ok((loaded.network, loaded.metadata))
    }
}

/// Saves the network and the progress to `path`, atomically.
///
/// # Errors
/// [`Error::Network`] if the file cannot be written.
pub fn save<W: Weights>(path: &Path, network: &W, progress: &Progress) -> Result<(), Error> {
    let json = serde_json::to_string(progress).expect("progress always serialises");
    network.save(path, &Metadata::from([(KEY.to_owned(), json)]))?;
    Ok(())
}

/// Reads the checkpoint at `path`, if there is one, for a run of `settings`.
///
/// # Errors
/// [`Error::Checkpoint`] if the file belongs to another run, holds no
/// progress or cannot be read (damaged, cut short), each saying that
/// deleting it or `--restart` starts the run again.
pub fn load<W: Weights>(path: &Path, settings: &Settings) -> Result<Option<(W, Progress)>, Error> {
    if !path.exists() {
        return Ok(None);
    }
    let problem = |problem: String| Error::Checkpoint {
        path: path.to_owned(),
        problem: format!("{problem}; delete it or pass --restart"),
    };
    let (network, metadata) = W::load(path).map_err(|error| {
        problem(match error {
            ntuple::Error::File { problem, .. } => problem,
            ntuple::Error::Io { source, .. } => source.to_string(),
            other => other.to_string(),
        })
    })?;
    let progress: Progress = metadata
        .get(KEY)
        .and_then(|json| serde_json::from_str(json).ok())
        .ok_or_else(|| problem("holds no training progress".to_owned()))?;
    let differences = progress.settings.differences(settings);
    if !differences.is_empty() {
        return Err(problem(format!(
            "was written by another run: {}",
            differences.join("; ")
        )));
    }
    Ok(Some((network, progress)))
}

/// The progress a checkpoint holds, read without its weights; `None` if
/// there is no file at `path`.
///
/// # Errors
/// [`Error::Checkpoint`] for a file that is not a checkpoint.
pub fn progress_of(path: &Path) -> Result<Option<Progress>, Error> {
    if !path.exists() {
        return Ok(None);
    }
    let problem = |problem: String| Error::Checkpoint {
        path: path.to_owned(),
        problem: format!("{problem}; delete it or pass --restart"),
    };
    let metadata = ntuple::read_metadata(path).map_err(|error| {
        problem(match error {
            ntuple::Error::File { problem, .. } => problem,
            ntuple::Error::Io { source, .. } => source.to_string(),
            other => other.to_string(),
        })
    })?;
    metadata
        .get(KEY)
        .and_then(|json| serde_json::from_str(json).ok())
        .map(Some)
        .ok_or_else(|| problem("holds no training progress".to_owned()))
}

impl Settings {
    /// What differs between these settings (a checkpoint's) and `asked`
    /// (this run's), each as `what: checkpoint's, not this run's`.
    pub fn differences(&self, asked: &Settings) -> Vec<String> {
        let mut differences = Vec::new();
        let mut differ = |what: &str, theirs: String, ours: String| {
            if theirs != ours {
                differences.push(format!("{what} {theirs}, not {ours}"));
            }
        };
        differ("network", self.network.clone(), asked.network.clone());
        differ("episodes", self.plan.to_string(), asked.plan.to_string());
        differ("seed", self.seed.to_string(), asked.seed.to_string());
        let (theirs, ours) = (&self.learning, &asked.learning);
        let norm =
            |norm: Option<u32>| norm.map_or_else(|| "features".to_owned(), |n| n.to_string());
        differ("alpha", theirs.alpha.to_string(), ours.alpha.to_string());
        differ("norm", norm(theirs.norm), norm(ours.norm));
        differ("mode", theirs.mode.to_string(), ours.mode.to_string());
        differ("target", theirs.target.to_string(), ours.target.to_string());
        let text = |what: Option<&dyn std::fmt::Display>| {
            what.map_or("none".to_owned(), |w| w.to_string())
        };
        let restart = |restart: &Option<Restart>| text(restart.as_ref().map(|r| r as _));
        differ("restarts", restart(&theirs.restart), restart(&ours.restart));
        let carousel = |carousel: &Option<Carousel>| text(carousel.as_ref().map(|c| c as _));
        differ(
            "carousel",
            carousel(&theirs.carousel),
            carousel(&ours.carousel),
        );
        differ(
            "4-rate",
            self.four_rate.to_string(),
            asked.four_rate.to_string(),
        );
        differences
    }
}
