//! Formations: where the large tiles sit, where the target counts, which
//! symmetries apply and where the tables start.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::base::slide::{LARGE, Large};
use crate::{Canon, Error, hex};

mod builtin;
mod every;

/// A formation: the shape an endgame keeps while it is played out.
///
/// Boards hold small tiles and 0xF nibbles, the large tiles ([`Large`]). A
/// board *fits* the formation when every cell of at least one of its masks
/// holds 0xF (any board fits a formation without masks). Boards are in
/// 2048lab's order here; the built-in definitions and formation files are
/// written in the reference's order ([`hex`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formation {
    name: String,
    masks: Vec<u64>,
    target_cells: u64,
    canon: Canon,
    large: Large,
    seeds: Vec<u64>,
    extra_steps: i32,
    free: bool,
}

/// A formation as written in a JSON or TOML file, boards in the reference's
/// order:
///
/// ```json
/// { "name": "L3", "masks": ["0xfff0fff"], "target_cells": "0xffffffffffffffff",
///   "canon": "identity", "large": "sliding",
///   "seeds": ["0x100000001fff2fff", "0x000000012fff1fff"], "extra_steps": 48 }
/// ```
///
/// ```toml
/// name = "L3"
/// masks = ["0xfff0fff"]
/// target_cells = "0xffffffffffffffff"
/// canon = "identity"
/// large = "sliding"
/// seeds = ["0x100000001fff2fff", "0x000000012fff1fff"]
/// extra_steps = 48
/// ```
///
/// Boards are strings in both: TOML's integers stop at `i64::MAX`, short of
/// a full board.
///
/// `large` (`sliding` placeholders or `wall`s) defaults to `sliding`; `free`
/// (default `false`) makes layer 0 every arrangement of the first seed's
/// tiles moved each way, as the reference's `freeN` formations
/// ([`Formation::layer_zero`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormationSpec {
    /// The formation's name.
    pub name: String,
    /// Masks of cells that must hold large tiles (0xF per cell).
    #[serde(default)]
    pub masks: Vec<String>,
    /// The cells where the target counts (0xF per cell).
    pub target_cells: String,
    /// The symmetries.
    pub canon: Canon,
    /// What 0xF is.
    #[serde(default = "sliding")]
    pub large: Large,
    /// The boards of layer 0, all of one tile sum.
    pub seeds: Vec<String>,
    /// Layers beyond the first that can show the target.
    pub extra_steps: i32,
    /// Whether layer 0 is every arrangement of the first seed's tiles.
    #[serde(default)]
    pub free: bool,
}

fn sliding() -> Large {
    Large::Sliding
}

impl FormationSpec {
    /// Checks that the name can start the default folder of a table
    /// (`NAME-64`): letters, digits and `_ - . +`, beginning with a letter
    /// or digit, so that no path reads it as more (`x/y`) or less (an
    /// empty name).
    fn check_name(&self) -> Result<(), String> {
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+');
        let first_plain = self.name.starts_with(|c: char| c.is_ascii_alphanumeric());
        if first_plain && self.name.chars().all(plain) {
            Ok(())
        } else {
            Err(format!(
                "the name {:?} cannot name a folder: use letters, digits and _ - . +, \
                 beginning with a letter or digit",
                self.name
            ))
        }
    }

    /// Reads the text of the formation file at `path`: TOML when its name
    /// ends in `.toml`, JSON otherwise. The error is one line, with the
    /// place in the file.
    fn parse(path: &Path, text: &str) -> Result<Self, String> {
        let is_toml = path
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("toml"));
        if !is_toml {
            return serde_json::from_str(text).map_err(|error| error.to_string());
        }
        toml::from_str(text).map_err(|error| {
            // toml's Display draws the line with a caret under the place;
            // say where in words instead, as serde_json does.
            let message = error.message().trim_end().replace('\n', " ");
            match error.span().and_then(|span| text.get(..span.start)) {
                Some(before) => {
                    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
                    let line = before.matches('\n').count() + 1;
                    let column = before[line_start..].chars().count() + 1;
                    format!("{message} at line {line} column {column}")
                }
                None => message,
            }
        })
    }
}

