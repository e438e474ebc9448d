//! A build's progress on the terminal, weighted by its work.
//!
//! Generation makes each layer from the one before it, so a layer's size,
//! and with it the work left, is known only once it is made: the bar then
//! counts layers and positions, without an ETA. Solving knows every layer's
//! size, and its work goes with the positions (each looks up its
//! children), so its bar counts positions and gives an ETA. Thinning to
//! optimal lines counts layers.

use std::cell::Cell;
use std::io::Write as _;

use indicatif::{ProgressBar, ProgressStyle};
use tablebase::builder::Event;

/// The bar of one build, drawn on standard error where it is a terminal
/// (indicatif hides it otherwise), with the build's lines printed above it.
pub struct BuildBar {
    bar: ProgressBar,
    steps: u64,
    /// The positions this run has generated.
    generated: Cell<u64>,
}

impl BuildBar {
    /// A bar for a build of `steps` layers, starting with generation.
    pub fn new(steps: usize) -> Self {
        let steps = steps as u64;
        let bar = ProgressBar::new(steps);
        bar.set_style(style(
            "{elapsed_precise} generating layer {pos}/{len}, {msg}",
        ));
        bar.set_message("0 positions");
        Self {
            bar,
            steps,
            generated: Cell::new(0),
        }
    }

    /// Prints `line` above the bar, or alone when there is no terminal to
    /// draw the bar on (logs keep every line either way).
    pub fn say(&self, line: String) {
        if self.bar.is_hidden() {
            let _ = writeln!(std::io::stdout(), "{line}");
        } else {
            self.bar.println(line);
        }
    }

    /// Moves the bar on for `event`.
    pub fn advance(&self, event: &Event) {
        match *event {
            Event::Start { generated, .. } => self.bar.set_position(generated as u64),
            Event::Generated { positions, .. } => {
                self.generated.set(self.generated.get() + positions as u64);
                self.bar.inc(1);
                self.bar
                    .set_message(format!("{} positions", self.generated.get()));
            }
            Event::Solving { positions, .. } => {
                self.bar.set_length(positions);
                self.bar.set_position(0);
                self.bar.reset_eta();
                self.bar.set_style(style(
                    "{elapsed_precise} {bar:30} solving: {human_pos}/{human_len} positions, \
                     ETA {eta}",
                ));
            }
            Event::Solved { positions, .. } => self.bar.inc(positions as u64),
            Event::Thinned { layer, .. } => {
                if layer == 0 {
                    self.bar.set_length(self.steps);
                    self.bar.set_position(0);
                    self.bar.reset_eta();
                    self.bar.set_style(style(
                        "{elapsed_precise} {bar:30} thinning: layer {pos}/{len}, ETA {eta}",
                    ));
                }
                self.bar.inc(1);
            }
        }
    }

    /// Takes the bar away.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("a valid template")
}
