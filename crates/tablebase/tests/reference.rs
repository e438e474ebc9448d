//! The reference builder's published numbers for L3-64
//! (../shared/docs/tablebase.md), reproduced exactly.

use tablebase::internals::in_memory;
use tablebase::{Formation, Position, Spec};

#[test]
fn l3_64_matches_the_reference_builder() {
    let spec = Spec::new(Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
    assert_eq!((spec.steps(), spec.docheck()), (80, 28));
    let layers = in_memory::build::<f64>(&spec);
    // "generated 10,119,631 positions in layers 0..77 and stored 9,666,970
    // with P > 0"
    let generated: usize = layers[..78].iter().map(|layer| layer.len()).sum();
    let stored: usize = layers
        .iter()
        .map(|layer| layer.rates().iter().filter(|&&rate| rate > 0.0).count())
        .sum();
    assert_eq!((generated, stored), (10_119_631, 9_666_970));
    let canon = spec.formation().canon();
    for (seed, expected) in [
        ("0x100000001fff2fff", 0.999_999_640_3),
        ("0x000000012fff1fff", 0.999_950_243_9),
    ] {
        let board = canon.canonical(seed.parse::<Position>().unwrap().bits());
        let rate = layers[0].rate(board);
        assert!(
            (rate - expected).abs() < 1e-9,
            "{seed}: {rate}, the reference {expected}"
        );
    }
}
