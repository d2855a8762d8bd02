//! Latency collection: exact values kept in a histogram with unit buckets (cycle
//! latencies are integers), so percentiles are exact. Latencies below [`DENSE`] cycles are
//! counted in a vector indexed by the latency, longer ones one entry per distinct value, so
//! memory follows the samples and not the longest latency (a message of 2 GB takes 10^8
//! cycles; a vector up to it would take 8 bytes per cycle).

use serde::Serialize;
use std::collections::BTreeMap;

/// Latencies below this many cycles are counted in the dense vector (at most 512 KiB).
const DENSE: u64 = 1 << 16;

/// Mean, percentiles and maximum of a set of latencies, in cycles. Without samples they are
/// zero here and serialised as null: a mean of 0 cycles over no packet would read as a value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Number of samples.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
}

impl Serialize for Summary {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let value = |x: f64| (self.count > 0).then_some(x);
        let mut s = serializer.serialize_struct("Summary", 6)?;
        s.serialize_field("count", &self.count)?;
        s.serialize_field("mean", &value(self.mean))?;
        s.serialize_field("p50", &value(self.p50))?;
        s.serialize_field("p90", &value(self.p90))?;
        s.serialize_field("p99", &value(self.p99))?;
        s.serialize_field("max", &value(self.max))?;
        s.end()
    }
}

/// Counts of integer latencies.
#[derive(Clone, Debug, Default)]
pub struct LatencyHistogram {
    /// Samples per latency below [`DENSE`], indexed by the latency.
    counts: Vec<u64>,
    /// Samples per latency of [`DENSE`] cycles or more.
    long: BTreeMap<u64, u64>,
    total: u64,
    sum: u128,
}

impl LatencyHistogram {
    /// Records one latency.
    pub fn record(&mut self, cycles: u64) {
        if cycles < DENSE {
            let i = cycles as usize;
            if i >= self.counts.len() {
                self.counts.resize((i + 1).next_power_of_two(), 0);
            }
            self.counts[i] += 1;
        } else {
            *self.long.entry(cycles).or_insert(0) += 1;
        }
        self.total += 1;
        self.sum += cycles as u128;
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.counts.clear();
        self.long.clear();
        self.total = 0;
        self.sum = 0;
    }

    /// Every recorded latency with its count, ascending.
    fn counted(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let dense = self.counts.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(v, &c)| (v as u64, c));
        dense.chain(self.long.iter().map(|(&v, &c)| (v, c)))
    }

    /// Smallest value v such that at least a fraction `q` of the samples are <= v.
    pub fn quantile(&self, q: f64) -> f64 {
        let rank = ((q * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (v, c) in self.counted() {
            seen += c;
            if seen >= rank {
                return v as f64;
            }
        }
        0.0
    }

    /// The largest recorded latency (0 without samples).
    fn max(&self) -> u64 {
        match self.long.last_key_value() {
            Some((&v, _)) => v,
            None => self.counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u64,
        }
    }

    /// The summary of the recorded samples (all zero when there are none).
    pub fn summary(&self) -> Summary {
        if self.total == 0 {
            return Summary::default();
        }
        Summary {
            count: self.total,
            mean: self.sum as f64 / self.total as f64,
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            max: self.max() as f64,
        }
    }
}
