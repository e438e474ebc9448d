//! What 2048lab's command-line programs share, whatever they do: one way
//! of ending with an error, Ctrl-C, inputs read within bounds, outputs
//! checked before a long run and never written over an input, record files
//! written whole, and the parsers of threads and sizes. The options of runs
//! that play and learn are `cli-game`'s.

#![forbid(unsafe_code)]

use std::path::Path;
use std::process::ExitCode;

use system::parse_bytes;

mod input;
mod overlap;
mod records;
mod stop;

pub use input::{bounded_lines, read_bounded};
pub use overlap::{Named, refuse_overlaps};
pub use records::RecordFile;
pub use stop::{ctrl_c_flag, stop_at_once};

/// Fails if `output` cannot be saved: its folder does not exist, or it is
/// a folder itself (or named as one, `new/`). A long run then finds out at
/// its start rather than its end.
///
/// # Errors
/// A message naming the folder.
pub fn check_output(output: &Path) -> anyhow::Result<()> {
    // `new/` names a folder too, one that does not exist yet.
    let last = output.as_os_str().to_string_lossy().chars().last();
    let names_folder = last.is_some_and(std::path::is_separator);
    if output.is_dir() || names_folder {
        anyhow::bail!("{}: a folder, not a file to save in", output.display());
    }
    if let Some(folder) = output
        .parent()
        .filter(|f| !f.as_os_str().is_empty() && !f.is_dir())
    {
        anyhow::bail!(
            "{}: no such folder to save {} in",
            folder.display(),
            output.display()
        );
    }
    Ok(())
}

/// The most threads a program starts: far more than any machine's cores,
/// and few enough that the system can start them all (each takes a few
/// memory maps; Linux allows 65,530 by default, and `-p 65535` aborted in
/// a thread's start).
pub const MOST_THREADS: u16 = 4096;

/// Reads a thread count, 1 to [`MOST_THREADS`].
pub fn threads_parser() -> clap::builder::RangedI64ValueParser<u16> {
    clap::value_parser!(u16).range(1..=i64::from(MOST_THREADS))
}

/// Reads a size in bytes with an optional K, M, G or T suffix (`512M`, `8G`).
///
/// # Errors
/// A message for anything else.
pub fn parse_memory(text: &str) -> Result<u64, String> {
    parse_bytes(text).ok_or_else(|| format!("{text:?} is not a size (e.g. 512M, 8G)"))
}

/// Runs a front end's `main`: a closed standard output ends it quietly,
/// any other error is printed on one line, with its causes, and exits
/// with 1.
pub fn main_with(program: &str, run: impl FnOnce() -> anyhow::Result<()>) -> ExitCode {
    main_stopping(program, run, |_| false)
}

/// [`main_with`] for a run that Ctrl-C stops at a safe point: an error
/// that `stopped` recognises as that stop exits with 130, the shell's code
/// for SIGINT.
pub fn main_stopping(
    program: &str,
    run: impl FnOnce() -> anyhow::Result<()>,
    stopped: impl FnOnce(&anyhow::Error) -> bool,
) -> ExitCode {
    warn_of_missing_cpu_features(program);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) if stopped(&error) => {
            eprintln!("{program}: {error:#}");
            ExitCode::from(130)
        }
        Err(error) => {
            eprintln!("{program}: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Says so when the build assumed BMI2 and AVX2 (x86-64-v3, the
/// workspace's setting) and this CPU lacks them: the program would stop
/// on an illegal instruction at its first move.
fn warn_of_missing_cpu_features(program: &str) {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    if !(std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("avx2"))
    {
        eprintln!(
            "{program}: warning: built for x86-64-v3 (BMI2, AVX2), which this CPU lacks: \
             rebuild with RUSTFLAGS=\"-C target-cpu=native\" (docs/build.md)"
        );
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    let _ = program;
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
