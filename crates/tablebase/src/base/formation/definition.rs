//! A formation as defined ([`FormationSpec`]): by a built-in name or a
//! formation file, checked into a [`Formation`], and written back.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::base::hex;
use crate::base::position::{free_sum, large_count, large_nibbles};
use crate::{Canon, Error, Large};

use super::{Formation, builtin, every};

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

    /// The masks, the target cells and the seeds, read and checked on
    /// their own: masks and target cells of whole 0xF nibbles, seeds,
    /// and masks for large tiles that slide (unless the formation is
    /// free).
    fn boards(&self) -> Result<(Vec<u64>, u64, Vec<u64>), String> {
        let parse =
            |what: &str, text: &str| hex::parse(text).map_err(|error| format!("{what}: {error}"));
        let whole_nibbles = |what: &str, cells: u64| {
            let ok = (0..16).all(|cell| matches!((cells >> (4 * cell)) & 0xF, 0 | 0xF));
            if ok && cells != 0 {
                Ok(cells)
            } else {
                Err(format!(
                    "{what} {} must mark cells with whole F digits",
                    hex::format(cells)
                ))
            }
        };
        let masks = (self.masks.iter())
            .map(|text| whole_nibbles("mask", parse("mask", text)?))
            .collect::<Result<Vec<_>, _>>()?;
        let target_cells =
            whole_nibbles("target cells", parse("target cells", &self.target_cells)?)?;
        if self.seeds.is_empty() {
            return Err("no seeds".to_owned());
        }
        let seeds = (self.seeds.iter())
            .map(|text| parse("seed", text))
            .collect::<Result<Vec<_>, _>>()?;
        // Large tiles free to go anywhere make a free formation's tables
        // (10^8 positions and more), which only a free formation builds
        // with the layer 0 and the symmetry that keep them in bounds.
        let large_tiles = seeds.iter().any(|&seed| large_count(seed) > 0);
        if masks.is_empty() && large_tiles && self.large == Large::Sliding && !self.free {
            return Err(
                "no masks: its large tiles could go anywhere; give the cells they must keep \
                 (masks), or mark it free"
                    .to_owned(),
            );
        }
        Ok((masks, target_cells, seeds))
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
        let (masks, target_cells, seeds) = spec.boards().map_err(bad)?;
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
        formation.check_symmetries(&seeds).map_err(bad)?;
        formation.seeds = formation.canonical_seeds(&seeds).map_err(bad)?;
        Ok(formation)
    }

    /// Checks that the symmetries keep the masks, the target cells and
    /// the walls: a position and its images are stored as one, so they
    /// must fit the masks, show the target and hold the walls alike.
    fn check_symmetries(&self, seeds: &[u64]) -> Result<(), String> {
        let keep = |what: &str, cells: u64, kept: &dyn Fn(u64) -> bool| {
            let images = self.canon.images(cells);
            match images.into_iter().find(|&image| !kept(image)) {
                Some(image) => Err(format!(
                    "its {} symmetry does not keep its {what}: {} turned is {}",
                    self.canon,
                    hex::format(cells),
                    hex::format(image)
                )),
                None => Ok(()),
            }
        };
        for &mask in &self.masks {
            keep("masks", mask, &|image| self.fits(image))?;
        }
        let target_cells = self.target_cells;
        keep("target cells", target_cells, &|image| image == target_cells)?;
        if self.large == Large::Wall {
            let walls = large_nibbles(seeds[0]);
            if let Some(&seed) = seeds.iter().find(|&&seed| large_nibbles(seed) != walls) {
                return Err(format!(
                    "seed {} has its walls in other cells than the first seed {}",
                    hex::format(seed),
                    hex::format(seeds[0])
                ));
            }
            keep("walls", walls, &|image| image == walls)?;
        }
        Ok(())
    }

    /// The seeds in canonical form, each checked to fit the masks and to
    /// have the first seed's tile sum.
    fn canonical_seeds(&self, seeds: &[u64]) -> Result<Vec<u64>, String> {
        let first = seeds[0];
        seeds
            .iter()
            .map(|&seed| {
                if !self.fits(seed) {
                    return Err(format!("seed {} does not fit the masks", hex::format(seed)));
                }
                if large_count(seed) != large_count(first) {
                    return Err(format!(
                        "seed {} holds {} large tiles (f), the first seed {}: all seeds \
                         must have the same tile sum",
                        hex::format(seed),
                        large_count(seed),
                        large_count(first)
                    ));
                }
                if free_sum(seed) != free_sum(first) {
                    return Err(format!(
                        "seed {}'s tiles other than large ones sum to {}, the first seed's \
                         to {}: all seeds must have the same tile sum",
                        hex::format(seed),
                        free_sum(seed),
                        free_sum(first)
                    ));
                }
                Ok(self.canon.canonical(seed))
            })
            .collect()
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
}
