//! What the tests of 2048lab's programs share: running a program as a user
//! does, killing a long run as soon as it has written a checkpoint, to
//! check that running it again resumes and ends as an uninterrupted run,
//! finding the files TDL2048+ wrote, and named pipes standing for
//! `/dev/null`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
#[cfg(unix)]
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Runs `program args` in `dir` to its end.
///
/// # Panics
/// If the program cannot be started.
pub fn run(program: &str, args: &[&str], dir: &Path) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|error| panic!("{program} runs: {error}"))
}

/// Runs `program args` in `dir` to its end with its standard output a pipe
/// whose reading end is already closed, as `program | head` leaves it once
/// `head` has read enough: every write to it fails. Returns the program's
/// output (the standard output empty).
///
/// # Panics
/// If the program cannot be started.
pub fn run_with_closed_output(program: &str, args: &[&str], dir: &Path) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|error| panic!("{program} runs: {error}"))
}

/// Runs `program args` in `dir` on a terminal of its own, as a person at a
/// shell does (through util-linux's `script`), and returns what the
/// terminal was sent, progress bars and their escape codes included.
///
/// # Panics
/// If `script` cannot be started, or the program fails.
pub fn run_in_terminal(program: &str, args: &[&str], dir: &Path) -> String {
    let quote = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let line: Vec<String> = std::iter::once(program)
        .chain(args.iter().copied())
        .map(quote)
        .collect();
    let output = Command::new("script")
        .args(["-qefc", &line.join(" "), "/dev/null"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| {
            panic!("script (util-linux) runs programs on a terminal: {error}; install util-linux")
        });
    let shown = text(&output.stdout);
    assert!(output.status.success(), "{program} {args:?}: {shown}");
    shown
}

/// Checks that a run whose output went into pipes succeeded and printed
/// only its lines: no progress bar, ETA or terminal escape.
///
/// # Panics
/// If it failed or printed a bar.
pub fn assert_no_bar(output: &Output) {
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed = text(&output.stdout) + &text(&output.stderr);
    assert!(
        !printed.contains("ETA") && !printed.contains('\x1b'),
        "{printed}"
    );
}

/// The folder of files written by TDL2048+ (`shared/fixtures/tdl2048`,
/// the shared folder beside the repository, which CI has).
///
/// # Panics
/// If it is missing, saying where it was expected (at the caller's line).
#[track_caller]
pub fn tdl2048_fixtures() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/tdl2048");
    assert!(
        dir.is_dir(),
        "the TDL2048+ fixtures are missing: expected the shared folder beside the repository, \
         with {}",
        dir.display()
    );
    dir
}

/// A program's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A named pipe `name` made in `dir`, and a thread that reads everything
/// written to it: a file that is not a regular one, as `/dev/null` is,
/// which a program must write in place rather than rename a file over,
/// made where a test may touch it.
///
/// # Panics
/// If `mkfifo` fails.
#[cfg(unix)]
pub fn named_pipe(dir: &Path, name: &str) -> (PathBuf, JoinHandle<Vec<u8>>) {
    let pipe = dir.join(name);
    let made = Command::new("mkfifo").arg(&pipe).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo {name}");
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::read(pipe).expect("the pipe reads"))
    };
    (pipe, reader)
}

/// Whether `path` is still a named pipe (a program that renamed a file over
/// it leaves its reader waiting: check this before joining the reader).
#[cfg(unix)]
pub fn is_named_pipe(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_fifo())
}

/// Starts `program args` in `dir` and kills it as soon as the file
/// `checkpoint` appears (within a minute), then checks that the run was cut
/// before it wrote `output`.
///
/// # Panics
/// If no checkpoint appears, or the run finished before it was killed.
pub fn kill_at_checkpoint(
    program: &str,
    args: &[&str],
    dir: &Path,
    checkpoint: &str,
    output: &str,
) {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("{program} runs: {error}"));
    let checkpoint = dir.join(checkpoint);
    let start = Instant::now();
    while !checkpoint.exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(checkpoint.exists(), "a checkpoint was written");
    assert!(!dir.join(output).exists(), "killed before the end");
}

