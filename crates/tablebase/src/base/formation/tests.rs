use crate::base::hex;
use crate::base::position::tile_sum;

use super::*;

#[test]
fn every_builtin_is_valid() {
    for name in Formation::builtin_names() {
        let formation = Formation::builtin(name).unwrap();
        assert!(!formation.layer_zero().is_empty(), "{name}");
    }
    let l3 = Formation::builtin("L3").unwrap();
    assert_eq!(l3.seed_sum(), 196_616);
    assert_eq!(Formation::builtin("4442").unwrap().seed_sum(), 65_544);
    for name in Formation::builtin_names() {
        let formation = Formation::builtin(name).unwrap();
        assert_eq!(Formation::new(formation.spec()).unwrap(), formation);
    }
}

#[test]
fn large_tiles_are_fixed_by_one_kept_mask_or_by_walls() {
    let fixed = |name: &str| Formation::builtin(name).unwrap().fixed_large();
    // Reference order 0xfff0fff: the three rightmost cells of the two
    // bottom rows.
    assert_eq!(fixed("L3"), Some(0xfff0_fff0_0000_0000));
    assert_eq!(fixed("442"), Some(0xffff_ff00_0000_0000));
    assert_eq!(fixed("3x3"), Some(0xffff_f000_f000_f000));
    // Several masks, a large tile free to move, no masks.
    for moving in ["L3f", "442t", "4432f", "free8"] {
        assert_eq!(fixed(moving), None, "{moving}");
    }
}

/// Free formations' large tiles go anywhere, and every symmetry keeps
/// the formation (with symmetric target cells too); masks, walls or
/// fewer symmetries do not.
#[test]
fn large_tiles_go_anywhere_in_free_formations() {
    let anywhere = |name: &str| Formation::builtin(name).unwrap().anywhere_large();
    for (name, large) in [("free8", 8), ("free9", 7), ("free12", 4)] {
        assert_eq!(anywhere(name), Some(large), "{name}");
    }
    for held in ["L3", "L3f", "442t", "3x3", "2x4"] {
        assert_eq!(anywhere(held), None, "{held}");
    }
    let mut spec = Formation::builtin("free8").unwrap().spec();
    spec.target_cells = "0xf00f00000000f00f".into();
    assert_eq!(
        Formation::new(spec.clone()).unwrap().anywhere_large(),
        Some(8)
    );
    spec.canon = Canon::Diagonal;
    assert_eq!(Formation::new(spec).unwrap().anywhere_large(), None);
}

#[test]
fn targets_are_seen_only_in_their_cells() {
    let f442 = Formation::builtin("442").unwrap();
    // The target cell of 442 is row 2, column 1 (cell 9).
    let board = hex::parse("0x0000000006ffffff").unwrap() | (6 << (4 * 9));
    assert!(f442.shows(board, 6));
    assert!(!f442.shows(board, 5));
    let elsewhere = hex::parse("0x6000000000ffffff").unwrap();
    assert!(!f442.shows(elsewhere, 6));
}

#[test]
fn free_layer_zero_holds_every_arrangement_moved() {
    let free12 = Formation::builtin("free12").unwrap();
    // 4 large tiles, 11 twos and an empty cell: every choice of the
    // empty cell and of the four large tiles' cells, moved each way.
    let mover = crate::Mover::new(Large::Sliding);
    let mut expected = std::collections::BTreeSet::new();
    for empty in 0..16 {
        for large in 0u32..1 << 16 {
            if large.count_ones() != 4 || large >> empty & 1 == 1 {
                continue;
            }
            let board = (0..16)
                .filter(|&cell| cell != empty)
                .map(|cell| if large >> cell & 1 == 1 { 0xFu64 } else { 1 } << (4 * cell))
                .sum();
            for moved in mover.slide_all(board) {
                expected.insert(Canon::Full.canonical(moved));
            }
        }
    }
    let layer = free12.layer_zero();
    assert_eq!(layer, expected.into_iter().collect::<Vec<_>>());
    assert!(layer.iter().all(|&b| tile_sum(b) == free12.seed_sum()));
}

