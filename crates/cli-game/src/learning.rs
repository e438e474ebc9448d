//! The options of every run that learns, and how a run's learning is
//! described in its header.

use std::path::Path;

use anyhow::Context as _;
use cli::ctrl_c_flag;
use learn::checkpoint::Settings;
use learn::session::Checkpointing;
use learn::{Learning, Mode, Restart, Target};

use crate::{RunArgs, checkpoint_path, seed};

/// The options of every run that learns.
#[derive(clap::Args, Debug)]
pub struct LearnArgs {
    /// Learning rate, divided by the number of features unless --norm is
    /// given [default: 0.1; 1.0 with temporal coherence (--tc)]
    #[arg(short = 'a', long, value_parser = parse_alpha, allow_negative_numbers = true)]
    pub alpha: Option<f32>,

    /// Divide the learning rate by this instead of the number of features
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub norm: Option<u32>,

    /// When afterstates are updated: online (TDL2048+'s default), forward or
    /// backward (after the episode) [default: online; forward with temporal
    /// coherence (--tc), as TDL2048+ has it]
    #[arg(short = 'm', long)]
    pub mode: Option<Mode>,

    /// n-step TD: move each afterstate towards the next N rewards and the
    /// value N moves on (online with a delay of N, or after the episode with
    /// -m backward) [default when given alone: 5]
    #[arg(
        short = 'N',
        long,
        value_name = "N",
        num_args = 0..=1,
        default_missing_value = "5",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub step: Option<u32>,

    /// TD(lambda): move each afterstate towards its lambda-return, over the
    /// rest of the episode after it; with N (or -N), truncated to N moves,
    /// online with a delay of N, or after the episode with -m backward
    /// (-m forward or backward alone truncate to 5) [default when given
    /// alone: 0.5]
    #[arg(
        short = 'l',
        long,
        value_names = ["LAMBDA", "N"],
        num_args = 0..=2,
        default_missing_value = "0.5",
        allow_negative_numbers = true
    )]
    pub lambda: Option<Vec<String>>,

    /// Matsuzaki's restarts, with TD(0): after a game of at least MIN moves,
    /// play again from its afterstate AT of the way through, until a game
    /// is shorter; only the first game counts in the statistics [default
    /// when given alone: 0.5 10]
    #[arg(
        long,
        value_names = ["AT", "MIN"],
        num_args = 0..=2,
        default_missing_value = "0.5"
    )]
    pub restarts: Option<Vec<String>>,

    /// Save a checkpoint (OUTPUT.checkpoint) after every this many blocks (none when OUTPUT is a device such as /dev/null)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub checkpoint_every: u64,

    /// Ignore an existing checkpoint and start again
    #[arg(long)]
    pub restart: bool,
}

impl LearnArgs {
    /// The learning settings. Unless given, alpha is 0.1, and the mode is
    /// online; with temporal coherence (`tc`), as TDL2048+ has them, alpha
    /// is 1.0 and the mode forward.
    ///
    /// # Errors
    /// A lambda that is no decay in [0, 1], or a window that is no count
    /// of moves, or two windows that differ; restarts with another target
    /// than TD(0)'s, or malformed.
    pub fn learning(&self, tc: bool) -> anyhow::Result<Learning> {
        let target = self.target()?;
        // The lambda-return over the rest of the episode is known only
        // after it.
        let whole = matches!(target, Target::Lambda { window: None, .. });
        Ok(Learning {
            alpha: self.alpha.unwrap_or(if tc { 1.0 } else { 0.1 }),
            norm: self.norm,
            mode: match self.mode {
                _ if whole => Mode::Backward,
                Some(mode) => mode,
                None if tc => Mode::Forward,
                None => Mode::Online,
            },
            target,
            restart: self.restart(target)?,
            carousel: None,
        })
    }

