//! Named switch presets and how a `[switch]` table is read: the preset fills in every field,
//! the fields written in the table override it.

use super::switch::{Buffers, CreditUnit, Switching};
use crate::config::{Arbitration, OutputAllocation, SwitchConfig};
use serde::Deserialize;

/// The presets, as the config names them.
pub const PRESETS: &str = "insee, extoll, elite, output-queued";

/// The fields of preset `name`, or `None` if there is no such preset.
pub fn preset(name: &str) -> Option<SwitchConfig> {
    let insee = SwitchConfig::default();
    match name {
        "insee" => Some(insee),
        // Paper 003 §2.1 and §3: virtual output queues in multi-queue buffers, iSLIP,
        // virtual cut-through, 16-byte cells with one credit each, a grant takes the link.
        "extoll" => Some(SwitchConfig {
            preset: name.into(),
            buffers: Buffers::Voq,
            arbitration: Arbitration::Islip,
            islip_iterations: 1,
            output_allocation: OutputAllocation::Link,
            credit_unit: CreditUnit::Cell,
            cell_bytes: 16,
            phit_bytes: 16,
            vcs: 3,
            ..insee
        }),
        // Paper 004 §2.2: the Elite switch of QsNET. Wormhole with 16-bit flits and flit
        // credits, two VCs per link, 8 ports (the k-ary n-tree with k = 4 gives them).
        // Timing at the Elite's 400 MB/s per link direction, one 16-bit flit per 5 ns cycle:
        // 35 ns flow-through (§2.2, 7 cycles) and about 50 ns per hop with wire and link
        // protocol (§5.1: 15 ns, 3 cycles). Buffers: the paper gives the link logic's "128
        // entry, 16 bit FIFO RAM" for the two VCs (§2.1.6); each VC is taken to hold 64 flits,
        // more than the credit loop (11 cycles). Arbitration: the Elite ages waiting packets
        // so that the oldest goes first (§2.2); the up-phase picks among the group of up-links
        // by the routing (tree-adaptive) and the least-occupied selection.
        "elite" => Some(SwitchConfig {
            preset: name.into(),
            switching: Switching::Wormhole,
            phit_bytes: 2,
            vcs: 2,
            buffer_flits: 64,
            switch_delay_cycles: 7,
            link_delay_cycles: 3,
            arbitration: Arbitration::OldestFirst,
            ..insee
        }),
        // The output-queued router of BookSim2 and SuperSim (see `output_queued.rs`): a
        // crossbar twice as fast as the links into output queues of 64 packets (16 leave a
        // 1-VC crossbar at full load 3 % short of the perfect crossbar, 64 and more do not);
        // round-robin among the VCs of a link, a grant takes the link.
        "output-queued" => Some(SwitchConfig {
            preset: name.into(),
            speedup: 2,
            output_queue_packets: 64,
            arbitration: Arbitration::RoundRobin,
            output_allocation: OutputAllocation::Link,
            ..insee
        }),
        _ => None,
    }
}

/// A `[switch]` table as written: every field optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchFields {
    preset: Option<String>,
    queue_packets: Option<u32>,
    vcs: Option<u32>,
    injection_queue_packets: Option<u32>,
    injection_vcs: Option<u32>,
    arbitration: Option<Arbitration>,
    output_allocation: Option<OutputAllocation>,
    switch_delay_cycles: Option<u32>,
    link_delay_cycles: Option<u32>,
    credit_delay_cycles: Option<u32>,
    phit_bytes: Option<u32>,
    buffers: Option<Buffers>,
    switching: Option<Switching>,
    islip_iterations: Option<u32>,
    credit_unit: Option<CreditUnit>,
    cell_bytes: Option<u32>,
    traffic_classes: Option<u32>,
    routing_delay_cycles: Option<u32>,
    buffer_write_cycles: Option<u32>,
    arbitration_delay_cycles: Option<u32>,
    crossbar_delay_cycles: Option<u32>,
    buffer_flits: Option<u32>,
    speedup: Option<u32>,
    output_queue_packets: Option<u32>,
}

impl TryFrom<SwitchFields> for SwitchConfig {
    type Error = String;

    fn try_from(f: SwitchFields) -> Result<Self, String> {
        let name = f.preset.unwrap_or_else(|| "insee".into());
        let Some(mut s) = preset(&name) else {
            return Err(format!("preset = '{name}' is invalid: one of {PRESETS}"));
        };
        macro_rules! set {
            ($($field:ident),*) => { $(if let Some(v) = f.$field { s.$field = v; })* };
        }
        set!(
            queue_packets,
            vcs,
            injection_queue_packets,
            injection_vcs,
            arbitration,
            output_allocation,
            switch_delay_cycles,
            link_delay_cycles,
            credit_delay_cycles,
            phit_bytes,
            buffers,
            switching,
            islip_iterations,
            credit_unit,
            cell_bytes,
            traffic_classes,
            routing_delay_cycles,
            buffer_write_cycles,
            arbitration_delay_cycles,
            crossbar_delay_cycles,
            buffer_flits,
            speedup,
            output_queue_packets
        );
        Ok(s)
    }
}
