//! What the recipes share: a release program run in a scratch folder,
//! with the kernel's account of its peak memory and CPU time; the thread
//! counts they measure; and the medians and ranges they print.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{run_cargo, workspace_root};

/// The folder of the programs a recipe measures, which must hold
/// `needed`: `given` as it is (`--programs`: a machine without cargo, such
/// as a lent many-core one, measures programs built elsewhere), else this
/// workspace's release build of `packages`, built first.
pub(crate) fn programs(
    given: Option<&Path>,
    packages: &[&str],
    needed: &str,
) -> Result<PathBuf, String> {
    let folder = match given {
        Some(folder) => folder.to_path_buf(),
        None => {
            let mut build = vec!["build", "--release"];
            for package in packages {
                build.extend(["-p", package]);
            }
            run_cargo(&build)?;
            workspace_root().join("target/release")
        }
    };
    if !folder.join(needed).is_file() {
        return Err(format!(
            "{}: no {needed} there (--programs)",
            folder.display()
        ));
    }
    Ok(folder)
}

/// A thread count of `--threads`: a whole number from 1 (0 threads would
/// train nothing, and split no episodes among them).
pub(crate) fn thread_count(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(count) if count >= 1 => Ok(count),
        _ => Err(format!("{text:?} is not a thread count (1 or more)")),
    }
}

/// The thread counts a recipe measures: `threads` if given; with
/// `scaling`, 1, 2, 4, ... up to all cores (and all cores); else 1 and all
/// cores.
pub(crate) fn thread_counts(threads: &[usize], scaling: bool) -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let mut counts: Vec<usize> = if !threads.is_empty() {
        threads.to_vec()
    } else if scaling {
        std::iter::successors(Some(1), |&count| Some(count * 2))
            .take_while(|&count| count < all)
            .chain([all])
            .collect()
    } else {
        vec![1, all]
    };
    counts.dedup();
    counts
}

/// A program run and what it printed.
pub(crate) struct Ran {
    pub(crate) stdout: String,
    /// The largest resident size of the process, in bytes.
    pub(crate) peak: u64,
    /// The CPU time of the process (user + system), in seconds, where the
    /// system says.
    pub(crate) cpu: Option<f64>,
}

/// What `work` returns, given a scratch folder of its own (named for
/// `recipe`), which is removed afterwards whatever the outcome.
pub(crate) fn in_scratch<T>(
    recipe: &str,
    work: impl FnOnce(&Path) -> Result<T, String>,
) -> Result<T, String> {
    let scratch = std::env::temp_dir().join(format!("2048lab-{recipe}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let result = work(&scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Runs `binary args` in `scratch`, and the peak resident size and CPU
/// time the kernel recorded for it.
pub(crate) fn run_program(binary: &Path, scratch: &Path, args: &[String]) -> Result<Ran, String> {
    // A program named relative to here, not to `scratch`, where it runs.
    let binary = &std::path::absolute(binary).map_err(|e| format!("{}: {e}", binary.display()))?;
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(scratch)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", binary.display()))?;
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut stdout)
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let (success, peak, cpu) = wait_with_usage(child)?;
    if !success {
        return Err(format!(
            "{} {} failed: {}",
            binary.display(),
            args.join(" "),
            stderr.trim()
        ));
    }
    Ok(Ran { stdout, peak, cpu })
}

/// Waits for `child` and reads its peak resident size and CPU time from the
/// kernel's accounting of that one process (`wait4`).
#[cfg(unix)]
fn wait_with_usage(child: std::process::Child) -> Result<(bool, u64, Option<f64>), String> {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; the pid is our
    // child, not yet waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to a status and a rusage on this stack.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != pid {
        return Err(format!("waiting for process {pid} failed"));
    }
    let success = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 * 1e-6;
    let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    // Linux reports kibibytes.
    Ok((success, usage.ru_maxrss as u64 * 1024, Some(cpu)))
}

#[cfg(not(unix))]
fn wait_with_usage(mut child: std::process::Child) -> Result<(bool, u64, Option<f64>), String> {
    let status = child.wait().map_err(|e| e.to_string())?;
    Ok((status.success(), 0, None))
}

/// The median of `values` (the upper one of an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// `2.412 (2.301-2.590)`: the median and range, to four significant digits.
pub(crate) fn summarise(values: &[f64]) -> String {
    if values.is_empty() {
        return "-".to_owned();
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    format!(
        "{} ({}-{})",
        significant(median(values)),
        significant(sorted[0]),
        significant(sorted[sorted.len() - 1])
    )
}

/// `x` to four significant digits: `2.412`, `0.01732`, `412.0`.
fn significant(x: f64) -> String {
    let magnitude = if x == 0.0 {
        0
    } else {
        x.abs().log10().floor() as i32
    };
    let decimals = (3 - magnitude).max(0) as usize;
    format!("{x:.decimals$}")
}

/// The largest of `peaks`, in MiB.
pub(crate) fn peak_mib(peaks: &[u64]) -> String {
    peaks
        .iter()
        .max()
        .map_or_else(|| "-".to_owned(), |&peak| format!("{}", peak >> 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Programs given are measured as they are, nothing built; a folder
    /// without the program measured is named.
    #[test]
    fn given_programs_are_taken_as_they_are() {
        let folder = tempfile::tempdir().unwrap();
        let error = programs(Some(folder.path()), &["train"], "train").unwrap_err();
        assert!(error.ends_with("no train there (--programs)"), "{error}");
        std::fs::write(folder.path().join("train"), "").unwrap();
        assert_eq!(
            programs(Some(folder.path()), &["train"], "train"),
            Ok(folder.path().to_path_buf())
        );
    }

    #[test]
    fn thread_counts_run_from_one_to_all_cores() {
        assert_eq!(thread_counts(&[3, 3, 5], true), [3, 5]);
        assert_eq!(thread_count("16"), Ok(16));
        for bad in ["0", "-1", "two"] {
            assert!(
                thread_count(bad)
                    .unwrap_err()
                    .contains("not a thread count")
            );
        }
        let all = std::thread::available_parallelism().map_or(1, usize::from);
        let scaling = thread_counts(&[], true);
        assert_eq!((scaling[0], scaling.last()), (1, Some(&all)));
        assert!(
            scaling
                .windows(2)
                .all(|pair| pair[1] <= 2 * pair[0] && pair[1] > pair[0])
        );
    }

    #[test]
    fn figures_are_summarised_to_four_digits() {
        assert_eq!(summarise(&[2.4123, 2.301, 2.59]), "2.412 (2.301-2.590)");
        assert_eq!(summarise(&[0.017_321]), "0.01732 (0.01732-0.01732)");
    }

    /// A program named relative to where the recipe runs is found there,
    /// though it runs in a scratch folder deeper down.
    #[cfg(unix)]
    #[test]
    fn programs_are_named_from_where_the_recipe_runs() {
        let up = std::env::current_dir().unwrap().components().count() - 1;
        let shell = Path::new(&"../".repeat(up)).join("bin/sh");
        let scratch = (0..=up).fold(
            std::env::temp_dir().join(format!("2048lab-xtask-run-{}", std::process::id())),
            |folder, depth| folder.join(depth.to_string()),
        );
        std::fs::create_dir_all(&scratch).unwrap();
        let ran = run_program(&shell, &scratch, &["-c", "echo ran"].map(String::from));
        std::fs::remove_dir_all(scratch.ancestors().nth(up + 1).unwrap()).unwrap();
        let ran = ran.unwrap();
        assert_eq!(ran.stdout, "ran\n");
        assert!(ran.cpu.is_some_and(|cpu| cpu >= 0.0));
    }
}
