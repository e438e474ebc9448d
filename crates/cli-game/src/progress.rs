//! Progress of a run's episodes on the terminal, with its rate and ETA.

use std::io::IsTerminal as _;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use learn::{Log, Outcome, Plan};

/// A bar over the episodes of a run on standard error, when it is a
/// terminal: nothing otherwise, so that logs and pipes keep TDL2048+'s
/// layout. The run counts its episodes through [`EpisodeBar::progress`];
/// the bar goes away when dropped.
pub struct EpisodeBar {
    bar: Option<ProgressBar>,
    count: Box<dyn Fn(&Outcome) + Sync>,
}

impl EpisodeBar {
    /// A bar over the episodes of `plan`, `done` of them already played;
    /// `log`'s lines then go through it, so that they never mix.
    pub fn new(plan: Plan, done: u64, log: &mut Log) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(plan.episodes());
            let template = "{elapsed_precise} {bar:30} {pos}/{len} episodes, {rate}, ETA {eta}";
            let style = ProgressStyle::with_template(template)
                .expect("a valid template")
                .with_key(
                    "rate",
                    |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{:.0}/s", state.per_sec());
                    },
                );
            bar.set_style(style);
            bar.set_position(done);
            let shown = bar.clone();
            log.around(move |write| shown.suspend(write));
            bar
        });
        let counted = bar.clone();
        Self {
            bar,
            count: Box::new(move |_| {
                if let Some(bar) = &counted {
                    bar.inc(1);
                }
            }),
        }
    }

    /// What a [`learn::Run`] calls after each episode: `None` where no bar
    /// is shown.
    pub fn progress(&self) -> Option<&(dyn Fn(&Outcome) + Sync)> {
        self.bar.as_ref().map(|_| &*self.count)
    }
}

impl Drop for EpisodeBar {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
