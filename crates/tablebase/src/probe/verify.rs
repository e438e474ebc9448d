//! Checking a built table ([`Table::verify`]): every layer file read
//! through, and a sample of each layer's positions recomputed from the
//! stored layers after it, as the builder computed them.
//!
//! Each layer is read once, one block at a time, picking out its sampled
//! positions and the children that the samples of the layers before it
//! look up, so that checking free8-128, whose largest layers hold tens of
//! millions of positions, holds none of them in memory (L3-128 with 100
//! samples a layer: 0.63-0.91 s and 13 MiB, where holding three layers
//! whole took 0.96-1.42 s and 39 MiB).

use crate::base::expectation;
use crate::base::layer::Solved;
use crate::base::sort::{sort_unique, sort_with_values};
use crate::format::layer_file::{LayerFile, Precision};
use crate::probe::stored::StoredLayer;
use crate::{Error, Mover, Rate, Table};

/// What [`Table::verify`] checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Layer files read through: checksum, every block, boards in order.
    pub layers: usize,
    /// The positions they hold.
    pub positions: u64,
    /// Positions recomputed from their children.
    pub recomputed: usize,
}

/// [`Table::verify`] (`mover` the table's) with the layers' rates in `R`,
/// the type the table was solved in, so that a recomputed rate can equal a
/// stored one exactly.
///
/// One pass from the first layer to the last reads each layer once: the
/// positions it samples, and the children that the samples of the two
/// layers before it look up. A sampled position is recomputed once both
/// layers after it are read. Where several layers disagree with their
/// children, the error names the last: a layer of wrong rates makes the
/// layers before it look wrong too, while its own children agree.
pub(crate) fn table<R: Rate>(
    table: &Table,
    mover: &Mover,
    samples: usize,
) -> Result<Verified, Error> {
    let spec = table.spec();
    let mut verified = Verified::default();
    let mut waiting: Vec<Waiting<R>> = Vec::new();
    let mut wrong = None;
    for index in 0..spec.steps() {
        let layer = table.layer(index)?;
        let positions = layer.positions();
        let picks = if spec.is_horizon(index) {
            Vec::new()
        } else {
            picks(index, samples, positions)
        };
        // The children the waiting layers look up here: the layer before's
        // after a 2, the one before that's after a 4.
        let asked = sort_unique(
            waiting
                .iter()
                .flat_map(|layer| &layer.wanted[index - layer.index - 1])
                .copied()
                .collect(),
        );
        let (sampled, found) = read_through(layer, &picks, &asked)?;
        let found = found.map_rates(R::from_probability);
        for layer in &mut waiting {
            layer.found.push(found.clone());
        }
        for done in waiting.extract_if(.., |layer| layer.found.len() == 2) {
            if let Err(error) = done.check(table, mover) {
                wrong = Some(error);
            }
        }
        verified.layers += 1;
        verified.positions += positions;
        verified.recomputed += sampled.len();
        if !sampled.is_empty() {
            waiting.push(Waiting {
                index,
                wanted: expectation::wanted(spec, mover, index, sampled.boards()),
                sampled,
                found: Vec::new(),
            });
        }
    }
    wrong.map_or(Ok(verified), Err)
}

/// A layer's sampled positions, waiting for the children they look up in
/// the two layers after it.
struct Waiting<R> {
    index: usize,
    /// As stored.
    sampled: Solved,
    /// The children after a 2 and after a 4 ([`expectation::wanted`]).
    wanted: [Vec<u64>; 2],
    /// Those the layers after it hold, as read so far: the next layer's,
    /// then the one after.
    found: Vec<Solved<R>>,
}

