//! Per-link and per-VC utilisation over time (`[stats] link_utilisation = true`): the phits
//! each channel's VC sent in every interval of `interval_cycles`, a packet's phits split
//! between the intervals its transmission spans. Only intervals where a VC sent anything
//! are rows: `interval_start`, `channel`, `vc`, `busy_phits`, `cycles` (the interval's cycles
//! before the run's end: `interval_cycles` but for the last one), `utilisation` (the fraction
//! of those cycles the link carried that VC's phits).
//!
//! The series ends with the run: the phits of transmissions still under way at the end are
//! left out, and the last interval is as long as the run left it. Booked whole, they made a
//! last row of a few tail phits over a full interval, a dip to near zero on every link that
//! the network never had.

use super::collector::{Collector, Hop, Network};
use super::table::Table;
use super::StatsConfig;

/// Most rows one run records (about 1 GB in memory): later intervals are left out.
pub const MAX_ROWS: usize = 20_000_000;

/// The utilisation time series.
pub struct LinkUtilisation {
    interval: u64,
    vcs: usize,
    /// The interval being filled, and its phits per output VC (channel × vcs + vc).
    current: u64,
    busy: Vec<u64>,
    /// Output VCs with phits in the current interval.
    touched: Vec<u32>,
    /// Phits of transmissions that run into later intervals: (interval, output VC, phits).
    carry: Vec<(u64, u32, u64)>,
    /// Each channel's latest transmission: (first cycle, output VC, phits). A link sends one
    /// transmission at a time, so only this one can run past the end of the run.
    last: Vec<(u64, u32, u32)>,
    rows: Rows,
}

#[derive(Default)]
struct Rows {
    start: Vec<u64>,
    channel: Vec<u64>,
    vc: Vec<u64>,
    busy: Vec<u64>,
}

impl LinkUtilisation {
    fn add(&mut self, interval: u64, i: u32, phits: u64) {
        if interval != self.current {
            self.carry.push((interval, i, phits));
            return;
        }
        let slot = &mut self.busy[i as usize];
        if *slot == 0 {
            self.touched.push(i);
        }
        *slot += phits;
    }

    /// Takes back the phits of `i` booked at cycles `from..to` (every one of them was booked).
    fn remove(&mut self, i: u32, from: u64, to: u64) {
        let mut t = from;
        while t < to {
            let interval = t / self.interval;
            let mut n = (to - t).min((interval + 1) * self.interval - t);
            if interval == self.current {
                self.busy[i as usize] -= n;
            } else {
                for c in self.carry.iter_mut().filter(|c| c.0 == interval && c.1 == i) {
                    let k = n.min(c.2);
                    (c.2, n) = (c.2 - k, n - k);
                }
                self.carry.retain(|c| c.2 > 0);
            }
            t = (interval + 1) * self.interval;
        }
    }

    /// Emits the current interval's rows and empties it.
    fn flush(&mut self) {
        self.touched.sort_unstable();
        if self.rows.start.len() + self.touched.len() > MAX_ROWS {
            self.touched.iter().for_each(|&i| self.busy[i as usize] = 0);
            self.touched.clear();
            return;
        }
        for &i in &self.touched {
            if self.busy[i as usize] == 0 {
                continue; // every phit of it was past the end
            }
            let r = &mut self.rows;
            r.start.push(self.current * self.interval);
            r.channel.push((i as usize / self.vcs) as u64);
            r.vc.push((i as usize % self.vcs) as u64);
            r.busy.push(std::mem::take(&mut self.busy[i as usize]));
        }
        self.touched.clear();
    }

    /// Makes `interval` the current one: every earlier interval with phits is emitted.
    fn advance_to(&mut self, interval: u64) {
        while self.current < interval {
            self.flush();
            // The next interval with carried phits, if it comes before `interval`.
            let next = self.carry.iter().map(|c| c.0).filter(|&c| c > self.current).min();
            self.current = next.map_or(interval, |n| n.min(interval));
            let carried: Vec<_> = self.carry.iter().copied().filter(|c| c.0 == self.current).collect();
            self.carry.retain(|c| c.0 != self.current);
            for (iv, i, phits) in carried {
                self.add(iv, i, phits);
            }
        }
    }
}

impl Collector for LinkUtilisation {
    fn from_config(stats: &StatsConfig, net: Network) -> Option<Self> {
        stats.link_utilisation.then(|| LinkUtilisation {
            interval: stats.interval(),
            vcs: net.vcs,
            current: 0,
            busy: vec![0; net.channels * net.vcs],
            touched: Vec::new(),
            carry: Vec::new(),
            last: vec![(0, 0, 0); net.channels],
            rows: Rows::default(),
        })
    }

    fn wants_hops(&self) -> bool {
        true
    }

    fn hop(&mut self, h: &Hop) {
        self.advance_to(h.cycle / self.interval);
        let i = h.channel * self.vcs as u32 + h.vc;
        self.last[h.channel as usize] = (h.cycle, i, h.phits);
        let (mut t, mut left) = (h.cycle, h.phits as u64);
        while left > 0 {
            let interval = t / self.interval;
            let n = left.min((interval + 1) * self.interval - t);
            self.add(interval, i, n);
            (t, left) = (t + n, left - n);
        }
    }

    fn tables(&mut self, now: u64) -> Vec<(&'static str, Table)> {
        for c in 0..self.last.len() {
            let (start, i, phits) = self.last[c];
            let end = start + phits as u64;
            if end > now {
                self.remove(i, start.max(now), end);
            }
        }
        let last = self.carry.iter().map(|c| c.0).max().unwrap_or(self.current);
        self.advance_to(last);
        self.flush();
        let r = std::mem::take(&mut self.rows);
        let cycles: Vec<u64> = r.start.iter().map(|&s| self.interval.min(now.saturating_sub(s))).collect();
        let utilisation = r.busy.iter().zip(&cycles).map(|(&b, &c)| b as f64 / c as f64).collect();
        let table = Table::default()
            .int("interval_start", r.start)
            .int("channel", r.channel)
            .int("vc", r.vc)
            .int("busy_phits", r.busy)
            .int("cycles", cycles)
            .float("utilisation", utilisation);
        vec![("link_utilisation", table)]
    }
}
