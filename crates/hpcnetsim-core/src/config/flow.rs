//! The `[flow]` table and the `model` switch: the flow-level model's paths, link
//! bandwidth, message size and benchmark settings (docs/flow.md).

use super::PlacementKind;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Which model runs a config.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// The packet engine (cycle-exact, virtual cut-through).
    #[default]
    Packet,
    /// The flow-level model: max-min fair rates of steady flows over static paths.
    Flow,
}

impl Model {
    /// Whether this is the default (kept out of serialised configs).
    pub fn is_packet(&self) -> bool {
        *self == Model::Packet
    }
}

/// How the flow model turns the routing into paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathsKind {
    /// `first` for deterministic routings, `spread` for adaptive ones.
    Auto,
    /// The routing's first candidate at every hop (d-mod-k on trees, dimension order).
    First,
    /// Evenly over the distinct output ports the routing offers at every hop.
    Spread,
    /// Evenly over all minimal paths (ignores the routing).
    Minimal,
    /// Valiant: evenly over every intermediate switch with terminals, each phase following
    /// the routing as `auto` does (the average of per-packet random intermediates).
    Valiant,
}

/// What a flow's bandwidth is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Its max-min fair rate while every flow of the pattern runs.
    Rate,
    /// Message size over completion time, rates recomputed as flows finish.
    Completion,
}

/// The flow-level model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlowConfig {
    /// Path source.
    pub paths: PathsKind,
    /// Bandwidth of every link in bytes per second, or a rate with its unit (`"4 GB/s"`); 0
    /// means one phit per cycle (bandwidths in bytes per cycle, times in cycles).
    #[serde(deserialize_with = "super::units::bytes_per_second_or_rate")]
    pub link_bandwidth: f64,
    /// Bandwidth of a flow: steady rate or message size over completion time.
    pub measure: Measure,
    /// Message size in bytes of every flow (eBB and mpiGraph; paper 001: 1 MiB).
    pub message_bytes: u64,
    /// Random bisections drawn by the eBB benchmark.
    pub samples: u32,
    /// Nodes taking part in eBB and mpiGraph (0 = every terminal).
    pub nodes: usize,
    /// Placement of those nodes (ranks) on terminals.
    pub placement: PlacementKind,
    /// Terminal of every rank when `placement = "list"`.
    pub placement_list: Vec<usize>,
}

impl Default for FlowConfig {
    fn default() -> Self {
        FlowConfig {
            paths: PathsKind::Auto,
            link_bandwidth: 0.0,
            measure: Measure::Rate,
            message_bytes: 1 << 20,
            samples: 1000,
            nodes: 0,
            placement: PlacementKind::Linear,
            placement_list: Vec::new(),
        }
    }
}

impl FlowConfig {
    /// Whether every field has its default value (kept out of serialised configs).
    pub fn is_default(&self) -> bool {
        *self == FlowConfig::default()
    }

    /// Checks every value.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &str, value: &dyn std::fmt::Display, allowed: &str| {
            Err(Error::invalid("config", field, value, allowed))
        };
        if !(self.link_bandwidth >= 0.0 && self.link_bandwidth.is_finite()) {
            return bad("flow.link_bandwidth", &self.link_bandwidth, "bytes per second >= 0 (0 = one phit per cycle)");
        }
        if self.message_bytes == 0 {
            return bad("flow.message_bytes", &self.message_bytes, "a positive number of bytes");
        }
        if !(1..=1_000_000).contains(&self.samples) {
            return bad("flow.samples", &self.samples, "an integer between 1 and 1000000");
        }
        if self.nodes == 1 {
            return bad("flow.nodes", &self.nodes, "0 (every terminal) or at least 2");
        }
        Ok(())
    }
}