impl<R: Rate> Waiting<R> {
    /// Recomputes the sampled positions from their children: exactly
    /// where the table stores the rates it was solved in, else within the
    /// precision, and in a pruned table at most as stored (pruned children
    /// read as 0).
    fn check(&self, table: &Table, mover: &Mover) -> Result<(), Error> {
        let manifest = table.manifest();
        let options = manifest.options;
        let tolerance = if manifest.stores_solved_rates() {
            0.0
        } else {
            match options.precision {
                Precision::F64 => 1e-12,
                Precision::F32 => 1e-6,
                Precision::U32 => 1e-8,
                Precision::U16 => 1e-4,
            }
        };
        let [next, after] = [&self.found[0], &self.found[1]];
        let (boards, rates) = (self.sampled.boards(), self.sampled.rates());
        for (&board, &stored) in boards.iter().zip(rates) {
            let stored = R::from_probability(stored).probability();
            let recomputed = expectation::rate(table.spec(), mover, board, self.index, next, after)
                .probability();
            let wrong = if options.prune > 0.0 {
                recomputed > stored + tolerance
            } else {
                (recomputed - stored).abs() > tolerance
            };
            if wrong {
                // A board sampled from the layer: a file holds it.
                let layer = table.layer(self.index)?;
                let file = layer.file_of(board).unwrap_or(&layer.files()[0]);
                return Err(Error::File {
                    path: file.path().to_owned(),
                    problem: format!(
                        "position {} is stored as {stored}, but its children give {recomputed}",
                        crate::base::hex::format(board)
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Up to `samples` places among `positions`, sorted and without repeats:
/// drawn by a fixed sequence (SplitMix64, seeded by the layer), so that a
/// fault found is found again; every place if `samples` is as many.
fn picks(index: usize, samples: usize, positions: u64) -> Vec<u64> {
    if samples as u64 >= positions {
        return (0..positions).collect();
    }
    let mut state = (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut picks: Vec<u64> = (0..samples)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % positions
        })
        .collect();
    picks.sort_unstable();
    picks.dedup();
    picks
}

/// Reads every block of `layer`'s files ([`LayerFile::visit_blocks`],
/// which checks their order) and returns the positions at `picks`
/// (numbered over its files in turn) and those of `asked` that it holds
/// (both sorted), as stored.
fn read_through(
    layer: &StoredLayer,
    picks: &[u64],
    asked: &[u64],
) -> Result<(Solved, Solved), Error> {
    let StoredLayer::Parts(parts, files) = layer else {
        return read_file(&layer.files()[0], picks, asked);
    };
    let asked = parts.split(asked);
    let (mut sampled, mut found) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
    let mut start = 0;
    for (file, asked) in files.iter().zip(&asked) {
        let end = start + file.header().positions;
        let picks: Vec<u64> = (picks.iter())
            .filter(|&&pick| (start..end).contains(&pick))
            .map(|&pick| pick - start)
            .collect();
        let (file_sampled, file_found) = read_file(file, &picks, asked)?;
        for (into, solved) in [(&mut sampled, file_sampled), (&mut found, file_found)] {
            into.0.extend_from_slice(solved.boards());
            into.1.extend_from_slice(solved.rates());
        }
        start = end;
    }
    sort_with_values(&mut sampled.0, &mut sampled.1);
    sort_with_values(&mut found.0, &mut found.1);
    Ok((
        Solved::new(sampled.0, sampled.1),
        Solved::new(found.0, found.1),
    ))
}

/// [`read_through`] one layer file.
fn read_file(layer: &LayerFile, picks: &[u64], asked: &[u64]) -> Result<(Solved, Solved), Error> {
    let (mut sampled, mut found) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
    let mut start = 0u64;
    let (mut picks, mut asked) = (picks.iter().peekable(), asked.iter().peekable());
    layer.visit_blocks(|boards, rates| {
        let end = start + boards.len() as u64;
        while let Some(pick) = picks.next_if(|&&pick| pick < end) {
            let at = (pick - start) as usize;
            sampled.0.push(boards[at]);
            sampled.1.push(rates[at]);
        }
        let last = *boards.last().expect("blocks are not empty");
        while let Some(board) = asked.next_if(|&&board| board <= last) {
            if let Ok(at) = boards.binary_search(board) {
                found.0.push(boards[at]);
                found.1.push(rates[at]);
            }
        }
        start = end;
        Ok(())
    })?;
    Ok((
        Solved::new(sampled.0, sampled.1),
        Solved::new(found.0, found.1),
    ))
}
