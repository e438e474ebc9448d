//! Whole runs as the front ends use them: training with checkpoints, and
//! evaluation with its summary, printed in TDL2048+'s layout.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use board::GameRecord;

use crate::checkpoint::{self, Progress, Settings};
use crate::{Error, Log, Player, Run, Stats, run_blocks, summary};

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

/// Trains `run.network` block by block from `resume` (or the start),
/// printing each block to `log` and saving checkpoints as asked. Returns the
/// statistics of all blocks, resumed ones included.
///
/// # Errors
/// [`Error::Io`] if the log fails, [`Error::Network`] if a checkpoint cannot
/// be written.
///
/// # Panics
/// If the run's player is not a network's greedy player: only it learns.
pub fn train(
    run: &Run,
    log: &mut Log,
    win_tile: u8,
    checkpointing: Option<&Checkpointing>,
    resume: Option<Progress>,
) -> Result<Stats, Error> {
    let (first_block, mut total) = resume.map_or((0, Stats::default()), |progress| {
        (progress.blocks_done, progress.total)
    });
    let Player::Greedy { network, .. } = run.player else {
        panic!("only a network's greedy player learns");
    };
    let blocks = run.plan.blocks;
    run.execute(first_block, &mut total, |block| {
        log.write(&block.report(blocks, win_tile))?;
        if let Some(checkpointing) = checkpointing {
            checkpointing.after_block(block.index + 1, blocks, network, block.total)?;
        }
        Ok::<(), Error>(())
    })?;
    Ok(total)
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
