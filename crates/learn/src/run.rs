//! Runs of many episodes in blocks, over threads that share one network.

use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use board::{Board, GameRecord, SpawnRule, WideBoard};
use ntuple::Network;
use rand_pcg::Pcg64Mcg;
use search::{Evaluator, TranspositionTable};
use serde::{Deserialize, Serialize};

use crate::{Error, Learning, Outcome, Stats, Valued, Watch, block_report, episode, seed};

/// How many episodes a run plays: `blocks` blocks of `block_size`.
///
/// Written as TDL2048+ writes it: `100` is 100 blocks of 1000 episodes, and
/// `1x20000` one block of 20,000. Its episodes number at most `u64::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The number of blocks.
    pub blocks: u64,
    /// Episodes per block.
    pub block_size: u64,
}

impl Plan {
    /// The number of episodes in all blocks.
    pub fn episodes(&self) -> u64 {
        self.blocks * self.block_size
    }
}

impl FromStr for Plan {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let number = |part: &str| part.trim().parse::<u64>().ok().filter(|&n| n > 0);
        let plan = match text.split_once(['x', 'X']) {
            Some((blocks, size)) => number(blocks).zip(number(size)),
            None => number(text).map(|blocks| (blocks, 1000)),
        };
        // Episodes are numbered (and seeded) in a `u64`.
        plan.filter(|(blocks, size)| blocks.checked_mul(*size).is_some())
            .map(|(blocks, block_size)| Plan { blocks, block_size })
            .ok_or_else(|| Error::Plan {
                input: text.to_owned(),
            })
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.blocks, self.block_size)
    }
}

/// Who plays the episodes of a run.
#[derive(Clone, Copy)]
pub enum Player<'a> {
    /// The greedy 1-ply player of a network (the largest reward + value of
    /// the afterstate), which learns as `learning` says (`None`: play only).
    Greedy {
        /// The network that chooses the moves.
        network: &'a Network,
        /// What the network values, and so how the moves are chosen.
        valued: Valued,
        /// TD learning settings, or `None` to play only.
        learning: Option<Learning>,
    },
    /// An expectimax search over any evaluator; it does not learn.
    Search {
        /// What values the leaves.
        evaluator: &'a (dyn Evaluator + Sync),
        /// How deep and how widely it searches (its spawns are the run's).
        settings: search::Settings,
        /// The transposition table the searches of all threads share.
        table: Option<&'a TranspositionTable>,
        /// Play on the wide board and search downgraded copies once a tile
        /// reaches this exponent (TDL2048+'s `-h`); `None`: the 64-bit board.
        downgrade: Option<u8>,
    },
    /// Any other player of whole games ([`Agent`]); it does not learn.
    Agent(&'a dyn Agent),
}

/// A player of whole games that chooses its moves its own way (the
/// `player` crate's, with endgame tables and its own search): the run
/// hands it each episode's spawn rule and generator.
pub trait Agent: Sync {
    /// Plays one game from a fresh board, spawning as `spawns` says with
    /// `rng`, and tells how it went; `watch` follows the game.
    fn play(
        &self,
        spawns: SpawnRule,
        rng: &mut Pcg64Mcg,
        watch: &mut dyn Watch<WideBoard>,
    ) -> Outcome;
}

impl fmt::Debug for Player<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Greedy { learning, .. } => write!(f, "Greedy {{ learning: {learning:?} }}"),
            Self::Search { settings, .. } => write!(f, "Search {{ settings: {settings:?} }}"),
            Self::Agent(_) => f.write_str("Agent"),
        }
    }
}

/// Everything that decides the episodes of a run.
#[derive(Clone)]
pub struct Run<'a> {
    /// Who plays (and whether it learns).
    pub player: Player<'a>,
    /// How tiles spawn.
    pub spawns: SpawnRule,
    /// The run's seed: episode `i` draws from [`seed::episode_rng`]`(seed, i)`.
    pub seed: u64,
    /// The number of threads playing at once (at least 1).
    pub threads: usize,
    /// The blocks to play.
    pub plan: Plan,
    /// Called after every episode (from the thread that played it), to
    /// show progress; `None` for nothing.
    pub progress: Option<&'a (dyn Fn(&Outcome) + Sync)>,
}

