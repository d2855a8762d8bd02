//! Per-packet records of a sample of the delivered packets (`[stats] packet_sample = f`):
//! every ⌈1 / f⌉-th delivery while the run records, with its source, destination, size,
//! class, job and the cycles it was generated, injected and delivered.

use super::collector::{Collector, Delivery, Network};
use super::table::Table;
use super::StatsConfig;

/// Most packets one run records (a sample of a long run stays a sample).
pub const MAX_PACKETS: usize = 10_000_000;

/// The sampled packets.
pub struct PacketSample {
    every: u64,
    seen: u64,
    rows: Vec<Delivery>,
}

impl Collector for PacketSample {
    fn from_config(stats: &StatsConfig, _: Network) -> Option<Self> {
        (stats.packet_sample > 0.0).then(|| PacketSample {
            every: (1.0 / stats.packet_sample).ceil().max(1.0) as u64,
            seen: 0,
            rows: Vec::new(),
        })
    }

    fn delivered(&mut self, d: &Delivery) {
        self.seen += 1;
        if self.seen.is_multiple_of(self.every) && self.rows.len() < MAX_PACKETS {
            self.rows.push(*d);
        }
    }

    fn tables(&mut self, _now: u64) -> Vec<(&'static str, Table)> {
        let r = std::mem::take(&mut self.rows);
        let col = |f: fn(&Delivery) -> u64| r.iter().map(f).collect::<Vec<u64>>();
        let table = Table::default()
            .int("src", col(|d| d.src as u64))
            .int("dst", col(|d| d.dst as u64))
            .int("size_phits", col(|d| d.size as u64))
            .int("class", col(|d| d.class as u64))
            .int("job", col(|d| d.job as u64))
            .int("generated", col(|d| d.generated))
            .int("injected", col(|d| d.injected))
            .int("delivered", col(|d| d.delivered));
        vec![("packets", table)]
    }
}
