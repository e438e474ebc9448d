use super::*;
use crate::base::layer::rank::Space;
use crate::base::position::free_sum;

/// Marking children by rank makes the layers that sorting them makes,
/// for formations whose large tiles are held by a mask or are walls,
/// or go anywhere (free8: each class of boards marked once), with the
/// parents marked whole or in pieces, each layer alone or each parent
/// layer's children after a 2 and a 4 at once; a child outside the
/// space is told.
#[test]
fn reached_layers_are_the_sorted_layers() {
    for (name, target) in [("L3", 6), ("442", 6), ("3x3", 5), ("2x4", 5), ("free8", 4)] {
        let spec = Spec::new(crate::Formation::builtin(name).unwrap(), target, 0.1).unwrap();
        let mover = Mover::new(spec.formation().large());
        let mut layers = vec![spec.formation().layer_zero()];
        let empty = Vec::new();
        let mut by_rank = 0;
        // The next layer's marks, its children after a 4 marked with
        // this layer's after a 2, a piece at a time.
        let mut ahead = None;
        for index in 1..spec.steps() {
            let parent = |layer: Option<usize>| match layer {
                Some(layer) if spec.expands(layer) => &layers[layer],
                _ => &empty,
            };
            let (two, four) = (parent(index.checked_sub(1)), parent(index.checked_sub(2)));
            let expected = by_sorting(&spec, &mover, index, two, four);
            let piece = |parents: &[u64], pieces: usize| parents.len().div_ceil(pieces).max(1);
            for pieces in [1, 3] {
                let mut reached = Reached::new(&spec, index, u64::MAX).expect(name);
                for parents in two.chunks(piece(two, pieces)) {
                    mark(
                        &spec,
                        &mover,
                        index - 1,
                        parents,
                        [Some(&mut reached), None],
                    );
                }
                for parents in four.chunks(piece(four, pieces)) {
                    mark(
                        &spec,
                        &mover,
                        index - 2,
                        parents,
                        [None, Some(&mut reached)],
                    );
                }
                let marks = reached.into_marks().expect(name);
                assert_eq!(marks.len(), expected.len());
                assert_eq!(marks.sorted_boards(), expected, "{name} layer {index}");
                // Read a piece at a time from any position.
                let mut read = Vec::new();
                for start in (0..marks.len() + 100).step_by(97) {
                    read.extend(marks.read(start, 97));
                }
                assert_eq!(read, marks.read(0, usize::MAX), "{name} layer {index}");
                if name != "free8" {
                    assert_eq!(read, expected, "{name} layer {index}");
                }
            }
            // Begun with the layer before.
            let mut reached = match ahead.take() {
                Some(reached) => reached,
                None => {
                    let mut reached = Reached::new(&spec, index, u64::MAX).expect(name);
                    if index >= 2 {
                        mark(&spec, &mover, index - 2, four, [None, Some(&mut reached)]);
                    }
                    reached
                }
            };
            let mut next = (index + 1 < spec.steps())
                .then(|| Reached::new(&spec, index + 1, u64::MAX).expect(name));
            for parents in two.chunks(piece(two, 3)) {
                let targets = [Some(&mut reached), next.as_mut()];
                mark(&spec, &mover, index - 1, parents, targets);
            }
            let marks = reached.into_marks().expect(name);
            assert_eq!(
                marks.sorted_boards(),
                expected,
                "{name} layer {index}, begun"
            );
            ahead = next.filter(|_| spec.expands(index - 1));
            // What `layer` does within its bytes a parent.
            let parents = (two.len() + four.len()) as u64;
            by_rank += usize::from(
                Reached::new(&spec, index, REACHED_BYTES_PER_PARENT * parents).is_some(),
            );
            assert_eq!(layer(&spec, &mover, index, two, four), expected);
            // Children whose large tiles are not where the space has
            // them (442's cells for L3's children) are told, and those
            // that are still marked.
            if name == "L3" && !run(&spec, &mover, index - 1, 1, two).is_empty() {
                let sum = free_sum(expected[0]);
                let space = Space::within(0xffff_ff00_0000_0000, sum.into(), |_, _| true);
                let mut outside = Reached::in_space(space.unwrap());
                let mut inside = Reached::new(&spec, index + 1, u64::MAX).expect(name);
                mark(
                    &spec,
                    &mover,
                    index - 1,
                    two,
                    [Some(&mut outside), Some(&mut inside)],
                );
                assert!(outside.into_marks().is_none(), "{name} {index}");
                assert!(inside.into_marks().is_some(), "{name} {index}");
            }
            layers.push(expected);
        }
        if name == "L3" || name == "free8" {
            assert!(by_rank > 10, "{by_rank} layers of {name} marked by rank");
        }
    }
}

/// Layers marked on one thread, on two with a bitmap each and on three
/// that share one are those sorting makes: the first layers of several
/// chunks of parents.
#[test]
fn marks_are_alike_on_any_threads() {
    for (name, target) in [("L3", 6), ("free8", 4)] {
        let spec = Spec::new(crate::Formation::builtin(name).unwrap(), target, 0.1).unwrap();
        let mover = Mover::new(spec.formation().large());
        let mut layers = vec![spec.formation().layer_zero()];
        let mut tried = 0;
        for index in 1..spec.steps() {
            let parent = |layer: usize| match spec.expands(layer) {
                true => layers[layer].as_slice(),
                false => &[],
            };
            let two = parent(index - 1);
            let four = index.checked_sub(2).map_or(&[][..], parent);
            let expected = by_sorting(&spec, &mover, index, two, four);
            if two.len() > 4 * super::CHUNK && tried < 6 {
                tried += 1;
                for threads in [1, 2, 3] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
                    let marked = pool.unwrap().install(|| {
                        let mut reached = Reached::new(&spec, index, u64::MAX).expect(name);
                        mark(&spec, &mover, index - 1, two, [Some(&mut reached), None]);
                        let after_four = [None, Some(&mut reached)];
                        mark(&spec, &mover, index.saturating_sub(2), four, after_four);
                        reached.into_marks().expect(name).sorted_boards()
                    });
                    assert_eq!(marked, expected, "{name} layer {index}, {threads} threads");
                }
            }
            if tried == 6 {
                break;
            }
            layers.push(expected);
        }
        assert_eq!(tried, 6, "{name}: layers of several chunks");
    }
}

#[test]
fn pieces_make_the_same_layer() {
    let spec = Spec::new(crate::Formation::builtin("442").unwrap(), 6, 0.1).unwrap();
    let mover = Mover::new(spec.formation().large());
    let mut layers = vec![spec.formation().layer_zero()];
    let empty = Vec::new();
    for index in 1..12 {
        let two = &layers[index - 1];
        let four = if index >= 2 {
            &layers[index - 2]
        } else {
            &empty
        };
        let whole = layer(&spec, &mover, index, two, four);
        let runs: Vec<Vec<u64>> = two
            .chunks(7)
            .map(|piece| run(&spec, &mover, index - 1, 1, piece))
            .chain(
                four.chunks(7)
                    .map(|piece| run(&spec, &mover, index - 2, 2, piece)),
            )
            .collect();
        assert!(runs.len() > 1 || two.len() + four.len() <= 7);
        assert_eq!(merge(runs), whole);
        layers.push(whole);
    }
}
