//! The presets, as data: every switch preset (`switch.preset`) and technology preset
//! (`technology`) is a TOML file in `switch/` or `technology/`, registered one line each
//! below, with its sources in its comments. A config is resolved in layers: the defaults, the
//! switch preset, the technology preset, then what the config writes (`sources.rs` tells,
//! field by field, which layer a value came from). How a `[switch]` table is read: its
//! preset fills in every field, the fields written in the table override it.

use super::switch::{Buffers, CreditUnit, Switching};
use crate::config::{Arbitration, OutputAllocation, SwitchConfig, TechnologyFields};
use serde::Deserialize;

/// The switch presets, one line each: the name a config gives `switch.preset` and the file of
/// the `[switch]` fields it sets (each with its source in the file's comments); the others
/// keep their defaults.
const SWITCH: &[(&str, &str)] = &[
    ("insee", include_str!("switch/insee.toml")),
    ("extoll", include_str!("switch/extoll.toml")),
    ("elite", include_str!("switch/elite.toml")),
    ("output-queued", include_str!("switch/output-queued.toml")),
];

/// The technology presets, one line each: the name a config gives `technology` and the file
/// of the fields it fills in, table by table (docs/physical.md).
const TECHNOLOGY: &[(&str, &str)] = &[
    ("qsnet", include_str!("technology/qsnet.toml")),
    ("extoll", include_str!("technology/extoll.toml")),
    ("qdr-infiniband", include_str!("technology/qdr-infiniband.toml")),
    ("ndr-infiniband", include_str!("technology/ndr-infiniband.toml")),
];

/// The switch presets' names, as errors list them.
pub fn switch_names() -> String {
    SWITCH.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// The technology presets' names, as errors list them.
pub fn technology_names() -> String {
    TECHNOLOGY.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// The file of switch preset `name`, if there is one.
pub fn switch_file(name: &str) -> Option<&'static str> {
    SWITCH.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// The file of technology preset `name`, if there is one.
pub fn technology_file(name: &str) -> Option<&'static str> {
    TECHNOLOGY.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// The fields of switch preset `name` (its file over the defaults), or `None` if there is no
/// such preset.
pub fn preset(name: &str) -> Option<SwitchConfig> {
    let text = switch_file(name)?;
    let fields: SwitchFields = toml::from_str(text).expect("the switch presets are valid [switch] tables");
    let mut s = SwitchConfig { preset: name.into(), ..SwitchConfig::default() };
    fields.apply(&mut s);
    Some(s)
}

/// A `[switch]` table as written: every field optional. The fields it does not list are the
/// switch technologies' (`technology_fields.rs`): `switch/parameters.rs` refuses the names
/// no technology declares.
#[derive(Deserialize)]
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
    nic_link_delay_cycles: Option<u32>,
    input_packet_cycles: Option<u32>,
    buffer_flits: Option<u32>,
    #[serde(flatten)]
    technology_fields: TechnologyFields,
}

impl TryFrom<SwitchFields> for SwitchConfig {
    type Error = String;

    fn try_from(f: SwitchFields) -> Result<Self, String> {
        let name = f.preset.clone().unwrap_or_else(|| "insee".into());
        let Some(mut s) = preset(&name) else {
            return Err(format!("switch.preset = '{name}' is invalid: one of {}", switch_names()));
        };
        f.apply(&mut s);
        Ok(s)
    }
}

/// The fields every `[switch]` table takes with a value, written once for [`SwitchFields::apply`]
/// and [`SwitchFields::NAMES`].
macro_rules! plain_fields {
    ($then:ident) => {
        $then!(
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
            input_packet_cycles,
            buffer_flits
        )
    };
}

impl SwitchFields {
    /// The names of every field a `[switch]` table may write beside the technologies' own.
    pub const NAMES: &[&str] = {
        macro_rules! names {
            ($($field:ident),*) => { &["preset", $(stringify!($field),)* "nic_link_delay_cycles"] };
        }
        plain_fields!(names)
    };

    /// Sets every field written here in `s`.
    fn apply(self, s: &mut SwitchConfig) {
        let f = self;
        macro_rules! set {
            ($($field:ident),*) => { $(if let Some(v) = f.$field { s.$field = v; })* };
        }
        plain_fields!(set);
        for (name, value) in f.technology_fields.iter() {
            s.technology_fields.set(name.to_string(), value.clone());
        }
        if f.nic_link_delay_cycles.is_some() {
            s.nic_link_delay_cycles = f.nic_link_delay_cycles;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{preset, SWITCH, TECHNOLOGY};
    use crate::config::Config;

    /// Every registered preset file is a valid table (unknown fields refused) and resolves
    /// to a valid config on a network its switch suits.
    #[test]
    fn every_preset_file_resolves() {
        for (name, _) in SWITCH {
            let s = preset(name).unwrap_or_else(|| panic!("switch preset {name}"));
            assert_eq!(s.preset, *name);
            let c = Config::from_toml(&format!("topology = \"tree:k=4,n=2\"\n[switch]\npreset = \"{name}\"\n"));
            assert!(c.is_ok(), "switch preset {name}: {c:?}");
        }
        for (name, _) in TECHNOLOGY {
            let c = Config::from_toml(&format!("topology = \"tree:k=4,n=2\"\ntechnology = \"{name}\"\n"));
            assert!(c.is_ok(), "technology {name}: {c:?}");
        }
        assert!(preset("nope").is_none());
    }
}
