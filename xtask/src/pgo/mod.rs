//! `cargo xtask pgo NETWORK`: profile-guided builds of `train` and `eval`,
//! as TDL2048+'s `make 4x6patt`: build instrumented, run a recipe with a
//! trained network, merge the profiles, rebuild with them, and measure the
//! plain and the optimised build interleaved. `cargo xtask pgo-tablebase`
//! does the same for `tb-build`, profiled by building tables.

mod profdata;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bench::logs::block_speeds;
use crate::measure::{median, summarise};
use crate::{cargo, run, run_cargo, trained_network, workspace_root};
use profdata::{find_profdata, host_triple};

/// The flags of every 2048lab build (.cargo/config.toml); RUSTFLAGS
/// replaces them, so the PGO builds repeat them.
const BASE_FLAGS: &str = "-C target-cpu=x86-64-v3";

/// The programs built with profiles.
const PROGRAMS: [&str; 2] = ["train", "eval"];

/// What the instrumented programs run to collect profiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Training then 1-ply testing, as TDL2048+'s recipe.
    Both,
    /// Training only.
    Train,
    /// Temporal coherence training only.
    Tc,
    /// 1-ply testing only.
    Test,
    /// Expectimax at this depth (`2p`, `3p`).
    Search(String),
    /// The commands of a recipe file.
    File(PathBuf),
}

/// The options of `cargo xtask pgo`.
#[derive(Clone, Debug)]
pub struct Options {
    /// The network: a built-in name or patterns (`012345 456789`).
    pub network: Vec<String>,
    /// A trained network to profile with; trained briefly when missing.
    pub weights: Option<PathBuf>,
    /// What to profile.
    pub workload: Workload,
    /// Episodes trained and games tested by the recipe and the comparison.
    pub episodes: u64,
    /// Rounds of the before/after comparison.
    pub rounds: usize,
    /// Install llvm-profdata with pip when no matching one is found.
    pub install: bool,
}

pub fn pgo(options: &Options) -> Result<(), String> {
    let root = workspace_root();
    let work = root.join(WORK_DIR);
    let profdata = find_profdata(&root, options.install)?;
    println!("llvm-profdata: {}", profdata.display());

    // A trained network makes the testing profile realistic.
    run_cargo(&["build", "--release", "-p", "train", "-p", "eval"])?;
    let plain = root.join("target/release");
    let weights = match &options.weights {
        Some(path) => path.clone(),
        None => trained_network(&plain, &options.network, &work)?,
    };
    let commands = recipe(options, &weights)?;
    println!("profiling: {:?}", options.workload);
    let bin = build_guided(&profdata, &PROGRAMS, &commands)?;
    compare(options, &weights, &plain, &bin, &work.join(SCRATCH_DIR))
}

/// The options of `cargo xtask pgo-tablebase`.
#[derive(Clone, Debug, clap::Args)]
pub struct TablebaseOptions {
    /// Tables the instrumented tb-build builds, each FORMATION-TARGET:
    /// generation by rank and by sorting, solving by rank and by search
    #[arg(long, value_delimiter = ',', default_value = "L3-128,442-128,free8-16")]
    pub profile: Vec<String>,
    /// Tables then built by the plain and the optimised tb-build in turns
    /// on every core, as `cargo xtask tablebase --vs` does
    #[arg(long, value_delimiter = ',', default_value = "442-128,L3-128,L3-256")]
    pub tables: Vec<String>,
    /// Rounds of that comparison (0: none)
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Install llvm-profdata (LLVM 22, from PyPI) into target/llvm-tools
    /// when none of rustc's LLVM version is found
    #[arg(long)]
    pub install: bool,
}

