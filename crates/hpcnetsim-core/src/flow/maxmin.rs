//! Max-min fair rates by progressive filling: every unfrozen flow's rate rises at the same
//! pace until some channel is full; the flows crossing it freeze at that rate, and filling
//! goes on with the others. A flow that splits over several paths with fixed weights puts
//! `weight × rate` on each channel of each path (its *share* of the channel).
//!
//! The saturation level of every channel, `(capacity − frozen load) / unfrozen shares`,
//! sits in a heap; freezing a flow updates only the channels it crosses, so one solve costs
//! O(E log E) for E flow-channel incidences at most. A flow freezes at the lowest level, so
//! freezing it raises the level of every other channel it crosses (rounding aside): the heap
//! keeps each channel's entry while its level rises and only re-files the channel when that
//! entry comes up (a level that falls is filed at once). Channels are taken in the same order
//! as with every update filed, the lowest level first and the lowest index on ties, with a
//! fraction of the heap operations (a flow spread over a fat-tree's path DAG crosses
//! hundreds of channels).

use super::paths::PathSet;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Flow-channel incidences: for every flow, the channels it uses and its share of each
/// (the sum of the weights of its paths through the channel).
#[derive(Clone, Debug, Default)]
pub struct Shares {
    offset: Vec<u32>,
    entries: Vec<(u32, f64)>,
}

impl Shares {
    /// Number of flows.
    pub fn len(&self) -> usize {
        self.offset.len().saturating_sub(1)
    }

    /// Whether there are no flows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every flow.
    pub fn clear(&mut self) {
        self.offset.clear();
        self.entries.clear();
    }

    /// The channels and shares of flow `f`.
    pub fn of(&self, f: usize) -> &[(u32, f64)] {
        &self.entries[self.offset[f] as usize..self.offset[f + 1] as usize]
    }

    /// Appends a flow entering the network through `injection` and following `paths`
    /// (weights normalised to sum 1; a channel used by several paths appears once).
    pub fn push_flow(&mut self, injection: usize, paths: &mut PathSet) {
        if self.offset.is_empty() {
            self.offset.push(0);
        }
        let start = self.entries.len();
        self.entries.push((injection as u32, 1.0));
        let total = paths.total_weight();
        let shares = paths.shares_mut();
        shares.sort_unstable_by_key(|&(c, _)| c);
        let mut i = 0;
        while i < shares.len() {
            let (c, mut w) = shares[i];
            i += 1;
            while i < shares.len() && shares[i].0 == c {
                w += shares[i].1;
                i += 1;
            }
            self.entries.push((c, w / total));
        }
        debug_assert!(self.entries.len() > start);
        self.offset.push(self.entries.len() as u32);
    }

    /// Appends a flow with explicit channel shares (a private channel per flow can model a
    /// demand limit).
    pub fn push_raw(&mut self, entries: &[(u32, f64)]) {
        if self.offset.is_empty() {
            self.offset.push(0);
        }
        self.entries.extend_from_slice(entries);
        self.offset.push(self.entries.len() as u32);
    }

    /// Number of flows using every channel (`channels` entries).
    pub fn flows_per_channel(&self, channels: usize) -> Vec<u32> {
        let mut n = vec![0u32; channels];
        for &(c, _) in &self.entries {
            n[c as usize] += 1;
        }
        n
    }

    /// Load of every channel at the given flow rates (in link bandwidths).
    pub fn channel_loads(&self, rates: &[f64], channels: usize) -> Vec<f64> {
        let mut load = vec![0.0; channels];
        for (f, &r) in rates.iter().enumerate() {
            for &(c, w) in self.of(f) {
                load[c as usize] += w * r;
            }
        }
        load
    }
}

