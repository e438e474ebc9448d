//! No program writes over its own input, or two outputs to one file.

use std::path::{Path, PathBuf};

/// A file a run reads or writes, with the option that names it (`-i`,
/// `--log`, ...), for messages.
#[derive(Clone, Copy, Debug)]
pub struct Named<'a> {
    /// The option, as the user wrote it.
    pub option: &'a str,
    /// The file.
    pub path: &'a Path,
}

impl<'a> Named<'a> {
    /// `path`, named by `option`.
    pub fn new(option: &'a str, path: &'a Path) -> Self {
        Self { option, path }
    }
}

/// Fails if an output is one of the inputs (the same file, whatever the
/// path that names it) or two outputs name one file. Devices and pipes
/// (`/dev/null`) are left out: writing them twice loses nothing.
///
/// # Errors
/// One line naming both options and the file.
pub fn refuse_overlaps(inputs: &[Named<'_>], outputs: &[Named<'_>]) -> anyhow::Result<()> {
    let outputs: Vec<&Named<'_>> = outputs
        .iter()
        .filter(|output| !system::is_special_file(output.path))
        .collect();
    for output in &outputs {
        if let Some(input) = inputs
            .iter()
            .find(|input| same_file(input.path, output.path))
        {
            anyhow::bail!(
                "{} {}: that is the file read with {}; write to another file (no program \
                 writes over its input)",
                output.option,
                output.path.display(),
                input.option
            );
        }
    }
    for (index, first) in outputs.iter().enumerate() {
        if let Some(second) = outputs[index + 1..]
            .iter()
            .find(|second| same_file(first.path, second.path))
        {
            anyhow::bail!(
                "{} and {} both name {}: give each its own file",
                first.option,
                second.option,
                first.path.display()
            );
        }
    }
    Ok(())
}

/// Whether `a` and `b` are one file: the same file on disk if both exist,
/// else the same absolute path (`.` and `..` resolved where they can be).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return (a.dev(), a.ino()) == (b.dev(), b.ino());
        }
    }
    resolved(a) == resolved(b)
}

/// `path` made absolute, through its folder's real path where that exists.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    match (absolute.parent(), absolute.file_name()) {
        (Some(folder), Some(name)) => folder
            .canonicalize()
            .map_or(absolute.clone(), |folder| folder.join(name)),
        _ => absolute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_over_an_input_or_another_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("net.nw");
        std::fs::write(&net, "weights").unwrap();
        let link = dir.path().join("link.nw");
        std::os::unix::fs::symlink(&net, &link).unwrap();
        let other = dir.path().join("sub/../log.txt");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let inputs = [Named::new("-i", &net)];

        let error = refuse_overlaps(&inputs, &[Named::new("--log", &link)]).unwrap_err();
        assert!(error.to_string().starts_with("--log "), "{error}");
        assert!(
            error.to_string().contains("that is the file read with -i"),
            "{error}"
        );
        let log = dir.path().join("log.txt");
        let error = refuse_overlaps(
            &inputs,
            &[Named::new("-o", &log), Named::new("--log", &other)],
        )
        .unwrap_err();
        assert!(
            error.to_string().starts_with("-o and --log both name"),
            "{error}"
        );
        let null = Path::new("/dev/null");
        refuse_overlaps(
            &inputs,
            &[Named::new("-o", null), Named::new("--log", null)],
        )
        .unwrap();
        refuse_overlaps(&inputs, &[Named::new("-o", &log)]).unwrap();
    }
}