/// `cargo xtask pgo-tablebase`: a profile-guided `tb-build` in
/// target/pgo/bin, from the builds of a few tables, then measured against
/// the plain one by `cargo xtask tablebase`.
pub fn tablebase(options: &TablebaseOptions) -> Result<(), String> {
    // Both lists checked before the builds.
    let commands =
        table_recipe(&options.profile).map_err(|problem| format!("{problem} (--profile)"))?;
    for table in &options.tables {
        crate::tablebase::split(table).map_err(|problem| format!("{problem} (--tables)"))?;
    }
    let profdata = find_profdata(&workspace_root(), options.install)?;
    println!("llvm-profdata: {}", profdata.display());
    println!(
        "profiling: tb-build build of {}",
        options.profile.join(", ")
    );
    let bin = build_guided(&profdata, &["tb-build"], &commands)?;
    if options.rounds == 0 {
        return Ok(());
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    crate::tablebase::tablebase(&crate::tablebase::Options {
        tables: options.tables.clone(),
        threads: vec![cores],
        scaling: false,
        runs: options.rounds,
        precision: "u32".to_owned(),
        vs: Some(bin),
        programs: None,
    })
}

/// The commands that build `tables` (each FORMATION-TARGET), each into a
/// folder of its own, on every core.
fn table_recipe(tables: &[String]) -> Result<Vec<RecipeCommand>, String> {
    tables
        .iter()
        .enumerate()
        .map(|(number, table)| {
            let (formation, target) = crate::tablebase::split(table)?;
            let folder = format!("table-{number}");
            Ok(RecipeCommand {
                program: "tb-build".to_owned(),
                args: ["build", &formation, &target, "-o", &folder]
                    .map(String::from)
                    .to_vec(),
            })
        })
        .collect()
}

/// Where the recipes keep their profiles, scratch and optimised programs.
const WORK_DIR: &str = "target/pgo";
/// Where, in [`WORK_DIR`], the profiling commands run.
const SCRATCH_DIR: &str = "scratch";

/// Builds `programs` guided by profiles: instrumented into target/pgo-gen,
/// which run `commands` in an emptied scratch folder; the profiles merged
/// by `profdata`; then optimised into target/pgo-use, and copied into
/// target/pgo/bin, which is returned. The normal `target/release` build
/// is untouched.
fn build_guided(
    profdata: &Path,
    programs: &[&str],
    commands: &[RecipeCommand],
) -> Result<PathBuf, String> {
    let root = workspace_root();
    let work = root.join(WORK_DIR);
    let profiles = work.join("profiles");
    let scratch = work.join(SCRATCH_DIR);
    let host = host_triple()?;
    let fresh = |folder: &Path| {
        if folder.exists() {
            std::fs::remove_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        }
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))
    };

    println!("building instrumented binaries into target/pgo-gen");
    fresh(&profiles)?;
    let generate = format!(
        "{BASE_FLAGS} -Cprofile-generate={} -Cllvm-args=-enable-name-compression=false",
        profiles.display()
    );
    build(&root, &host, programs, "target/pgo-gen", &generate)?;
    let instrumented = root.join("target/pgo-gen").join(&host).join("release");

    // An empty scratch folder: a table left there would be resumed, not
    // built, and profile nothing.
    fresh(&scratch)?;
    for command in commands {
        let mut process = Command::new(instrumented.join(&command.program));
        process
            .args(&command.args)
            .current_dir(&scratch)
            .env("LLVM_PROFILE_FILE", profiles.join("%m_%p.profraw"));
        run(&mut process)?;
    }
    fresh(&scratch)?;
    let merged = work.join("merged.profdata");
    let raw: Vec<PathBuf> = std::fs::read_dir(&profiles)
        .map_err(|e| format!("{}: {e}", profiles.display()))?
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "profraw"))
        .collect();
    if raw.is_empty() {
        return Err("the recipe wrote no profiles".to_owned());
    }
    run(Command::new(profdata)
        .args(["merge", "-o"])
        .arg(&merged)
        .args(&raw))?;

    println!("building with the profiles into target/pgo-use");
    let use_flags = format!("{BASE_FLAGS} -Cprofile-use={}", merged.display());
    build(&root, &host, programs, "target/pgo-use", &use_flags)?;
    let optimised = root.join("target/pgo-use").join(&host).join("release");
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    for program in programs {
        std::fs::copy(optimised.join(program), bin.join(program))
            .map_err(|e| format!("{}: {e}", bin.join(program).display()))?;
    }
    println!("profile-guided binaries: {}", bin.display());
    Ok(bin)
}

/// One command of a recipe: a program and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeCommand {
    pub program: String,
    pub args: Vec<String>,
}

/// The commands that collect profiles, on the trained network `weights`.
fn recipe(options: &Options, weights: &Path) -> Result<Vec<RecipeCommand>, String> {
    let plan = format!("1x{}", options.episodes);
    let weights = weights.display().to_string();
    let network = options.network.join(" ");
    // Alpha 0 keeps the trained network as it is while its training path
    // runs, as TDL2048+'s recipe does.
    let train = |extra: &[&str]| {
        let mut args = vec!["-n".to_owned()];
        args.extend(options.network.iter().cloned());
        args.extend(
            [
                "-i",
                &weights,
                "-a",
                "0",
                "-s",
                "pgo",
                "--restart",
                "-o",
                "pgo.nw",
            ]
            .map(String::from),
        );
        args.extend(extra.iter().map(|&a| a.to_owned()));
        RecipeCommand {
            program: "train".to_owned(),
            args,
        }
    };
    let eval = |extra: &[&str]| RecipeCommand {
        program: "eval".to_owned(),
        args: ["-i", &weights, "-s", "pgo"]
            .into_iter()
            .chain(extra.iter().copied())
            .map(String::from)
            .collect(),
    };
    Ok(match &options.workload {
        Workload::Both => vec![train(&["-t", &plan, "-e", &plan])],
        Workload::Train => vec![train(&["-t", &plan])],
        Workload::Tc => vec![train(&["-t", &plan, "--tc"])],
        Workload::Test => vec![eval(&["-e", &plan])],
        Workload::Search(depth) => {
            let games = format!("1x{}", (options.episodes / 1000).max(10));
            vec![eval(&["-d", depth, "-e", &games])]
        }
        Workload::File(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            parse_recipe(&text, &weights, &network)
                .map_err(|problem| format!("{}: {problem}", path.display()))?
        }
    })
}

