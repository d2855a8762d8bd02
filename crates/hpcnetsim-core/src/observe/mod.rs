//! What the engine and its components report while a run goes on, read by the statistics
//! (`crate::stats`) at its end: the run's counters. Kept apart from `stats`, whose results
//! name workloads, so that the switch components may count without depending on them.

mod counters;
pub mod latency;

pub use counters::Counters;
use latency::LatencyHistogram;

/// What a run counts and records: the counters always, the latencies of delivered packets
/// while recording.
#[derive(Clone, Debug, Default)]
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
}