impl fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("player", &self.player)
            .field("spawns", &self.spawns)
            .field("seed", &self.seed)
            .field("threads", &self.threads)
            .field("plan", &self.plan)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// A block just finished.
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    /// Its index, from 0.
    pub index: u64,
    /// Its wall-clock time.
    pub elapsed: Duration,
    /// Its own episodes.
    pub local: &'a Stats,
    /// All episodes of the run so far, this block's included.
    pub total: &'a Stats,
}

impl Block<'_> {
    /// The block's lines in TDL2048+'s layout ([`block_report`]), for a run
    /// of `blocks` blocks.
    pub fn report(&self, blocks: u64, win_tile: u8) -> String {
        block_report(
            self.index + 1,
            blocks,
            self.elapsed,
            self.local,
            self.total,
            win_tile,
        )
    }
}

impl Run<'_> {
    /// Plays block `index` (from 0): episodes `index * block_size` up to the
    /// next block's first.
    pub fn block(&self, index: u64) -> Stats {
        let first = index * self.plan.block_size;
        play_episodes(self.plan.block_size, self.threads, |episode| {
            self.episode(first + episode, &mut ())
        })
    }

    /// Plays block `index` as [`Run::block`] does, the same games, and
    /// writes each down: its records, in the order of the episodes, each
    /// tagged with its episode's number (`episode=`).
    pub fn recorded_block(&self, index: u64) -> (Stats, Vec<GameRecord>) {
        let first = index * self.plan.block_size;
        let records = Mutex::new(Vec::new());
        let stats = play_episodes(self.plan.block_size, self.threads, |episode| {
            let number = first + episode;
            let mut record = GameRecord::new(WideBoard::default());
            let outcome = self.episode(number, &mut record);
            record.set_tag("episode", &number.to_string());
            records
                .lock()
                .expect("no episode panics")
                .push((number, record));
            outcome
        });
        let mut records = records.into_inner().expect("no episode panics");
        records.sort_unstable_by_key(|&(number, _)| number);
        (
            stats,
            records.into_iter().map(|(_, record)| record).collect(),
        )
    }

    /// Plays episode `number`, followed by `watch`.
    fn episode<W: Watch<Board> + Watch<WideBoard>>(&self, number: u64, watch: &mut W) -> Outcome {
        let outcome = self.play(number, watch);
        if let Some(progress) = self.progress {
            progress(&outcome);
        }
        outcome
    }

    /// Plays episode `number` alone.
    fn play<W: Watch<Board> + Watch<WideBoard>>(&self, number: u64, watch: &mut W) -> Outcome {
        let mut rng = seed::episode_rng(self.seed, number);
        match self.player {
            Player::Greedy {
                network,
                valued: Valued::Afterstates,
                learning,
            } => episode::play(&self.spawns, network, learning.as_ref(), &mut rng, watch),
            Player::Greedy {
                network,
                valued: Valued::States,
                learning,
            } => crate::play_states(&self.spawns, network, learning.as_ref(), &mut rng, watch),
            Player::Search {
                evaluator,
                settings,
                table,
                downgrade,
            } => {
                let settings = search::Settings {
                    spawns: self.spawns,
                    ..settings
                };
                episode::play_searched(evaluator, settings, table, downgrade, &mut rng, watch)
            }
            Player::Agent(agent) => agent.play(self.spawns, &mut rng, watch),
        }
    }

    /// Plays the blocks from `first_block` to the end of the plan, adding
    /// them to `total` and calling `after_block` after each one; stops at the
    /// first error it returns. Returns the time spent.
    ///
    /// # Errors
    /// The first error of `after_block`.
    pub fn execute<E>(
        &self,
        first_block: u64,
        total: &mut Stats,
        after_block: impl FnMut(Block<'_>) -> Result<(), E>,
    ) -> Result<Duration, E> {
        run_blocks(
            self.plan,
            first_block,
            total,
            |index| self.block(index),
            after_block,
        )
    }
}

