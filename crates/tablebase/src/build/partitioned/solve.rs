//! Solving as tasks, a join of a layer with the two after it on the child
//! board routed through the parts that hold the children: each part of
//! the layer asks for the children it looks up, sorted into the parts of
//! the next two layers that hold them (`ask`); each of those parts answers
//! what it was asked with their rates (`answer`); each part then solves
//! from its answers (`solve`), the aggregation per parent, and writes its
//! working rates and its layer file.
//!
//! So a part reads what it asked for and no more. When each part read
//! instead the pieces of the two layers after it that held its children,
//! which spread over every piece, it read both layers nearly whole: P
//! times them for each layer solved.

use rayon::prelude::*;

use crate::base::expectation;
use crate::base::layer::Solved;
use crate::base::sort::sort_with_values;
use crate::build::solve;
use crate::build::work::{RatesFile, WordWriter};
use crate::format::layer_file::{LayerFile, LayerHeader, LayerWriter};
use crate::format::partition::part_path;
use crate::{Error, Rate};

use super::folder::Folder;
use super::{Done, buckets, make_folder_of, missing};

impl Folder<'_> {
    /// Writes the children that part `part` of layer `layer` looks up,
    /// after a 2 and after a 4, in buckets by the part that holds them.
    pub(super) fn ask(&self, layer: usize, part: usize) -> Result<Done, Error> {
        let path = self.asks_path(layer, part);
        if self.solved(layer, part) || path.exists() {
            return Ok(Done::default());
        }
        let boards = self.read_boards(layer, part)?;
        let [two, four] = expectation::wanted(self.spec, &self.mover, layer, &boards);
        let mut asked = self.parts.split(&two);
        asked.append(&mut self.parts.split(&four));
        buckets::write(&path, &asked)?;
        Ok(Done::default())
    }

    /// Writes the rates of what each part of layer `layer` asked of part
    /// `part` of the next two layers: for each asking part, the rates
    /// after a 2, then after a 4.
    pub(super) fn answer<R: Rate>(&self, layer: usize, part: usize) -> Result<Done, Error> {
        let path = self.answers_path(layer, part);
        if path.exists() || self.layer_solved(layer) {
            return Ok(Done::default());
        }
        let count = self.parts.count();
        let [next, after] = [1, 2].map(|ahead| self.read_rates::<R>(layer + ahead, part));
        let held = [next?, after?];
        let answers: Vec<[Vec<u64>; 2]> = (0..count)
            .into_par_iter()
            .map(|from| {
                let asks = self.asks_path(layer, from);
                let side = |side: usize| {
                    let bucket = side * count + part;
                    let asked = buckets::read(&asks, 2 * count, bucket..bucket + 1)?;
                    let (boards, rates) = &held[side];
                    Ok::<_, Error>(rates_of(boards, rates, asked.get(0)))
                };
                Ok([side(0)?, side(1)?])
            })
            .collect::<Result<_, Error>>()?;
        buckets::write(&path, &answers.concat())?;
        Ok(Done::default())
    }

    /// The working rates of part `part` of solved layer `layer`.
    fn read_rates<R: Rate>(&self, layer: usize, part: usize) -> Result<(Vec<u64>, Vec<R>), Error> {
        let path = self.rates_path(layer, part);
        if !path.exists() {
            return Err(missing(&path));
        }
        let rates = RatesFile::open(&path)?;
        rates.read(0, rates.len())
    }

    /// Solves part `part` of layer `layer` from its answers (a horizon
    /// layer from its boards alone) into its working rates and its layer
    /// file.
    pub(super) fn solve<R: Rate>(&self, layer: usize, part: usize) -> Result<Done, Error> {
        let file = part_path(self.dir, layer, part);
        let mut positions = None;
        if !file.exists() {
            let boards = self.read_boards(layer, part)?;
            positions = Some(boards.len() as u64);
            let rates: Vec<R> = if self.spec.is_horizon(layer) {
                expectation::horizon(self.spec, &boards)
            } else {
                let [next, after] = self.answered(layer, part)?;
                solve::fetched_layer(self.spec, &self.mover, layer, &boards, [&next, &after])
            };
            let (kept_boards, kept_rates) = solve::kept(&boards, &rates);
            let rates_path = self.rates_path(layer, part);
            make_folder_of(&rates_path)?;
            let mut out = WordWriter::create(&rates_path)?;
            out.extend_solved(&kept_boards, &kept_rates)?;
            out.finish()?;
            self.store(layer, part, &kept_boards, &kept_rates)?;
        }
        let stored = LayerFile::open(&file)?;
        let stored_positions = stored.header().positions;
        Ok(Done {
            positions: positions.unwrap_or(stored_positions),
            stored: stored_positions,
            bytes: stored.file_bytes(),
        })
    }

    /// The children that part `part` of layer `layer` asked for, in the
    /// next layer and the one after, with the rates they were answered:
    /// those above 0, sorted.
    fn answered<R: Rate>(&self, layer: usize, part: usize) -> Result<[Solved<R>; 2], Error> {
        let count = self.parts.count();
        let asks_path = self.asks_path(layer, part);
        let asked = buckets::read(&asks_path, 2 * count, 0..2 * count)?;
        let answers = (0..count)
            .into_par_iter()
            .map(|from| {
                let path = self.answers_path(layer, from);
                let answers = buckets::read(&path, 2 * count, 2 * part..2 * part + 2)?;
                for side in 0..2 {
                    if answers.get(side).len() != asked.get(side * count + from).len() {
                        return Err(Error::File {
                            path,
                            problem: format!(
                                "does not answer what {} asks; remove the table's folder to \
                                 build it anew",
                                asks_path.display()
                            ),
                        });
                    }
                }
                Ok(answers)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok([0, 1].map(|side| {
            let asked_of = |from: usize| asked.get(side * count + from);
            let most = (0..count).map(|from| asked_of(from).len()).sum();
            let (mut boards, mut rates) = (Vec::with_capacity(most), Vec::with_capacity(most));
            for (from, answers) in answers.iter().enumerate() {
                let found = asked_of(from)
                    .iter()
                    .zip(answers.get(side))
                    .map(|(&board, &bits)| (board, R::from_bits(bits)))
                    .filter(|&(_, rate)| rate > R::default());
                for (board, rate) in found {
                    boards.push(board);
                    rates.push(rate);
                }
            }
            sort_with_values(&mut boards, &mut rates);
            Solved::new(boards, rates)
        }))
    }

    /// Writes the layer file of part `part` of layer `layer` from its
    /// positions above 0, those above the table's pruning level.
    fn store<R: Rate>(
        &self,
        layer: usize,
        part: usize,
        boards: &[u64],
        rates: &[R],
    ) -> Result<(), Error> {
        let options = self.manifest.options;
        let (boards, rates): (Vec<u64>, Vec<R>) = boards
            .iter()
            .zip(rates)
            .filter(|&(_, rate)| rate.probability() > options.prune)
            .unzip();
        let mut header = LayerHeader::new(self.spec, options.precision, layer, boards.len() as u64);
        header.partition = Some(part as u32);
        let path = part_path(self.dir, layer, part);
        make_folder_of(&path)?;
        let mut writer = LayerWriter::create(&path, &header, options.level)?;
        writer.push(&boards, &rates)?;
        writer.finish()?;
        Ok(())
    }
}

/// The bits of the rates of `asked` (sorted) among sorted `boards` and
/// their `rates`, 0 for a board not among them: found in steps from the
/// one before, as asks come in order.
fn rates_of<R: Rate>(boards: &[u64], rates: &[R], asked: &[u64]) -> Vec<u64> {
    let mut at = 0;
    asked
        .iter()
        .map(|&board| {
            at = solve::gallop(boards, at, board);
            let rate = if boards.get(at) == Some(&board) {
                rates[at]
            } else {
                R::default()
            };
            rate.to_bits()
        })
        .collect()
}
