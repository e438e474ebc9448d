//! Several weight files read as one network: table selections and
//! ensembles, as TDL2048+ offers them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::file::is_2048lab_file;
use crate::network::MAX_TABLES;
use crate::pattern::{same_table, same_tables};
use crate::table::one_precision;
use crate::tdl2048::{describe, read_tdl2048};
use crate::{Error, Network, Pattern, Stages, Table};

/// A weight file, optionally with the tables to take from it:
/// `[0-3]|net.w` takes its first four tables, `[0,2]|net.w` the first and
/// third (0-based, in file order), `net.w` all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// The positions of the tables to take, or `None` for all.
    pub tables: Option<Vec<usize>>,
}

impl FromStr for Source {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let bad = |problem: &str| Error::Selection {
            input: text.to_owned(),
            problem: problem.to_owned(),
        };
        let Some(rest) = text.strip_prefix('[') else {
            // An empty name read as the working folder, and saved there as
            // `.checkpoint`.
            if text.is_empty() {
                return Err(bad("no file named"));
            }
            return Ok(Self {
                path: PathBuf::from(text),
                tables: None,
            });
        };
        let (list, path) = rest
            .split_once("]|")
            .ok_or_else(|| bad("write [TABLES]|FILE, e.g. [0-3]|net.w"))?;
        let mut tables = Vec::new();
        for part in list.split(',') {
            let number = |n: &str| match n.trim().parse::<usize>() {
                Ok(position) if position < MAX_TABLES as usize => Ok(position),
                Ok(_) => Err(bad(&format!(
                    "no network has more than {MAX_TABLES} tables"
                ))),
                Err(_) => Err(bad("table positions are numbers from 0")),
            };
            let (first, last) = match part.split_once('-') {
                Some((first, last)) => (number(first)?, number(last)?),
                None => (number(part)?, number(part)?),
            };
            if first > last {
                return Err(bad("a range must not run backwards"));
            }
            for position in first..=last {
                if tables.contains(&position) {
                    return Err(bad(&format!("table {position} is selected twice")));
                }
                tables.push(position);
            }
        }
        if path.is_empty() {
            return Err(bad("no file after the selection"));
        }
        Ok(Self {
            path: PathBuf::from(path),
            tables: Some(tables),
        })
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(tables) = &self.tables {
            let list: Vec<String> = tables.iter().map(ToString::to_string).collect();
            write!(f, "[{}]|", list.join(","))?;
        }
        write!(f, "{}", self.path.display())
    }
}

/// A table on its way into a network: its stage, its pattern, its weights.
struct Entry {
    stage: usize,
    pattern: Pattern,
    /// How many tables of the same stage and pattern come before it in its
    /// file: a network may hold a pattern twice, and an ensemble averages
    /// the first of each file together, then the second.
    repeat: usize,
    table: Table,
}

