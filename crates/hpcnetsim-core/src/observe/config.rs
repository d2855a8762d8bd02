//! `[stats]`: the collectors a run switches on (all off by default: they cost nothing then).

use serde::{Deserialize, Serialize};

/// The `[stats]` table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Per-link and per-VC utilisation over time, in intervals of `interval_cycles`
    /// (`link_utilisation.parquet`; the engine runs on one thread).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub link_utilisation: bool,
    /// Length of one utilisation interval, in cycles (0: 1000).
    #[serde(skip_serializing_if = "is_zero")]
    pub interval_cycles: u64,
    /// Latency percentiles (p50, p99, p99.9) per traffic class and job (`latency_percentiles.parquet`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub latency_percentiles: bool,
    /// Fraction of the delivered packets recorded one by one (`packets.parquet`; 0: none;
    /// every ⌈1 / fraction⌉-th delivery, so the same packets whatever the thread count).
    #[serde(skip_serializing_if = "is_zero_f")]
    pub packet_sample: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_f(x: &f64) -> bool {
    *x == 0.0
}

impl StatsConfig {
    /// Whether every collector is off (left out of serialised configs).
    pub fn is_default(&self) -> bool {
        *self == StatsConfig::default()
    }

    /// The utilisation interval in cycles.
    pub fn interval(&self) -> u64 {
        if self.interval_cycles == 0 {
            1000
        } else {
            self.interval_cycles
        }
    }

    /// Refuses values that make no sense, naming the field.
    pub fn validate(&self) -> Result<(), (&'static str, String, &'static str)> {
        if !(0.0..=1.0).contains(&self.packet_sample) || self.packet_sample.is_nan() {
            return Err(("stats.packet_sample", self.packet_sample.to_string(), "a fraction from 0 (off) to 1"));
        }
        if self.interval_cycles > 1 << 40 {
            return Err(("stats.interval_cycles", self.interval_cycles.to_string(), "cycles from 1 to 2^40 (0: 1000)"));
        }
        Ok(())
    }
}
