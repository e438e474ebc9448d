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
use crate::base::layer::rank::Ranked;
use crate::base::sort::sort_with_values;
use crate::build::generate::{self, Reached};
use crate::build::solve;
use crate::build::work::{RatesFile, WordWriter};
use crate::format::layer_file::{LayerFile, LayerHeader, LayerWriter};
use crate::format::partition::{LayerParts, part_path};
use crate::{Error, Rate};

use super::folder::Folder;
use super::generate::outside;
use super::{Done, buckets, make_folder_of, missing};

impl Folder<'_> {
    /// Writes the children that part `part` of layer `layer` looks up,
    /// after a 2 and after a 4, in buckets by the part that holds them:
    /// boards, sorted, or for layers split by rank, ranks in order (marked
    /// in bitmaps of the two layers' ranks, as generation marks them).
    pub(super) fn ask(&self, layer: usize, part: usize) -> Result<Done, Error> {
        let path = self.asks_path(layer, part);
        if self.solved(layer, part) || path.exists() {
            return Ok(Done::default());
        }
        let boards = self.read_boards(layer, part)?;
        let asked = match [1, 2].map(|ahead| self.layer_parts(layer + ahead)) {
            [Ok(LayerParts::Ranked(next)), Ok(LayerParts::Ranked(after))] => {
                let mut reached =
                    [&next, &after].map(|ranges| Reached::in_space(ranges.space().clone()));
                let [two, four] = &mut reached;
                generate::mark(
                    self.spec,
                    &self.mover,
                    layer,
                    &boards,
                    [Some(two), Some(four)],
                );
                let [two, four] = reached.map(Reached::into_bits);
                let (Some(two), Some(four)) = (two, four) else {
                    return Err(outside(layer + 1));
                };
                let mut asked = next.split_marked(&two);
                asked.append(&mut after.split_marked(&four));
                asked
            }
            [next, after] => {
                let [two, four] = expectation::wanted(self.spec, &self.mover, layer, &boards);
                let mut asked = next?.split(&two);
                asked.append(&mut after?.split(&four));
                asked
            }
        };
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
        let [next, after] = [1, 2].map(|ahead| self.held::<R>(layer + ahead, part));
        let held = [next?, after?];
        let answers: Vec<[Vec<u64>; 2]> = (0..count)
            .into_par_iter()
            .map(|from| {
                let asks = self.asks_path(layer, from);
                let side = |side: usize| {
                    let bucket = side * count + part;
                    let asked = buckets::read(&asks, 2 * count, bucket..bucket + 1)?;
                    let (keys, rates) = &held[side];
                    Ok::<_, Error>(rates_of(keys, rates, asked.get(0)))
                };
                Ok([side(0)?, side(1)?])
            })
            .collect::<Result<_, Error>>()?;
        buckets::write(&path, &answers.concat())?;
        Ok(Done::default())
    }

    /// The working rates of part `part` of solved layer `layer`, each with
    /// the key it is asked by: its board, or for a layer split by rank,
    /// its rank.
    fn held<R: Rate>(&self, layer: usize, part: usize) -> Result<(Vec<u64>, Vec<R>), Error> {
        let path = self.rates_path(layer, part);
        if !path.exists() {
            return Err(missing(&path));
        }
        let rates = RatesFile::open(&path)?;
        let (boards, rates) = rates.read(0, rates.len())?;
        let LayerParts::Ranked(ranges) = self.layer_parts(layer)? else {
            return Ok((boards, rates));
        };
        let space = ranges.space();
        let ranks: Vec<u64> = boards
            .par_iter()
            .map(|&board| space.exact_rank(board).unwrap_or(u64::MAX))
            .collect();
        let range = ranges.ranks(part);
        let within = |rank: Option<&u64>| rank.is_none_or(|rank| range.contains(rank));
        if !ranks.is_sorted() || !within(ranks.first()) || !within(ranks.last()) {
            return Err(Error::File {
                path,
                problem: format!(
                    "does not hold part {part}'s boards in order of rank; remove the table's \
                     folder to build it anew"
                ),
            });
        }
        Ok((ranks, rates))
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
    /// those above 0, sorted, or for layers split by rank, found by rank
    /// without their boards.
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
        let mut layers = Vec::with_capacity(2);
        for side in 0..2 {
            let asked_of = |from: usize| asked.get(side * count + from);
            let most = (0..count).map(|from| asked_of(from).len()).sum();
            let (mut keys, mut rates) = (Vec::with_capacity(most), Vec::with_capacity(most));
            for (from, answers) in answers.iter().enumerate() {
                let found = asked_of(from)
                    .iter()
                    .zip(answers.get(side))
                    .map(|(&key, &bits)| (key, R::from_bits(bits)))
                    .filter(|&(_, rate)| rate > R::default());
                for (key, rate) in found {
                    keys.push(key);
                    rates.push(rate);
                }
            }
            layers.push(match self.layer_parts(layer + 1 + side)? {
                LayerParts::Hashed(_) => {
                    sort_with_values(&mut keys, &mut rates);
                    Solved::new(keys, rates)
                }
                // The parts' ranges in turn: the ranks are in order.
                LayerParts::Ranked(ranges) => {
                    let ranked =
                        Ranked::of_ranks(ranges.space().clone(), &keys).ok_or_else(|| {
                            Error::File {
                                path: asks_path.clone(),
                                problem: "asks for ranks out of order or past the layer's; remove \
                                          the table's folder to build it anew"
                                    .to_owned(),
                            }
                        })?;
                    Solved::by_rank(rates, ranked)
                }
            });
        }
        Ok(layers.try_into().expect("two sides"))
    }

    /// Writes the layer file of part `part` of layer `layer` from its
    /// positions above 0 (in the order of its boards), those above the
    /// table's pruning level.
    fn store<R: Rate>(
        &self,
        layer: usize,
        part: usize,
        boards: &[u64],
        rates: &[R],
    ) -> Result<(), Error> {
        let options = self.manifest.options;
        let (mut boards, mut rates): (Vec<u64>, Vec<R>) = boards
            .iter()
            .zip(rates)
            .filter(|&(_, rate)| rate.probability() > options.prune)
            .unzip();
        // A free formation's part split by rank holds its boards in order
        // of rank, as a whole build holds its layers; files hold them in
        // order.
        if !boards.is_sorted() {
            sort_with_values(&mut boards, &mut rates);
        }
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

/// The bits of the rates of `asked` (sorted) among sorted `keys` (boards
/// or ranks) and their `rates`, 0 for a key not among them: found in
/// steps from the one before, as asks come in order.
fn rates_of<R: Rate>(keys: &[u64], rates: &[R], asked: &[u64]) -> Vec<u64> {
    let mut at = 0;
    asked
        .iter()
        .map(|&key| {
            at = solve::gallop(keys, at, key);
            let rate = if keys.get(at) == Some(&key) {
                rates[at]
            } else {
                R::default()
            };
            rate.to_bits()
        })
        .collect()
}