    /// The restarts of `--restarts`, which learn by TD(0) only.
    fn restart(&self, target: Target) -> anyhow::Result<Option<Restart>> {
        let Some(words) = &self.restarts else {
            return Ok(None);
        };
        anyhow::ensure!(
            target == Target::OneStep,
            "--restarts learns by TD(0): not with a target of {target} (-N, -l)"
        );
        let at = words[0]
            .parse::<f32>()
            .ok()
            .filter(|at| (0.0..=1.0).contains(at))
            .with_context(|| format!("--restarts {}: not a fraction (0 to 1)", words[0]))?;
        let min_moves = match words.get(1) {
            Some(word) => word
                .parse::<u32>()
                .ok()
                .filter(|&moves| moves >= 1)
                .with_context(|| {
                    format!("--restarts {at} {word}: {word} is not a number of moves")
                })?,
            None => Restart::default().min_moves,
        };
        Ok(Some(Restart { at, min_moves }))
    }

    /// What afterstates are moved towards, from -N and -l as TDL2048+ reads
    /// them: `-l 0` is no lambda, and a lambda with `-m forward` or
    /// `backward` and no window has one of 5 moves.
    fn target(&self) -> anyhow::Result<Target> {
        let steps = |step: Option<u32>| match step {
            None | Some(1) => Target::OneStep,
            Some(n) => Target::Steps(n),
        };
        let Some(words) = &self.lambda else {
            return Ok(steps(self.step));
        };
        let lambda = words[0]
            .parse::<f32>()
            .ok()
            .filter(|lambda| (0.0..=1.0).contains(lambda))
            .with_context(|| format!("-l {}: not a decay (a number from 0 to 1)", words[0]))?;
        let window = match words.get(1) {
            Some(word) => {
                let window = word
                    .parse::<u32>()
                    .ok()
                    .filter(|&window| window >= 1)
                    .with_context(|| {
                        format!("-l {lambda} {word}: {word} is not a number of moves")
                    })?;
                anyhow::ensure!(
                    self.step.is_none_or(|step| step == window),
                    "-l {lambda} {window} and -N {}: two windows; give one",
                    self.step.unwrap_or_default()
                );
                Some(window)
            }
            None => self.step,
        };
        if lambda == 0.0 {
            return Ok(steps(window));
        }
        let window = window
            .or_else(|| matches!(self.mode, Some(Mode::Forward | Mode::Backward)).then_some(5));
        Ok(Target::Lambda { lambda, window })
    }

    /// How a run of `settings` (its seed written `seed_text`) saving to
    /// `output` keeps checkpoints: in [`checkpoint_path`] (if anywhere),
    /// every `--checkpoint-every` blocks, and when Ctrl-C asks `program`
    /// to stop ([`ctrl_c_flag`]).
    pub fn checkpointing(
        &self,
        program: &'static str,
        output: &Path,
        settings: Settings,
        seed_text: &str,
    ) -> Option<Checkpointing> {
        // A run killed while saving left temporary files: gone now, as
        // the files they were for are written again.
        system::remove_stale_temporaries(output);
        let path = checkpoint_path(output)?;
        system::remove_stale_temporaries(&path);
        Some(Checkpointing {
            path,
            every: self.checkpoint_every,
            settings,
            seed_text: seed_text.to_owned(),
            stop: Some(ctrl_c_flag(program)),
        })
    }

    /// The seed of a run saving to `output`: the one given; else, when it
    /// resumes from a checkpoint, the checkpoint's, so that the same
    /// command resumes; else the clock's ([`seed`]).
    ///
    /// # Errors
    /// A checkpoint that cannot be read.
    pub fn seed(&self, run: &RunArgs, output: &Path) -> anyhow::Result<(String, u64)> {
        let resumed = checkpoint_path(output).filter(|_| run.seed.is_none() && !self.restart);
        let progress = match resumed {
            Some(path) => learn::checkpoint::progress_of(&path)?,
            None => None,
        };
        Ok(match progress {
            Some(progress) => match progress.seed_text {
                Some(text) => seed(Some(&text)),
                // Written before checkpoints kept the seed's text.
                None => (
                    format!("{} (the checkpoint's)", progress.settings.seed),
                    progress.settings.seed,
                ),
            },
            None => run.seed(),
        })
    }

    /// The checkpoint a run resumes from: its file, if there is one and
    /// `--restart` was not given.
    pub fn resumed<'a>(
        &self,
        checkpointing: Option<&'a Checkpointing>,
    ) -> Option<&'a Checkpointing> {
        checkpointing.filter(|checkpointing| !self.restart && checkpointing.path.exists())
    }
}

