//! Reading files a user names, with bounded memory: a device such as
//! `/dev/zero`, or a file of something else, gets one line, not an
//! allocation failure.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// The file at `path` whole, refused past `limit` bytes as not `what`.
///
/// # Errors
/// A file that cannot be read, or is longer than `limit`.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> anyhow::Result<Vec<u8>> {
    let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    anyhow::ensure!(
        bytes.len() as u64 <= limit,
        "{}: over {} MiB, too long for {what}",
        path.display(),
        limit >> 20
    );
    Ok(bytes)
}

/// The lines of the file at `path`, as text, each refused past `limit`
/// bytes as not a line of `what`.
///
/// # Errors
/// A file that cannot be opened; then, line by line, one that cannot be
/// read, is not UTF-8, or is too long.
pub fn bounded_lines(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> anyhow::Result<impl Iterator<Item = anyhow::Result<String>>> {
    let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    Ok(Lines {
        path: path.to_owned(),
        reader: BufReader::new(file),
        limit,
        what,
        number: 0,
        done: false,
    })
}

struct Lines {
    path: PathBuf,
    reader: BufReader<File>,
    limit: u64,
    what: &'static str,
    number: usize,
    done: bool,
}

impl Iterator for Lines {
    type Item = anyhow::Result<String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.number += 1;
        let mut bytes = Vec::new();
        let read = (&mut self.reader)
            .take(self.limit + 1)
            .read_until(b'\n', &mut bytes);
        let line =
            match read {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Ok(_) if bytes.len() as u64 > self.limit => Err(anyhow::anyhow!(
                    "{}: line {} is over {} MiB, too long for {}",
                    self.path.display(),
                    self.number,
                    self.limit >> 20,
                    self.what
                )),
                Ok(_) => String::from_utf8(bytes).map_err(|_| {
                    anyhow::anyhow!(
                        "{}: line {} is not text (UTF-8), not {}",
                        self.path.display(),
                        self.number,
                        self.what
                    )
                }),
                Err(error) => Err(anyhow::Error::new(error)
                    .context(format!("{}: cannot read", self.path.display()))),
            };
        self.done = line.is_err();
        Some(line.map(|line| line.trim_end_matches(['\n', '\r']).to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_or_long_input_is_refused_with_one_line() {
        let error = read_bounded(Path::new("/dev/zero"), 1 << 20, "a log").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/dev/zero: over 1 MiB, too long for a log"
        );
        let mut lines = bounded_lines(Path::new("/dev/zero"), 1 << 20, "a record").unwrap();
        let error = lines.next().unwrap().unwrap_err();
        assert_eq!(
            error.to_string(),
            "/dev/zero: line 1 is over 1 MiB, too long for a record"
        );
        assert!(lines.next().is_none());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two");
        std::fs::write(&path, "one\r\ntwo").unwrap();
        let lines: Vec<String> = bounded_lines(&path, 10, "x")
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(lines, ["one", "two"]);
        std::fs::write(&path, b"ok\n\xff\n").unwrap();
        let error = bounded_lines(&path, 10, "x")
            .unwrap()
            .nth(1)
            .unwrap()
            .unwrap_err();
        assert!(error.to_string().contains("line 2 is not text"), "{error}");
    }
}
