use rand::{Rng, SeedableRng};

use crate::base::position::large_nibbles;
use crate::base::position::tile_sum;

use super::half::{boards_of_sum, tile, ways_by_half_sum};
use super::*;

/// Every board of a layer is found at its position, and boards it
/// lacks (other sums, other large cells, 0xF in a free cell, near
/// misses) are not found; among boards of the layer's sum (two free
/// cells swapped), neither without the check of the sum.
#[test]
fn positions_are_found_exactly() {
    let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
    let layers = crate::build::in_memory::build::<f64>(&spec);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let mut ranked_layers = 0;
    for (index, layer) in layers.iter().enumerate() {
        let boards = layer.boards();
        let Some(ranked) = Ranked::within(boards, u64::MAX) else {
            continue;
        };
        ranked_layers += 1;
        for (position, &board) in boards.iter().enumerate() {
            assert_eq!(ranked.position(board), Some(position));
            assert_eq!(ranked.find(board), Some(position));
        }
        let others = layers
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != index);
        for (_, other) in others {
            for &board in other.boards().iter().step_by(97) {
                assert_eq!(ranked.find(board), None, "{board:016x}");
            }
        }
        let free: Vec<u64> = (0..16)
            .filter(|&cell| boards[0] >> (4 * cell) & 0xF != 0xF)
            .collect();
        for _ in 0..2000 {
            let board = boards[rng.next_u64() as usize % boards.len()];
            let cell = rng.next_u64() % 16;
            let changed = board ^ ((rng.next_u64() % 15 + 1) << (4 * cell));
            let found = ranked.find(changed);
            assert_eq!(found, boards.binary_search(&changed).ok(), "{changed:016x}");
            let [a, b] = [0, 1].map(|_| 4 * free[rng.next_u64() as usize % free.len()]);
            let (nibble_a, nibble_b) = (board >> a & 0xF, board >> b & 0xF);
            let swapped = board & !(0xF << a | 0xF << b) | nibble_a << b | nibble_b << a;
            let found = ranked.position(swapped);
            assert_eq!(found, boards.binary_search(&swapped).ok(), "{swapped:016x}");
        }
    }
    assert!(
        ranked_layers > layers.len() / 2,
        "{ranked_layers} of {}",
        layers.len()
    );
}

/// A rank's place is the count of the layer's ranks below it, and held
/// just where the layer holds the rank (never past the space's boards):
/// the solver keeps a child's place either way and moves on by whether
/// it is held.
#[test]
fn places_count_the_ranks_below() {
    let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 5, 0.1).unwrap();
    let layers = crate::build::in_memory::build::<f64>(&spec);
    let mut placed = 0;
    for layer in &layers {
        let Some(ranked) = Ranked::within(layer.boards(), u64::MAX) else {
            continue;
        };
        let positions = ranked.positions();
        let ranks: Vec<u64> = (layer.boards().iter())
            .map(|&board| ranked.space.rank(board).expect("a board of the space"))
            .collect();
        for rank in 0..ranked.space.len() {
            let below = ranks.partition_point(|&held| held < rank);
            let held = ranks.get(below) == Some(&rank);
            assert_eq!(positions.place(rank), (below, held), "rank {rank}");
            assert_eq!(positions.at(rank), held.then_some(below));
            placed += 1;
        }
        for past in [ranked.space.len() + 64, u64::MAX] {
            assert!(!positions.place(past).1, "rank {past}");
        }
    }
    assert!(placed > 10_000, "{placed} ranks placed");
}

