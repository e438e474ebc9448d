//! Whole runs as the front ends use them: training with checkpoints, and
//! evaluation with its summary, printed in TDL2048+'s layout.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use board::GameRecord;

use ntuple::Metadata;

use crate::checkpoint::{self, Progress, Settings};
use crate::{Block, Error, Learning, Log, Plan, Run, Stats, run_blocks, summary};

/// Where and how often a training run saves its progress, and whether it
/// was asked to stop.
#[derive(Clone, Debug)]
pub struct Checkpointing {
    /// The checkpoint file.
    pub path: PathBuf,
    /// Save after every this many blocks (and after the last).
    pub every: u64,
    /// The run's settings, stored so that only the same run resumes.
    pub settings: Settings,
    /// The seed's text, stored so that a run given none resumes with it.
    pub seed_text: String,
    /// Raised to stop the run (Ctrl-C): it saves a checkpoint after the
    /// block under way, then stops with [`Error::Stopped`].
    pub stop: Option<&'static AtomicBool>,
}

impl Checkpointing {
    /// What a run resumed from this checkpoint says in its log, `progress`
    /// being the checkpoint's of a run of `blocks` blocks:
    /// `resume: 3 of 10 blocks done, from PATH`.
    pub fn resume_line(&self, progress: &Progress, blocks: u64) -> String {
        format!(
            "resume: {} of {blocks} blocks done, from {}\n\n",
            progress.blocks_done,
            self.path.display()
        )
    }

    /// Saves `weights` and the progress once `done` of `blocks` blocks are
    /// finished, if a checkpoint is due then: every [`Self::every`] blocks,
    /// after the last, and when the run is asked to stop.
    ///
    /// # Errors
    /// [`Error::Network`] if the checkpoint cannot be written;
    /// [`Error::Stopped`] once it is written, if the run was asked to stop
    /// before its last block.
    pub fn after_block<W: checkpoint::Weights>(
        &self,
        done: u64,
        blocks: u64,
        weights: &W,
        total: &Stats,
    ) -> Result<(), Error> {
        let stopping = done < blocks && self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
        if !done.is_multiple_of(self.every.max(1)) && done != blocks && !stopping {
            return Ok(());
        }
        let progress = Progress {
            settings: self.settings.clone(),
            blocks_done: done,
            total: total.clone(),
            seed_text: Some(self.seed_text.clone()),
        };
        checkpoint::save(&self.path, weights, &progress)?;
        if stopping {
            return Err(Error::Stopped {
                path: self.path.clone(),
                done,
                blocks,
            });
        }
        Ok(())
    }
}

/// The weights a run trains, and the progress it goes on from: the
/// checkpoint's when it resumes from `resumed` (`fresh` is let go first, so
/// that two networks never take memory at once), else `fresh` from the
/// start.
///
/// # Errors
/// [`Error::Checkpoint`] if the checkpoint cannot be read, holds another
/// run, or is gone.
pub fn start<W: checkpoint::Weights>(
    resumed: Option<&Checkpointing>,
    fresh: W,
) -> Result<(W, Option<Progress>), Error> {
    let Some(checkpointing) = resumed else {
        return Ok((fresh, None));
    };
    drop(fresh);
    let (weights, progress) = checkpoint::load(&checkpointing.path, &checkpointing.settings)?
        .ok_or_else(|| Error::Checkpoint {
            path: checkpointing.path.clone(),
            problem: "disappeared while starting".to_owned(),
        })?;
    Ok((weights, Some(progress)))
}

/// Trains `weights` by `plan` from `resume` (or the start): plays each block
/// with `block` (which learns into `weights`), hands it to `report` (which
/// prints it), and saves checkpoints as `checkpointing` asks. Returns the
/// statistics of all blocks, resumed ones included. Any game and any
/// learner: 2048's `Run::block`, or the 2584 course's episodes.
///
/// # Errors
/// The first error of `report`; [`Error::Network`] if a checkpoint cannot
/// be written; [`Error::Stopped`] once Ctrl-C's checkpoint is saved.
pub fn train<W: checkpoint::Weights>(
    plan: Plan,
    weights: &W,
    (checkpointing, resume): (Option<&Checkpointing>, Option<Progress>),
    block: impl FnMut(u64) -> Stats,
    mut report: impl FnMut(&Block<'_>) -> Result<(), Error>,
) -> Result<Stats, Error> {
    let (first_block, mut total) = resume.map_or((0, Stats::default()), |progress| {
        (progress.blocks_done, progress.total)
    });
    run_blocks(plan, first_block, &mut total, block, |block| {
        report(&block)?;
        match checkpointing {
            Some(checkpointing) => {
                checkpointing.after_block(block.index + 1, plan.blocks, weights, block.total)
            }
            None => Ok(()),
        }
    })?;
    Ok(total)
}

/// Saves a trained run's output with `save`, then removes its checkpoint,
/// whose every byte the output now holds.
///
/// # Errors
/// The error of `save`; the checkpoint then stays.
pub fn finish<E>(
    checkpointing: Option<&Checkpointing>,
    save: impl FnOnce() -> Result<(), E>,
) -> Result<(), E> {
    save()?;
    if let Some(checkpointing) = checkpointing {
        let _ = std::fs::remove_file(&checkpointing.path);
    }
    Ok(())
}

/// What a trained network's file records of its training: the episodes,
/// the learning settings and the seed.
pub fn trained_metadata(total: &Stats, learning: &Learning, seed_text: &str) -> Metadata {
    Metadata::from([
        ("trained_episodes".to_owned(), total.episodes.to_string()),
        ("alpha".to_owned(), learning.alpha.to_string()),
        ("mode".to_owned(), learning.mode.to_string()),
        ("target".to_owned(), learning.target.to_string()),
        ("seed".to_owned(), seed_text.to_owned()),
    ])
}

/// What [`evaluate`] hands the games it records to, a block at a time.
pub type Recorder<'a> = &'a mut dyn FnMut(&[GameRecord]);

/// Plays `run` (normally without learning), printing each block and then
/// the summary table to `log`. With `record`, every game is also written
/// down ([`Run::recorded_block`]) and handed to it a block at a time, in
/// the order of the episodes.
///
/// # Errors
/// [`Error::Io`] if the log fails.
pub fn evaluate(
    run: &Run,
    log: &mut Log,
    win_tile: u8,
    mut record: Option<Recorder<'_>>,
) -> Result<Stats, Error> {
    let mut total = Stats::default();
    let blocks = run.plan.blocks;
    let records = RefCell::new(Vec::new());
    let recording = record.is_some();
    let block = |index| {
        if recording {
            let (stats, games) = run.recorded_block(index);
            *records.borrow_mut() = games;
            stats
        } else {
            run.block(index)
        }
    };
    let elapsed = run_blocks(run.plan, 0, &mut total, block, |block| {
        if let Some(record) = record.as_mut() {
            record(&records.take());
        }
        log.write(&block.report(blocks, win_tile))
    })?;
    log.write(&summary(elapsed, &total, win_tile))?;
    Ok(total)
}