/// How a run learns, for its header: `alpha = 0.1 (rate 3.125e-3 per
/// feature), mode = online`, then the target unless it is TD(0)'s.
pub fn describe_learning(learning: &Learning, rate: f32) -> String {
    let mut line = format!(
        "alpha = {} (rate {rate:e} per feature), mode = {}",
        learning.alpha, learning.mode
    );
    if learning.target != Target::OneStep {
        line += &format!(", target = {}", learning.target);
    }
    if let Some(restart) = learning.restart {
        line += &format!(", restarts {restart}");
    }
    if let Some(carousel) = learning.carousel {
        line += &format!(", carousel {carousel}");
    }
    line
}

fn parse_alpha(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(alpha) if alpha.is_finite() && alpha >= 0.0 => Ok(alpha),
        _ => Err(format!(
            "{text:?} is not a learning rate (a number, 0 or more)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        learn: LearnArgs,
    }

    /// The learning of `words` given as options.
    fn learning(words: &str) -> anyhow::Result<Learning> {
        let args = Args::try_parse_from(std::iter::once("train").chain(words.split_whitespace()))?;
        args.learn.learning(false)
    }

    #[test]
    fn steps_and_lambda_read_as_tdl2048_reads_them() {
        let read = |words| {
            let learning = learning(words).unwrap();
            (learning.mode, learning.target)
        };
        let lambda = |lambda, window| Target::Lambda { lambda, window };
        assert_eq!(read(""), (Mode::Online, Target::OneStep));
        assert_eq!(read("-N 1"), (Mode::Online, Target::OneStep));
        assert_eq!(read("-N"), (Mode::Online, Target::Steps(5)));
        assert_eq!(read("-N 3 -m backward"), (Mode::Backward, Target::Steps(3)));
        // The whole episode's return is known after it.
        assert_eq!(read("-l"), (Mode::Backward, lambda(0.5, None)));
        assert_eq!(read("-l 0.25"), (Mode::Backward, lambda(0.25, None)));
        assert_eq!(read("-l 0.5 4"), (Mode::Online, lambda(0.5, Some(4))));
        assert_eq!(read("-l 0.5 -N 4"), (Mode::Online, lambda(0.5, Some(4))));
        assert_eq!(
            read("-l 0.5 -m forward"),
            (Mode::Forward, lambda(0.5, Some(5)))
        );
        assert_eq!(
            read("-l 0.5 -m backward"),
            (Mode::Backward, lambda(0.5, Some(5)))
        );
        assert_eq!(read("-l 0 -N 2"), (Mode::Online, Target::Steps(2)));
        // Temporal coherence learns forward at 1.0 unless told otherwise.
        let tc = |words: &str| {
            let args =
                Args::try_parse_from(std::iter::once("train").chain(words.split_whitespace()));
            let learning = args.unwrap().learn.learning(true).unwrap();
            (learning.alpha, learning.mode)
        };
        assert_eq!(tc(""), (1.0, Mode::Forward));
        assert_eq!(tc("-m online -a 0.5"), (0.5, Mode::Online));
        let restart = |at, min_moves| Some(Restart { at, min_moves });
        assert_eq!(learning("--restarts").unwrap().restart, restart(0.5, 10));
        assert_eq!(
            learning("--restarts 0.25 4").unwrap().restart,
            restart(0.25, 4)
        );
        assert_eq!(learning("").unwrap().restart, None);
        for (words, error) in [
            ("--restarts 2", "--restarts 2: not a fraction (0 to 1)"),
            (
                "--restarts 0.5 0",
                "--restarts 0.5 0: 0 is not a number of moves",
            ),
            (
                "--restarts -N 3",
                "--restarts learns by TD(0): not with a target of 3-step (-N, -l)",
            ),
            ("-l 1.5", "-l 1.5: not a decay (a number from 0 to 1)"),
            ("-l x", "-l x: not a decay (a number from 0 to 1)"),
            ("-l 0.5 0", "-l 0.5 0: 0 is not a number of moves"),
            ("-l 0.5 2 -N 3", "-l 0.5 2 and -N 3: two windows; give one"),
        ] {
            assert_eq!(learning(words).unwrap_err().to_string(), error);
        }
    }
}
