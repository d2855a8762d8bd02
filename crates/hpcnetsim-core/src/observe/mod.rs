//! What the engine and its components report while a run goes on: the counters every run
//! keeps, the latency histograms of the measured packets, and the collectors a config
//! switches on under `[stats]` (`collector.rs`). Kept apart from `stats`, whose results
//! name workloads, so that the switch components may count without depending on them.

pub mod collector;
mod config;
mod counters;
pub mod latency;
pub mod table;

pub use collector::{Collector, Delivery, Hop, Network};
pub use config::StatsConfig;
pub use counters::Counters;
use latency::LatencyHistogram;
use std::collections::BTreeMap;
use table::Table;

/// Declares the collectors, one line each (`module::Type`): the modules, and `build`, which
/// makes those a `[stats]` table switches on.
macro_rules! collectors {
    ($($module:ident :: $ty:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// The collectors `stats` switches on, in registration order.
        fn build(stats: &StatsConfig, net: Network) -> Vec<Box<dyn Collector>> {
            let mut on: Vec<Box<dyn Collector>> = Vec::new();
            $(if let Some(c) = <$module::$ty as Collector>::from_config(stats, net) {
                on.push(Box::new(c));
            })*
            on
        }
    };
}

// The statistics a config may switch on, one line each.
collectors! {
    link_utilisation::LinkUtilisation,
    latency_percentiles::LatencyPercentiles,
    packet_sample::PacketSample,
}

/// What a run counts and records: the counters always, the latencies of delivered packets
/// while recording, and the switched-on collectors while recording.
#[derive(Default)]
pub struct Observers {
    /// Counters since the last reset.
    pub counters: Counters,
    /// Cycle of the last delivery.
    pub last_delivery: u64,
    /// Packets generated and not yet delivered or dropped.
    pub in_flight: u64,
    /// Network latencies (injection to delivery) of recorded packets.
    pub network_latency: LatencyHistogram,
    /// End-to-end latencies (generation to delivery) of recorded packets.
    pub end_to_end_latency: LatencyHistogram,
    /// The `[stats]` collectors.
    collectors: Vec<Box<dyn Collector>>,
    /// Whether one of them wants the hops.
    wants_hops: bool,
    /// Per task: its job, for a run of concurrent jobs (empty otherwise).
    task_job: Vec<u32>,
}

impl Observers {
    /// Switches on the collectors of `stats` for a network of `net`.
    pub fn collect(&mut self, stats: &StatsConfig, net: Network) {
        self.collectors = build(stats, net);
        self.wants_hops = self.collectors.iter().any(|c| c.wants_hops());
    }

    /// Whether any collector is on (the engine then builds a `Delivery` for each packet).
    #[inline]
    pub fn collecting(&self) -> bool {
        !self.collectors.is_empty()
    }

    /// Whether a collector wants every hop.
    #[inline]
    pub fn wants_hops(&self) -> bool {
        self.wants_hops
    }

    /// Names the job of each task (`jobs[j]` holds job `j`'s tasks).
    pub fn set_jobs(&mut self, jobs: &[std::ops::Range<usize>]) {
        let tasks = jobs.iter().map(|r| r.end).max().unwrap_or(0);
        self.task_job = vec![0; tasks];
        for (j, r) in jobs.iter().enumerate() {
            self.task_job[r.clone()].iter_mut().for_each(|x| *x = j as u32);
        }
    }

    /// The job of task `task` (0 without jobs).
    pub fn job_of(&self, task: usize) -> u32 {
        self.task_job.get(task).copied().unwrap_or(0)
    }

    /// Tells every collector about a delivery.
    pub fn delivered(&mut self, d: &Delivery) {
        self.collectors.iter_mut().for_each(|c| c.delivered(d));
    }

    /// Tells the collectors that want hops about one.
    pub fn hop(&mut self, h: &Hop) {
        self.collectors.iter_mut().filter(|c| c.wants_hops()).for_each(|c| c.hop(h));
    }

    /// Every collector's tables at the end of the run at `now`, by name.
    pub fn tables(&mut self, now: u64) -> BTreeMap<String, Table> {
        self.collectors.iter_mut().flat_map(|c| c.tables(now)).map(|(n, t)| (n.to_string(), t)).collect()
    }
}
