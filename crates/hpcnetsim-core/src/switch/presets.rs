//! Named switch presets and how a `[switch]` table is read: the preset fills in every field,
//! the fields written in the table override it.

use super::{Buffers, CreditUnit, Switching};
use crate::config::{Arbitration, OutputAllocation, SwitchConfig};
use serde::Deserialize;

/// The presets, as the config names them.
pub const PRESETS: &str = "insee, extoll, elite";

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
        // Paper 004 §2.2: Elite switches of QsNET, wormhole with 16-bit flits, two VCs.
        "elite" => Some(SwitchConfig {
            preset: name.into(),
            switching: Switching::Wormhole,
            phit_bytes: 2,
            vcs: 2,
            output_allocation: OutputAllocation::Link,
            arbitration: Arbitration::RoundRobin,
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
            crossbar_delay_cycles
        );
        Ok(s)
    }
}
