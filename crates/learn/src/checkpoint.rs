//! Checkpoints: a training run saved after a block so that a killed run
//! resumes where it stopped and ends as an uninterrupted one would.

use std::path::Path;

use ntuple::{Metadata, Network};
use serde::{Deserialize, Serialize};

use crate::{Error, Learning, Plan, Stats};

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
}

/// The metadata key holding the progress, as JSON.
const KEY: &str = "checkpoint";

/// Saves the network and the progress to `path`, atomically.
///
/// # Errors
/// [`Error::Network`] if the file cannot be written.
pub fn save(path: &Path, network: &Network, progress: &Progress) -> Result<(), Error> {
    let json = serde_json::to_string(progress).expect("progress always serialises");
    network.save(path, &Metadata::from([(KEY.to_owned(), json)]))?;
    Ok(())
}

/// Reads the checkpoint at `path`, if there is one, for a run of `settings`.
///
/// # Errors
/// [`Error::Checkpoint`] if the file belongs to another run or holds no
/// progress; [`Error::Network`] if it cannot be read.
pub fn load(path: &Path, settings: &Settings) -> Result<Option<(Network, Progress)>, Error> {
    if !path.exists() {
        return Ok(None);
    }
    let problem = |problem: String| Error::Checkpoint {
        path: path.to_owned(),
        problem,
    };
    let loaded = Network::load(path, None)?;
    let progress: Progress = loaded
        .metadata
        .get(KEY)
        .and_then(|json| serde_json::from_str(json).ok())
        .ok_or_else(|| problem("holds no training progress".to_owned()))?;
    if progress.settings != *settings {
        return Err(problem(format!(
            "was written by another run ({}); delete it or pass --restart",
            describe(&progress.settings)
        )));
    }
    Ok(Some((loaded.network, progress)))
}

fn describe(settings: &Settings) -> String {
    format!(
        "network {}, {} episodes, seed {}, alpha {}",
        settings.network, settings.plan, settings.seed, settings.learning.alpha
    )
}
