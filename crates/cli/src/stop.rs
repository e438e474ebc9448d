//! Stopping a long run with Ctrl-C at a safe point.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// The flag Ctrl-C raises, with the handler installed on first use: the
/// first Ctrl-C raises it and says what will happen (a run that checks it
/// saves a checkpoint after the block under way and stops); a second one
/// stops the program at once, as Ctrl-C does without a handler.
///
/// Where no handler can be installed, Ctrl-C keeps its usual effect, and
/// the flag is never raised: the run resumes from its last checkpoint.
pub fn ctrl_c_flag(program: &'static str) -> &'static AtomicBool {
    static FLAG: AtomicBool = AtomicBool::new(false);
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let _ = ctrlc::set_handler(move || {
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
    &FLAG
}
