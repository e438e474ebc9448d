//! A hint to the CPU to fetch memory it will soon read.

/// Asks the CPU to fetch the cache line of `items[index]` into its nearest
/// cache without waiting for it. Only a hint: it never faults, even for an
/// index out of range (whose address is never read), and does nothing on
/// targets without a prefetch instruction. Taking the slice and the index
/// rather than the item spares the caller a bounds check, and the length's
/// register in its loop.
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], index: usize) {
    let address = items.as_ptr().wrapping_add(index);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, whatever the
    // address, and SSE is part of every x86-64 CPU.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
