//! Software prefetch of the state the next events will touch. On large networks that state
//! is scattered over arrays far bigger than the caches; asking for several lines at once
//! overlaps their misses instead of paying them one after another.

/// Asks the CPU to bring element `i` of `s` into the cache (no effect on results; an index
/// out of range is harmless: a prefetch never faults).
#[inline(always)]
pub(crate) fn prefetch<T>(s: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = s.as_ptr().wrapping_add(i) as *const i8;
        // SAFETY: a prefetch is a hint: it reads nothing into the program and cannot fault,
        // whatever the address; SSE is part of the x86_64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, i);
}
