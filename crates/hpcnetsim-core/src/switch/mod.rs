//! The switch as a model: buffer organisation, switching, arbitration, credit unit and
//! per-stage latencies, chosen by configuration (`switch.preset` and the `switch` fields).
//! The packet engine (`crate::engine`) keeps time, events and packets; it asks this module
//! how a switch of the configured technology buffers packets, counts credits and matches
//! inputs to outputs. Presets reproduce the papers' switches: `insee` (papers 000/002),
//! `extoll` (paper 003), `elite` (paper 004). docs/engine.md describes each technology.

pub mod buffers;
pub(crate) mod channel_state;
pub mod classes;
pub(crate) mod fabric;
pub(crate) mod input_queued;
pub mod islip;
pub mod presets;
pub(crate) mod queue_state;
pub(crate) mod switch_lists;
#[macro_use]
pub(crate) mod technology;

// The switch technologies, one line each, in the order they are asked whether they take a
// configuration (see `technology.rs`); the input-queued cut-through switch takes any.
technologies! {
    wormhole::Wormhole,
    voq_islip::VoqIslip,
    output_queued::OutputQueued,
    cut_through::CutThrough,
}

use crate::config::{Arbitration, Config, OutputAllocation};
use serde::{Deserialize, Serialize};

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

/// The switch technology the engine runs, resolved from a validated config.
#[derive(Clone, Debug)]
pub struct Model {
    /// Buffer organisation.
    pub buffers: Buffers,
    /// Virtual cut-through or wormhole.
    pub switching: Switching,
    /// Room of every input buffer (one per input port and VC), in phits (flits).
    pub vc_room: u32,
    /// Output arbitration policy.
    pub arbitration: Arbitration,
    /// iSLIP iterations per matching.
    pub islip_iterations: u32,
    /// Whether output VCs are reserved (`vc`) or a grant takes the link (`link`).
    pub output_allocation: OutputAllocation,
    /// What a credit stands for.
    pub credit_unit: CreditUnit,
    /// Phits per cell (credit unit `cell`).
    pub cell_phits: u32,
    /// Largest packet, in phits (a `packet` credit).
    pub max_packet_phits: u32,
    /// Smallest packet, in phits.
    pub min_packet_phits: u32,
    /// Cycles from a grant to the head's arrival at the next buffer: every switch stage
    /// plus the link.
    pub hop_delay: u64,
    /// Traffic classes; the VCs are split evenly among them.
    pub traffic_classes: u32,
    /// Whether the last packet of a message carries only the cells it needs (otherwise it
    /// is padded to the full packet size).
    pub trim_last_packet: bool,
    /// Internal speedup of an output-queued switch (0: input-queued).
    pub speedup: u32,
    /// Room of an output queue of an output-queued switch, in phits.
    pub output_queue_room: u32,
}

impl Model {
    /// The switch model of `cfg`.
    pub fn new(cfg: &Config) -> Self {
        let s = &cfg.switch;
        let stages = s.switch_delay_cycles
            + s.routing_delay_cycles
            + s.buffer_write_cycles
            + s.arbitration_delay_cycles
            + s.crossbar_delay_cycles;
        let trim = s.credit_unit == CreditUnit::Cell;
        let cell_phits = s.cell_phits();
        // The smallest packet sets how many packets a queue may hold: header-only packets of
        // the NIC model (`cfg.min_packet_phits`) are smaller than `traffic.packet_phits`.
        let (mut min_packet_phits, mut max_packet_phits) = (cfg.min_packet_phits(), cfg.traffic.max_packet_phits());
        if let Some(w) = &cfg.workload {
            let (lo, hi) = w.packet_phits(cfg.traffic.packet_phits, cell_phits);
            min_packet_phits = min_packet_phits.min(lo);
            max_packet_phits = max_packet_phits.max(hi);
        }
        if trim {
            min_packet_phits = min_packet_phits.min(cell_phits);
            max_packet_phits = max_packet_phits.next_multiple_of(cell_phits);
        }
        let vc_room = match (s.switching, s.buffer_flits) {
            (Switching::Wormhole, n) if n > 0 => n,
            _ => s.queue_packets * max_packet_phits,
        };
        Model {
            buffers: s.buffers,
            switching: s.switching,
            vc_room,
            arbitration: s.arbitration,
            islip_iterations: s.islip_iterations,
            output_allocation: s.output_allocation,
            credit_unit: s.credit_unit,
            cell_phits,
            max_packet_phits,
            min_packet_phits,
            hop_delay: (stages + s.link_delay_cycles) as u64,
            traffic_classes: s.traffic_classes,
            trim_last_packet: trim,
            speedup: s.speedup,
            output_queue_room: s.output_queue_packets.max(1) * max_packet_phits,
        }
    }

    /// Room (in phits) a packet of `size` phits takes in a downstream buffer.
    #[inline]
    pub fn credit_cost(&self, size: u32) -> u32 {
        match self.credit_unit {
            CreditUnit::Phit => size,
            CreditUnit::Cell => size.div_ceil(self.cell_phits) * self.cell_phits,
            CreditUnit::Packet => self.max_packet_phits,
        }
    }

    /// Room taken by the smallest packet (the most packets a buffer can hold).
    pub fn min_packet_cost(&self) -> u32 {
        self.credit_cost(self.min_packet_phits).max(1)
    }

    /// Whether an input port may send several packets across the crossbar at once (one
    /// crossbar input per queue, INSEE's rule) or one at a time (iSLIP's port matching).
    pub fn matches_ports(&self) -> bool {
        self.arbitration == Arbitration::Islip
    }
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
    if s.speedup > 64 {
        return bad(
            "switch.speedup",
            &s.speedup,
            "0 (input-queued) or an output-queued crossbar's speedup from 1 to 64",
        );
    }
    if s.output_queue_packets > 4096 {
        return bad("switch.output_queue_packets", &s.output_queue_packets, "packets per output queue from 1 to 4096");
    }
    if s.speedup > 0 {
        let conflict = if s.switching == Switching::Wormhole {
            Some((
                "switch.switching",
                "\"wormhole\"",
                "\"cut-through\" with an output-queued switch (switch.speedup > 0)",
            ))
        } else if s.buffers == Buffers::Voq {
            Some(("switch.buffers", "\"voq\"", "\"fifo\" with an output-queued switch (switch.speedup > 0)"))
        } else if s.arbitration == Arbitration::Islip {
            Some((
                "switch.arbitration",
                "\"islip\"",
                "random, round-robin or oldest-first with an output-queued switch",
            ))
        } else if s.output_queue_packets == 0 {
            Some((
                "switch.output_queue_packets",
                "0",
                "packets per output queue from 1 to 4096 with switch.speedup > 0",
            ))
        } else {
            None
        };
        if let Some((field, value, allowed)) = conflict {
            return bad(field, &value, allowed);
        }
    }
    if s.switching == Switching::Wormhole {
        let bubble = match (cfg.routing.algorithm, family) {
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
        return wormhole::validate(cfg);
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
