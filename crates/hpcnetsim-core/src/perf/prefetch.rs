//! Software prefetch of the state the next events will touch. On large networks that state
//! is scattered over arrays far bigger than the caches; asking for several lines at once
//! overlaps their misses instead of paying them one after another.

use std::sync::OnceLock;

/// Size (bytes) of the engine's per-queue and per-channel state from which a run starts
/// prefetching: half the processor's last-level cache (the whole working set, with the FIFOs,
/// packets and lists, is two to three times that state), at most 16 MiB (a cache of hundreds
/// of MiB is shared by many cores, a virtual machine's among other guests), 16 MiB where the
/// cache is not known. Below it the state mostly stays in the caches, which hide their latency
/// by themselves, and the stages only cost instructions (about 600 per packet-hop on a 4-ary
/// tree). Only a first guess: a run measures both and keeps the faster (`control::Adaptive`).
pub(crate) fn above_bytes() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| last_level_cache_bytes().map_or(16 << 20, |b| (b / 2).min(16 << 20)))
}

/// Size (bytes) of that state below which prefetching is not even tried: half the level-2
/// cache of a core (1 MiB where it is not known), which then holds the state and hides the
/// misses of the rest by itself.
pub(crate) fn worth_trying_above_bytes() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| data_cache_bytes(Some(2)).map_or(1 << 20, |b| b) / 2)
}

/// The largest data or unified cache of CPU 0, from Linux's sysfs.
fn last_level_cache_bytes() -> Option<usize> {
    data_cache_bytes(None)
}

/// The largest data or unified cache of CPU 0 at `level` (any level: `None`), from Linux's
/// sysfs.
fn data_cache_bytes(level: Option<u32>) -> Option<usize> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let read = |i: usize, f: &str| std::fs::read_to_string(dir.join(format!("index{i}/{f}"))).ok();
    (0..16)
        .filter(|&i| read(i, "type").is_some_and(|t| t.trim() != "Instruction"))
        .filter(|&i| level.is_none_or(|l| read(i, "level").is_some_and(|t| t.trim() == l.to_string())))
        .filter_map(|i| read(i, "size").and_then(|s| cache_size(&s)))
        .max()
}

/// A sysfs cache size ("32768K", "1M", "512") in bytes.
fn cache_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let (digits, unit) = match t.as_bytes().last()? {
        b'K' => (&t[..t.len() - 1], 1 << 10),
        b'M' => (&t[..t.len() - 1], 1 << 20),
        b'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits.parse::<usize>().ok().map(|n| n * unit)
}

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
        // An element larger than its alignment may cross into the next cache line: ask
        // for the line of its last byte too (the same line, most of the time, at no cost).
        if std::mem::size_of::<T>() > std::mem::align_of::<T>() {
            // SAFETY: as above.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(std::mem::size_of::<T>() - 1)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, i);
}

/// Asks for elements `i..i + n` of `s`, one request per cache line.
#[inline(always)]
pub(crate) fn prefetch_range<T>(s: &[T], i: usize, n: usize) {
    let per_line = (64 / std::mem::size_of::<T>().max(1)).max(1);
    let mut j = i;
    while j < i + n {
        prefetch(s, j);
        j += per_line;
    }
    if n > 0 {
        prefetch(s, i + n - 1);
    }
}

/// Items (events or arbitrations) between two prefetch stages: the last stage asks for an
/// item's state this many items before it is handled (`pipelined`). Eight beat four, twelve
/// and sixteen on the 4-ary 8-tree at 40 %.
pub(crate) const AHEAD: usize = 8;

/// Runs `body` on items `0..n` in order while asking the cache, in three stages, for what
/// the items ahead will touch: `far` for the item `3 · AHEAD` places on, `mid` for the item
/// `2 · AHEAD` on, `near` for the item `AHEAD` on. Each stage may read what the one before
/// fetched to find further addresses. Does only `body` unless `on`.
#[inline(always)]
pub(crate) fn pipelined<S: ?Sized>(
    state: &mut S,
    n: usize,
    on: bool,
    far: impl Fn(&S, usize),
    mid: impl Fn(&S, usize),
    near: impl Fn(&S, usize),
    mut body: impl FnMut(&mut S, usize),
) {
    if !on {
        return (0..n).for_each(|i| body(state, i));
    }
    (0..(3 * AHEAD).min(n)).for_each(|j| far(state, j));
    (0..(2 * AHEAD).min(n)).for_each(|j| mid(state, j));
    (0..AHEAD.min(n)).for_each(|j| near(state, j));
    for i in 0..n {
        if i + 3 * AHEAD < n {
            far(state, i + 3 * AHEAD);
        }
        if i + 2 * AHEAD < n {
            mid(state, i + 2 * AHEAD);
        }
        if i + AHEAD < n {
            near(state, i + AHEAD);
        }
        body(state, i);
    }
}

#[cfg(test)]
mod tests {
    use super::cache_size;

    #[test]
    fn sysfs_cache_sizes_parse_with_their_units() {
        assert_eq!(cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(cache_size("1M"), Some(1 << 20));
        assert_eq!(cache_size("512"), Some(512));
        assert_eq!(cache_size("2G"), Some(2 << 30));
        assert_eq!(cache_size("K"), None);
        assert_eq!(cache_size(""), None);
        assert_eq!(cache_size("12X"), None);
    }
}
