//! `table.json`, a table's manifest: what the table is, how it is
//! stored ([`Options`]) and whether it is complete.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use system::write_atomically;

use crate::format::layer_file::Precision;
use crate::{Error, Formation, FormationSpec, Spec};

/// The manifest's format version: 2 since u32 and f32 tables are solved in
/// their own type ([`Rate`](crate::Rate)); tables of version 1 were solved in
/// `f64` whatever their precision. Both are read.
pub const MANIFEST_VERSION: u32 = 2;

/// How a table is stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// The precision of the stored rates.
    pub precision: Precision,
    /// Positions whose rate is at or below this are not stored (they read
    /// as 0). The reference stores every rate above 0: 0 here.
    pub prune: f64,
    /// The zstd level of the layer files: 1 by default, which took whole
    /// builds of L3-128 and L3-256 about 4% less CPU time than level 3
    /// for files 2% larger (docs/tablebase-builder.md).
    pub level: i32,
    /// Keep only the positions on optimal lines ([`crate::build::phase::optimal`]).
    #[serde(default)]
    pub optimal_only: bool,
    /// The parts each layer is split into, for a build as tasks
    /// (docs/distributed.md); `None` for layers of one file each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<u32>,
    /// Whether the parts are ranges of rank rather than hashes: set by the
    /// build for formations whose layers' boards have ranks (their large
    /// tiles never move or go anywhere), which it then generates by
    /// marking and finds by rank (docs/distributed.md).
    #[serde(default, skip_serializing_if = "is_false")]
    pub ranked_parts: bool,
}

/// Whether `value` is false: a field left out of the manifest.
fn is_false(value: &bool) -> bool {
    !value
}

impl Options {
    /// Whether the layer files hold every position that solving looks up,
    /// at the very rate it was solved at: for every precision but `u16`
    /// (solved in `f64`, rounded when stored), with nothing pruned. A layer
    /// solved whole then writes no working rates beside its file (they
    /// would be a copy: 1.3 GB for L3-256), and a layer that needs them
    /// later has them written from memory or unpacked from the file.
    pub(crate) fn layers_hold_solved_rates(&self) -> bool {
        self.precision != Precision::U16 && self.prune == 0.0
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            precision: Precision::U32,
            prune: 0.0,
            level: 1,
            optimal_only: false,
            partitions: None,
            ranked_parts: false,
        }
    }
}

/// The manifest's file name in a table's folder.
pub(crate) const MANIFEST: &str = "table.json";

/// `table.json`: what the table is, how it is stored, whether it is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_VERSION`].
    pub version: u32,
    /// The formation, boards in the reference's order.
    pub formation: FormationSpec,
    /// The target tile (64, 256, ...).
    pub target: u32,
    /// The probability of a 4.
    pub four_rate: f64,
    /// How the layers are stored.
    pub options: Options,
    /// The number of layers.
    pub steps: usize,
    /// The first layer where the target can show.
    pub docheck: usize,
    /// Whether every layer is solved and stored.
    pub complete: bool,
    /// A CRC-32 of everything above but `complete`, so that a manifest
    /// edited by hand is caught: the layer files name their formation but
    /// not its masks, and a table read with another definition gives
    /// wrong rates silently. Manifests written before it was kept have
    /// none, and are checked for agreement of their fields only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<u32>,
}

impl Manifest {
    /// The manifest of a table of `spec` stored with `options`, not yet
    /// complete.
    pub(crate) fn new(spec: &Spec, options: Options) -> Self {
        Self {
            version: MANIFEST_VERSION,
            formation: spec.formation().spec(),
            target: 1 << spec.target(),
            four_rate: spec.four_rate(),
            options,
            steps: spec.steps(),
            docheck: spec.docheck(),
            complete: false,
            checksum: None,
        }
    }

    /// The table the manifest defines, whether complete or not.
    pub(crate) fn definition(&self) -> Self {
        Self {
            complete: false,
            checksum: None,
            ..self.clone()
        }
    }

    /// The checksum of the manifest's definition ([`Manifest::checksum`]).
    fn computed_checksum(&self) -> u32 {
        let definition = self.definition();
        crc32fast::hash(&serde_json::to_vec(&definition).expect("a manifest serialises"))
    }

    /// The manifest's file in the table's folder `dir`.
    pub(crate) fn path(dir: &Path) -> PathBuf {
        dir.join(MANIFEST)
    }

    /// The table's definition.
    ///
    /// # Errors
    /// [`Error::Formation`] or [`Error::Target`] for a manifest that does not
    /// define a valid table.
    pub fn spec(&self) -> Result<Spec, Error> {
        let formation = Formation::new(self.formation.clone())?;
        if !self.target.is_power_of_two() {
            return Err(Error::Target {
                target: u64::from(self.target),
                problem: "not a power of two".to_owned(),
            });
        }
        Spec::new(
            formation,
            self.target.trailing_zeros() as u8,
            self.four_rate,
        )
    }

    /// Reads `DIR/table.json`, which must define a table ([`Manifest::spec`]).
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::File`].
    pub fn read(dir: &Path) -> Result<Self, Error> {
        let path = Self::path(dir);
        let text = fs::read_to_string(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let manifest: Self = serde_json::from_str(&text).map_err(|error| Error::File {
            path: path.clone(),
            problem: format!("not a table manifest: {error}"),
        })?;
        if !(1..=MANIFEST_VERSION).contains(&manifest.version) {
            return Err(Error::File {
                path,
                problem: format!(
                    "manifest version {}, this build reads versions 1 to {MANIFEST_VERSION}",
                    manifest.version
                ),
            });
        }
        // A manifest edited by hand may no longer define a table, or
        // define another one than its layers hold: say which file, as for
        // the other faults.
        let edited = |problem: String| Error::File {
            path: path.clone(),
            problem: format!(
                "{problem}: the manifest was edited; restore it, or build the table again"
            ),
        };
        let spec = manifest.spec().map_err(|error| edited(error.to_string()))?;
        if manifest.steps != spec.steps() || manifest.docheck != spec.docheck() {
            return Err(edited(format!(
                "steps {} and docheck {}, but {} has {} layers and docheck {}",
                manifest.steps,
                manifest.docheck,
                spec.name(),
                spec.steps(),
                spec.docheck()
            )));
        }
        if manifest
            .checksum
            .is_some_and(|checksum| checksum != manifest.computed_checksum())
        {
            return Err(edited(
                "its checksum does not match its contents".to_owned(),
            ));
        }
        Ok(manifest)
    }

    /// Whether the stored rates are the very values the table was solved
    /// in, so that a position recomputed from its stored children gives
    /// its stored rate exactly: for every precision but `u16` (solved in
    /// `f64`, rounded when stored), since manifest version 2.
    pub fn stores_solved_rates(&self) -> bool {
        self.version >= 2 && self.options.precision != Precision::U16
    }

    /// Writes `DIR/table.json`, under a temporary name first, with its
    /// checksum.
    pub(crate) fn write(&self, dir: &Path) -> Result<(), Error> {
        let path = Self::path(dir);
        let manifest = Self {
            checksum: Some(self.computed_checksum()),
            ..self.clone()
        };
        let text = serde_json::to_string_pretty(&manifest).expect("a manifest serialises");
        write_atomically(&path, |mut file| {
            file.write_all(text.as_bytes())?;
            file.write_all(b"\n")?;
            Ok(file)
        })
        .map_err(Error::from)
    }
}
