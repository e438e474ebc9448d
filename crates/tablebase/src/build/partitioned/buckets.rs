//! Files of buckets: the working files through which the tasks of a
//! partitioned build hand each other words (boards sent to a part, boards
//! asked of one, rates answered), one bucket for each part or part and
//! side, so that the task that takes a bucket reads it and nothing else.
//!
//! A file of `count` buckets holds `count + 1` offsets, counted in words
//! from the end of the offsets, where each bucket begins and the last
//! ends; then the buckets in turn.

use std::ops::Range;
use std::path::Path;

use crate::Error;
use crate::build::work::{WordReader, WordWriter};

/// Writes `buckets` to `path` (under a temporary name until finished),
/// its folder made if need be.
///
/// # Errors
/// [`Error::Io`] naming the file.
pub(super) fn write<B: AsRef<[u64]>>(path: &Path, buckets: &[B]) -> Result<(), Error> {
    super::make_folder_of(path)?;
    let mut offsets = Vec::with_capacity(buckets.len() + 1);
    let mut at = 0;
    offsets.push(at);
    for bucket in buckets {
        at += bucket.as_ref().len() as u64;
        offsets.push(at);
    }
    let mut out = WordWriter::create(path)?;
    out.extend(&offsets)?;
    for bucket in buckets {
        out.extend(bucket.as_ref())?;
    }
    out.finish()
}

/// Buckets read from a file, in the one vector they were read into.
#[derive(Debug)]
pub(super) struct Buckets {
    words: Vec<u64>,
    /// Where each bucket ends in `words`.
    ends: Vec<usize>,
}

impl Buckets {
    /// The `index`-th bucket read.
    pub(super) fn get(&self, index: usize) -> &[u64] {
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.words[start..self.ends[index]]
    }

    /// The words of all the buckets read, in turn: the bucket itself when
    /// one was read.
    pub(super) fn into_words(self) -> Vec<u64> {
        self.words
    }
}

/// Buckets `range` of the `count` buckets that `path` holds, read at once.
///
/// # Errors
/// [`Error::Build`] if the file is not there (the task that writes it, of
/// an earlier stage, has not run); [`Error::File`] if its offsets do not
/// fit it; [`Error::Io`].
pub(super) fn read(path: &Path, count: usize, range: Range<usize>) -> Result<Buckets, Error> {
    if !path.exists() {
        return Err(super::missing(path));
    }
    let file = WordReader::open(path)?;
    let data = count + 1;
    let offsets = if range.end <= count && file.len() >= data {
        file.read(range.start, range.len() + 1)?
    } else {
        Vec::new()
    };
    let fits = offsets.len() == range.len() + 1
        && offsets.is_sorted()
        && offsets
            .last()
            .is_some_and(|&end| end <= (file.len() - data) as u64);
    if !fits {
        return Err(Error::File {
            path: path.to_owned(),
            problem: format!(
                "does not hold buckets {range:?} of {count}; remove the table's folder to \
                 build it anew"
            ),
        });
    }
    let words = file.read(
        data + offsets[0] as usize,
        (offsets[range.len()] - offsets[0]) as usize,
    )?;
    let ends = offsets[1..]
        .iter()
        .map(|&end| (end - offsets[0]) as usize)
        .collect();
    Ok(Buckets { words, ends })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_read_back_alone_or_in_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("some").join("buckets");
        let buckets: Vec<Vec<u64>> = vec![vec![1, 2, 3], vec![], vec![7], vec![8, 9]];
        write(&path, &buckets).unwrap();
        for start in 0..4 {
            for end in start..=4 {
                let read = read(&path, 4, start..end).unwrap();
                for (index, bucket) in buckets[start..end].iter().enumerate() {
                    assert_eq!(read.get(index), bucket);
                }
                assert_eq!(read.into_words(), buckets[start..end].concat());
            }
        }
    }

    #[test]
    fn buckets_a_file_does_not_hold_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("buckets");
        write(&path, &[vec![1u64, 2], vec![3]]).unwrap();
        for (count, range) in [(2, 1..3), (5, 0..1)] {
            let error = read(&path, count, range).unwrap_err().to_string();
            assert!(error.contains("does not hold buckets"), "{error}");
        }
        let error = read(&dir.path().join("none"), 2, 0..1).unwrap_err();
        assert!(error.to_string().contains("missing"), "{error}");
    }
}