/// Every rank of a space gives back a board of the space that has that
/// rank, in increasing order; marked ranks give back just their boards,
/// read from any position.
#[test]
fn ranks_give_back_their_boards_in_order() {
    let large = 0xfff0_fff0_0000_0000;
    let space = Space::within(large, 40, |_, _| true).unwrap();
    let mut all = vec![u64::MAX; bitmap_words(space.len()) as usize];
    // No rank past the last.
    assert!(Marks::new(space.clone(), all.clone()).is_none());
    *all.last_mut().unwrap() = (1 << (space.len() % 64)) - 1;
    let boards = Marks::new(space.clone(), all.clone())
        .unwrap()
        .read(0, usize::MAX);
    assert_eq!(boards.len() as u64, space.len());
    assert_eq!(boards.len() as u64, boards_of_sum(10, 40, 5));
    for (rank, pair) in boards.windows(2).enumerate() {
        assert!(pair[0] < pair[1]);
        assert_eq!(space.rank(pair[0]), Some(rank as u64));
        assert_eq!(space.exact_rank(pair[0]), Some(rank as u64));
        // A 2 more in its lowest empty cell: another sum.
        let empty = (0..16).find(|&cell| pair[0] >> (4 * cell) & 0xF == 0);
        if let Some(cell) = empty {
            assert_eq!(space.exact_rank(pair[0] | 1 << (4 * cell)), None);
        }
    }
    for &board in &boards {
        assert_eq!(large_nibbles(board), large, "{board:016x}");
        assert_eq!(tile_sum(board & !large), 40, "{board:016x}");
    }
    let marked: Vec<u64> = boards.iter().copied().step_by(7).collect();
    let mut bits = vec![0u64; all.len()];
    for &board in &marked {
        let rank = space.rank(board).unwrap();
        bits[(rank / 64) as usize] |= 1 << (rank % 64);
    }
    let marks = Marks::new(space.clone(), bits.clone()).unwrap();
    assert_eq!(marks.len(), marked.len());
    assert_eq!(marks.read(0, usize::MAX), marked);
    // From any position, within the space's ranks and past them.
    for start in (0..marked.len() + 3).step_by(5) {
        for count in [0, 1, 2, 63, 64, 65, 1 << 15] {
            let end = (start + count).min(marked.len());
            let expected = marked.get(start..end).unwrap_or_default();
            assert_eq!(marks.read(start, count), expected, "{start} {count}");
        }
    }
    // A bitmap of another size is refused.
    bits.push(0);
    assert!(Marks::new(space, bits).is_none());
}

/// Ranked many at a time, the boards of a space get their ranks, and
/// boards with a tile over the largest, or with more than the sum in
/// the high half, a number past every word.
#[test]
fn boards_ranked_together_get_their_ranks() {
    let large = 0xfff0_fff0_0000_0000;
    let space = Space::within(large, 40, |_, _| true).unwrap();
    let mut all = vec![u64::MAX; bitmap_words(space.len()) as usize];
    *all.last_mut().unwrap() = (1 << (space.len() % 64)) - 1;
    let boards = Marks::new(space.clone(), all.clone())
        .unwrap()
        .read(0, usize::MAX);
    let mut ranks = vec![0; boards.len()];
    space.tables().fixed_ranks(&boards, &mut ranks, &all);
    assert!(ranks.iter().copied().eq(0..space.len()));
    // A 64 (sum 40 holds tiles up to 32) in the lowest free cell, then
    // the highest, in place of what was there; 32s in the two highest
    // free cells, of the high half, and nothing else.
    let free: Vec<usize> = (0..16)
        .filter(|&cell| large >> (4 * cell) & 0xF == 0)
        .collect();
    let (lowest, highest) = (free[0], free[free.len() - 1]);
    let outside: Vec<u64> = [lowest, highest]
        .map(|cell| boards[1] & !(0xF << (4 * cell)) | 6 << (4 * cell))
        .into_iter()
        .chain([large | 5 << (4 * highest) | 5 << (4 * free[free.len() - 2])])
        .collect();
    let mut ranks = vec![0; outside.len()];
    space.tables().fixed_ranks(&outside, &mut ranks, &all);
    assert_eq!(ranks, [u64::MAX; 3]);
}

/// Lookups over the kept positions of a layer's marks find the kept
/// boards, each at its position among them, and no other board; they
/// are made wherever lookups made from the kept boards are, and also
/// where few positions are kept, as their bound counts the positions
/// marked.
#[test]
fn lookups_of_kept_marks_are_those_of_the_kept_boards() {
    let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
    let layers = crate::build::in_memory::build::<f64>(&spec);
    let (mut made, mut only_of_marks, mut refused) = (0, 0, 0);
    for layer in &layers {
        let boards = layer.boards();
        let Some(first) = boards.first() else {
            continue;
        };
        let large = large_nibbles(*first);
        let space = Space::within(large, tile_sum(first & !large).into(), |_, _| true);
        let Some(space) = space else {
            continue;
        };
        let mut bits = vec![0; bitmap_words(space.len()) as usize];
        for &board in boards {
            let rank = space.exact_rank(board).unwrap();
            bits[(rank / 64) as usize] |= 1 << (rank % 64);
        }
        let marks = Marks::new(space, bits).unwrap();
        for step in [1, 3, 50] {
            let keep = |position: usize| position.is_multiple_of(step);
            let kept: Vec<u64> = (boards.iter().enumerate())
                .filter(|&(position, _)| keep(position))
                .map(|(_, &board)| board)
                .collect();
            let (of_marks, of_boards) = (Ranked::of_kept(&marks, keep), Ranked::new(&kept));
            assert!(of_boards.is_none() || of_marks.is_some());
            let Some(of_marks) = of_marks else {
                refused += 1;
                continue;
            };
            made += 1;
            only_of_marks += usize::from(of_boards.is_none());
            for &board in boards {
                let position = kept.binary_search(&board).ok();
                assert_eq!(of_marks.position(board), position);
                assert_eq!(of_marks.find(board), position);
                if let Some(of_boards) = &of_boards {
                    assert_eq!(of_boards.find(board), position);
                }
            }
        }
    }
    assert!(
        made > 10 && only_of_marks > 0 && refused > 0,
        "{made} made, {only_of_marks} of the marks only, {refused} refused"
    );
}

