//! Hints to the CPU to fetch memory it will soon read.

/// The cache a prefetch fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cache {
    /// The first level, nearest the core: for a few lines needed next.
    First,
    /// The second level: for many lines at once, which in the first level
    /// would crowd its few outstanding misses and evict one another.
    Second,
}

/// Asks the CPU to fetch the cache line of `address` into `cache` without
/// waiting for it. Only a hint: it never faults, whatever the address
/// (which is never read), and does nothing on targets without a prefetch
/// instruction.
#[inline(always)]
pub fn prefetch<T>(address: *const T, cache: Cache) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, whatever the
    // address, and SSE is part of every x86-64 CPU.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1, _mm_prefetch};
        let address = address.cast::<i8>();
        match cache {
            Cache::First => _mm_prefetch::<_MM_HINT_T0>(address),
            Cache::Second => _mm_prefetch::<_MM_HINT_T1>(address),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (address, cache);
}
