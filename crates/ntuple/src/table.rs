//! One weight table: `f32` or `f16` entries that threads share without
//! locks.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering::Relaxed};

use memmap2::{MmapMut, MmapOptions};
use system::{Cache, prefetch};

use crate::Precision;
use crate::precision::Entry;

/// A table of `f32` weights (or `f16`, [`Table::zeroed_as`]) in anonymous
/// memory.
///
/// Entries are read and written as relaxed atomics holding the bits of an
/// `f32` (or `f16`): on x86-64 and AArch64 these are plain loads and
/// stores, so a single
/// thread pays nothing for them, while several threads may update one table
/// at once without locks and without undefined behaviour. Two threads adding
/// to the same entry at the same moment can lose one of the additions; TD
/// learning tolerates this, as TDL2048+'s lock-free training shows
/// (docs/learning.md).
///
/// The memory is advised for transparent huge pages before it is first
/// touched: large tables are read at random, and huge pages cut the TLB
/// misses (about 12% faster updates measured on the development machine).
pub struct Table {
    map: MmapMut,
    len: usize,
    precision: Precision,
}

impl Table {
    /// A table of `len` zero weights.
    ///
    /// # Errors
    /// The operating system's error if the memory cannot be mapped.
    pub fn zeroed(len: usize) -> io::Result<Self> {
        Self::zeroed_as(len, Precision::F32)
    }

    /// A table of `len` zero weights stored in `precision`.
    ///
    /// # Errors
    /// The operating system's error if the memory cannot be mapped.
    pub fn zeroed_as(len: usize, precision: Precision) -> io::Result<Self> {
        let map = MmapOptions::new()
            .len(len.max(1) * precision.bytes())
            .map_anon()?;
        #[cfg(target_os = "linux")]
        {
            // Only a hint: without huge pages the table still works.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Self {
            map,
            len,
            precision,
        })
    }

    /// How the weights are stored.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// A copy of the table stored in `precision` (each weight rounded to the
    /// nearest when narrowed).
    ///
    /// # Errors
    /// The operating system's error if the memory cannot be mapped.
    pub fn to_precision(&self, precision: Precision) -> io::Result<Table> {
        let copy = Table::zeroed_as(self.len, precision)?;
        for index in 0..self.len {
            copy.set(index, self.get(index));
        }
        Ok(copy)
    }

    /// Makes every page of the table resident now instead of at its first
    /// touch, keeping the weights. One atomic write of the value already
    /// there per 4 KiB page: a write, so the kernel allocates (and zeroes) a
    /// real page, huge where it can, rather than mapping the shared zero
    /// page first.
    ///
    /// The write is a compare-exchange: compilers turn an idempotent
    /// read-modify-write such as `fetch_or(0)` into a plain load on x86,
    /// which would leave the zero page mapped.
    pub fn fault_in(&self) {
        // Whole 4-byte words, one per page, whatever the precision.
        let words = self.len * self.precision.bytes() / 4;
        // SAFETY: the map holds at least `words` page-aligned 4-byte words
        // and lives as long as `self`; only atomics touch it while shared.
        let words =
            unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU32>(), words) };
        for word in words.iter().step_by(4096 / 4) {
            let value = word.load(Relaxed);
            let _ = word.compare_exchange(value, value, Relaxed, Relaxed);
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of the first entry, for the unchecked fast paths of
    /// [`Network`](crate::Network).
    pub(crate) fn base(&self) -> *const u8 {
        self.map.as_ptr()
    }

    #[inline(always)]
    fn entries(&self) -> &[AtomicU32] {
        assert_eq!(self.precision, Precision::F32);
        // SAFETY: the map holds `len` 4-byte, page-aligned entries and lives as
        // long as `self`; `AtomicU32` has the size and alignment of `u32`, and
        // every access to the memory goes through these atomics while shared.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU32>(), self.len) }
    }

    /// The entries of an `f32` table.
    ///
    /// # Panics
    /// If the table holds `f16` weights.
    #[inline(always)]
    pub(crate) fn singles(&self) -> &[AtomicU32] {
        self.entries()
    }

    /// The entries of an `f16` table.
    #[inline(always)]
    fn halves(&self) -> &[AtomicU16] {
        assert_eq!(self.precision, Precision::F16);
        // SAFETY: as `entries`, for `len` 2-byte entries.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU16>(), self.len) }
    }

    /// The weight at `index`.
    ///
    /// # Panics
    /// If `index` is out of range.
    #[inline(always)]
    pub fn get(&self, index: usize) -> f32 {
        match self.precision {
            Precision::F32 => self.entries()[index].value(),
            Precision::F16 => self.halves()[index].value(),
        }
    }

    /// Adds `amount` to the weight at `index` and returns the new weight.
    ///
    /// # Panics
    /// If `index` is out of range.
    #[inline(always)]
    pub fn add(&self, index: usize, amount: f32) -> f32 {
        match self.precision {
            Precision::F32 => self.entries()[index].add(amount),
            Precision::F16 => self.halves()[index].add(amount),
        }
    }

    /// Asks the CPU to start loading entry `index` into the cache, for a
    /// [`Table::get`] or [`Table::add`] soon after. Only a hint: it does
    /// nothing on targets without a prefetch instruction, or out of range.
    #[inline(always)]
    pub fn prefetch(&self, index: usize) {
        self.prefetch_into(index, Cache::First);
    }

    /// [`Table::prefetch`] into `cache`.
    #[inline(always)]
    pub(crate) fn prefetch_into(&self, index: usize, cache: Cache) {
        if index < self.len {
            prefetch(
                self.base().wrapping_add(index * self.precision.bytes()),
                cache,
            );
        }
    }

    /// Sets the weight at `index`.
    ///
    /// # Panics
    /// If `index` is out of range.
    pub fn set(&self, index: usize, value: f32) {
        match self.precision {
            Precision::F32 => self.entries()[index].store(value.to_bits(), Relaxed),
            Precision::F16 => {
                self.halves()[index].store(half::f16::from_f32(value).to_bits(), Relaxed);
            }
        }
    }

    /// Sets every weight to `value`.
    pub fn fill(&mut self, value: f32) {
        for index in 0..self.len {
            self.set(index, value);
        }
    }

    /// Adds `amount` to every weight.
    pub fn offset(&mut self, amount: f32) {
        for index in 0..self.len {
            self.add(index, amount);
        }
    }

    /// A copy of the table, made while no other thread can write to it.
    ///
    /// # Errors
    /// The operating system's error if the memory cannot be mapped.
    pub(crate) fn duplicate(&mut self) -> io::Result<Table> {
        let mut copy = Table::zeroed_as(self.len, self.precision)?;
        copy.bytes_mut().copy_from_slice(self.bytes_mut());
        Ok(copy)
    }

    /// The entries as little-endian bytes, exclusive access making a plain
    /// view sound.
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.map[..self.len * self.precision.bytes()]
    }

    /// Reads all entries from `reader`: `len` little-endian `f32` (or `f16`), in one
    /// bulk read straight into the table's memory.
    ///
    /// # Errors
    /// The reader's error, `UnexpectedEof` if it ends early.
    pub fn read_from(&mut self, reader: &mut impl Read) -> io::Result<()> {
        reader.read_exact(self.bytes_mut())?;
        #[cfg(target_endian = "big")]
        match self.precision {
            Precision::F32 => {
                for entry in self.entries() {
                    entry.store(u32::from_le(entry.load(Relaxed)), Relaxed);
                }
            }
            Precision::F16 => {
                for entry in self.halves() {
                    entry.store(u16::from_le(entry.load(Relaxed)), Relaxed);
                }
            }
        }
        Ok(())
    }

    /// Writes all entries to `writer` as little-endian `f32` (or `f16`), through a small
    /// buffer so that other threads may keep updating meanwhile.
    ///
    /// # Errors
    /// The writer's error.
    pub fn write_to(&self, writer: &mut impl Write) -> io::Result<()> {
        match self.precision {
            Precision::F32 => {
                write_bytes(writer, self.entries(), |e| e.load(Relaxed).to_le_bytes())
            }
            Precision::F16 => write_bytes(writer, self.halves(), |e| e.load(Relaxed).to_le_bytes()),
        }
    }
}

