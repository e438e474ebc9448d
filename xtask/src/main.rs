//! `cargo xtask`: recipes that build or measure 2048lab in ways plain cargo
//! commands do not, so users run one documented command instead of copying
//! flags from the docs.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

/// Build and measurement recipes for 2048lab.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Args {
    #[command(subcommand)]
    recipe: Recipe,
}

#[derive(Subcommand)]
enum Recipe {
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

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.recipe {
        Recipe::Native { cargo_args } => native(&cargo_args),
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
fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits inside the workspace")
        .to_path_buf()
}

fn native(cargo_args: &[OsString]) -> Result<(), String> {
    let root = workspace_root();
    let target_dir = root.join("target/native");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .current_dir(&root)
        // RUSTFLAGS replaces the x86-64-v3 flags of .cargo/config.toml.
        .env("RUSTFLAGS", "-C target-cpu=native")
        .args(["build", "--release", "--target-dir"])
        .arg(&target_dir)
        .args(cargo_args)
        .status()
        .map_err(|error| format!("could not run {}: {error}", cargo.to_string_lossy()))?;
    if !status.success() {
        return Err(format!("the native build failed ({status})"));
    }
    println!(
        "native binaries are in {}",
        target_dir.join("release").display()
    );
    Ok(())
}
