//! Several weight files read as one network: table selections and
//! ensembles, as TDL2048+ offers them.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::{Error, Network, Pattern, Table};

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
        let Some(rest) = text.strip_prefix('[') else {
            return Ok(Self {
                path: PathBuf::from(text),
                tables: None,
            });
        };
        let bad = |problem: &str| Error::Selection {
            input: text.to_owned(),
            problem: problem.to_owned(),
        };
        let (list, path) = rest
            .split_once("]|")
            .ok_or_else(|| bad("write [TABLES]|FILE, e.g. [0-3]|net.w"))?;
        let mut tables = Vec::new();
        for part in list.split(',') {
            let number = |n: &str| {
                n.trim()
                    .parse::<usize>()
                    .map_err(|_| bad("table positions are numbers from 0"))
            };
            match part.split_once('-') {
                Some((first, last)) => {
                    let (first, last) = (number(first)?, number(last)?);
                    if first > last {
                        return Err(bad("a range must not run backwards"));
                    }
                    tables.extend(first..=last);
                }
                None => tables.push(number(part)?),
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

impl Network {
    /// Reads a network from several weight files (either format): the
    /// selected tables of each, in order, with tables of the same pattern
    /// averaged across files (an ensemble, as TDL2048+ averages files with
    /// the same tables). With `expected`, the result must be that network,
    /// whose isomorphism it takes (see [`Network::load_tdl2048`]).
    ///
    /// # Errors
    /// Those of [`Network::open`]; [`Error::Selection`] for a table position
    /// past a file's last table; [`Error::WrongNetwork`] when the result is
    /// not `expected`.
    pub fn open_sources(
        sources: &[Source],
        expected: Option<&[Pattern]>,
        limit: u64,
    ) -> Result<Network, Error> {
        let mut patterns: Vec<Pattern> = Vec::new();
        let mut tables: Vec<Table> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        for source in sources {
            let loaded = Network::open(&source.path, None, limit)?.network;
            let (file_patterns, file_tables) = loaded.into_parts();
            let wanted: Vec<usize> = match &source.tables {
                Some(wanted) => wanted.clone(),
                None => (0..file_patterns.len()).collect(),
            };
            let mut file_tables: Vec<Option<Table>> = file_tables.into_iter().map(Some).collect();
            for position in wanted {
                let table = file_tables
                    .get_mut(position)
                    .and_then(Option::take)
                    .ok_or_else(|| Error::Selection {
                        input: source.to_string(),
                        problem: format!(
                            "{} has {} tables",
                            source.path.display(),
                            file_patterns.len()
                        ),
                    })?;
                let pattern = file_patterns[position];
                match patterns.iter().position(|p| same_table(p, &pattern)) {
                    Some(index) => {
                        for entry in 0..table.len() {
                            tables[index].add(entry, table.get(entry));
                        }
                        counts[index] += 1;
                    }
                    None => {
                        patterns.push(pattern);
                        tables.push(table);
                        counts.push(1);
                    }
                }
            }
        }
        for (table, &count) in tables.iter().zip(&counts).filter(|(_, count)| **count > 1) {
            for entry in 0..table.len() {
                table.set(entry, table.get(entry) / count as f32);
            }
        }
        if let Some(expected) = expected {
            let matches = expected.len() == patterns.len()
                && expected
                    .iter()
                    .zip(&patterns)
                    .all(|(e, p)| same_table(e, p));
            if !matches {
                return Err(Error::WrongNetwork {
                    path: sources
                        .first()
                        .map_or_else(PathBuf::new, |s| s.path.clone()),
                    found: patterns
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" "),
                    expected: expected
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" "),
                });
            }
            patterns = expected.to_vec();
        }
        Ok(Network::from_parts(patterns, tables))
    }

    /// A copy of the network with only the tables at `positions`, in that
    /// order: what `[0-3]|file.w` saves.
    ///
    /// # Errors
    /// [`Error::Selection`] for a position past the last table;
    /// [`Error::Memory`] if the copy cannot be allocated.
    pub fn subset(&self, positions: &[usize]) -> Result<Network, Error> {
        let mut patterns = Vec::new();
        let mut tables = Vec::new();
        for &position in positions {
            let (pattern, original) = self
                .patterns()
                .get(position)
                .zip(self.tables().get(position))
                .ok_or_else(|| Error::Selection {
                    input: format!("{positions:?}"),
                    problem: format!("the network has {} tables", self.patterns().len()),
                })?;
            let table = Table::zeroed(original.len()).map_err(|source| Error::Memory {
                needed: original.len() as u64 * 4,
                source,
            })?;
            for entry in 0..original.len() {
                table.set(entry, original.get(entry));
            }
            patterns.push(*pattern);
            tables.push(table);
        }
        Ok(Network::from_parts(patterns, tables))
    }
}

/// Whether two patterns read the same table (isomorphism aside, which weight
/// files do not record).
fn same_table(a: &Pattern, b: &Pattern) -> bool {
    a.cells() == b.cells() && a.is_merge() == b.is_merge()
}
