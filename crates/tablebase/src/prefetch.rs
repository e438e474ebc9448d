//! A hint to the CPU to fetch memory it will soon read.

/// Asks the CPU to fetch the cache line of `item` into its nearest cache
/// without waiting for it. Only a hint: it never faults, and does nothing
/// on targets without a prefetch instruction.
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, and SSE is part of
    // every x86-64 CPU.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
