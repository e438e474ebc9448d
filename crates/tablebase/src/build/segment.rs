//! Segments of a layer sized by what their positions take: how a layer
//! is solved, or thinned to optimal lines, within a memory budget too
//! small for the layer whole.

use std::borrow::Cow;

use crate::base::expectation::Sought;
use crate::{Error, Mover, Spec};

/// The fewest positions of a segment, whatever the budget: smaller ones
/// would cost more in reading and sorting than they save in memory.
pub(crate) const LEAST_SEGMENT: usize = 1 << 12;

/// The fewest positions a segment takes at a time once it has some
/// ([`Segments::next`]): as many as [`Sought`] lists the children of in
/// one run.
const LEAST_BATCH: usize = 1 << 10;

/// The most positions a segment takes at a time, which bounds how far a
/// batch of positions that take more than those before them can carry it
/// past its bytes.
const MOST_BATCH: usize = 1 << 14;

/// Bytes per position allowed for before a batch has measured what the
/// layer's positions take: their boards and rates, and the children they
/// look up (up to 16 empty cells, 2 spawns, 4 moves; far fewer after
/// removing repeats), noted and fetched with their rates. L3 needs about
/// 400, free8 60 to 240.
const FIRST_BYTES_PER_POSITION: u64 = 1024;

/// Cuts a layer into segments of consecutive positions, each as many as
/// fit its bytes with what they take, for a step that holds a segment at
/// a time.
///
/// A layer's positions differ in what they take, mostly in how many
/// children they look up (those of free8-32's layers took 60 to 240 bytes
/// each, against the 1,024 allowed for before any is measured), so
/// positions are taken a batch at a time, each batch half of what the
/// room left would hold at the most bytes a position of an earlier batch
/// of the layer took. So a segment comes close to its bytes, and
/// overshoots only where a batch's positions take over twice what any
/// before them did. A segment holds at least [`LEAST_SEGMENT`] positions,
/// or the rest of the layer.
pub(crate) struct Segments<'a, C> {
    /// The bytes of a segment.
    bytes: u64,
    /// The bytes a batch of boards takes, given how many boards it adds
    /// to the segment's [`Sought`].
    cost: C,
    /// Where the children the positions look up are listed: the spec, its
    /// mover and the layer's index; `None` where they are not fetched.
    seek: Option<(&'a Spec, &'a Mover, usize)>,
    /// The most bytes a position of a batch took so far.
    most: Option<u64>,
}

impl<'a, C: Fn(&[u64], usize) -> u64> Segments<'a, C> {
    /// Segments of `bytes`, their positions taking what `cost` says. With
    /// `seek`, each segment lists the children its positions look up as
    /// solving layer `index` of the spec does ([`Sought`]), and `cost` is
    /// given how many it adds.
    pub(crate) fn new(bytes: u64, cost: C, seek: Option<(&'a Spec, &'a Mover, usize)>) -> Self {
        Self {
            bytes,
            cost,
            seek,
            most: None,
        }
    }

    /// The segment of a layer of `len` positions from `start`, `read`
    /// giving `count` positions from a place: its positions, and the
    /// children they look up (none without `seek`).
    ///
    /// # Errors
    /// What `read` returns.
    pub(crate) fn next<'b>(
        &mut self,
        start: usize,
        len: usize,
        mut read: impl FnMut(usize, usize) -> Result<Cow<'b, [u64]>, Error>,
    ) -> Result<(Vec<u64>, Sought), Error> {
        let (mut boards, mut sought) = (Vec::new(), Sought::default());
        let mut used = 0;
        let left = len - start;
        while boards.len() < left {
            let per_position = self.most.unwrap_or(FIRST_BYTES_PER_POSITION);
            let room = self.bytes.saturating_sub(used) / per_position;
            let least = if boards.is_empty() {
                LEAST_SEGMENT
            } else if room >= 2 * LEAST_BATCH as u64 {
                LEAST_BATCH
            } else {
                break;
            };
            let batch = usize::try_from(room / 2)
                .unwrap_or(usize::MAX)
                .clamp(least, MOST_BATCH)
                .min(left - boards.len());
            let batch = read(start + boards.len(), batch)?;
            let before = sought.len();
            if let Some((spec, mover, index)) = self.seek {
                sought.add(spec, mover, index, &batch);
            }
            let taken = (self.cost)(&batch, sought.len() - before);
            used += taken;
            let per_position = taken.div_ceil(batch.len() as u64);
            self.most = Some(
                self.most
                    .map_or(per_position, |most| most.max(per_position)),
            );
            boards.extend_from_slice(&batch);
        }
        Ok((boards, sought))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::expectation;

    /// A segment takes the layer's positions in order, with the children
    /// that solving them looks up, until what they take comes within a few
    /// batches of its bytes, and no further.
    #[test]
    fn segments_fill_their_bytes() {
        let spec = Spec::new(crate::Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
        let mover = Mover::new(spec.formation().large());
        let layers = crate::build::in_memory::build::<crate::Fixed>(&spec);
        let index = (0..layers.len())
            .max_by_key(|&index| layers[index].len())
            .unwrap();
        let boards = layers[index].boards();
        let bytes = 4 << 20;
        // Children cost more than positions, so that both count.
        let cost = |batch: &[u64], sought: usize| 10 * batch.len() as u64 + 30 * sought as u64;
        let mut segments = Segments::new(bytes, cost, Some((&spec, &mover, index)));
        let (mut start, mut count) = (0, 0);
        while start < boards.len() {
            let (segment, sought) = segments
                .next(start, boards.len(), |at, count| {
                    Ok(Cow::Borrowed(&boards[at..at + count]))
                })
                .unwrap();
            let end = start + segment.len();
            assert_eq!(segment, boards[start..end]);
            let taken = cost(&segment, sought.len());
            assert!(taken <= bytes, "{taken} bytes");
            // Full but for less than two of the least batches.
            let most = segments.most.unwrap();
            if end < boards.len() {
                assert!(taken + 2 * LEAST_BATCH as u64 * most > bytes, "{taken}");
            }
            assert_eq!(
                sought.finish(),
                expectation::wanted(&spec, &mover, index, &segment)
            );
            (start, count) = (end, count + 1);
        }
        // Positions take fewer bytes than the first allowance for them,
        // which would have made more segments.
        let allowed = boards
            .len()
            .div_ceil(bytes as usize / FIRST_BYTES_PER_POSITION as usize);
        assert!(count > 1 && count < allowed, "{count} of {allowed}");
    }

    /// Without `seek` a segment lists no children, and is sized by its
    /// positions alone.
    #[test]
    fn segments_that_seek_nothing_are_sized_by_their_positions() {
        let boards: Vec<u64> = (0..100_000).collect();
        let bytes = 1 << 20;
        let mut segments = Segments::new(bytes, |batch: &[u64], _| 16 * batch.len() as u64, None);
        let (mut start, mut lens) = (0, Vec::new());
        while start < boards.len() {
            let (segment, sought) = segments
                .next(start, boards.len(), |at, count| {
                    Ok(Cow::Borrowed(&boards[at..at + count]))
                })
                .unwrap();
            assert_eq!(sought.len(), 0);
            assert_eq!(segment, boards[start..start + segment.len()]);
            start += segment.len();
            lens.push(segment.len());
        }
        // 65,536 positions fit; the batches stop within two of the least.
        let (last, full) = lens.split_last().unwrap();
        assert!(
            full.iter()
                .all(|&len| len <= 65_536 && len + 2 * LEAST_BATCH > 65_536),
            "{lens:?}"
        );
        assert_eq!(full.iter().sum::<usize>() + last, boards.len());
    }
}
