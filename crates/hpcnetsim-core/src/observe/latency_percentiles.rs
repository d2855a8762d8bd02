//! Latency percentiles per traffic class and job (`[stats] latency_percentiles = true`):
//! for every (class, job) that delivered packets while the run recorded, the count, mean,
//! p50, p99, p99.9 and maximum of the network latency (injection to delivery) and the
//! p50, p99 and p99.9 of the end-to-end latency (generation to delivery), in cycles.

use super::collector::{Collector, Delivery, Network};
use super::latency::LatencyHistogram;
use super::table::Table;
use super::StatsConfig;
use std::collections::BTreeMap;

/// Histograms per (class, job).
pub struct LatencyPercentiles {
    groups: BTreeMap<(u32, u32), (LatencyHistogram, LatencyHistogram)>,
}

impl Collector for LatencyPercentiles {
    fn from_config(stats: &StatsConfig, _: Network) -> Option<Self> {
        stats.latency_percentiles.then(|| LatencyPercentiles { groups: BTreeMap::new() })
    }

    fn delivered(&mut self, d: &Delivery) {
        let (network, end_to_end) = self.groups.entry((d.class, d.job)).or_default();
        network.record(d.delivered - d.injected);
        end_to_end.record(d.delivered - d.generated);
    }

    fn tables(&mut self, _now: u64) -> Vec<(&'static str, Table)> {
        let g = &self.groups;
        let col = |f: &dyn Fn(&LatencyHistogram, &LatencyHistogram) -> f64| g.values().map(|(n, e)| f(n, e)).collect();
        let table = Table::default()
            .int("class", g.keys().map(|k| k.0 as u64).collect())
            .int("job", g.keys().map(|k| k.1 as u64).collect())
            .int("count", g.values().map(|(n, _)| n.summary().count).collect())
            .float("network_mean", col(&|n, _| n.summary().mean))
            .float("network_p50", col(&|n, _| n.quantile(0.5)))
            .float("network_p99", col(&|n, _| n.quantile(0.99)))
            .float("network_p999", col(&|n, _| n.quantile(0.999)))
            .float("network_max", col(&|n, _| n.summary().max))
            .float("end_to_end_p50", col(&|_, e| e.quantile(0.5)))
            .float("end_to_end_p99", col(&|_, e| e.quantile(0.99)))
            .float("end_to_end_p999", col(&|_, e| e.quantile(0.999)));
        vec![("latency_percentiles", table)]
    }
}