/// Runs `program args` in `dir` and kills it once it prints a line that
/// starts with `line`.
///
/// # Panics
/// If it ends without printing one.
pub fn kill_at_line(program: &str, args: &[&str], dir: &Path, line: &str) {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{program} runs: {error}"));
    let stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let seen = std::io::BufRead::lines(stdout).any(|printed| printed.unwrap().starts_with(line));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(seen, "{program} printed {line:?}");
}

/// Runs `program args -o whole.nw` to its end; then `program args -o
/// killed.nw`, killed at its first checkpoint and run again; checks that the
/// second run said it resumed and saved the same bytes as the first.
/// Returns the standard output of the whole run and of the resumed one.
///
/// # Panics
/// If a run fails or the files differ.
pub fn killed_run_resumes(program: &str, args: &[&str], dir: &Path) -> (String, String) {
    let with_output = |output: &'static str| {
        let mut all = args.to_vec();
        all.extend(["-o", output]);
        all
    };
    let whole = run(program, &with_output("whole.nw"), dir);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    kill_at_checkpoint(
        program,
        &with_output("killed.nw"),
        dir,
        "killed.nw.checkpoint",
        "killed.nw",
    );
    let resumed = run(program, &with_output("killed.nw"), dir);
    let stdout = text(&resumed.stdout);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert!(stdout.contains("resume: "), "{stdout}");
    assert_eq!(
        std::fs::read(dir.join("killed.nw")).unwrap(),
        std::fs::read(dir.join("whole.nw")).unwrap(),
        "the resumed run saves the same weights"
    );
    (text(&whole.stdout), stdout)
}

/// Runs `program args -o stopped.nw` (`args` give no seed) in `dir` as a
/// user at a terminal would: presses Ctrl-C once it has printed a line
/// starting with `after` (a block's), checks that it stops with 130 and
/// says how to resume, then runs the same command again, which resumes;
/// then runs `program args -o whole.nw` with the seed the first run
/// printed, and checks that both saved the same weights. Returns the
/// stopped run's standard error and the resumed run's standard output.
///
/// # Panics
/// If the run is not stopped, does not resume, or the weights differ.
#[cfg(unix)]
pub fn interrupted_run_resumes(
    program: &str,
    args: &[&str],
    dir: &Path,
    after: &str,
) -> (String, String) {
    use std::io::{BufRead, BufReader};

    let stopped_args = [args, &["-o", "stopped.nw"]].concat();
    let mut child = Command::new(program)
        .args(&stopped_args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{program} runs: {error}"));
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seed = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(text) = line.strip_prefix("seed = ") {
            seed = Some(text.to_owned());
        }
        if line.starts_with(after) {
            break;
        }
    }
    // SAFETY: kill sends a signal to a child this test started and has not
    // waited for, so its pid is still its own.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let stopped = child.wait_with_output().unwrap();
    let stderr = text(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(130), "{stderr}\n{rest:?}");
    assert!(
        stderr.contains("run the same command again to resume"),
        "{stderr}"
    );
    assert!(!dir.join("stopped.nw").exists(), "stopped before the end");

    let resumed = run(program, &stopped_args, dir);
    let stdout = text(&resumed.stdout);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert!(stdout.contains("resume: "), "{stdout}");
    let seed = seed.expect("the header names the seed");
    let mut whole = args.to_vec();
    whole.extend(["-s", &seed, "-o", "whole.nw"]);
    let whole = run(program, &whole, dir);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    assert_eq!(
        std::fs::read(dir.join("stopped.nw")).unwrap(),
        std::fs::read(dir.join("whole.nw")).unwrap(),
        "the resumed run saves the same weights"
    );
    (stderr, stdout)
}