impl Formation {
    /// The names of the built-in formations.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        builtin::names()
    }

    /// A built-in formation by name (`L3`, `442`, `free8`, `3x3`, ...).
    ///
    /// # Errors
    /// [`Error::Formation`] for an unknown name, listing the known ones.
    pub fn builtin(name: &str) -> Result<Self, Error> {
        let spec = builtin::spec(name).ok_or_else(|| {
            // Names are the reference's, case and all: `l3` is `L3`
            // mistyped.
            let meant = Self::builtin_names().find(|known| known.eq_ignore_ascii_case(name));
            Error::Formation {
                name: name.to_owned(),
                problem: match meant {
                    Some(meant) => {
                        format!("unknown formation (names are case-sensitive: {meant}?)")
                    }
                    None => format!(
                        "unknown formation; built in: {}",
                        Self::builtin_names().collect::<Vec<_>>().join(", ")
                    ),
                },
            }
        })?;
        Self::new(spec)
    }

    /// A built-in name, a built-in name with an `x` after it (seeded with
    /// every arrangement: [`Formation::with_every_seed`]), or else a
    /// formation file ([`FormationSpec`]): TOML when its name ends in
    /// `.toml`, JSON otherwise.
    ///
    /// A name with an extension or a folder in it is taken for a file, so
    /// that a mistyped path is reported as a missing file rather than as an
    /// unknown formation.
    ///
    /// # Errors
    /// [`Error::Formation`] for an unknown name, an unreadable file or an
    /// invalid definition.
    pub fn find(name_or_path: &str) -> Result<Self, Error> {
        if builtin::names().any(|name| name == name_or_path) {
            return Self::builtin(name_or_path);
        }
        if let Some(name) = name_or_path.strip_suffix(every::SUFFIX)
            && builtin::names().any(|known| known == name)
        {
            return Self::builtin(name)?.with_every_seed();
        }
        let path = Path::new(name_or_path);
        let names_a_file = path.extension().is_some() || path.components().count() > 1;
        if !names_a_file && !path.exists() {
            return Self::builtin(name_or_path);
        }
        let bad = |problem: String| Error::Formation {
            name: path.display().to_string(),
            problem,
        };
        let text = std::fs::read_to_string(path).map_err(|error| bad(error.to_string()))?;
        let spec = FormationSpec::parse(path, &text).map_err(bad)?;
        spec.check_name().map_err(bad)?;
        Self::new(spec).map_err(|error| match error {
            Error::Formation { name, problem } => bad(format!("{name}: {problem}")),
            other => other,
        })
    }

    /// A formation from its definition, checked.
    ///
    /// # Errors
    /// [`Error::Formation`] for masks or target cells that are not whole
    /// 0xF nibbles, masks, target cells or walls that the symmetries
    /// change (a position and its images must fit, and show the target,
    /// alike), no seeds, no masks for large tiles that slide (unless the
    /// formation is free), seeds that do not fit the formation, seeds of
    /// different tile sums, or seeds with walls in different cells.
    pub fn new(spec: FormationSpec) -> Result<Self, Error> {
        let bad = |problem: String| Error::Formation {
            name: spec.name.clone(),
            problem,
        };
        let parse = |what: &str, text: &str| {
            hex::parse(text).map_err(|error| bad(format!("{what}: {error}")))
        };
        let whole_nibbles = |what: &str, cells: u64| {
            let ok = (0..16).all(|cell| matches!((cells >> (4 * cell)) & 0xF, 0 | 0xF));
            if ok && cells != 0 {
                Ok(cells)
            } else {
                Err(bad(format!(
                    "{what} {} must mark cells with whole F digits",
                    hex::format(cells)
                )))
            }
        };
        let masks = spec
            .masks
            .iter()
            .map(|text| whole_nibbles("mask", parse("mask", text)?))
            .collect::<Result<Vec<_>, _>>()?;
        let target_cells =
            whole_nibbles("target cells", parse("target cells", &spec.target_cells)?)?;
        if spec.seeds.is_empty() {
            return Err(bad("no seeds".to_owned()));
        }
        let seeds = spec
            .seeds
            .iter()
            .map(|text| parse("seed", text))
            .collect::<Result<Vec<_>, _>>()?;
        // Large tiles free to go anywhere make a free formation's tables
        // (10^8 positions and more), which only a free formation builds
        // with the layer 0 and the symmetry that keep them in bounds.
        let large_tiles = seeds.iter().any(|&seed| large_count(seed) > 0);
        if masks.is_empty() && large_tiles && spec.large == Large::Sliding && !spec.free {
            return Err(bad(
                "no masks: its large tiles could go anywhere; give the cells they must keep \
                 (masks), or mark it free"
                    .to_owned(),
            ));
        }
        let mut formation = Self {
            name: spec.name.clone(),
            masks,
            target_cells,
            canon: spec.canon,
            large: spec.large,
            seeds: Vec::new(),
            extra_steps: spec.extra_steps,
            free: spec.free,
        };
        // A position and its images are stored as one: they must fit the
        // masks, show the target and hold the walls alike.
        let keep = |what: &str, cells: u64, kept: &dyn Fn(u64) -> bool| {
            let images = formation.canon.images(cells);
            match images.into_iter().find(|&image| !kept(image)) {
                Some(image) => Err(bad(format!(
                    "its {} symmetry does not keep its {what}: {} turned is {}",
                    formation.canon,
                    hex::format(cells),
                    hex::format(image)
                ))),
                None => Ok(()),
            }
        };
        for &mask in &formation.masks {
            keep("masks", mask, &|image| formation.fits(image))?;
        }
        keep("target cells", target_cells, &|image| image == target_cells)?;
        if formation.large == Large::Wall {
            let walls = large_nibbles(seeds[0]);
            if let Some(&seed) = seeds.iter().find(|&&seed| large_nibbles(seed) != walls) {
                return Err(bad(format!(
                    "seed {} has its walls in other cells than the first seed {}",
                    hex::format(seed),
                    hex::format(seeds[0])
                )));
            }
            keep("walls", walls, &|image| image == walls)?;
        }
        let first = seeds[0];
        for &seed in &seeds {
            if !formation.fits(seed) {
                return Err(bad(format!(
                    "seed {} does not fit the masks",
                    hex::format(seed)
                )));
            }
            if large_count(seed) != large_count(first) {
                return Err(bad(format!(
                    "seed {} holds {} large tiles (f), the first seed {}: all seeds \
                     must have the same tile sum",
                    hex::format(seed),
                    large_count(seed),
                    large_count(first)
                )));
            }
            if free_sum(seed) != free_sum(first) {
                return Err(bad(format!(
                    "seed {}'s tiles other than large ones sum to {}, the first seed's \
                     to {}: all seeds must have the same tile sum",
                    hex::format(seed),
                    free_sum(seed),
                    free_sum(first)
                )));
            }
            formation.seeds.push(formation.canon.canonical(seed));
        }
        Ok(formation)
    }

    /// The definition, boards in the reference's order: what a formation
    /// file holds and [`Formation::new`] takes back.
    pub fn spec(&self) -> FormationSpec {
        FormationSpec {
            name: self.name.clone(),
            masks: self.masks.iter().map(|&mask| hex::format(mask)).collect(),
            target_cells: hex::format(self.target_cells),
            canon: self.canon,
            large: self.large,
            seeds: self.seeds.iter().map(|&seed| hex::format(seed)).collect(),
            extra_steps: self.extra_steps,
            free: self.free,
        }
    }

    /// The formation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The symmetries it admits.
    pub fn canon(&self) -> Canon {
        self.canon
    }

    /// What its 0xF nibbles are.
    pub fn large(&self) -> Large {
        self.large
    }

    /// The canonical seeds, in 2048lab's order.
    pub fn seeds(&self) -> &[u64] {
        &self.seeds
    }

    /// The masks, in 2048lab's order.
    pub fn masks(&self) -> &[u64] {
        &self.masks
    }

    /// The cells where the target counts, 0xF each.
    pub fn target_cells(&self) -> u64 {
        self.target_cells
    }

    /// Layers after the target's first possible one.
    pub fn extra_steps(&self) -> i32 {
        self.extra_steps
    }

    /// The same formation with another number of extra steps: a nearer or
    /// farther horizon.
    #[must_use]
    pub fn with_extra_steps(mut self, extra_steps: i32) -> Self {
        self.extra_steps = extra_steps;
        self
    }

    /// Whether layer 0 is every arrangement of the seed's tiles.
    pub fn is_free(&self) -> bool {
        self.free
    }

    /// The cells of the large tiles (0xF each) if every position of the
    /// formation holds them there: the seeds' walls, or the one mask when
    /// the seeds hold large tiles in its cells only (the symmetries keep
    /// walls and masks in place: [`Formation::new`] checks). Tiles of
    /// 16384 merging into another 0xF aside, which the layers that count
    /// on this (generation by rank) leave out.
    pub fn fixed_large(&self) -> Option<u64> {
        let large = large_nibbles(self.seeds[0]);
        let held = match self.large {
            Large::Wall => true,
            Large::Sliding => self.masks == [large],
        };
        let same = self.seeds.iter().all(|&seed| large_nibbles(seed) == large);
        (held && same && !self.free).then_some(large)
    }

    /// The number of large tiles if they may sit anywhere and every
    /// symmetry of the square keeps the formation (no masks or walls, the
    /// full canonical mode, whose target cells [`Formation::new`] checks
    /// the symmetries keep), as in the free formations: every position
    /// then holds as many as the seeds, and its symmetric images are
    /// positions too, which generation and lookups by rank count on
    /// (`rank::Space::placed`). Tiles of 16384 merging into another 0xF
    /// aside, as for [`Formation::fixed_large`].
    pub fn anywhere_large(&self) -> Option<u32> {
        let count = large_count(self.seeds[0]);
        let symmetric =
            self.masks.is_empty() && self.large == Large::Sliding && self.canon == Canon::Full;
        let same = self.seeds.iter().all(|&seed| large_count(seed) == count);
        (symmetric && same).then_some(count)
    }

    /// The tile sum of the seeds, large tiles counted as 32768.
    pub fn seed_sum(&self) -> u32 {
        tile_sum(self.seeds[0])
    }

    /// Whether `board` keeps the formation: every cell of some mask holds a
    /// large tile. A formation of one mask (L3, 442, ...) checks it without
    /// a loop: the loop cost generation a tenth of its kernel's samples,
    /// as every child is checked (docs/tablebase-builder.md).
    #[inline(always)]
    pub fn fits(&self, board: u64) -> bool {
        match self.masks.as_slice() {
            [] => true,
            [mask] => mask & !board == 0,
            masks => masks.iter().any(|&mask| mask & !board == 0),
        }
    }

    /// Whether `board` is laid out as the formation's positions are: it
    /// [`fits`](Formation::fits), and holds the walls, if any, in their
    /// cells. Moves never take walls elsewhere, so only a board given from
    /// outside (turned, say) needs the second check.
    pub fn holds(&self, board: u64) -> bool {
        self.fits(board)
            && (self.large != Large::Wall || large_nibbles(board) == large_nibbles(self.seeds[0]))
    }

    /// Whether `board` shows the tile of exponent `target` in a target cell.
    #[inline]
    pub fn shows(&self, board: u64, target: u8) -> bool {
        // Nibbles equal to the target become 0; flag the zero nibbles exactly.
        let x = board ^ (0x1111_1111_1111_1111 * u64::from(target));
        let any = x | (x >> 1);
        let any = any | (any >> 2);
        !any & self.target_cells & 0x1111_1111_1111_1111 != 0
    }

    /// The boards of layer 0, canonical, sorted and without repeats: the
    /// seeds, or for a free formation every arrangement of the first seed's
    /// tiles moved in each direction, an arrangement that a move leaves
    /// unchanged counting as its own result (as the reference's free
    /// tables: layer 0 holds positions after a move).
    pub fn layer_zero(&self) -> Vec<u64> {
        let mut boards = if self.free {
            let mover = crate::Mover::new(self.large);
            let mut tiles: Vec<u8> = (0..16)
                .map(|cell| ((self.seeds[0] >> (4 * cell)) & 0xF) as u8)
                .collect();
            tiles.sort_unstable();
            let mut boards = Vec::new();
            permutations(&mut tiles, &mut |cells| {
                let board = cells.iter().enumerate().fold(0u64, |board, (cell, &tile)| {
                    board | u64::from(tile) << (4 * cell)
                });
                // Layer 0 holds positions after a move: each arrangement
                // moved each way, kept unchanged where a move changes nothing.
                for moved in mover.slide_all(board) {
                    if self.fits(moved) {
                        boards.push(self.canon.canonical(moved));
                    }
                }
            });
            boards
        } else {
            self.seeds.clone()
        };
        boards.sort_unstable();
        boards.dedup();
        boards
    }
}