/// A recipe file: one command a line (`train ...` or `eval ...`), `#` for
/// comments; `{weights}` stands for the trained network's file and
/// `{network}` for the network's patterns.
pub fn parse_recipe(
    text: &str,
    weights: &str,
    network: &str,
) -> Result<Vec<RecipeCommand>, String> {
    let mut commands = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let line = line
            .replace("{weights}", weights)
            .replace("{network}", network);
        let mut words = line.split_whitespace().map(str::to_owned);
        let program = words.next().expect("the line is not empty");
        if !PROGRAMS.contains(&program.as_str()) {
            return Err(format!(
                "line {}: {program:?} is not a program of the build (train or eval)",
                number + 1
            ));
        }
        commands.push(RecipeCommand {
            program,
            args: words.collect(),
        });
    }
    if commands.is_empty() {
        return Err("no commands".to_owned());
    }
    Ok(commands)
}

/// Builds `programs` with `flags` into `target_dir`, for `host` so that
/// the flags stay off build scripts.
fn build(
    root: &Path,
    host: &str,
    programs: &[&str],
    target_dir: &str,
    flags: &str,
) -> Result<(), String> {
    let mut command = Command::new(cargo());
    command.current_dir(root).env("RUSTFLAGS", flags).args([
        "build",
        "--release",
        "--target",
        host,
        "--target-dir",
        target_dir,
    ]);
    for program in programs {
        command.args(["-p", program]);
    }
    run(&mut command)
}

/// Runs the recipe's training and testing with the plain and the
/// profile-guided `train`, rounds interleaved, and prints the speeds.
fn compare(
    options: &Options,
    weights: &Path,
    plain: &Path,
    optimised: &Path,
    scratch: &Path,
) -> Result<(), String> {
    let plan = format!("1x{}", options.episodes);
    let mut speeds: [(Vec<f64>, Vec<f64>); 2] = Default::default();
    for round in 1..=options.rounds {
        for (build, folder) in [plain, optimised].into_iter().enumerate() {
            eprintln!(
                "round {round}/{}: {} build",
                options.rounds,
                ["plain", "PGO"][build]
            );
            let output = Command::new(folder.join("train"))
                .current_dir(scratch)
                .arg("-n")
                .args(&options.network)
                .arg("-i")
                .arg(weights)
                .args(["-a", "0", "-t", &plan, "-e", &plan, "-s", "compare"])
                .args(["--restart", "-o", "compare.nw"])
                .output()
                .map_err(|e| format!("could not run train: {e}"))?;
            if !output.status.success() {
                return Err(format!(
                    "train failed: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
            let found = block_speeds(&String::from_utf8_lossy(&output.stdout));
            let [trained, tested] = found[..] else {
                return Err(format!("expected two block lines, found {}", found.len()));
            };
            speeds[build].0.push(trained / 1e6);
            speeds[build].1.push(tested / 1e6);
        }
    }
    println!("\n| build | training moves/s | testing moves/s |");
    println!("|---|---|---|");
    for (build, (train, test)) in ["plain", "PGO"].iter().zip(&speeds) {
        println!("| {build} | {} | {} |", summarise(train), summarise(test));
    }
    println!(
        "| PGO / plain | {:.2}x | {:.2}x |",
        median(&speeds[1].0) / median(&speeds[0].0),
        median(&speeds[1].1) / median(&speeds[0].1)
    );
    println!(
        "\n{} interleaved round(s) of train -i {} -a 0 -t {plan} -e {plan}; \
         median (min-max) in millions of moves per second.",
        options.rounds,
        weights.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_built_each_into_a_folder_of_its_own() {
        let tables = ["L3-128".to_owned(), "free8-16".to_owned()];
        let commands = table_recipe(&tables).unwrap();
        assert_eq!(commands.len(), 2);
        assert!(commands.iter().all(|command| command.program == "tb-build"));
        assert_eq!(commands[0].args, ["build", "L3", "128", "-o", "table-0"]);
        assert_eq!(commands[1].args, ["build", "free8", "16", "-o", "table-1"]);
        let error = table_recipe(&["L3".to_owned()]).unwrap_err();
        assert!(error.contains("not FORMATION-TARGET"), "{error}");
    }

    #[test]
    fn recipe_files_name_programs_and_placeholders() {
        let text = "# profile search too\ntrain -n {network} -i {weights} -a 0 -t 1x100\n\n\
                    eval -i {weights} -d 2p -e 1x10  # deeper\n";
        let commands = parse_recipe(text, "w.nw", "4x6patt").unwrap();
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[0].program, "train");
        assert_eq!(
            commands[0].args,
            ["-n", "4x6patt", "-i", "w.nw", "-a", "0", "-t", "1x100"]
        );
        assert_eq!(commands[1].args, ["-i", "w.nw", "-d", "2p", "-e", "1x10"]);
        let error = parse_recipe("make all\n", "w", "n").unwrap_err();
        assert_eq!(
            error,
            "line 1: \"make\" is not a program of the build (train or eval)"
        );
        assert_eq!(
            parse_recipe("# nothing\n", "w", "n").unwrap_err(),
            "no commands"
        );
    }
}
