//! Temporal coherence learning: the per-weight rates follow the update
//! histories, and checkpoints keep the histories.

use board::Board;
use ntuple::{Metadata, Network, parse_patterns};

/// Sixteen different tiles: every 2x4patt feature selects a weight of its
/// own, so the value is 16 times any one weight.
const BOARD: Board = Board::from_raw(0x0123_4567_89ab_cdef);

fn coherent(patterns: &str) -> Network {
    let mut network = Network::new(parse_patterns([patterns]).unwrap()).unwrap();
    network.enable_coherence(u64::MAX).unwrap();
    network
}

#[test]
fn weights_learn_at_the_rate_of_their_agreement() {
    let network = coherent("2x4patt");
    assert!(network.has_coherence());
    // First update: ratio 1. Then A = 1, U = 1.
    assert_eq!(network.update(BOARD, 1.0), 16.0);
    // |A| / U = 1: the weight falls back to 0; A = 0, U = 2.
    assert_eq!(network.update(BOARD, -1.0), 0.0);
    // |A| / U = 0: no change; A = 1, U = 3.
    assert_eq!(network.update(BOARD, 1.0), 0.0);
    // |A| / U = 1/3; A = 2, U = 4.
    // (The update sums the features in another order than the estimate.)
    let value = network.update(BOARD, 1.0);
    assert!((value - 16.0 / 3.0).abs() < 1e-5, "{value}");
    assert!((network.estimate(BOARD) - value).abs() < 1e-5);
    // |A| / U = 1/2.
    let value = network.update(BOARD, 3.0);
    assert!((value - 16.0 * (1.0 / 3.0 + 1.5)).abs() < 1e-4, "{value}");

    // Without TC, the same updates move the weights by their full size.
    let mut plain = coherent("2x4patt");
    plain.disable_coherence();
    for amount in [1.0, -1.0, 1.0, 1.0] {
        plain.update(BOARD, amount);
    }
    assert_eq!(plain.estimate(BOARD), 32.0);
}

#[test]
fn checkpoints_keep_the_histories() {
    let dir = tempfile::tempdir().unwrap();
    let network = coherent("0123 4567!");
    for amount in [2.0, -1.0, 0.5] {
        network.update(BOARD, amount);
        network.update(BOARD.transpose(), amount);
    }
    let path = dir.path().join("tc.nw");
    network.save(&path, &Metadata::new()).unwrap();
    let loaded = Network::load(&path, None).unwrap().network;
    assert!(loaded.has_coherence());
    for board in [BOARD, BOARD.transpose(), BOARD.flip()] {
        assert_eq!(loaded.update(board, 0.75), network.update(board, 0.75));
    }
    assert_eq!(loaded.coherence_tables().len(), 2);

    // A file cut inside the histories is refused.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
    let error = Network::load(&path, None).unwrap_err().to_string();
    assert!(error.contains("truncated"), "{error}");
}

#[test]
fn histories_count_against_the_memory_limit() {
    let mut network = Network::new(parse_patterns(["4x6patt"]).unwrap()).unwrap();
    let error = network.enable_coherence(256 << 20).unwrap_err().to_string();
    assert!(error.contains("with TC histories needs 512 MiB"), "{error}");
    assert!(!network.has_coherence());
}
