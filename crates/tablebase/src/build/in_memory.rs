//! Whole tables built in memory: for small tables, tests and checks.

use crate::base::expectation;
use crate::base::layer::Solved;
use crate::build::{generate, solve};
use crate::{Mover, Rate, Spec};

/// Generates and solves every layer of `spec` in memory, in `R`
/// ([`Rate`]), keeping every position (zero rates included). Layer
/// `i` of the result is layer `i` of the table.
pub fn build<R: Rate>(spec: &Spec) -> Vec<Solved<R>> {
    let mover = Mover::new(spec.formation().large());
    let steps = spec.steps();
    let mut boards: Vec<Vec<u64>> = vec![spec.formation().layer_zero()];
    for index in 1..steps {
        let empty = Vec::new();
        let parent = |layer: Option<usize>| match layer {
            Some(layer) if spec.expands(layer) => &boards[layer],
            _ => &empty,
        };
        let layer = generate::layer(
            spec,
            &mover,
            index,
            parent(index.checked_sub(1)),
            parent(index.checked_sub(2)),
        );
        boards.push(layer);
    }
    let mut solved: Vec<Solved<R>> = vec![Solved::default(); steps];
    for index in (0..steps).rev() {
        let layer = std::mem::take(&mut boards[index]);
        let rates = if spec.is_horizon(index) {
            expectation::horizon(spec, &layer)
        } else {
            solve::layer(
                spec,
                &mover,
                index,
                &layer,
                [&solved[index + 1], &solved[index + 2]],
                solve::BATCH_MOST,
            )
        };
        solved[index] = Solved::new(layer, rates);
    }
    solved
}
