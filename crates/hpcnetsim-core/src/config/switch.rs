//! The switch's configuration values (`[switch]`): buffer organisation, switching, credit
//! unit, and the rules they must satisfy together. The behaviour they select is in
//! `crate::switch`; the presets that fill them in are in `presets.rs`.

use crate::config::{Arbitration, Config, OutputAllocation};
use serde::{Deserialize, Serialize};

/// Largest VC buffer, in flits.
pub const MAX_BUFFER_FLITS: u32 = 1 << 16;

/// How an input port buffers the packets it receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Buffers {
    /// One FIFO per input port and VC; only its front packet may request an output, so a
    /// blocked front blocks the packets behind it (head-of-line blocking).
    Fifo,
    /// Virtual output queues: per input port and VC, one queue per output port, sharing
    /// the room of the VC's buffer (a multi-queue buffer); a packet is routed when it
    /// arrives and waits in the queue of its output port, so no head-of-line blocking.
    Voq,
}

/// How much of a packet must fit downstream before it may leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Switching {
    /// Virtual cut-through: room for the whole packet downstream.
    CutThrough,
    /// Wormhole: room for one flit; a packet may span several switches.
    Wormhole,
}

/// What one credit stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CreditUnit {
    /// One packet slot of the largest size: any packet takes a whole slot.
    Packet,
    /// One phit (flit): a packet takes as much room as it has phits.
    Phit,
    /// One cell of `switch.cell_bytes`: a packet takes its size rounded up to cells.
    Cell,
}

impl Buffers {
    /// Whether this is the default (left out of serialised configs).
    pub fn is_fifo(&self) -> bool {
        *self == Buffers::Fifo
    }
}

impl Switching {
    /// Whether this is the default (left out of serialised configs).
    pub fn is_cut_through(&self) -> bool {
        *self == Switching::CutThrough
    }
}

impl CreditUnit {
    /// Whether this is the default (left out of serialised configs).
    pub fn is_phit(&self) -> bool {
        *self == CreditUnit::Phit
    }
}

