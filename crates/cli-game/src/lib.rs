//! What 2048lab's programs that play and learn share: the options of every
//! run (seed, threads, log, memory, the game's rules, the learning
//! settings), loading and saving networks, the header they print, the
//! progress bar of episodes, and ending on Ctrl-C at a safe point.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use board::{SpawnRule, WideBoard};
use cli::{parse_memory, threads_parser};
use ntuple::{Network, Precision, Source, Stages, parse_network};

mod learning;
mod progress;

pub use learning::{LearnArgs, describe_learning};
pub use progress::EpisodeBar;

/// The options of every run of any game: seed, threads, log, memory.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Seed: any text. The same seed replays the same episodes, bit for bit
    /// with one thread [default: from the clock, printed in the header]
    #[arg(short = 's', long, allow_negative_numbers = true)]
    pub seed: Option<String>,

    /// Threads playing at once, sharing one network without locks (at most
    /// 4096)
    #[arg(short = 'p', long, default_value_t = 1, value_parser = threads_parser())]
    pub threads: u16,

    /// Append everything printed to this log file too
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Refuse networks whose weights, with a search's transposition table,
    /// need more memory than this (e.g. 8G) [default: the memory available
    /// now]
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub memory: Option<u64>,
}

impl RunArgs {
    /// The seed's text (given, or the clock's nanoseconds) and its value.
    pub fn seed(&self) -> (String, u64) {
        seed(self.seed.as_deref())
    }

    /// The memory limit for weight tables and transposition tables.
    pub fn memory_limit(&self) -> u64 {
        self.memory
            .or_else(system::available_memory)
            .unwrap_or(u64::MAX)
    }
}

/// The options of every run that plays 2048.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Seed, threads, log and memory.
    #[command(flatten)]
    pub run: RunArgs,

    /// The tile counted as a win in the `win=` rates
    #[arg(long, default_value = "2048", value_parser = parse_tile)]
    pub win: u8,

    /// Probability that a new tile is a 4
    #[arg(
        long,
        default_value_t = 0.1,
        value_parser = parse_four_rate,
        allow_negative_numbers = true
    )]
    pub four_rate: f64,

    /// A multistage network: the tile sums where each copy of the tables
    /// takes over, from 0 (TDL2048+'s `-@ 0,16384`). Required to read a
    /// multistage .w file, which does not record them. Given with -i, stages
    /// past those the file holds start from the weights of its last stage
    /// (weight promotion)
    #[arg(long, value_name = "SUMS")]
    pub stages: Option<Stages>,

    /// Hold the weights in half precision (IEEE f16): half the memory, 11
    /// significant bits (a loaded network is rounded; new weights are saved
    /// so) [default: as the file holds them; f32 for a new network]
    #[arg(long)]
    pub f16: bool,
}

impl PlayArgs {
    /// The precision `--f16` asks for, if any.
    pub fn precision(&self) -> Option<Precision> {
        self.f16.then_some(Precision::F16)
    }

    /// How tiles spawn.
    pub fn spawns(&self) -> SpawnRule {
        SpawnRule::new(self.four_rate).expect("checked when parsed")
    }
}

/// A seed's text (`text`, or the clock's nanoseconds) and its value.
pub fn seed(text: Option<&str>) -> (String, u64) {
    let text = text.map_or_else(
        || {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            now.as_nanos().to_string()
        },
        str::to_owned,
    );
    let value = learn::seed_from_text(&text);
    (text, value)
}

/// Where a run saving to `output` keeps its checkpoint: `OUTPUT.checkpoint`,
/// or nowhere when `output` is a device or a pipe (`-o /dev/null` keeps
/// nothing to resume into, and a checkpoint beside it would be a file in
/// `/dev`).
pub fn checkpoint_path(output: &Path) -> Option<PathBuf> {
    (!system::is_special_file(output)).then(|| {
        let mut name = output.as_os_str().to_owned();
        name.push(".checkpoint");
        PathBuf::from(name)
    })
}

/// Where a network named by `words` is saved by default: `4x6patt` +
/// `extension`, the patterns joined by `-` for a custom network, without
/// their starting values (`4x6patt=320000/norm` saves as `4x6patt`).
pub fn default_output(words: Option<&[String]>, extension: &str) -> PathBuf {
    let name = match words {
        Some(words) if parse_network(words).is_ok() => {
            let names: Vec<&str> = words
                .iter()
                .flat_map(|word| word.split_whitespace())
                .map(|word| word.split_once('=').map_or(word, |(name, _)| name))
                .collect();
            names.join("-").replace('!', "")
        }
        _ => "network".to_owned(),
    };
    PathBuf::from(format!("{name}{extension}"))
}

