//! `cargo xtask native`: release binaries for this machine's CPU.

use std::ffi::OsString;
use std::process::Command;

use crate::{cargo, workspace_root};

pub fn native(cargo_args: &[OsString]) -> Result<(), String> {
    let root = workspace_root();
    let target_dir = root.join("target/native");
    let cargo = cargo();
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
