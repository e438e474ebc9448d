//! The built-in formations: those of the reference's `patterns_config.json`
//! (listed in ../shared/docs/formations-reference.txt), boards in its order.

use crate::{Canon, Large};

use super::FormationSpec;

/// A built-in formation: a [`FormationSpec`] whose masks, target cells and
/// seeds are numbers (in the reference's order) rather than text.
struct Builtin {
    name: &'static str,
    masks: &'static [u64],
    target_cells: u64,
    canon: Canon,
    seeds: &'static [u64],
    extra_steps: i32,
    large: Large,
    free: bool,
}

/// Every cell (target cells: the target counts wherever it shows).
const ANY: u64 = u64::MAX;

const fn fixed(
    name: &'static str,
    masks: &'static [u64],
    target_cells: u64,
    canon: Canon,
    seeds: &'static [u64],
) -> Builtin {
    Builtin {
        name,
        masks,
        target_cells,
        canon,
        seeds,
        extra_steps: 48,
        large: Large::Sliding,
        free: false,
    }
}

const fn free(name: &'static str, seed: &'static [u64]) -> Builtin {
    Builtin {
        name,
        masks: &[],
        target_cells: ANY,
        canon: Canon::Full,
        seeds: seed,
        extra_steps: 36,
        large: Large::Sliding,
        free: true,
    }
}

const fn variant(
    name: &'static str,
    target_cells: u64,
    canon: Canon,
    seed: &'static [u64],
    extra_steps: i32,
) -> Builtin {
    Builtin {
        name,
        masks: &[],
        target_cells,
        canon,
        seeds: seed,
        extra_steps,
        large: Large::Wall,
        free: false,
    }
}

const L3_SEEDS: &[u64] = &[0x1000_0000_1fff_2fff, 0x0000_0001_2fff_1fff];
const L2_SEEDS: &[u64] = &[0x1000_0000_21ff_ffff, 0x0000_0001_12ff_ffff];

const BUILTINS: &[Builtin] = &[
    fixed("L3", &[0xfff0fff], ANY, Canon::Identity, L3_SEEDS),
    fixed(
        "L3f",
        &[
            0xfff0fff,
            0xf0fff0ff0,
            0xf000f0ff00ff0,
            0xf00fff0ff0,
            0xf000fff0ff0,
            0xff0ff00ff0,
            0xff00ff00ff0,
            0xf000fff00ff,
            0xf00fff00ff,
            0xff0fff0f00,
            0xf00f00ff00ff0,
            0xfff0fff0000,
            0xff00fff0f00,
            0xf00fff0f0f,
        ],
        ANY,
        Canon::Identity,
        L3_SEEDS,
    ),
    fixed("442", &[0xffffff], 0xf000000, Canon::Identity, L2_SEEDS),
    fixed(
        "442t",
        &[
            0xffffff,
            0xf0ff0fff,
            0xffff0ff,
            0xffff00ff,
            0xf00fffff0,
            0xff0ff0ff0,
            0xf00000ff0fff,
            0xf0000fff00ff,
            0xf00f00ff0ff0,
            0xf00f0fff00f0,
        ],
        0xff0ff000000,
        Canon::Identity,
        L2_SEEDS,
    ),
    fixed(
        "t",
        &[0xf0fff0ff, 0xf000f0ff00ff, 0xf000f00000ff00ff],
        0xff0f000f00,
        Canon::Identity,
        &[0x1000_0000_f1ff_f2ff, 0x0000_0001_f2ff_f1ff],
    ),
    fixed(
        "LL",
        &[0xff00ff],
        0xff0f000f00,
        Canon::Diagonal,
        &[0x1000_0000_21ff_12ff, 0x0000_0001_12ff_21ff],
    ),
    fixed(
        "4431",
        &[0xf0fff],
        0xf00000,
        Canon::Identity,
        &[0x1000_0000_121f_2fff, 0x0000_0001_121f_2fff],
    ),
    Builtin {
        extra_steps: 60,
        ..fixed(
            "444",
            &[0xffff],
            0xff00000,
            Canon::Horizontal,
            &[0x1000_0000_0000_ffff, 0x0000_0001_0000_ffff],
        )
    },
    fixed(
        "4432f",
        &[0xf00ff],
        0xf00000,
        Canon::Diagonal,
        &[
            0x0000_1000_121f_2fff,
            0x0001_0000_121f_f2ff,
            0x0001_0000_12ff_21ff,
        ],
    ),
    fixed(
        "4442ff",
        &[0xff],
        0xff0fff0f00,
        Canon::Identity,
        &[
            0x0000_1000_12ff_21ff,
            0x0001_0000_1212_ffff,
            0x00ff_0012_1021_00ff,
        ],
    ),
    fixed(
        "4421",
        &[0xff0fff],
        0xf000000,
        Canon::Identity,
        &[0x1000_0000_12ff_2fff, 0x1000_0001_21ff_1fff],
    ),
    fixed(
        "4441",
        &[0xfff],
        0xfff000,
        Canon::Identity,
        &[0x0000_1000_0000_1fff, 0x0001_0000_0000_1fff],
    ),
    fixed(
        "4432",
        &[0xf00ff],
        0xf00000,
        Canon::Diagonal,
        &[0x0000_1000_121f_21ff, 0x0001_0000_121f_21ff],
    ),
    fixed(
        "4442",
        &[0xff],
        0xff0f00,
        Canon::Identity,
        &[0x0000_1000_0000_12ff, 0x0001_0000_0000_21ff],
    ),
    fixed(
        "4442f",
        &[0xff],
        0xffff00,
        Canon::Identity,
        &[0x0000_1000_121f_21ff, 0x0001_0000_1211_2fff],
    ),
    fixed(
        "44",
        &[0xffffffff],
        0xffff00000000,
        Canon::Identity,
        &[0x0000_1000_ffff_ffff],
    ),
    Builtin {
        extra_steps: 12,
        ..fixed(
            "L1",
            &[0xff0fff0fff],
            0xf0000000000,
            Canon::Diagonal,
            &[0x0112_02ff_2fff_1fff],
        )
    },
    free("free8", &[0x0111_1111_ffff_ffff]),
    free("free9", &[0x0111_1111_1fff_ffff]),
    free("free10", &[0x0111_1111_11ff_ffff]),
    free("free11", &[0x0111_1111_111f_ffff]),
    free("free12", &[0x0111_1111_1111_ffff]),
    variant(
        "2x4",
        0xffff_ffff_0000,
        Canon::Min24,
        &[0xffff_0000_0000_ffff],
        48,
    ),
    variant(
        "3x3",
        0xfff0_fff0_fff0_0000,
        Canon::Min33,
        &[0x000f_000f_000f_ffff],
        60,
    ),
    variant(
        "3x4",
        0xffff_ffff_ffff_0000,
        Canon::Min34,
        &[0x0000_0000_0000_ffff],
        60,
    ),
];

/// The names of the built-in formations.
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|builtin| builtin.name)
}

/// The definition of the built-in formation `name`, if there is one.
pub(super) fn spec(name: &str) -> Option<FormationSpec> {
    let builtin = BUILTINS.iter().find(|builtin| builtin.name == name)?;
    Some(FormationSpec {
        name: builtin.name.to_owned(),
        masks: builtin.masks.iter().map(|&m| format!("{m:#x}")).collect(),
        target_cells: format!("{:#x}", builtin.target_cells),
        canon: builtin.canon,
        large: builtin.large,
        seeds: builtin.seeds.iter().map(|&s| format!("{s:#x}")).collect(),
        extra_steps: builtin.extra_steps,
        free: builtin.free,
    })
}
