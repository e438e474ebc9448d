use crate::build::segment::LEAST_SEGMENT;

use super::layer::held;
use super::*;

/// The kept positions of a free formation's layer listed in order of
/// rank are held as ranked where that takes little memory, and else
/// sorted and indexed: either way, every board reads its rate.
#[test]
fn free_layers_are_held_ranked_or_sorted() {
    use crate::base::layer::rank::{Marks, Space, bitmap_words};
    let space = Space::placed(8, 24, |_, _| true).unwrap();
    let words = bitmap_words(space.len()) as usize;
    let marks = |ranks: &mut dyn Iterator<Item = u64>| {
        let mut bits = vec![0; words];
        for rank in ranks {
            bits[(rank / 64) as usize] |= 1 << (rank % 64);
        }
        Marks::new(space.clone(), bits).unwrap()
    };
    let rate = |board: u64| (board % 5) as f64 / 4.0;
    for (step, ranked) in [(40, true), (1300, false)] {
        // The boards listed for every step-th rank, marked by their own
        // ranks (a content that a symmetry of its placement makes
        // smaller ranks as the smaller).
        let listed = marks(&mut (0..space.len()).step_by(step)).read(0, usize::MAX);
        let marks = marks(&mut listed.iter().map(|&board| space.rank(board).unwrap()));
        let boards = marks.read_canonical(0, usize::MAX);
        let rates = boards.iter().map(|&board| rate(board)).collect();
        let solved = held(&boards, rates, Some(&marks));
        let kept = boards.iter().filter(|&&board| rate(board) > 0.0).count();
        assert_eq!(solved.len(), kept);
        // Ranked, in order of rank; else sorted.
        assert_eq!(solved.boards().is_sorted(), !ranked, "{step}");
        for &board in &boards {
            assert_eq!(solved.rate(board), rate(board), "{board:016x}");
        }
    }
}

/// Whole while the layer and the two after it fit; then in segments
/// as large as fit beside the two after, held in memory, down to
/// [`LEAST_SEGMENT`] positions; then fetching.
#[test]
fn a_layer_is_solved_as_the_budget_allows() {
    let (parents, children) = (100_000, 50_000);
    let held = held_bytes_per_position::<f64>() * children as u64;
    let per_parent = whole_bytes_per_position::<f64>();
    let plan = |budget| Plan::within(budget, parents, per_parent, held);
    let fits = held + per_parent * parents as u64;
    assert_eq!(plan(None), Plan::Whole);
    assert_eq!(plan(Some(fits)), Plan::Whole);
    assert_eq!(plan(Some(fits - 1)), Plan::Held(parents - 1));
    let least = held + per_parent * LEAST_SEGMENT as u64;
    assert_eq!(plan(Some(least)), Plan::Held(LEAST_SEGMENT));
    for budget in [least - 1, held, held - 1, 0] {
        assert_eq!(plan(Some(budget)), Plan::Fetched(budget), "{budget}");
    }
    // A layer of no positions does not read the layers after it whole
    // when they are over the budget.
    let plan = Plan::within(Some(held - 1), 0, per_parent, held);
    assert!(matches!(plan, Plan::Fetched(_)), "{plan:?}");
}