/// Writes the `bytes` of each of `entries` to `writer`, 64 KiB at a time.
fn write_bytes<T, const N: usize>(
    writer: &mut impl Write,
    entries: &[T],
    bytes: impl Fn(&T) -> [u8; N],
) -> io::Result<()> {
    let mut buffer = Vec::with_capacity(1 << 16);
    for chunk in entries.chunks((1 << 16) / N) {
        buffer.clear();
        for entry in chunk {
            buffer.extend_from_slice(&bytes(entry));
        }
        writer.write_all(&buffer)?;
    }
    Ok(())
}

/// `tables` all of one precision: as they are when they are, all widened
/// to `f32` when they are not (tables of files of both precisions).
///
/// # Errors
/// The operating system's error if the wider tables cannot be mapped.
pub(crate) fn one_precision(tables: Vec<Table>) -> io::Result<Vec<Table>> {
    let first = tables.first().map(Table::precision);
    if tables.iter().all(|table| Some(table.precision()) == first) {
        return Ok(tables);
    }
    tables
        .iter()
        .map(|table| table.to_precision(Precision::F32))
        .collect()
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({} entries)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_at_zero_and_adds() {
        let table = Table::zeroed(4096).unwrap();
        assert_eq!(table.get(4095), 0.0);
        assert_eq!(table.add(7, 1.5), 1.5);
        assert_eq!(table.add(7, -0.25), 1.25);
        assert_eq!(table.get(7), 1.25);
    }

    #[test]
    fn bytes_round_trip() {
        let table = Table::zeroed(100).unwrap();
        table.add(3, 2.0);
        table.add(99, -7.5);
        let mut bytes = Vec::new();
        table.write_to(&mut bytes).unwrap();
        assert_eq!(bytes.len(), 400);
        let mut copy = Table::zeroed(100).unwrap();
        copy.read_from(&mut bytes.as_slice()).unwrap();
        assert_eq!((copy.get(3), copy.get(99), copy.get(50)), (2.0, -7.5, 0.0));
        let mut short = Table::zeroed(101).unwrap();
        assert!(short.read_from(&mut bytes.as_slice()).is_err());
    }
}
