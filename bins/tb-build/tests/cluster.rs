//! Partitioned builds on a real local Dask cluster (docs/distributed.md):
//! a scheduler and three worker processes on 127.0.0.1, the driver
//! `cluster/dask_build.py` running `tb-build task` on them, building
//! L3-256 and free8-128 in 16 parts (the two at once: 485 s in
//! `.ci/run` on 2 cores). In each build a worker is killed in the middle of
//! generation and another in the middle of solving (each replaced, as a
//! cluster's nanny would); the tables come out as the single-machine
//! builds': L3-256 compared with one built beside it, free8-128 through
//! the digest of one (`tests/data/free8-128.digest`, made by `tb-build
//! build free8 128` and `tb-build digest free8-128`).
//!
//! Needs Python 3 with Dask's `distributed` package, which `./.ci/run`
//! installs when it is missing.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use testkit::text;

/// The processes of a local cluster, killed when dropped.
struct Cluster {
    scheduler_file: PathBuf,
    /// The scheduler, then the workers in the order they started.
    processes: Vec<Child>,
    logs: Vec<PathBuf>,
    /// The workers killed: the first ones started.
    killed: usize,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for process in &mut self.processes {
            let _ = process.kill();
            let _ = process.wait();
        }
    }
}

/// `python3 -m dask ARGS`, its output to `log`.
fn dask(args: &[&str], log: &Path) -> Child {
    let log = std::fs::File::create(log).unwrap();
    Command::new("python3")
        .args(["-m", "dask"])
        .args(args)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("python3 starts")
}

/// Waits until `ready` holds, or fails saying `what` after a minute.
fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(60), "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Cluster {
    /// A scheduler and `workers` worker processes without nannies (a
    /// killed worker stays dead), one task at a time each.
    fn start(dir: &Path, workers: usize) -> Self {
        let installed = Command::new("python3")
            .args(["-c", "import distributed"])
            .output()
            .is_ok_and(|output| output.status.success());
        assert!(
            installed,
            "python3 with Dask's distributed package is needed: ./.ci/run installs it \
             (python3 -m pip install distributed)"
        );
        let scheduler_file = dir.join("scheduler.json");
        let file = scheduler_file.to_str().unwrap();
        let mut cluster = Self {
            scheduler_file: scheduler_file.clone(),
            processes: Vec::new(),
            logs: Vec::new(),
            killed: 0,
        };
        let scheduler = [
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            file,
        ];
        cluster
            .processes
            .push(dask(&scheduler, &dir.join("scheduler.log")));
        wait_for("the scheduler starts", || scheduler_file.exists());
        for _ in 0..workers {
            cluster.add_worker(dir);
        }
        cluster
    }

    /// Starts one more worker process, in `dir`, and waits until it has
    /// registered.
    fn add_worker(&mut self, dir: &Path) {
        let number = self.logs.len();
        let (name, log) = (format!("w{number}"), dir.join(format!("w{number}.log")));
        let space = dir.join(&name);
        let args = [
            "worker",
            "--scheduler-file",
            self.scheduler_file.to_str().unwrap(),
            "--no-nanny",
            "--nthreads",
            "1",
            "--name",
            &name,
            "--local-directory",
            space.to_str().unwrap(),
        ];
        self.processes.push(dask(&args, &log));
        wait_for("a worker registers", || {
            std::fs::read_to_string(&log).is_ok_and(|text| text.contains("Registered to"))
        });
        self.logs.push(log);
    }

    /// Kills the oldest worker still running (SIGKILL) and starts a new
    /// one in its place.
    fn replace_oldest_worker(&mut self, dir: &Path) {
        let worker = &mut self.processes[1 + self.killed];
        worker.kill().unwrap();
        worker.wait().unwrap();
        self.killed += 1;
        self.add_worker(dir);
    }

    /// Builds `table` (`FORMATION TARGET`) in 16 parts into `dir/out` with
    /// the driver, killing a worker a fifth of the way into generation
    /// and another halfway through solving, each replaced by a new one.
    fn build(&mut self, dir: &Path, table: [&str; 2], out: &str) {
        let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster/dask_build.py");
        let mut child = Command::new("python3")
            .arg(&driver)
            .args(["--scheduler-file", self.scheduler_file.to_str().unwrap()])
            .args([
                "--tb-build",
                env!("CARGO_BIN_EXE_tb-build"),
                "--threads",
                "1",
            ])
            .arg("--")
            .args(table)
            .args(["-o", out, "--partitions", "16"])
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Lines `stage N/M: TASK ...`.
        let (mut killed, mut last) = (Vec::new(), String::new());
        for line in BufReader::new(child.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            if let Some((number, rest)) =
                line.strip_prefix("stage ").and_then(|s| s.split_once('/'))
            {
                let (number, total): (usize, usize) = (
                    number.parse().unwrap(),
                    rest.split(':').next().unwrap().parse().unwrap(),
                );
                let solving = killed.len() == 1 && number > 3 * total / 4;
                if (killed.is_empty() && rest.contains("expand/") && number > total / 5)
                    || (solving && rest.contains("solve/"))
                {
                    self.replace_oldest_worker(dir);
                    killed.push(line.clone());
                }
            }
            last = line;
        }
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(child.wait().unwrap().success(), "{out}: {stderr}");
        assert_eq!(
            killed.len(),
            2,
            "{out}: a worker killed in each phase: {killed:?}"
        );
        assert!(last.starts_with("done: "), "{out}: {last}");
    }
}

#[test]
fn a_cluster_build_survives_killed_workers_and_makes_the_whole_table() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let tb_build = env!("CARGO_BIN_EXE_tb-build");
    let whole = testkit::run(tb_build, &["build", "L3", "256", "-o", "whole"], dir);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    Cluster::start(dir, 3).build(dir, ["L3", "256"], "cluster");
    let compared = testkit::run(tb_build, &["compare", "whole", "cluster"], dir);
    assert!(
        text(&compared.stdout).contains("are the same"),
        "{}",
        text(&compared.stdout)
    );
}

/// free8-128, checked through the digest of the single-machine build.
#[test]
fn a_cluster_build_of_free8_128_has_the_single_machine_digest() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    Cluster::start(dir, 3).build(dir, ["free8", "128"], "cluster");
    let digest = testkit::run(env!("CARGO_BIN_EXE_tb-build"), &["digest", "cluster"], dir);
    assert!(digest.status.success(), "{}", text(&digest.stderr));
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/free8-128.digest");
    assert_eq!(
        text(&digest.stdout),
        std::fs::read_to_string(&expected).unwrap(),
        "free8-128 built on the cluster against the single-machine build's digest"
    );
}