#[test]
fn formation_files_are_read_as_json_or_toml() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("l3.json");
    let toml = dir.path().join("L3.TOML");
    std::fs::write(
        &json,
        r#"{ "name": "L3", "masks": ["0xfff0fff"], "target_cells": "0xffffffffffffffff",
             "canon": "identity", "seeds": ["0x100000001fff2fff", "0x000000012fff1fff"],
             "extra_steps": 48 }"#,
    )
    .unwrap();
    std::fs::write(
        &toml,
        "# L3, as built in\n\
         name = \"L3\"\n\
         masks = [\"0xfff0fff\"]\n\
         target_cells = \"0xffffffffffffffff\"\n\
         canon = \"identity\"\n\
         large = \"sliding\"\n\
         seeds = [\"0x100000001fff2fff\", \"0x000000012fff1fff\"]\n\
         extra_steps = 48\n",
    )
    .unwrap();
    let builtin = Formation::builtin("L3").unwrap();
    for path in [&json, &toml] {
        assert_eq!(Formation::find(path.to_str().unwrap()).unwrap(), builtin);
    }

    let text = std::fs::read_to_string(&toml).unwrap();
    for (broken, problem) in [
        (
            text.replace("extra_steps = 48\n", ""),
            "missing field `extra_steps`",
        ),
        (
            text.replace("identity", "mirror"),
            "unknown variant `mirror`",
        ),
        (
            text.replace("extra_steps", "extra"),
            "unknown field `extra`",
        ),
        (text.replace("= 48", "= \"48\""), "line 8 column 15"),
        (
            text.replace("[\"0xfff0fff\"]", "[\"0xfff0fff\""),
            "missing comma",
        ),
        (
            text.replace("0x000000012fff1fff", "0x000000012fff2fff"),
            "tile sum",
        ),
    ] {
        std::fs::write(&toml, broken).unwrap();
        let error = Formation::find(toml.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("formation "), "{error}");
        assert!(error.contains("L3.TOML: "), "{error}");
        assert!(error.contains(problem), "{problem}: {error}");
        assert!(!error.contains('\n'), "one line: {error}");
    }
}

#[test]
fn bad_definitions_say_what_is_wrong() {
    let spec = |masks: &[&str], seeds: &[&str]| FormationSpec {
        name: "mine".into(),
        masks: masks.iter().map(|s| s.to_string()).collect(),
        target_cells: "0xffffffffffffffff".into(),
        canon: Canon::Identity,
        large: Large::Sliding,
        seeds: seeds.iter().map(|s| s.to_string()).collect(),
        extra_steps: 48,
        free: false,
    };
    let error = |masks: &[&str], seeds: &[&str]| {
        Formation::new(spec(masks, seeds)).unwrap_err().to_string()
    };
    assert!(error(&["0xfff0ff1"], &["0x1fff0fff"]).contains("whole F digits"));
    assert!(error(&["0xfff0fff"], &["0x1"]).contains("does not fit"));
    assert!(error(&["0xfff0fff"], &[]).contains("no seeds"));
    assert!(error(&[], &["0x1fff0fff"]).contains("no masks: its large tiles could go anywhere"));
    assert!(
        error(&["0xfff0fff"], &["0x1fff0fff", "0x2fff0fff"])
            .contains("0x000000002fff0fff's tiles other than large ones sum to 4, the first")
    );
    assert!(
        error(&["0xfff0fff"], &["0x1fff0fff", "0x1ffff0fff"])
            .contains("0x00000001ffff0fff holds 7 large tiles (f), the first seed 6")
    );
    assert!(error(&["0xfff0fff"], &["0xzfff0fff"]).contains("not a hex number"));
    // Symmetries that move the masks or the target cells: a position
    // and its images would not fit, or show the target, alike.
    let mut l3 = Formation::builtin("L3").unwrap().spec();
    l3.canon = Canon::Diagonal;
    let error = Formation::new(l3).unwrap_err().to_string();
    assert!(
        error.contains(
            "L3: its diagonal symmetry does not keep its masks: \
             0x000000000fff0fff turned is 0x000000ff00ff00ff"
        ),
        "{error}"
    );
    let mut walls = Formation::builtin("3x3").unwrap().spec();
    (walls.canon, walls.target_cells) = (Canon::Full, "0xffffffffffffffff".into());
    let error = Formation::new(walls.clone()).unwrap_err().to_string();
    assert!(
        error.contains("its full symmetry does not keep its walls"),
        "{error}"
    );
    walls.canon = Canon::Min33;
    walls.seeds.push("0xfff0fff0fff00001".into());
    let error = Formation::new(walls).unwrap_err().to_string();
    assert!(error.contains("has its walls in other cells"), "{error}");
    // A name starts the default folder of a table: one that a path
    // would read as more, or less, is refused.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("named.json");
    let l3 = serde_json::to_string(&Formation::builtin("L3").unwrap().spec()).unwrap();
    let named = |name: &str| {
        let text = l3.replace("\"name\":\"L3\"", &format!("\"name\":{name:?}"));
        std::fs::write(&file, text).unwrap();
        Formation::find(file.to_str().unwrap())
    };
    for name in ["", "x/y", "-32", ".hidden", "L 3"] {
        let error = named(name).unwrap_err().to_string();
        assert!(error.contains("cannot name a folder"), "{name:?}: {error}");
    }
    assert_eq!(named("L3_near-2.b+c").unwrap().name(), "L3_near-2.b+c");
    let mut ll = Formation::builtin("LL").unwrap().spec();
    ll.target_cells = "0xf000000000".into();
    let error = Formation::new(ll).unwrap_err().to_string();
    assert!(
        error.contains("its diagonal symmetry does not keep its target cells"),
        "{error}"
    );
    assert!(
        Formation::find("L9")
            .unwrap_err()
            .to_string()
            .contains("unknown formation")
    );
    for path in ["missing.json", "formations/L9"] {
        let error = Formation::find(path).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("formation {path}: ")) && error.contains("os error"),
            "{error}"
        );
    }
}
