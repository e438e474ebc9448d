//! Tables thinned to optimal lines: the same rates, every best child kept,
//! and thinning again changes nothing.

use std::path::Path;

use tablebase::builder::{self, Event, Options, layer_path};
use tablebase::internals::optimal;
use tablebase::{Formation, Mover, Spec};
use tablebase::{LayerFile, Precision};

/// Builds the table of `spec` in `dir`; returns the events of the layers
/// thinned.
fn build(spec: &Spec, dir: &Path, optimal_only: bool) -> Vec<Event> {
    let options = Options {
        precision: Precision::F64,
        optimal_only,
        ..Options::default()
    };
    let mut thinned = Vec::new();
    builder::build(spec, dir, options, None, &mut |event| {
        if let Event::Thinned { .. } = event {
            thinned.push(event);
        }
    })
    .unwrap();
    thinned
}

/// On formations with no symmetry (L3, L3f) and with one (LL and 4432f:
/// diagonal), whose large tiles stay (L3, LL) or move (L3f, 4432f).
#[test]
fn thinned_tables_keep_the_rates_and_the_best_children() {
    for (name, extra_steps, target) in [("L3", 12, 5), ("LL", 4, 5), ("L3f", 6, 4), ("4432f", 6, 4)]
    {
        let formation = Formation::builtin(name).unwrap();
        check(&Spec::new(formation.with_extra_steps(extra_steps), target, 0.1).unwrap());
    }
}

/// The full table and the thinned one of `spec`: each kept position at its
/// rate, each one's best child after a 2 kept, and thinning again a no-op.
fn check(spec: &Spec) {
    let dir = tempfile::tempdir().unwrap();
    let (full, thin) = (dir.path().join("full"), dir.path().join("thin"));
    build(spec, &full, false);
    let unbounded = build(spec, &thin, true);
    let read = |dir: &Path, layer: usize| {
        LayerFile::open(&layer_path(dir, layer))
            .unwrap()
            .read_all()
            .unwrap()
    };
    let mover = Mover::new(spec.formation().large());
    let canon = spec.formation().canon();
    let (mut full_count, mut thin_count) = (0, 0);
    for index in 0..spec.steps() {
        let (whole, kept) = (read(&full, index), read(&thin, index));
        full_count += whole.len();
        thin_count += kept.len();
        for (&board, &rate) in kept.boards().iter().zip(kept.rates()) {
            assert_eq!(whole.rate(board), rate, "{} layer {index}", spec.name());
        }
        if index == 0 {
            assert_eq!(kept.len(), whole.len(), "every seed is kept");
        }
        if spec.is_horizon(index) {
            continue;
        }
        // Each kept position's best child after each spawn is kept too.
        let (next_full, next_thin) = (read(&full, index + 1), read(&thin, index + 1));
        for &board in kept.boards().iter().filter(|&&b| !spec.is_won(b, index)) {
            for cell in tablebase::internals::empty_cells(board) {
                let spawned = board | 1 << (4 * cell);
                let best = mover
                    .slide_all(spawned)
                    .into_iter()
                    .filter(|&moved| moved != spawned && spec.formation().fits(moved))
                    .map(|moved| next_full.rate(canon.canonical(moved)))
                    .fold(0.0f64, f64::max);
                let best_kept = mover
                    .slide_all(spawned)
                    .into_iter()
                    .filter(|&moved| moved != spawned && spec.formation().fits(moved))
                    .map(|moved| next_thin.rate(canon.canonical(moved)))
                    .fold(0.0f64, f64::max);
                assert_eq!(best, best_kept, "{} layer {index}", spec.name());
            }
        }
    }
    assert!(
        thin_count * 2 < full_count,
        "{thin_count} of {full_count} kept"
    );

    // Thinning a thinned table again changes no file, here within no
    // memory at all (segments of 4,096 positions, every run of boards
    // reached spilled to the working folder), which it leaves empty.
    let before: Vec<Vec<u8>> = (0..spec.steps())
        .map(|i| std::fs::read(layer_path(&thin, i)).unwrap())
        .collect();
    let work = tempfile::tempdir().unwrap();
    let level = Options::default().level;
    let mut within = Vec::new();
    optimal::thin(spec, &thin, work.path(), level, Some(0), &mut |event| {
        within.push(event)
    })
    .unwrap();
    let after: Vec<Vec<u8>> = (0..spec.steps())
        .map(|i| std::fs::read(layer_path(&thin, i)).unwrap())
        .collect();
    assert!(before == after);
    assert_eq!(std::fs::read_dir(work.path()).unwrap().count(), 0);

    // Each layer is reported, in order, with what it kept: without a
    // budget whole, within none in segments of the fewest positions,
    // fetching its children (unless it looks up none, or from none).
    assert_eq!(unbounded.len(), spec.steps());
    assert_eq!(within.len(), spec.steps());
    for (index, (unbounded, within)) in unbounded.iter().zip(&within).enumerate() {
        let (
            &Event::Thinned {
                layer,
                kept,
                bytes,
                segments,
                fetched,
                ..
            },
            &Event::Thinned {
                layer: layer_within,
                kept: kept_within,
                bytes: bytes_within,
                segments: segments_within,
                fetched: fetched_within,
                ..
            },
        ) = (unbounded, within)
        else {
            panic!("{unbounded:?} {within:?}");
        };
        assert_eq!((layer, layer_within), (index, index));
        assert_eq!(kept, kept_within);
        let file_bytes = before[index].len() as u64;
        assert_eq!((bytes, bytes_within), (file_bytes, file_bytes));
        assert_eq!(
            (segments, fetched),
            (usize::from(kept > 0), false),
            "layer {index}"
        );
        assert_eq!(segments_within, kept.div_ceil(4096), "layer {index}");
        let positions_after: u64 = (index + 1..spec.steps().min(index + 3))
            .map(|layer| {
                let file = LayerFile::open(&layer_path(&thin, layer)).unwrap();
                file.header().positions
            })
            .sum();
        let fetching = !spec.is_horizon(index) && positions_after > 0;
        assert_eq!(fetched_within, fetching, "layer {index}");
    }
}