/// Whether a count is its default of one (left out of serialised configs).
pub fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Whether a count is its default of zero (left out of serialised configs).
pub fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Refuses switch settings that cannot work together, naming the field.
pub fn validate(cfg: &Config, family: &crate::topology::Family) -> crate::Result<()> {
    use crate::config::Algorithm;
    let s = &cfg.switch;
    let bad = |field: &str, value: &dyn std::fmt::Display, allowed: &str| {
        Err(crate::Error::invalid("config", field, value, allowed))
    };
    // Checked whatever the arbitration: a sweep axis may turn iSLIP on for this value.
    if !(1..=64).contains(&s.islip_iterations) {
        return bad("switch.islip_iterations", &s.islip_iterations, "an integer between 1 and 64");
    }
    if s.arbitration == Arbitration::Islip && s.output_allocation == OutputAllocation::Vc {
        return bad(
            "switch.output_allocation",
            &"\"vc\"",
            "\"link\" with arbitration = \"islip\" (iSLIP matches input ports to output links)",
        );
    }
    if s.traffic_classes == 0 || s.traffic_classes > s.vcs || !s.vcs.is_multiple_of(s.traffic_classes) {
        return bad(
            "switch.traffic_classes",
            &s.traffic_classes,
            &format!("a divisor of switch.vcs = {} (every traffic class needs at least one VC)", s.vcs),
        );
    }
    // Two ways of cutting messages into packets: the NIC model's payloads, or cells.
    let cells = s.credit_unit == CreditUnit::Cell || cfg.workload.as_ref().is_some_and(|w| w.packet_cells_max > 0);
    if cells && cfg.nic.enabled {
        return bad(
            "nic.enabled",
            &true,
            "false with cell-granular packets (switch.credit_unit = \"cell\" or workload.packet_cells_*)",
        );
    }
    if s.cell_bytes == 0 || s.cell_bytes > 1 << 20 {
        return bad("switch.cell_bytes", &s.cell_bytes, "bytes per cell between 1 and 1048576");
    }
    let stages = [s.routing_delay_cycles, s.buffer_write_cycles, s.arbitration_delay_cycles, s.crossbar_delay_cycles];
    if let Some(&d) = stages.iter().find(|&&d| d > 1000) {
        return bad("switch.*_delay_cycles", &d, "stage latencies between 0 and 1000 cycles");
    }
    // At least one cycle: a packet reaches its first switch after the NIC has started it.
    if let Some(d) = s.nic_link_delay_cycles.filter(|&d| d == 0 || d > 1000) {
        return bad("switch.nic_link_delay_cycles", &d, "cycles between 1 and 1000, or unset");
    }
    if s.input_packet_cycles > 1000 || (s.input_packet_cycles > 0 && s.arbitration != Arbitration::Islip) {
        return bad(
            "switch.input_packet_cycles",
            &s.input_packet_cycles,
            "0, or cycles between 1 and 1000 with arbitration = \"islip\" (its crossbar inputs take one packet at a time)",
        );
    }
    if let Some(cycles) = s.nic_link_delay_cycles.filter(|_| s.switching == Switching::Wormhole) {
        // Named as written: as a time of [link] when that set it.
        let (field, value): (&str, &dyn std::fmt::Display) = match cfg.link.nic_wire_latency.as_str() {
            "" => ("switch.nic_link_delay_cycles", &cycles),
            _ => ("link.nic_wire_latency", &format!("'{}'", cfg.link.nic_wire_latency)),
        };
        return bad(field, value, "unset with switching = \"wormhole\" (NIC links are timed like any other there)");
    }
    if s.switching == Switching::Wormhole {
        let bubble = match (cfg.routing.algorithm(), family) {
            (Algorithm::BubbleAdaptive, _) => true,
            (Algorithm::Auto, crate::topology::Family::Torus(t)) => t.wrap && s.class_vcs() < 2,
            _ => false,
        };
        if bubble {
            return bad(
                "switch.switching",
                &"\"wormhole\"",
                "\"cut-through\" with bubble flow control (a bubble needs whole packets in the buffers)",
            );
        }
        return validate_wormhole(cfg);
    }
    if s.buffer_flits != 0 {
        return bad(
            "switch.buffer_flits",
            &s.buffer_flits,
            "0 with switching = \"cut-through\" (cut-through buffers hold switch.queue_packets packets)",
        );
    }
    Ok(())
}

/// Refuses wormhole settings that cannot work, naming the field (bubble flow control is
/// refused by the caller, which knows the topology).
fn validate_wormhole(cfg: &Config) -> crate::Result<()> {
    let s = &cfg.switch;
    let bad = |field: &str, value: &dyn std::fmt::Display, allowed: &str| {
        Err(crate::Error::invalid("config", field, value, allowed))
    };
    if s.buffers == Buffers::Voq {
        return bad("switch.buffers", &"\"voq\"", "\"fifo\" with switching = \"wormhole\"");
    }
    if s.arbitration == Arbitration::Islip {
        return bad(
            "switch.arbitration",
            &"\"islip\"",
            "\"random\", \"round-robin\" or \"oldest-first\" with switching = \"wormhole\" (iSLIP matches whole packets)",
        );
    }
    if s.credit_unit != CreditUnit::Phit {
        return bad(
            "switch.credit_unit",
            &format!("\"{}\"", crate::config::config_name(&s.credit_unit)),
            "\"phit\" with switching = \"wormhole\" (one credit per flit)",
        );
    }
    if s.buffer_flits > MAX_BUFFER_FLITS {
        return bad(
            "switch.buffer_flits",
            &s.buffer_flits,
            &format!("0 (switch.queue_packets packets) or between 1 and {MAX_BUFFER_FLITS} flits"),
        );
    }
    if s.buffer_flits == 0 && s.queue_packets as u64 * cfg.traffic.max_packet_phits() as u64 > MAX_BUFFER_FLITS as u64 {
        return bad(
            "switch.buffer_flits",
            &0,
            &format!("between 1 and {MAX_BUFFER_FLITS} flits (queue_packets × packet size is larger)"),
        );
    }
    Ok(())
}
