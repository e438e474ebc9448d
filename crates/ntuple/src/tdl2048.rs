//! TDL2048+'s `.w` weight files, read and written so that networks move
//! between the two programs (format: ../shared/docs/tdl2048.md and
//! docs/weights.md).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use system::write_atomically;

use crate::file::{Loaded, Metadata, is_2048lab_file};
use crate::network::MAX_TABLES;
use crate::pattern::same_tables;
use crate::table::one_precision;
use crate::{Error, Network, Pattern, Precision, Stages, Table};

/// The record code of a weight table.
const TABLE_RECORD: u8 = 4;

impl Network {
    /// Reads a weight file of either format: 2048lab's (it starts with
    /// [`MAGIC`](crate::MAGIC)) or TDL2048+'s `.w`. See
    /// [`Network::load_with_limit`] and [`Network::load_tdl2048`].
    ///
    /// ```
    /// use board::Board;
    /// use ntuple::{Network, parse_patterns};
    ///
    /// let network = Network::new(parse_patterns(["012345 0145"])?)?;
    /// let board: Board = "2 4 8 16 / 32 . . . / . . . . / . . . .".parse()?;
    /// network.update(board, 1.0);
    ///
    /// // Written for TDL2048+ (`-i net.w` there), read back as any file is.
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("net.w");
    /// network.save_tdl2048(&path)?;
    /// let loaded = Network::open(&path, Some(network.patterns()), u64::MAX)?;
    /// assert_eq!(loaded.network.estimate(board), network.estimate(board));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As those functions.
    pub fn open(path: &Path, expected: Option<&[Pattern]>, limit: u64) -> Result<Loaded, Error> {
        if is_2048lab_file(path)? {
            Self::load_with_limit(path, expected, limit)
        } else {
            Self::load_tdl2048(path, expected, limit)
        }
    }

    /// Reads a TDL2048+ `.w` file.
    ///
    /// With `expected`, the file's tables must be those patterns' tables, by
    /// name and size, in order, and the network keeps their isomorphism
    /// (`8x4patt` is read without it). Without, the network is rebuilt from
    /// the names as TDL2048+ does: hex names become isomorphic patterns, and
    /// `merge` its statistic; but the tables of a built-in network are read
    /// as it reads them (those of `8x4patt` without isomorphism). Tables of 2-byte (half), 4-byte and 8-byte
    /// floats are read, as `f32`; extra fields such as TC's accumulators are
    /// skipped, as TDL2048+ does outside its TC mode.
    ///
    /// A multistage file (stage digits in its table names) needs the stage
    /// thresholds, which `.w` files do not record: read it with
    /// [`Network::open_sources`].
    ///
    /// # Errors
    /// [`Error::File`] naming the file and the table for anything that is not
    /// a complete `.w` file of supported tables; [`Error::WrongNetwork`];
    /// [`Error::TooLarge`] before allocating a table past `limit`;
    /// [`Error::Stages`] for a multistage file.
    pub fn load_tdl2048(
        path: &Path,
        expected: Option<&[Pattern]>,
        limit: u64,
    ) -> Result<Loaded, Error> {
        let (patterns, stages, tables) = read_tdl2048(path, expected, limit)?;
        if stages > 1 {
            return Err(Error::Stages {
                input: String::new(),
                problem: format!(
                    "{} holds {stages} stages, and .w files do not record where stages start: \
                     give the thresholds (e.g. --stages 0,16384)",
                    path.display()
                ),
            });
        }
        Ok(Loaded {
            network: Network::from_parts(patterns, Stages::single(), tables),
            metadata: Metadata::new(),
        })
    }

