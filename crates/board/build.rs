//! Generates the row tables of the 64-bit board from the reference line rule
//! in `src/line.rs`, so they cost neither compile-time evaluation nor a check
//! on every access at run time.

use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "src/line.rs"]
mod line;

/// Largest tile exponent a nibble holds.
const MAX_EXPONENT: u8 = 15;

fn nibbles(row: u16) -> [u8; 4] {
    std::array::from_fn(|i| ((row >> (4 * i)) & 0xF) as u8)
}

fn pack(line: [u8; 4]) -> u16 {
    line.iter()
        .rev()
        .fold(0, |row, &tile| (row << 4) | u16::from(tile))
}

/// A row entry: the row slid towards its lowest nibble (a left move) or its
/// highest (a right move) in the low 16 bits, and the reward divided by 4 in
/// the high 16 bits (rewards are multiples of 4, at most 131,072 a row).
fn entry(row: u16, towards_high: bool) -> u32 {
    let mut line = nibbles(row);
    if towards_high {
        line.reverse();
    }
    let (mut slid, reward) = line::slide_towards_first(line, MAX_EXPONENT);
    if towards_high {
        slid.reverse();
    }
    u32::from(pack(slid)) | (reward / 4) << 16
}

fn table(name: &str, doc: &str, entry: impl Fn(u16) -> u32) -> String {
    let mut out = format!("#[doc = {doc:?}]\npub(crate) static {name}: [u32; 65536] = [\n");
    for row in 0..=u16::MAX {
        write!(out, "{},", entry(row)).unwrap();
        if row % 16 == 15 {
            out.push('\n');
        }
    }
    out.push_str("];\n");
    out
}

fn main() {
    println!("cargo::rerun-if-changed=src/line.rs");
    println!("cargo::rerun-if-changed=build.rs");
    let left = table(
        "LEFT",
        "Row slid towards its lowest nibble (a left move), with its reward.",
        |row| entry(row, false),
    );
    let right = table(
        "RIGHT",
        "Row slid towards its highest nibble (a right move), with its reward.",
        |row| entry(row, true),
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("rows.rs");
    std::fs::write(out, left + &right).unwrap();
}
