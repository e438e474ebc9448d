//! Generation as tasks: layer 0 split into its parts, each part of the
//! layers before a layer expanded and its children sent to the parts that
//! hold them (a map and a shuffle through files), and each part of the
//! layer merged from what it was sent (the deduplication).
//!
//! A layer split by hash is sent boards, sorted, and merges them by
//! sorting. A layer split by rank is sent ranks: an expansion marks its
//! children in a bitmap of the layer's ranks and sends each part the
//! ranks of its range, in order; a part merges them by marking too, and
//! lists its boards in order of rank, as a whole build generates them.

use crate::Error;
use crate::base::layer::rank::Space;
use crate::base::sort::{concat, sort_unique, union};
use crate::build::generate::{self, Reached};
use crate::build::work::{WordReader, write_words};
use crate::format::partition::{LayerParts, part_path};

use super::folder::{Folder, remove_folder};
use super::{Done, buckets, make_folder_of};

impl Folder<'_> {
    /// Writes layer 0's boards, split into their parts.
    pub(super) fn seed(&self) -> Result<Done, Error> {
        let boards = self.spec.formation().layer_zero();
        if !self.generated(0) {
            let parts = self.layer_parts(0)?;
            let mut split = parts.split(&boards);
            if let LayerParts::Ranked(ranges) = &parts {
                for boards in &mut split {
                    boards.sort_by_cached_key(|&board| ranges.rank(board));
                }
            }
            for (part, boards) in split.iter().enumerate() {
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
    /// without repeats, in buckets by the part of `layer` that holds them:
    /// boards, sorted, or for a layer split by rank, ranks in order.
    pub(super) fn expand(&self, layer: usize, part: usize) -> Result<Done, Error> {
        if self.generated(layer) || self.sent_path(layer, part).exists() {
            return Ok(Done::default());
        }
        let sent = match self.layer_parts(layer)? {
            LayerParts::Hashed(parts) => parts.split(&self.children(layer, part)?),
            LayerParts::Ranked(ranges) => {
                ranges.split_marked(&self.marked(layer, part, ranges.space())?)
            }
        };
        buckets::write(&self.sent_path(layer, part), &sent)?;
        Ok(Done::default())
    }

    /// The layers before `layer` that it is generated from, with the
    /// exponent of the tile spawned in each.
    fn parents(&self, layer: usize) -> impl Iterator<Item = (usize, u8)> + '_ {
        [(layer.checked_sub(1), 1), (layer.checked_sub(2), 2)]
            .into_iter()
            .filter_map(|(parent, exponent)| Some((parent?, exponent)))
            .filter(|&(parent, _)| self.spec.expands(parent))
    }

    /// The children of part `part` of the layers before `layer`, sorted
    /// and without repeats.
    fn children(&self, layer: usize, part: usize) -> Result<Vec<u64>, Error> {
        let mut runs = Vec::new();
        for (parent, exponent) in self.parents(layer) {
            let boards = self.read_boards(parent, part)?;
            runs.push(generate::run(
                self.spec,
                &self.mover,
                parent,
                exponent,
                &boards,
            ));
        }
        let runs: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
        Ok(union(&runs))
    }

    /// The same, marked in a bitmap of `space`, layer `layer`'s.
    fn marked(&self, layer: usize, part: usize, space: &Space) -> Result<Vec<u64>, Error> {
        let mut reached = Reached::in_space(space.clone());
        for (parent, exponent) in self.parents(layer) {
            let boards = self.read_boards(parent, part)?;
            let sides = match exponent {
                1 => [Some(&mut reached), None],
                _ => [None, Some(&mut reached)],
            };
            generate::mark(self.spec, &self.mover, parent, &boards, sides);
        }
        reached.into_bits().ok_or_else(|| outside(layer))
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
            let parts = self.layer_parts(layer)?;
            let sent = (0..count)
                .map(|from| {
                    let sent = self.sent_path(layer, from);
                    let bucket = buckets::read(&sent, count, part..part + 1)?.into_words();
                    match &parts {
                        LayerParts::Ranked(ranges) => {
                            let ranks = ranges.ranks(part);
                            if !bucket.iter().all(|rank| ranks.contains(rank)) {
                                return Err(Error::File {
                                    path: sent,
                                    problem: format!(
                                        "sends part {part} ranks outside its own; remove the \
                                         table's folder to build it anew"
                                    ),
                                });
                            }
                        }
                        LayerParts::Hashed(_) => {}
                    }
                    Ok(bucket)
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let boards = match &parts {
                // One radix sort of them all: a merge of P runs by a heap
                // took a tenth of a partitioned build's time.
                LayerParts::Hashed(_) => sort_unique(concat(sent)),
                LayerParts::Ranked(ranges) => ranges.boards(part, sent.iter().flatten().copied()),
            };
            make_folder_of(&path)?;
            write_words(&path, &boards)?;
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

/// The error of a layer split by rank with a child outside its space.
pub(super) fn outside(layer: usize) -> Error {
    Error::Build(format!(
        "layer {layer}: a child lies outside the boards its ranks count; build the table \
         whole (without --partitions)"
    ))
}
