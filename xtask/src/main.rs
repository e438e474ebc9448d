//! `cargo xtask`: recipes that build or measure 2048lab in ways plain cargo
//! commands do not, so users run one documented command instead of copying
//! flags from the docs.

mod bench;
mod measure;
mod native;
mod outputs;
mod pgo;
mod profile;
mod tablebase;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand, ValueEnum};

/// Build and measurement recipes for 2048lab.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Args {
    #[command(subcommand)]
    recipe: Recipe,
}

#[derive(Subcommand)]
enum Recipe {
    /// Measures what a speed claim rests on, with the release programs:
    /// training and 1-ply testing moves/s of each network on one thread and
    /// on all (with --scaling, on 1, 2, 4, ... threads, and each count's
    /// speed-up), expectimax ms/move at 2p and 3p, a tablebase build's
    /// positions/s, 2584's actions/s, and the peak memory of each. Rounds
    /// are interleaved; medians and ranges are printed as a Markdown table.
    Bench(bench::Options),
    /// What the programs write, this build's against another's, file by
    /// file: tables of every kind of formation, weight files of both formats
    /// and precisions, logs (times aside), game records, both games.
    Outputs(outputs::Options),
    /// Profile-guided builds of `train` and `eval` for a network, as
    /// TDL2048+'s `make 4x6patt`: instrumented build, a profiling recipe run
    /// on a trained network, profiles merged with llvm-profdata, optimised
    /// build into target/pgo/bin, then the speed of the plain and the
    /// optimised build, interleaved.
    Pgo {
        /// The network: a built-in name (4x6patt ... 8x6patt) or patterns
        #[arg(required = true, num_args = 1..)]
        network: Vec<String>,
        /// A trained network (.nw or .w) to profile with [default:
        /// target/pgo/NETWORK.nw, trained for 20,000 episodes when missing]
        #[arg(long, value_name = "FILE")]
        weights: Option<PathBuf>,
        /// What the profiling recipe runs
        #[arg(long, value_enum, default_value_t = Workload::Both)]
        profile: Workload,
        /// Profile expectimax at this depth (2p, 3p) instead
        #[arg(long, value_name = "DEPTH", conflicts_with_all = ["profile", "recipe"])]
        search: Option<String>,
        /// Profile the commands of this recipe file instead (one `train ...`
        /// or `eval ...` a line; {weights} and {network} are filled in)
        #[arg(long, value_name = "FILE", conflicts_with = "profile")]
        recipe: Option<PathBuf>,
        /// Episodes trained and games tested by the recipe and the comparison
        #[arg(long, default_value_t = 10_000)]
        episodes: u64,
        /// Rounds of the before/after comparison
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Install llvm-profdata (LLVM 22, from PyPI) into target/llvm-tools
        /// when none of rustc's LLVM version is found
        #[arg(long)]
        install: bool,
    },
    /// Profile-guided builds of `tb-build`: instrumented build, a few tables
    /// built with it, profiles merged with llvm-profdata, optimised build
    /// into target/pgo/bin, then the plain and the optimised build's CPU
    /// time on the same tables, in turns, as `cargo xtask tablebase --vs`
    PgoTablebase(pgo::TablebaseOptions),
    /// Profiles training, 1-ply testing or search of the release build with
    /// perf (sampled; a flamegraph recipe is printed) or callgrind (exact
    /// instruction counts), printing the hottest functions; the data is
    /// kept in target/profile
    Profile {
        /// What to profile
        #[arg(value_enum)]
        what: ProfileTarget,
        /// The profiler
        #[arg(long, value_enum, default_value_t = ProfileTool::Perf)]
        tool: ProfileTool,
        /// The network
        #[arg(long, default_value = "4x6patt")]
        network: String,
        /// A trained network for testing and search [default: trained for
        /// 20,000 episodes into target/profile]
        #[arg(long, value_name = "FILE")]
        weights: Option<PathBuf>,
        /// Episodes (games for search: one per thousand); callgrind runs
        /// about 50 times slower, so give it a few hundred
        #[arg(long, default_value_t = 10_000)]
        episodes: u64,
        /// Search depth for `search`
        #[arg(long, default_value = "2p")]
        depth: String,
    },
    /// Builds tables with the release tb-build, in turns, and prints the
    /// wall time, CPU time (user + system) and peak memory of each beside
    /// the reference builder's figures; with --vs, another build's
    /// tb-build after each run, its tables checked to hold the same
    /// positions and rates (`tb-build compare`), and the paired ratios of
    /// CPU time; with --scaling, on 1, 2, 4, ... threads, and each count's
    /// speed-up, CPU time and peak memory over one thread's.
    Tablebase(tablebase::Options),
    /// Builds release binaries for this machine's CPU (`-C target-cpu=native`)
    /// into target/native, apart from the portable x86-64-v3 build.
    ///
    /// Native builds can use instructions beyond x86-64-v3 (AVX-512 on recent
    /// CPUs): faster here, but they crash on older CPUs and under valgrind.
    Native {
        /// Further arguments for `cargo build`, such as `-p board --examples`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        cargo_args: Vec<OsString>,
    },
}