/// Plays the blocks of `plan` from `first_block` on with `block` (which
/// plays the block of that index), adding each to `total` and calling
/// `after_block` after it, timed; stops at the first error it returns.
/// Returns the time spent.
///
/// # Errors
/// The first error of `after_block`.
pub fn run_blocks<E>(
    plan: Plan,
    first_block: u64,
    total: &mut Stats,
    mut block: impl FnMut(u64) -> Stats,
    mut after_block: impl FnMut(Block<'_>) -> Result<(), E>,
) -> Result<Duration, E> {
    let start = Instant::now();
    for index in first_block..plan.blocks {
        let block_start = Instant::now();
        let local = block(index);
        total.merge(&local);
        after_block(Block {
            index,
            elapsed: block_start.elapsed(),
            local: &local,
            total,
        })?;
    }
    Ok(start.elapsed())
}

/// Plays episodes `0..count` with `play`, on up to `threads` threads that
/// take the next episode as they finish one, and gathers their statistics.
///
/// Which thread plays an episode does not change it: `play` gets its number,
/// from which it derives its generator ([`crate::episode_rng`]). So no more
/// threads start than there are episodes, and where the system refuses a
/// thread (too many asked for), those that started, or this one, play its
/// share: the statistics are the same.
pub fn play_episodes(count: u64, threads: usize, play: impl Fn(u64) -> Outcome + Sync) -> Stats {
    let next = AtomicU64::new(0);
    let work = || {
        let mut stats = Stats::default();
        loop {
            let episode = next.fetch_add(1, Ordering::Relaxed);
            if episode >= count {
                break stats;
            }
            stats.record(play(episode));
        }
    };
    let threads = threads.min(usize::try_from(count).unwrap_or(usize::MAX));
    if threads <= 1 {
        return work();
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
        // With no thread started, this one plays them all.
        let here = if workers.is_empty() {
            work()
        } else {
            Stats::default()
        };
        workers.into_iter().fold(here, |mut all, worker| {
            all.merge(&worker.join().expect("a worker thread panicked"));
            all
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every episode is played once whatever the threads, more threads than
    /// episodes among them.
    #[test]
    fn episodes_are_played_once_on_any_threads() {
        let played = std::sync::Mutex::new(Vec::new());
        let play = |episode: u64| {
            played.lock().unwrap().push(episode);
            Outcome {
                score: episode * 4,
                moves: episode,
                max_tile: (episode % 12) as u8,
                nodes: 0,
            }
        };
        let one = play_episodes(37, 1, play);
        for threads in [2, 5, 37, 1000] {
            played.lock().unwrap().clear();
            assert_eq!(play_episodes(37, threads, play), one, "{threads}");
            let mut episodes = played.lock().unwrap().clone();
            episodes.sort_unstable();
            assert_eq!(episodes, (0..37).collect::<Vec<_>>(), "{threads}");
        }
    }

    #[test]
    fn plans_read_as_tdl2048_writes_them() {
        assert_eq!(
            "100".parse::<Plan>().unwrap(),
            Plan {
                blocks: 100,
                block_size: 1000
            }
        );
        assert_eq!(
            "1x20000".parse::<Plan>().unwrap(),
            Plan {
                blocks: 1,
                block_size: 20000
            }
        );
        assert_eq!("1x20000".parse::<Plan>().unwrap().to_string(), "1x20000");
        let most = u64::MAX;
        assert_eq!(
            format!("{most}x1").parse::<Plan>().unwrap().episodes(),
            most
        );
        assert_eq!(
            format!("{}", most / 1000).parse::<Plan>().unwrap().blocks,
            most / 1000
        );
        let too_many = [format!("{most}x2"), format!("{}", most / 1000 + 1)];
        for bad in ["", "0", "x5", "2x", "ten", "2x0", "-3"]
            .into_iter()
            .chain(too_many.iter().map(String::as_str))
        {
            assert!(bad.parse::<Plan>().is_err(), "{bad}");
        }
    }
}