/// Reusable buffers of the solver (one per thread when solving many problems).
#[derive(Default)]
pub struct Solver {
    unfrozen_share: Vec<f64>,
    unfrozen_count: Vec<u32>,
    frozen_load: Vec<f64>,
    level: Vec<f64>,
    touched: Vec<u32>,
    incidence_start: Vec<u32>,
    incidence_count: Vec<u32>,
    incidence: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per channel: the key of its entry in the heap that counts (entries with other keys
    /// are stale); at most the key of its level.
    filed: Vec<u64>,
}

/// Heap key of a non-negative level: the bits of a non-negative f64 sort like the value.
fn key(level: f64) -> u64 {
    level.max(0.0).to_bits()
}

impl Solver {
    /// Max-min fair rates of the flows `active` (indices into `shares`) on channels of the
    /// given capacities; `rates` gets one entry per flow of `shares` (0 for inactive flows).
    pub fn solve(&mut self, capacity: &[f64], shares: &Shares, active: &[u32], rates: &mut Vec<f64>) {
        let channels = capacity.len();
        rates.clear();
        rates.resize(shares.len(), 0.0);
        self.unfrozen_share.resize(channels, 0.0);
        self.unfrozen_count.resize(channels, 0);
        self.frozen_load.resize(channels, 0.0);
        self.level.resize(channels, 0.0);
        self.incidence_start.resize(channels, 0);
        self.incidence_count.resize(channels, 0);
        self.filed.resize(channels, 0);
        // Channel → flows incidence (CSR) over the touched channels only.
        self.touched.clear();
        for &f in active {
            for &(c, w) in shares.of(f as usize) {
                let c = c as usize;
                if self.unfrozen_count[c] == 0 {
                    self.touched.push(c as u32);
                }
                self.unfrozen_count[c] += 1;
                self.unfrozen_share[c] += w;
            }
        }
        self.touched.sort_unstable();
        let mut total = 0u32;
        for &c in &self.touched {
            let c = c as usize;
            self.incidence_start[c] = total;
            self.incidence_count[c] = 0;
            total += self.unfrozen_count[c];
        }
        self.incidence.clear();
        self.incidence.resize(total as usize, 0);
        for &f in active {
            for &(c, _) in shares.of(f as usize) {
                let c = c as usize;
                let at = (self.incidence_start[c] + self.incidence_count[c]) as usize;
                self.incidence[at] = f;
                self.incidence_count[c] += 1;
            }
        }
        self.heap.clear();
        for &c in &self.touched {
            let c = c as usize;
            self.frozen_load[c] = 0.0;
            self.level[c] = capacity[c] / self.unfrozen_share[c];
            self.filed[c] = key(self.level[c]);
            self.heap.push(Reverse((self.filed[c], c as u32)));
        }
        let mut frozen = vec![false; shares.len()];
        let mut floor = 0.0f64;
        while let Some(Reverse((k, c))) = self.heap.pop() {
            let c = c as usize;
            if self.unfrozen_count[c] == 0 || k != self.filed[c] {
                continue; // stale entry
            }
            let now = key(self.level[c]);
            if k != now {
                // Its level rose since it was filed: filed again at the level it has.
                self.filed[c] = now;
                self.heap.push(Reverse((now, c as u32)));
                continue;
            }
            // Rounding may put a level a hair below one already passed: rates never fall.
            let lvl = self.level[c].max(floor);
            floor = lvl;
            let start = self.incidence_start[c] as usize;
            let end = start + self.incidence_count[c] as usize;
            for i in start..end {
                let f = self.incidence[i] as usize;
                if frozen[f] {
                    continue;
                }
                frozen[f] = true;
                rates[f] = lvl;
                for &(c2, w) in shares.of(f) {
                    let c2 = c2 as usize;
                    self.unfrozen_count[c2] -= 1;
                    self.unfrozen_share[c2] -= w;
                    self.frozen_load[c2] += w * lvl;
                    if self.unfrozen_count[c2] > 0 && c2 != c {
                        self.level[c2] = (capacity[c2] - self.frozen_load[c2]) / self.unfrozen_share[c2].max(1e-300);
                        let k2 = key(self.level[c2]);
                        if k2 < self.filed[c2] {
                            self.filed[c2] = k2;
                            self.heap.push(Reverse((k2, c2 as u32)));
                        }
                    }
                }
            }
        }
        // Leave the per-channel buffers zeroed for the next solve.
        for &c in &self.touched {
            let c = c as usize;
            self.unfrozen_count[c] = 0;
            self.unfrozen_share[c] = 0.0;
        }
    }
}

/// Max-min fair rates of every flow of `shares` (one-off convenience over [`Solver`]).
pub fn max_min(capacity: &[f64], shares: &Shares) -> Vec<f64> {
    let active: Vec<u32> = (0..shares.len() as u32).collect();
    let mut rates = Vec::new();
    Solver::default().solve(capacity, shares, &active, &mut rates);
    rates
}