/// What `cargo xtask pgo` profiles.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Workload {
    /// Training, then 1-ply testing (TDL2048+'s recipe)
    Both,
    /// Training only
    Train,
    /// Temporal coherence training only (`train --tc`)
    Tc,
    /// 1-ply testing only
    Test,
}

/// What `cargo xtask profile` runs.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProfileTarget {
    /// TD training of a fresh network
    Train,
    /// 1-ply games with a trained network
    Test,
    /// Expectimax games with a trained network
    Search,
}

/// The profiler of `cargo xtask profile`.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProfileTool {
    /// perf record with the cpu-clock event
    Perf,
    /// valgrind's callgrind
    Callgrind,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.recipe {
        Recipe::Native { cargo_args } => native::native(&cargo_args),
        Recipe::Profile {
            what,
            tool,
            network,
            weights,
            episodes,
            depth,
        } => profile::profile(&profile::Options {
            target: match what {
                ProfileTarget::Train => profile::Target::Train,
                ProfileTarget::Test => profile::Target::Test,
                ProfileTarget::Search => profile::Target::Search(depth),
            },
            tool: match tool {
                ProfileTool::Perf => profile::Tool::Perf,
                ProfileTool::Callgrind => profile::Tool::Callgrind,
            },
            network,
            weights,
            episodes,
        }),
        Recipe::Pgo {
            network,
            weights,
            profile,
            search,
            recipe,
            episodes,
            rounds,
            install,
        } => {
            let workload = match (search, recipe, profile) {
                (Some(depth), _, _) => pgo::Workload::Search(depth),
                (None, Some(path), _) => pgo::Workload::File(path),
                (None, None, Workload::Both) => pgo::Workload::Both,
                (None, None, Workload::Train) => pgo::Workload::Train,
                (None, None, Workload::Tc) => pgo::Workload::Tc,
                (None, None, Workload::Test) => pgo::Workload::Test,
            };
            pgo::pgo(&pgo::Options {
                network,
                weights,
                workload,
                episodes,
                rounds: rounds.max(1),
                install,
            })
        }
        Recipe::PgoTablebase(options) => pgo::tablebase(&options),
        Recipe::Bench(options) => bench::bench(&options),
        Recipe::Outputs(options) => outputs::outputs(&options),
        Recipe::Tablebase(options) => tablebase::tablebase(&options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("cargo xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: xtask lives one folder below it.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits inside the workspace")
        .to_path_buf()
}

/// The cargo that runs xtask.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Runs `cargo ARGS` in the workspace root.
pub fn run_cargo(args: &[&str]) -> Result<(), String> {
    let status = Command::new(cargo())
        .current_dir(workspace_root())
        .args(args)
        .status()
        .map_err(|error| format!("could not run cargo: {error}"))?;
    if !status.success() {
        return Err(format!("cargo {} failed ({status})", args.join(" ")));
    }
    Ok(())
}

/// Runs `command`, failing with its name if it fails.
pub fn run(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("could not run {:?}: {e}", command.get_program()))?;
    if !status.success() {
        return Err(format!("{:?} failed ({status})", command.get_program()));
    }
    Ok(())
}

/// Episodes trained when a recipe needs a trained network and none is given.
pub const BRIEF_TRAINING: u64 = 20_000;

/// `folder/NETWORK.nw` (patterns joined by `-`), trained by the release
/// `train` in `release` for [`BRIEF_TRAINING`] episodes if it is not there
/// yet, saying so: the trained network recipes profile or measure with.
pub fn trained_network(
    release: &std::path::Path,
    network: &[String],
    folder: &std::path::Path,
) -> Result<PathBuf, String> {
    let name = network.join("-").replace('!', "");
    let path = folder.join(format!("{name}.nw"));
    if !path.exists() {
        println!(
            "no trained {name} given (--weights): training one for {BRIEF_TRAINING} episodes \
             into {}",
            path.display()
        );
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let plan = format!("1x{BRIEF_TRAINING}");
        run(Command::new(release.join("train"))
            .arg("-n")
            .args(network)
            .args(["-t", &plan, "-s", "brief", "--restart", "-o"])
            .arg(&path))?;
    }
    Ok(path)
}
