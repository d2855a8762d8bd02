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
pub mod parameters;
pub(crate) mod queue_state;
pub(crate) mod reach;
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

pub use crate::config::presets;
pub use crate::config::switch::{is_one, is_zero, validate, Buffers, CreditUnit, Switching};
use crate::config::{Arbitration, Config, OutputAllocation};

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
    /// Cycles from a NIC starting a packet to its head's arrival at the first switch's
    /// buffer (`hop_delay` unless `switch.nic_link_delay_cycles` is set).
    pub inject_delay: u64,
    /// Cycles from the last switch's grant to the head's arrival at the NIC
    /// (`hop_delay` unless `switch.nic_link_delay_cycles` is set).
    pub eject_delay: u64,
    /// Fewest cycles a crossbar input spends on one packet (iSLIP; 0: its length).
    pub input_packet_cycles: u64,
    /// Traffic classes; the VCs are split evenly among them.
    pub traffic_classes: u32,
    /// Whether the last packet of a message carries only the cells it needs (otherwise it
    /// is padded to the full packet size).
    pub trim_last_packet: bool,
    /// The technologies' own `[switch]` fields (each technology's, in its file).
    pub params: Params,
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
            inject_delay: s.nic_link_delay_cycles.map_or(stages + s.link_delay_cycles, |n| n) as u64,
            eject_delay: (stages + s.nic_link_delay_cycles.unwrap_or(s.link_delay_cycles)) as u64,
            input_packet_cycles: s.input_packet_cycles as u64,
            traffic_classes: s.traffic_classes,
            trim_last_packet: trim,
            params: Params::read(&s.technology_fields),
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
