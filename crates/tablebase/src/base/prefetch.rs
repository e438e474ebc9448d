//! A hint to the CPU to fetch an item of a slice it will soon read.

use system::Cache;

/// Asks the CPU to fetch the cache line of `items[index]` into its nearest
/// cache without waiting for it ([`system::prefetch`]): it never faults,
/// even for an index out of range, whose address is never read. Taking the
/// slice and the index rather than the item spares the caller a bounds
/// check, and the length's register in its loop.
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], index: usize) {
    system::prefetch(items.as_ptr().wrapping_add(index), Cache::First);
}