impl Network {
    /// Reads a network from several weight files (either format): the
    /// selected tables of each, in order, with tables of the same stage and
    /// pattern averaged across files (an ensemble, as TDL2048+ averages
    /// files with the same table names). With `expected`, the result must be
    /// that network, whose isomorphism it takes (see
    /// [`Network::load_tdl2048`]).
    ///
    /// `stages` sets the stage thresholds of a multistage network. It is
    /// required for multistage `.w` files, which do not record them;
    /// 2048lab's files do, and `stages` then overrides them. Stages past
    /// those the files hold start from the weights of the last one held
    /// (multistage weight promotion).
    ///
    /// # Errors
    /// Those of [`Network::open`]; [`Error::Selection`] for a table position
    /// past a file's last table; [`Error::WrongNetwork`] when the result is
    /// not `expected`; [`Error::Stages`] when the thresholds are missing or
    /// do not fit, or the tables do not make whole stages;
    /// [`Error::TooLarge`] when the stages promoted exceed `limit`.
    pub fn open_sources(
        sources: &[Source],
        expected: Option<&[Pattern]>,
        stages: Option<&Stages>,
        limit: u64,
    ) -> Result<Network, Error> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        let mut recorded: Option<Stages> = None;
        let mut isomorphism_recorded = false;
        for source in sources {
            let FileParts {
                patterns: file_patterns,
                stages: file_stages,
                tables: file_tables,
                isomorphism,
            } = read_parts(&source.path, limit)?;
            isomorphism_recorded |= isomorphism;
            if let Some(file_stages) = file_stages {
                recorded.get_or_insert(file_stages);
            }
            let per_stage = file_patterns.len();
            let wanted: Vec<usize> = match &source.tables {
                Some(wanted) => wanted.clone(),
                None => (0..file_tables.len()).collect(),
            };
            let total = file_tables.len();
            let mut file_tables: Vec<Option<Table>> = file_tables.into_iter().map(Some).collect();
            for position in wanted {
                let table = file_tables
                    .get_mut(position)
                    .and_then(Option::take)
                    .ok_or_else(|| Error::Selection {
                        input: source.to_string(),
                        problem: format!("{} has {total} tables", source.path.display()),
                    })?;
                let (stage, pattern) = (position / per_stage, file_patterns[position % per_stage]);
                let repeat = file_patterns[..position % per_stage]
                    .iter()
                    .filter(|earlier| same_table(earlier, &pattern))
                    .count();
                let same = |entry: &Entry| {
                    entry.stage == stage
                        && entry.repeat == repeat
                        && same_table(&entry.pattern, &pattern)
                };
                match entries.iter().position(same) {
                    Some(index) => {
                        for weight in 0..table.len() {
                            entries[index].table.add(weight, table.get(weight));
                        }
                        counts[index] += 1;
                    }
                    None => {
                        entries.push(Entry {
                            stage,
                            pattern,
                            repeat,
                            table,
                        });
                        counts.push(1);
                    }
                }
            }
        }
        for (entry, &count) in entries.iter().zip(&counts).filter(|(_, count)| **count > 1) {
            for weight in 0..entry.table.len() {
                entry
                    .table
                    .set(weight, entry.table.get(weight) / count as f32);
            }
        }
        let path = sources
            .first()
            .map_or_else(PathBuf::new, |source| source.path.clone());
        let mut network = assemble(entries, stages.or(recorded.as_ref()), &path)?;
        // Past the stages held (assemble refuses fewer thresholds).
        if let Some(stages) = stages.filter(|stages| stages.len() > network.stages().len()) {
            network = promote(network, stages, limit)?;
        }
        match expected {
            Some(expected) if !same_tables(expected, network.patterns()) => {
                Err(Error::WrongNetwork {
                    path,
                    found: describe(network.patterns()),
                    expected: describe(expected),
                })
            }
            // A 2048lab file says how each table is read: a network named
            // otherwise would read its weights another way.
            Some(expected) if isomorphism_recorded && expected != network.patterns() => {
                Err(Error::WrongNetwork {
                    path,
                    found: describe(network.patterns()),
                    expected: format!(
                        "{} (the file records which tables are read without isomorphism, \
                         marked !: name them so, or leave out -n)",
                        describe(expected)
                    ),
                })
            }
            Some(expected) => {
                let (_, stages, tables) = network.into_parts();
                Ok(Network::from_parts(expected.to_vec(), stages, tables))
            }
            None => Ok(network),
        }
    }

    /// A copy of the network with only the tables at `positions` (in the
    /// order of [`Network::tables`]): what `[0-3]|file.w` saves. The tables
    /// must make whole stages, the first ones.
    ///
    /// # Errors
    /// [`Error::Selection`] for a position past the last table;
    /// [`Error::Stages`] if they do not make whole stages;
    /// [`Error::Memory`] if the copy cannot be allocated.
    pub fn subset(&self, positions: &[usize]) -> Result<Network, Error> {
        let per_stage = self.patterns().len();
        let mut entries = Vec::new();
        for &position in positions {
            let original = self
                .tables()
                .get(position)
                .ok_or_else(|| Error::Selection {
                    input: format!("{positions:?}"),
                    problem: format!("the network has {} tables", self.tables().len()),
                })?;
            let precision = original.precision();
            let table =
                Table::zeroed_as(original.len(), precision).map_err(|source| Error::Memory {
                    needed: (original.len() * precision.bytes()) as u64,
                    source,
                })?;
            for weight in 0..original.len() {
                table.set(weight, original.get(weight));
            }
            entries.push(Entry {
                stage: position / per_stage,
                pattern: self.patterns()[position % per_stage],
                repeat: 0,
                table,
            });
        }
        assemble(entries, Some(self.stages()), Path::new("the network"))
    }
}