/// A free formation's ranks: every board of eight large tiles and free
/// tiles of a sum, listed from every rank of the space, ranks as every
/// image of it does; boards rank alike exactly when a symmetry turns
/// one into the other; marked ranks list boards of those ranks, in
/// order; boards of another sum or number of large tiles are told.
#[test]
fn free_ranks_are_those_of_symmetry_classes() {
    let sum = 14;
    let space = Space::placed(8, sum, |_, _| true).unwrap();
    let mut all = vec![u64::MAX; bitmap_words(space.len()) as usize];
    *all.last_mut().unwrap() = (1 << (space.len() % 64)) - 1;
    let listed = Marks::new(space.clone(), all).unwrap().read(0, usize::MAX);
    assert_eq!(listed.len() as u64, space.len());
    let mut rank_of_class = std::collections::HashMap::new();
    let mut class_of_rank = std::collections::HashMap::new();
    for (at, &board) in listed.iter().enumerate() {
        assert_eq!(large_nibbles(board).count_ones(), 32, "{board:016x}");
        assert_eq!(tile_sum(board & !large_nibbles(board)), sum as u32);
        let rank = space.rank(board).unwrap();
        // A content that a symmetry of its placement makes smaller
        // ranks as the smaller.
        assert!(rank <= at as u64, "{board:016x}");
        for symmetry in 0..8 {
            let image = placement::turn(board, symmetry);
            assert_eq!(space.rank(image), Some(rank), "{image:016x}");
            assert_eq!(space.exact_rank(image), Some(rank), "{image:016x}");
        }
        let class = board::Board::from_raw(board).canonical().raw();
        assert_eq!(*rank_of_class.entry(class).or_insert(rank), rank);
        assert_eq!(*class_of_rank.entry(rank).or_insert(class), class);
        // Another sum, another number of large tiles.
        let empty = (0..16).find(|&cell| board >> (4 * cell) & 0xF == 0);
        if let Some(cell) = empty {
            assert_eq!(space.exact_rank(board | 1 << (4 * cell)), None);
            assert_eq!(space.rank(board | 0xF << (4 * cell)), None);
        }
    }
    // Every class of the boards listed (which hold every placement up
    // to the symmetries) has a rank of its own.
    assert_eq!(rank_of_class.len(), class_of_rank.len());
    assert!(rank_of_class.len() > 10_000, "{}", rank_of_class.len());
    // Marks of some classes list a board of each, in order of rank.
    let mut ranks: Vec<u64> = class_of_rank.keys().copied().step_by(5).collect();
    ranks.sort_unstable();
    let mut bits = vec![0u64; bitmap_words(space.len()) as usize];
    for &rank in &ranks {
        bits[(rank / 64) as usize] |= 1 << (rank % 64);
    }
    let marks = Marks::new(space.clone(), bits).unwrap();
    let read = marks.read(0, usize::MAX);
    let read_ranks: Vec<u64> = read
        .iter()
        .map(|&board| space.rank(board).unwrap())
        .collect();
    assert_eq!(read_ranks, ranks);
    for start in (0..read.len()).step_by(211) {
        assert_eq!(
            marks.read(start, 300),
            read[start..(start + 300).min(read.len())]
        );
    }
    // A span's ranks listed through a bitmap of the span alone: the
    // canonical boards the marks list, repeats once.
    let canonical = marks.read_canonical(0, usize::MAX);
    for span in [
        0..space.len(),
        70..ranks[ranks.len() / 2],
        ranks[9]..ranks[300] + 1,
    ] {
        let within = |rank: &&u64| span.contains(*rank);
        let expected: Vec<u64> = (ranks.iter().zip(&canonical))
            .filter(|(rank, _)| within(rank))
            .map(|(_, &board)| board)
            .collect();
        let twice = ranks.iter().filter(within).flat_map(|&rank| [rank, rank]);
        assert_eq!(
            boards_of_ranks(&space, span.clone(), twice),
            expected,
            "{span:?}"
        );
    }
    // Thirteen free cells are too many; sixteen, no placement.
    assert!(Space::placed(3, 40, |_, _| true).is_none());
    assert!(Space::placed(0, 40, |_, _| true).is_none());
}