    /// Writes the network as a TDL2048+ `.w` file that TDL2048+ loads with
    /// the same `-n`: `f32` tables, no extra fields, no leading type byte.
    /// Isomorphism is not recorded in the format (as in TDL2048+), nor are
    /// the thresholds of a multistage network, whose stage is the top digit
    /// of each table's name.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file; [`Error::Stages`] for a multistage
    /// network with a table whose name has no room for the stage (8 cells,
    /// or `merge`).
    pub fn save_tdl2048(&self, path: &Path) -> Result<(), Error> {
        let per_stage = self.patterns().len();
        let names = (0..self.tables().len())
            .map(|position| {
                let pattern = &self.patterns()[position % per_stage];
                name_bytes(pattern, position / per_stage).ok_or_else(|| Error::Stages {
                    input: self.stages().to_string(),
                    problem: format!(
                        "TDL2048+'s name of table {pattern} has no room for a stage digit"
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        write_atomically(path, |file| {
            let mut out = BufWriter::with_capacity(1 << 20, file);
            out.write_all(&[0])?;
            out.write_all(&(self.tables().len() as u32).to_le_bytes())?;
            for (name, table) in names.iter().zip(self.tables()) {
                out.write_all(&[TABLE_RECORD])?;
                out.write_all(name)?;
                // TDL2048+ reads 2-byte elements as IEEE half.
                let element = table.precision().bytes() as u16;
                out.write_all(&element.to_le_bytes())?;
                out.write_all(&(table.len() as u64).to_le_bytes())?;
                table.write_to(&mut out)?;
                out.write_all(&0u16.to_le_bytes())?;
            }
            out.into_inner().map_err(io::IntoInnerError::into_error)
        })
        .map_err(Error::from)
    }
}

/// Reads a TDL2048+ `.w` file as [`Network::load_tdl2048`] describes: its
/// patterns (of one stage), its number of stages, and its tables, stage
/// after stage.
pub(crate) fn read_tdl2048(
    path: &Path,
    expected: Option<&[Pattern]>,
    limit: u64,
) -> Result<(Vec<Pattern>, usize, Vec<Table>), Error> {
    let bad = |problem: String| Error::File {
        path: path.to_owned(),
        problem,
    };
    let file = File::open(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut input = BufReader::with_capacity(1 << 16, file);
    let truncated = |what: &str| bad(format!("truncated: the file ends inside {what}"));
    let mut first = read_array::<1>(&mut input).map_err(|_| truncated("its first byte"))?[0];
    if first == b'w' {
        first = read_array::<1>(&mut input).map_err(|_| truncated("its first bytes"))?[0];
    }
    if first != 0 {
        return Err(bad(format!(
            "neither a 2048lab nor a TDL2048+ weight file (it starts with byte {first:#04x})"
        )));
    }
    let count =
        u32::from_le_bytes(read_array(&mut input).map_err(|_| truncated("the table count"))?);
    if count == 0 || count > MAX_TABLES {
        return Err(bad(format!("corrupt: {count} tables")));
    }
    let mut patterns = Vec::new();
    let mut tables = Vec::new();
    let mut names = Vec::new();
    let mut stages: Vec<usize> = Vec::new();
    let mut allocated = 0u64;
    for number in 1..=count {
        let header =
            read_array::<19>(&mut input).map_err(|_| truncated(&format!("table {number}")))?;
        if header[0] != TABLE_RECORD {
            return Err(bad(format!(
                "table {number}: unknown record code {}",
                header[0]
            )));
        }
        let (stage, name) = table_name(header[1..9].try_into().unwrap())
            .map_err(|problem| bad(format!("table {number}: {problem}")))?;
        let element = u16::from_le_bytes([header[9], header[10]]);
        let entries = u64::from_le_bytes(header[11..19].try_into().unwrap());
        // Stage after stage, each with the tables of the first.
        let per_stage = stages.iter().take_while(|&&s| s == 0).count();
        let position = names.len();
        let pattern = match expected {
            Some(expected) => expected.get(position % expected.len()).copied(),
            None if stage > 0 && per_stage > 0 => Some(patterns[position % per_stage]),
            // As TDL2048+ rebuilds a network from table names.
            None => name.parse::<Pattern>().ok(),
        };
        let in_order = match expected.map(<[Pattern]>::len) {
            Some(per_stage) => stage == position / per_stage,
            None if stage == 0 => per_stage == position,
            None => per_stage > 0 && stage == position / per_stage,
        };
        if !in_order {
            return Err(bad(format!(
                "table {number} ({name} of stage {stage}) is out of order: \
                 2048lab reads stages one after another, each with the tables of the first"
            )));
        }
        let pattern = match pattern {
            Some(pattern) if pattern.table_len() as u64 == entries && name_of(&pattern) == name => {
                pattern
            }
            _ if expected.is_some() => {
                return Err(wrong_network(path, &names, &name, expected.unwrap()));
            }
            _ => {
                return Err(bad(format!(
                    "table {name:?} ({entries} entries) is not an n-tuple or statistic table 2048lab reads"
                )));
            }
        };
        allocated += entries * 4;
        if allocated > limit {
            return Err(Error::TooLarge {
                network: format!("{} and more", names.join(" ")),
                needed: allocated,
                limit,
            });
        }
        // Half-precision files stay half precision.
        let precision = match element {
            2 => Precision::F16,
            _ => Precision::F32,
        };
        let mut table =
            Table::zeroed_as(entries as usize, precision).map_err(|source| Error::Memory {
                needed: entries * 4,
                source,
            })?;
        read_values(&mut input, &mut table, element)
            .map_err(|problem| bad(format!("table {name}: {problem}")))?;
        skip_extra_fields(&mut input).map_err(|problem| bad(format!("table {name}: {problem}")))?;
        names.push(name);
        stages.push(stage);
        if stage == 0 {
            patterns.push(pattern);
        }
        tables.push(table);
    }
    if let Some(expected) = expected
        && (expected.len() != patterns.len() || tables.len() % expected.len() != 0)
    {
        return Err(Error::WrongNetwork {
            path: path.to_owned(),
            found: names.join(" "),
            expected: describe(expected),
        });
    }
    if tables.len() % patterns.len() != 0 {
        return Err(bad(format!(
            "its last stage has {} of the {} tables of a stage",
            tables.len() % patterns.len(),
            patterns.len()
        )));
    }
    let mut rest = Vec::new();
    input
        .take(1 << 20)
        .read_to_end(&mut rest)
        .map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
    if !rest.is_empty() {
        return Err(bad(format!(
            "{} bytes or more after the last table",
            rest.len()
        )));
    }
    let count = tables.len() / patterns.len();
    let patterns = match expected {
        Some(_) => patterns,
        None => as_named(patterns),
    };
    let needed = tables.iter().map(|t: &Table| t.len() as u64 * 4).sum();
    let tables = one_precision(tables).map_err(|source| Error::Memory { needed, source })?;
    Ok((patterns, count, tables))
}

/// The patterns of a TDL2048+ file, which does not record isomorphism,
/// read as the built-in network of the same tables reads them where there
/// is one: TDL2048+'s 8x4patt is read without isomorphism, and read with it
/// would play at a quarter of its score.
fn as_named(patterns: Vec<Pattern>) -> Vec<Pattern> {
    crate::ALIASES
        .iter()
        .map(|(_, list)| crate::parse_patterns([list]).expect("aliases are valid"))
        .find(|named| same_tables(named, &patterns))
        .unwrap_or(patterns)
}

fn read_array<const N: usize>(input: &mut impl Read) -> io::Result<[u8; N]> {
    let mut bytes = [0; N];
    input.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// The name of a table: a pure hex name is a `u32`, its digit count and two
/// zero bytes; any other is its first 8 characters padded with spaces.
/// Multistage networks: the stage, in a hex name's top digit.
const STAGE_SHIFT: u32 = 28;

/// The stage and name of a table: a pure hex name is a `u32` (the stage in
/// its top digit, when the name is shorter), its digit count and two zero
/// bytes; any other is its first 8 characters padded with spaces.
fn table_name(bytes: [u8; 8]) -> Result<(usize, String), String> {
    if bytes[6..8] != [0, 0] {
        return Ok((0, String::from_utf8_lossy(&bytes).trim_end().to_owned()));
    }
    let value = u32::from_le_bytes(bytes[..4].try_into().unwrap());
    let digits = usize::from(u16::from_le_bytes([bytes[4], bytes[5]]));
    if !(1..=8).contains(&digits) {
        return Err(format!("corrupt name (a hex name of {digits} digits)"));
    }
    let (stage, value) = match digits {
        8 => (0, value),
        _ => (value >> STAGE_SHIFT, value & ((1 << STAGE_SHIFT) - 1)),
    };
    if digits < 7 && value >> (4 * digits) != 0 {
        return Err(format!(
            "corrupt name ({value:x} has more than {digits} digits)"
        ));
    }
    Ok((stage as usize, format!("{value:0digits$x}")))
}

/// How TDL2048+ names a pattern's table.
fn name_of(pattern: &Pattern) -> String {
    pattern.to_string().trim_end_matches('!').to_owned()
}

/// The name of a pattern's table of `stage`: `None` when the name has no
/// room for the stage (a text name, or 8 hex digits).
fn name_bytes(pattern: &Pattern, stage: usize) -> Option<[u8; 8]> {
    let name = name_of(pattern);
    let mut bytes = [b' '; 8];
    if pattern.is_statistic() {
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        return (stage == 0).then_some(bytes);
    }
    if stage > 0 && name.len() == 8 {
        return None;
    }
    let value = u32::from_str_radix(&name, 16).expect("a pattern's name is hex")
        | (stage as u32) << STAGE_SHIFT;
    bytes[..4].copy_from_slice(&value.to_le_bytes());
    bytes[4..6].copy_from_slice(&(name.len() as u16).to_le_bytes());
    bytes[6..8].copy_from_slice(&[0, 0]);
    Some(bytes)
}

/// The patterns as a line of text, `0123 4567`.
pub(crate) fn describe(patterns: &[Pattern]) -> String {
    patterns
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The error for a file whose tables are not `expected`: names the tables
/// read so far, the offending one, and what was expected.
fn wrong_network(path: &Path, names: &[String], name: &str, expected: &[Pattern]) -> Error {
    let mut found = names.to_vec();
    found.push(name.to_owned());
    Error::WrongNetwork {
        path: path.to_owned(),
        found: format!("{} ...", found.join(" ")),
        expected: describe(expected),
    }
}

/// Reads a table's values of `element` bytes each into `table`.
fn read_values(input: &mut impl Read, table: &mut Table, element: u16) -> Result<(), String> {
    let ends_early = |_| "truncated: the values end early".to_owned();
    match element {
        _ if usize::from(element) == table.precision().bytes() => {
            table.read_from(input).map_err(ends_early)
        }
        2 | 8 => {
            let size = usize::from(element);
            let mut buffer = vec![0u8; size * 4096];
            let mut index = 0;
            while index < table.len() {
                let count = (table.len() - index).min(4096);
                input
                    .read_exact(&mut buffer[..count * size])
                    .map_err(ends_early)?;
                for value in buffer[..count * size].chunks_exact(size) {
                    let value = match size {
                        2 => half::f16::from_le_bytes([value[0], value[1]]).to_f32(),
                        _ => f64::from_le_bytes(value.try_into().unwrap()) as f32,
                    };
                    table.set(index, value);
                    index += 1;
                }
            }
            Ok(())
        }
        other => Err(format!("elements of {other} bytes (2, 4 or 8 are read)")),
    }
}

/// Skips the extra fields after a table's values, up to the closing zero.
fn skip_extra_fields(input: &mut impl Read) -> Result<(), String> {
    let ends_early = |_| "truncated: the file ends in its extra fields".to_owned();
    loop {
        let size = u16::from_le_bytes(read_array(input).map_err(ends_early)?);
        if size == 0 {
            return Ok(());
        }
        let count = u64::from_le_bytes(read_array(input).map_err(ends_early)?);
        let bytes = u64::from(size)
            .checked_mul(count)
            .ok_or_else(|| "corrupt extra field size".to_owned())?;
        let skipped =
            io::copy(&mut input.take(bytes), &mut io::sink()).map_err(|e| e.to_string())?;
        if skipped != bytes {
            return Err("truncated: the file ends in its extra fields".to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_stage_where_there_is_room() {
        let pattern = |text: &str| text.parse::<Pattern>().unwrap();
        let named = name_bytes(&pattern("012345"), 3).unwrap();
        assert_eq!(table_name(named).unwrap(), (3, "012345".to_owned()));
        assert_eq!(
            u32::from_le_bytes(named[..4].try_into().unwrap()),
            0x3001_2345
        );
        assert!(name_bytes(&pattern("01234567"), 0).is_some());
        assert!(name_bytes(&pattern("01234567"), 1).is_none());
    }
}