/// What a weight file holds, before it becomes part of a network.
struct FileParts {
    /// The patterns of one stage.
    patterns: Vec<Pattern>,
    /// The stage thresholds, if the format records them.
    stages: Option<Stages>,
    /// All tables, stage after stage.
    tables: Vec<Table>,
    /// Whether the format records each pattern's isomorphism (2048lab's
    /// does, TDL2048+'s does not).
    isomorphism: bool,
}

fn read_parts(path: &Path, limit: u64) -> Result<FileParts, Error> {
    let isomorphism = is_2048lab_file(path)?;
    let (patterns, stages, tables) = if isomorphism {
        let (patterns, stages, tables) = Network::load_with_limit(path, None, limit)?
            .network
            .into_parts();
        (patterns, Some(stages), tables)
    } else {
        let (patterns, _, tables) = read_tdl2048(path, None, limit)?;
        (patterns, None, tables)
    };
    Ok(FileParts {
        patterns,
        stages,
        tables,
        isomorphism,
    })
}

/// `network` grown to `stages`, more than it holds: each new stage starts
/// from the weights of the last one it holds (multistage weight promotion,
/// as Jaśkowski's players train stage after stage).
///
/// # Errors
/// [`Error::TooLarge`] if the stages need more than `limit` bytes;
/// [`Error::Memory`] if the copies cannot be allocated.
fn promote(network: Network, stages: &Stages, limit: u64) -> Result<Network, Error> {
    let held = network.stages().len();
    let description = network.describe();
    let (patterns, _, mut tables) = network.into_parts();
    let stage_bytes: u64 = tables
        .iter()
        .map(|table| table.len() as u64 * 4)
        .sum::<u64>()
        / held as u64;
    let needed = stage_bytes * stages.len() as u64;
    if needed > limit {
        return Err(Error::TooLarge {
            network: format!("{description} in {} stages", stages.len()),
            needed,
            limit,
        });
    }
    let last = tables.len() - patterns.len();
    for _ in held..stages.len() {
        for index in last..last + patterns.len() {
            let copy = tables[index].duplicate().map_err(|source| Error::Memory {
                needed: stage_bytes,
                source,
            })?;
            tables.push(copy);
        }
    }
    Ok(Network::from_parts(patterns, stages.clone(), tables))
}

/// Builds a network from entries: stage by stage, each stage with the
/// patterns of the first in the same order. The stages present must be the
/// first ones; they keep the thresholds of `stages` (which may name more).
fn assemble(entries: Vec<Entry>, stages: Option<&Stages>, path: &Path) -> Result<Network, Error> {
    let bad = |problem: String| Error::Stages {
        input: stages.map_or_else(String::new, ToString::to_string),
        problem: format!("{}: {problem}", path.display()),
    };
    let count = entries
        .iter()
        .map(|entry| entry.stage + 1)
        .max()
        .unwrap_or(0);
    let patterns: Vec<Pattern> = entries
        .iter()
        .filter(|entry| entry.stage == 0)
        .map(|entry| entry.pattern)
        .collect();
    let mut tables = Vec::with_capacity(entries.len());
    let mut entries: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    for stage in 0..count {
        for pattern in &patterns {
            let found = entries.iter_mut().find(|entry| {
                entry
                    .as_ref()
                    .is_some_and(|e| e.stage == stage && e.pattern == *pattern)
            });
            let entry = found
                .and_then(Option::take)
                .ok_or_else(|| bad(format!("stage {stage} lacks table {pattern}")))?;
            tables.push(entry.table);
        }
    }
    if let Some(extra) = entries.into_iter().flatten().next() {
        return Err(bad(format!(
            "table {} of stage {} is not in stage 0",
            extra.pattern, extra.stage
        )));
    }
    if patterns.is_empty() {
        return Err(Error::EmptyNetwork);
    }
    let stages = match stages {
        Some(stages) if stages.len() >= count => {
            Stages::new(stages.thresholds()[..count].to_vec()).expect("a prefix of valid stages")
        }
        Some(stages) => {
            return Err(bad(format!(
                "{count} stages of tables, but {} thresholds",
                stages.len()
            )));
        }
        None if count == 1 => Stages::single(),
        None => {
            return Err(bad(format!(
                "{count} stages of tables, and .w files do not record where stages start: \
                 give the thresholds (e.g. --stages 0,16384)"
            )));
        }
    };
    let needed = tables.iter().map(|t| t.len() as u64 * 4).sum();
    let tables = one_precision(tables).map_err(|source| Error::Memory { needed, source })?;
    Ok(Network::from_parts(patterns, stages, tables))
}
