//! Generation as tasks: layer 0 split into its parts, each part of the
//! layers before a layer expanded and its children sent to the parts that
//! hold them (a map and a shuffle through files), and each part of the
//! layer merged from what it was sent (the deduplication).

use crate::Error;
use crate::base::sort::{concat, sort_unique, union};
use crate::build::generate;
use crate::build::work::{WordReader, write_words};
use crate::format::partition::part_path;

use super::folder::{Folder, remove_folder};
use super::{Done, buckets, make_folder_of};

impl Folder<'_> {
    /// Writes layer 0's boards, split into their parts.
    pub(super) fn seed(&self) -> Result<Done, Error> {
        let boards = self.spec.formation().layer_zero();
        if !self.generated(0) {
            for (part, boards) in self.parts.split(&boards).iter().enumerate() {
                let path = self.boards_path(0, part);
                make_folder_of(&path)?;
                write_words(&path, boards)?;
            }
        }
        Ok(Done {
            positions: boards.len() as u64,
            ..Done::default()
        })
    }

    /// Writes the children of part `part` of the layers before `layer`,
    /// without repeats, in buckets by the part of `layer` that holds them.
    pub(super) fn expand(&self, layer: usize, part: usize) -> Result<Done, Error> {
        if self.generated(layer) || self.sent_path(layer, part).exists() {
            return Ok(Done::default());
        }
        let mut runs = Vec::new();
        for (parent, exponent) in [(layer.checked_sub(1), 1), (layer.checked_sub(2), 2)] {
            if let Some(parent) = parent.filter(|&parent| self.spec.expands(parent)) {
                let boards = self.read_boards(parent, part)?;
                runs.push(generate::run(
                    self.spec,
                    &self.mover,
                    parent,
                    exponent,
                    &boards,
                ));
            }
        }
        let runs: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
        let sent = self.parts.split(&union(&runs));
        buckets::write(&self.sent_path(layer, part), &sent)?;
        Ok(Done::default())
    }

    /// Writes part `part` of `layer`: the union of its buckets of every
    /// expansion; the last part merged removes the expansions.
    pub(super) fn merge(&self, layer: usize, part: usize) -> Result<Done, Error> {
        let path = self.boards_path(layer, part);
        let count = self.parts.count();
        if part_path(self.dir, layer, part).exists() {
            return Ok(Done::default());
        }
        if !path.exists() {
            let sent = (0..count)
                .map(|from| {
                    let sent = self.sent_path(layer, from);
                    Ok(buckets::read(&sent, count, part..part + 1)?.into_words())
                })
                .collect::<Result<Vec<_>, Error>>()?;
            // One radix sort of them all: a merge of P runs by a heap
            // took a tenth of a partitioned build's time.
            make_folder_of(&path)?;
            write_words(&path, &sort_unique(concat(sent)))?;
        }
        // The last part merged lets the expansions go.
        if self.generated(layer) {
            remove_folder(&self.work.join(format!("sent-{layer:04}")))?;
        }
        Ok(Done {
            positions: WordReader::open(&path)?.len() as u64,
            ..Done::default()
        })
    }
}