/// The tile sum of a board, 0xF counted as 32768.
pub fn tile_sum(board: u64) -> u32 {
    (0..16)
        .map(|cell| ((board >> (4 * cell)) & 0xF) as u8)
        .map(|tile| if tile == 0 { 0 } else { 1u32 << tile })
        .sum()
}

/// The number of large tiles (0xF) of `board`.
pub fn large_count(board: u64) -> u32 {
    large_nibbles(board).count_ones() / 4
}

/// The tile sum of `board`'s tiles other than large ones: with
/// [`large_count`], what tells boards of different tile sums apart in
/// words a user knows.
pub(crate) fn free_sum(board: u64) -> u32 {
    tile_sum(board) - (large_count(board) << 15)
}

/// The nibbles of `board` that hold 0xF, as a mask of nibbles.
pub fn large_nibbles(board: u64) -> u64 {
    let ones = board & (board >> 1) & (board >> 2) & (board >> 3) & 0x1111_1111_1111_1111;
    ones * 0xF
}

/// Calls `visit` with every distinct permutation of `items` (sorted on
/// entry), in lexicographic order.
fn permutations(items: &mut [u8], visit: &mut impl FnMut(&[u8])) {
    loop {
        visit(items);
        // The next permutation, or stop after the last.
        let Some(pivot) = (0..items.len().saturating_sub(1))
            .rev()
            .find(|&i| items[i] < items[i + 1])
        else {
            return;
        };
        let successor = (pivot + 1..items.len())
            .rev()
            .find(|&j| items[j] > items[pivot])
            .expect("a larger item follows the pivot");
        items.swap(pivot, successor);
        items[pivot + 1..].reverse();
    }
}

const _: () = assert!(LARGE == 0xF);

#[cfg(test)]
mod tests {
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
        assert!(
            error(&[], &["0x1fff0fff"]).contains("no masks: its large tiles could go anywhere")
        );
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
}
