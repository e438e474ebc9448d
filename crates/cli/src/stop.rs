//! Stopping a long run with Ctrl-C at a safe point.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raised by the first Ctrl-C while a run watches it.
static FLAG: AtomicBool = AtomicBool::new(false);

/// Whether a run watches [`FLAG`]: otherwise Ctrl-C stops at once.
static WATCHED: AtomicBool = AtomicBool::new(false);

/// The flag Ctrl-C raises, watched from now on, with the handler installed
/// on first use: the first Ctrl-C raises it and says what will happen (the
/// run saves a checkpoint after the block under way and stops); a second
/// one, or one once [`stop_at_once`] is called, stops the program at once,
/// as Ctrl-C does without a handler.
///
/// Where no handler can be installed, Ctrl-C keeps its usual effect, and
/// the flag is never raised: the run resumes from its last checkpoint.
pub fn ctrl_c_flag(program: &'static str) -> &'static AtomicBool {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let _ = ctrlc::set_handler(move || {
            if !WATCHED.load(Ordering::Relaxed) {
                eprintln!("{program}: stopped");
                std::process::exit(130);
            }
            if FLAG.swap(true, Ordering::Relaxed) {
                eprintln!("{program}: stopped at once; the last checkpoint holds the run");
                std::process::exit(130);
            }
            eprintln!(
                "{program}: stopping after the block under way, with a checkpoint \
                 (Ctrl-C again stops at once)"
            );
        });
    });
    WATCHED.store(true, Ordering::Relaxed);
    &FLAG
}

/// Ctrl-C stops the program at once from now on: the run that watched
/// [`ctrl_c_flag`] is over (what follows, an evaluation, has nothing to
/// save).
pub fn stop_at_once() {
    WATCHED.store(false, Ordering::Relaxed);
}