/// The low half's entries fit 16 bits: whatever the largest tile, no
/// tile sum has more than 510 contents of five cells.
#[test]
fn low_halves_of_a_sum_fit_sixteen_bits() {
    let ways = ways_by_half_sum(5, 14, 5 << 13);
    assert_eq!(ways.iter().max(), Some(&510));
}

/// Against every content of five cells, and counts of ten cells made
/// by a recursion over the cells.
#[test]
fn boards_of_a_sum_are_counted() {
    let top: u64 = 5;
    let mut by_sum = vec![0; 5 * 32 / 2 + 1];
    for mut code in 0..(top + 1).pow(5) {
        let mut sum = 0;
        for _ in 0..5 {
            sum += tile(code % (top + 1));
            code /= top + 1;
        }
        by_sum[(sum / 2) as usize] += 1;
    }
    for (half, &count) in by_sum.iter().enumerate() {
        assert_eq!(
            boards_of_sum(5, 2 * half as u64, top),
            count,
            "sum {}",
            2 * half
        );
    }
    assert_eq!(boards_of_sum(10, 360, 8), 9_887_112);
    assert_eq!(boards_of_sum(10, 512, 9), 10_372_195);
    assert_eq!(boards_of_sum(10, 1024, 10), 12_186_595);
    assert_eq!(boards_of_sum(2, 4, 2), 3);
    assert_eq!(boards_of_sum(3, 0, 0), 1);
}

#[test]
fn sparse_or_irregular_layers_are_not_ranked() {
    assert!(Ranked::new(&[]).is_none());
    // Thirteen free cells.
    assert!(Ranked::new(&[0x0000_0000_0000_1fff]).is_none());
    // One position of the 12 million boards of its sum (four 256s).
    assert!(Ranked::new(&[0x0000_0088_8fff_8fff]).is_none());
    assert!(Ranked::within(&[0x0000_0088_8fff_8fff], u64::MAX).is_some());
    // A dense layer, then with one board of another sum or with its
    // large tiles elsewhere.
    let spec = crate::Spec::new(crate::Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
    let layers = crate::build::in_memory::build::<f64>(&spec);
    let layer = layers
        .iter()
        .max_by_key(|layer| layer.len())
        .unwrap()
        .boards();
    assert!(Ranked::new(layer).is_some(), "{} positions", layer.len());
    let last = *layer.last().unwrap();
    let (top, below) = (last >> 60, last & !(0xF << 60));
    for stranger in [below | (top + 1) << 60, last.rotate_left(4)] {
        let mut boards = layer.to_vec();
        boards.push(stranger);
        boards.sort_unstable();
        assert!(
            Ranked::within(&boards, u64::MAX).is_none(),
            "{stranger:016x}"
        );
    }
}

/// Lookups made from ranks in order find each at its position and no
/// other; ranks out of order, repeated or past the space are refused.
#[test]
fn lookups_of_ranks_find_their_positions() {
    let space = Space::placed(8, 14, |_, _| true).unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let mut ranks: Vec<u64> = (0..5_000).map(|_| rng.next_u64() % space.len()).collect();
    ranks.sort_unstable();
    ranks.dedup();
    let ranked = Ranked::of_ranks(space.clone(), &ranks).unwrap();
    assert_eq!(ranked.len(), ranks.len());
    for (position, &rank) in ranks.iter().enumerate() {
        assert_eq!(ranked.at(rank), Some(position));
        if rank + 1 < space.len() && ranks.binary_search(&(rank + 1)).is_err() {
            assert_eq!(ranked.at(rank + 1), None);
        }
    }
    let repeated = [ranks[0], ranks[0]];
    assert!(Ranked::of_ranks(space.clone(), &repeated).is_none());
    assert!(Ranked::of_ranks(space.clone(), &[ranks[1], ranks[0]]).is_none());
    assert!(Ranked::of_ranks(space.clone(), &[space.len()]).is_none());
}
