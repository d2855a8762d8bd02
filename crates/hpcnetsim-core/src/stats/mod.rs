//! Statistics: the observers of a run and the result they produce.

pub mod deadlock;

use serde::Serialize;

pub use crate::observe::latency::{self, LatencyHistogram, Summary};
pub use crate::observe::Counters;
pub use deadlock::{describe, describe_cycle, BlockedChannel, Evidence};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Warm-up, convergence and every batch completed.
    Converged,
    /// Accepted load never settled within `measurement.max_convergence_cycles`: no
    /// throughput is reported.
    NotConverged,
    /// No packet was delivered for `measurement.deadlock_cycles` while packets were queued
    /// (independent traffic), or the programs stopped making progress (causal workloads).
    Deadlock,
    /// Every program finished and the network emptied (causal workloads).
    Completed,
    /// A wall-clock or cycle budget stopped the run first: whatever it reports covers only
    /// the cycles simulated (accepted load only from the batches that completed).
    Partial,
}

/// The result of running a causal workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExecutionResult {
    /// Topology spec.
    pub topology: String,
    /// Routing algorithm used.
    pub routing: String,
    /// Virtual channels per link.
    pub vcs: u32,
    /// Master seed.
    pub seed: u64,
    /// Kernel name as in configs.
    pub kernel: String,
    /// Number of tasks.
    pub tasks: usize,
    /// `completed` or `deadlock`.
    pub status: Status,
    /// Cycle at which every program had finished and the network was empty.
    pub execution_time_cycles: Option<u64>,
    /// Messages sent.
    pub messages: usize,
    /// From a message's send to the arrival of its last packet, in cycles.
    pub message_latency: Summary,
    /// Network latency of the packets, in cycles.
    pub packet_latency: Summary,
    /// Link utilisation over the execution time.
    pub link_utilisation: Utilisation,
    /// Packet hops simulated.
    pub packet_hops: u64,
    /// Phit hops simulated.
    pub phit_hops: u64,
    /// Cycles simulated: a completed run's execution time, else the cycle it stopped at.
    pub cycles: u64,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// Width of the time bins of `consumed_load`, in cycles.
    pub consumed_load_bin_cycles: u64,
    /// Consumed load (phits delivered per cycle per terminal) in each time bin.
    pub consumed_load: Vec<f64>,
    /// For a deadlocked workload, what (up to ten of) the blocked tasks wait for.
    pub blocked: Vec<String>,
    /// When packets are stuck in the network: the cycle of blocked channels.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_channels: Vec<BlockedChannel>,
    /// Whether `blocked_channels` is a cycle.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blocked_cycle: bool,
    /// One line saying what happened.
    pub message: String,
    /// Per-rank timings and latency distribution of trace and program replays (their traffic
    /// matrix is the table `traffic`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<crate::workload::traces::Replay>,
    /// Concurrent jobs (`[[workload.jobs]]`): each job's own execution time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<crate::workload::jobs::JobResult>,
    /// The tables of the `[stats]` collectors, by name (none unless switched on), and a
    /// replay's traffic matrix as `traffic`.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tables: std::collections::BTreeMap<String, crate::observe::table::Table>,
}

/// Utilisation of the links (busy fraction of the measured cycles, one phit per cycle = 1);
/// none without a measured cycle (a run stopped before its first batch).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Utilisation {
    /// Mean over the switch-to-switch channels (each direction of a link is a channel).
    pub mean: Option<f64>,
    /// Median channel.
    pub p50: Option<f64>,
    /// 99th percentile channel.
    pub p99: Option<f64>,
    /// Busiest channel.
    pub max: Option<f64>,
    /// Every channel, indexed like the switch ports (`measurement.per_link_utilisation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_channel: Option<Vec<f64>>,
}

/// Latency summaries in cycles.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Latencies {
    /// From the head leaving the source NIC to the tail reaching the destination.
    pub network: Summary,
    /// From generation (entering the injection queue) to the tail reaching the destination.
    pub end_to_end: Summary,
}

/// The result of one simulation run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResult {
    /// Topology spec.
    pub topology: String,
    /// Routing algorithm actually used (after resolving `auto`).
    pub routing: String,
    /// Virtual channels per link.
    pub vcs: u32,
    /// Master seed.
    pub seed: u64,
    /// How the run ended.
    pub status: Status,
    /// Offered load, phits per cycle per node.
    pub offered_load: f64,
    /// Accepted load (phits delivered per cycle per node), mean over the batches; `None`
    /// unless the run converged.
    pub accepted_load: Option<f64>,
    /// Standard deviation of the accepted load over the batches.
    pub accepted_load_std: Option<f64>,
    /// Accepted load of every batch.
    pub batch_accepted_loads: Vec<f64>,
    /// Whether the network is saturated: accepted load below 95 % of the offered load, or
    /// more than 1 % of the generated packets dropped at full injection queues.
    pub saturated: bool,
    /// Latencies of the packets delivered during the batches.
    pub latency: Latencies,
    /// Link utilisation during the batches.
    pub link_utilisation: Utilisation,
    /// Packets generated by the sources during the batches.
    pub packets_generated: u64,
    /// Of those, dropped because the injection queue was full.
    pub packets_dropped: u64,
    /// Packets delivered during the batches.
    pub packets_delivered: u64,
    /// Cycles simulated in total (warm-up, convergence and batches).
    pub cycles: u64,
    /// Packet hops simulated in total (one per link a packet head crosses, NIC links included).
    pub packet_hops: u64,
    /// Phit hops simulated in total (packet hops times packet sizes).
    pub phit_hops: u64,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
    /// The topology's uniform-traffic bound for every routing, for reference (`None` where
    /// it is not computed; see `topo describe`).
    pub ideal_throughput: Option<f64>,
    /// Uniform throughput bound under the routing's actual paths (table routing only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routed_throughput: Option<f64>,
    /// For a deadlock: the cycle of blocked channels, each waiting for the next (or, when
    /// `blocked_cycle` is false, blocked channels that wait for room no queue can give).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_channels: Vec<BlockedChannel>,
    /// Whether `blocked_channels` is a cycle.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blocked_cycle: bool,
    /// One line saying what happened.
    pub message: String,
    /// The tables of the `[stats]` collectors, by name (none unless switched on).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tables: std::collections::BTreeMap<String, crate::observe::table::Table>,
}
