//! What a cache line costs this machine, now, when it comes from beyond the caches. A hop of a
//! large network touches state scattered over hundreds of megabytes, so its cost there is set
//! by the memory more than by the engine's instructions; on a shared host the last-level cache
//! may hold little of it, and the same run can cost twice as much on a busy day. `hpcnetsim
//! bench --scale` measures this beside its rows, so that a row's cost can be read against what
//! the host gave at the time (docs/performance.md, "What the memory allows").
//!
//! Two figures, over a buffer of random lines linked into one cycle: a load that must wait for
//! the one before (the latency), and lines fetched by many independent walks at once (the
//! throughput when the core has as many misses in flight as it can hold: the best any
//! prefetching can do).

use rand::Rng;
use std::hint::black_box;
use std::time::Instant;

/// Independent walks of the overlapped figure: more than any core keeps misses in flight
/// (10 to 16 line-fill buffers on recent Intel cores, up to 24 on AMD's), so the figure is
/// the memory's limit, not the walks'.
pub const WALKS: usize = 32;

/// One cache line of the buffer: the index of the next line of the cycle.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Line {
    next: u32,
}

/// The cost of a line fetched from a buffer of `bytes` (see the module's description).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryCost {
    /// Size of the buffer walked.
    pub bytes: usize,
    /// Nanoseconds per load when each waits for the one before.
    pub latency_ns: f64,
    /// Nanoseconds per line when `WALKS` walks run at once.
    pub overlapped_ns: f64,
}

/// The lines of `n` (at least 2) linked into one cycle in a random order drawn from `seed`,
/// and `starts` lines spread evenly along that cycle.
fn cycle(n: usize, starts: usize, seed: u64) -> (Vec<Line>, Vec<u32>) {
    let mut rng = crate::rng::stream(seed, crate::rng::Owner::Setup, u64::MAX - 1);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let mut lines = vec![Line { next: 0 }; n];
    for i in 0..n {
        lines[order[i] as usize].next = order[(i + 1) % n];
    }
    let first = (0..starts).map(|k| order[k * n / starts]).collect();
    (lines, first)
}

/// Nanoseconds per line of `loads` steps of every walk in `at` (each step waits for its walk's
/// previous one, the walks do not wait for each other).
fn walk<const K: usize>(lines: &[Line], at: &[u32], loads: usize) -> f64 {
    let mut p: [u32; K] = std::array::from_fn(|k| at[k % at.len()]);
    let start = Instant::now();
    for _ in 0..loads {
        for q in p.iter_mut() {
            *q = lines[*q as usize].next;
        }
    }
    black_box(p);
    start.elapsed().as_secs_f64() * 1e9 / (loads * K) as f64
}

/// Measures the cost of a line over a buffer of `bytes` (rounded down to whole lines, at least
/// two): `loads` dependent loads for the latency, and `loads` steps of each of `WALKS` walks
/// for the overlapped figure, after a pass of each that brings the buffer's pages in.
pub fn measure(bytes: usize, loads: usize, seed: u64) -> MemoryCost {
    let n = (bytes / std::mem::size_of::<Line>()).clamp(2, u32::MAX as usize);
    let (lines, starts) = cycle(n, WALKS, seed);
    let loads = loads.max(1);
    walk::<WALKS>(&lines, &starts, (n / WALKS).min(loads));
    let latency_ns = walk::<1>(&lines, &starts, loads);
    let overlapped_ns = walk::<WALKS>(&lines, &starts, loads);
    MemoryCost { bytes: n * std::mem::size_of::<Line>(), latency_ns, overlapped_ns }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_form_one_cycle_and_the_walks_start_apart() {
        let n = 1000;
        let (lines, starts) = cycle(n, 8, 3);
        let mut seen = vec![false; n];
        let mut at = starts[0];
        let mut position = vec![usize::MAX; n];
        for step in 0..n {
            assert!(!seen[at as usize], "line {at} visited twice before the cycle closed");
            seen[at as usize] = true;
            position[at as usize] = step;
            at = lines[at as usize].next;
        }
        assert_eq!(at, starts[0], "the walk returns to its start after every line");
        let steps: Vec<usize> = starts.iter().map(|&s| position[s as usize]).collect();
        assert_eq!(steps, (0..8).map(|k| k * n / 8).collect::<Vec<_>>());
    }

    #[test]
    fn a_measure_reports_its_buffer_and_positive_costs() {
        // The least of a few measures: a run preempted midway would inflate one of them.
        let runs: Vec<MemoryCost> = (0..5).map(|seed| measure(1 << 16, 10_000, seed)).collect();
        let least = |f: fn(&MemoryCost) -> f64| runs.iter().map(f).fold(f64::INFINITY, f64::min);
        let m = MemoryCost {
            bytes: runs[0].bytes,
            latency_ns: least(|m| m.latency_ns),
            overlapped_ns: least(|m| m.overlapped_ns),
        };
        assert_eq!(m.bytes, 1 << 16);
        assert!(m.latency_ns > 0.0 && m.latency_ns.is_finite(), "{m:?}");
        assert!(m.overlapped_ns > 0.0 && m.overlapped_ns.is_finite(), "{m:?}");
        // Independent walks overlap their loads; a lone walk cannot.
        assert!(m.overlapped_ns < m.latency_ns, "{m:?}");
    }
}