/// Reads a tile value (2, 4, ..., 262144, the largest a game makes) as its
/// exponent.
///
/// # Errors
/// A message for anything that is not a power of two from 2 to 262144.
pub fn parse_tile(text: &str) -> Result<u8, String> {
    match text.parse::<u32>() {
        Ok(value)
            if (2..=1 << WideBoard::MAX_EXPONENT).contains(&value) && value.is_power_of_two() =>
        {
            Ok(value.trailing_zeros() as u8)
        }
        _ => Err(format!("{text:?} is not a tile (2, 4, 8, ..., 262144)")),
    }
}

fn parse_four_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    SpawnRule::new(rate).map_err(|error| error.to_string())?;
    Ok(rate)
}

/// The network to play with: read from `inputs` if any are given (2048lab's
/// format or TDL2048+'s `.w`, told apart by content; several files make an
/// ensemble, `[0-3]|FILE` selects tables; the result must then hold `words`'
/// patterns, if given), else built from `words` with zero weights, in
/// `stages` if given; its weights stored in `precision` if given (a loaded
/// network converted).
///
/// # Errors
/// Unknown patterns, files that cannot be read or hold another network,
/// stages that do not fit, and networks over `limit`.
pub fn network(
    words: Option<&[String]>,
    inputs: &[Source],
    (stages, precision): (Option<&Stages>, Option<Precision>),
    limit: u64,
) -> anyhow::Result<Network> {
    let (patterns, initials) = match words.map(parse_network).transpose()? {
        Some((patterns, initials)) => (Some(patterns), initials),
        None => (None, Vec::new()),
    };
    if inputs.is_empty() {
        let patterns =
            patterns.context("no network given: name one with -n or load one with -i")?;
        let stages = stages.cloned().unwrap_or_else(Stages::single);
        let precision = precision.unwrap_or_default();
        let mut network = Network::with_precision(patterns, stages, precision, limit)?;
        network.initialise(&initials, false)?;
        return Ok(network);
    }
    let mut network = Network::open_sources(inputs, patterns.as_deref(), stages, limit)?;
    if let Some(precision) = precision {
        network = network.into_precision(precision)?;
    }
    if !initials.is_empty() {
        network.initialise(&initials, true)?;
    }
    Ok(network)
}

/// Saves `network` (the selected tables of it, for `[0-3]|FILE`): as a
/// TDL2048+ `.w` file if the name ends in `.w`, else in 2048lab's format
/// with `metadata`.
///
/// # Errors
/// If the selection is out of range or the file cannot be written.
pub fn save(network: &Network, output: &Source, metadata: &ntuple::Metadata) -> anyhow::Result<()> {
    let subset;
    let network = match &output.tables {
        Some(tables) => {
            subset = network.subset(tables)?;
            &subset
        }
        None => network,
    };
    let path = &output.path;
    if path.extension().is_some_and(|extension| extension == "w") {
        network.save_tdl2048(path)?;
    } else {
        network.save(path, metadata)?;
    }
    Ok(())
}

/// The lines a run starts with: the program, the command line, the seed,
/// the threads and the network (with its memory).
pub fn header(
    program: &str,
    seed: &str,
    threads: u16,
    network: &Network,
    extra: &[String],
) -> String {
    header_for(program, seed, threads, &network.describe(), extra)
}

/// [`header`] for a player described by `player` (a network or another).
pub fn header_for(
    program: &str,
    seed: &str,
    threads: u16,
    player: &str,
    extra: &[String],
) -> String {
    let command: Vec<String> = std::env::args().collect();
    let mut text = format!(
        "2048lab {program} {}\n{}\nseed = {seed}\n",
        env!("CARGO_PKG_VERSION"),
        command.join(" ")
    );
    for line in extra {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!("thread = {threads}x\nnetwork = {player}\n\n"));
    text
}

/// Runs the `main` of a program that plays or learns ([`cli::main_with`]):
/// a run stopped by Ctrl-C says how to resume and exits with 130.
pub fn main_with(program: &str, run: impl FnOnce() -> anyhow::Result<()>) -> ExitCode {
    cli::main_stopping(program, run, is_stopped)
}

fn is_stopped(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| matches!(cause.downcast_ref(), Some(learn::Error::Stopped { .. })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn checkpoints_are_kept_beside_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("net.nw");
        assert_eq!(
            checkpoint_path(&file),
            Some(dir.path().join("net.nw.checkpoint"))
        );
        let (pipe, reader) = testkit::named_pipe(dir.path(), "pipe.nw");
        assert_eq!(checkpoint_path(&pipe), None);
        std::fs::write(&pipe, "").unwrap();
        reader.join().unwrap();
    }
}
