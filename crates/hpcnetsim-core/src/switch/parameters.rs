//! Reading a config completely: `config/` reads and checks every field it declares and keeps
//! the `[switch]` fields of the switch technologies as written (`config::TechnologyFields`);
//! here every technology checks its own (`Parameters::check`, in the technology's file) and
//! the names no technology declares are refused, and the routing is checked against the
//! topology's family and the VCs. `Config::from_toml` and `Config::from_json`
//! are defined here, above both layers, so that every reader of a config gets both checks
//! while `config/` knows no technology.

use super::Params;
use crate::config::Config;
use crate::error::{Error, Result};

impl Config {
    /// Reads a config from TOML text and checks every value; errors name the offending key.
    pub fn from_toml(text: &str) -> Result<Config> {
        Config::from_toml_in(text, None)
    }

    /// [`Config::from_toml`] for text read from a file in `dir`: the files the config names
    /// (a fabric topology's, `routing.tables`, `workload.trace`) are relative to `dir`.
    pub fn from_toml_in(text: &str, dir: Option<&std::path::Path>) -> Result<Config> {
        let mut cfg = Config::read_toml(text, dir)?;
        check(&mut cfg, Some(text))?;
        Ok(cfg)
    }

    /// Reads a config from JSON text (what the Python API sends) and checks every value;
    /// errors name the key path.
    pub fn from_json(text: &str) -> Result<Config> {
        let mut cfg = Config::read_json(text)?;
        check(&mut cfg, None)?;
        Ok(cfg)
    }
}

/// Refuses technology fields no technology declares, lets each technology check its own, and
/// puts them in the technologies' order (so that a config serialises alike however written);
/// then checks the routing against the topology's family and the VCs.
fn check(cfg: &mut Config, toml: Option<&str>) -> Result<()> {
    let declared = Params::fields();
    if let Some((name, _)) = cfg.switch.technology_fields.iter().find(|(n, _)| !declared.contains(n)) {
        let quoted = |names: &[&str]| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        let at = match toml.and_then(|text| line_of(text, name)) {
            Some(line) => format!("line {line} (in [switch])"),
            None => "switch".to_string(),
        };
        let general = crate::config::presets::SwitchFields::NAMES;
        let nearest = general
            .iter()
            .chain(declared.iter())
            .map(|known| (strsim::levenshtein(name, known), *known))
            .min()
            .filter(|&(edits, known)| edits <= 2.max(known.len() / 4))
            .map_or(String::new(), |(_, known)| format!(" (did you mean `{known}`?)"));
        return Err(Error::Unsupported(format!(
            "config: {at}: unknown field `{name}`{nearest}, expected one of {}, or a switch technology's: {}",
            quoted(general),
            quoted(&declared)
        )));
    }
    Params::check(cfg)?;
    cfg.switch.technology_fields.sort_as(&declared);
    // A routing the family cannot use, with too few VCs for it, or on a network with faults,
    // is refused before any network is built (a sweep refuses such a point before running
    // the others).
    // The flow model has no VCs: it takes the routing with the VCs the routing needs
    // (`flow::run`), so only the family is judged.
    // Minimal flow paths ignore the routing, so it is not judged either.
    let minimal_flows = cfg.model == crate::config::Model::Flow && cfg.flow.paths == crate::config::PathsKind::Minimal;
    let judged = match cfg.routing.method {
        crate::config::Method::Algorithm(a) if !minimal_flows => Some(a),
        _ => None,
    };
    if let Some(a) = judged {
        let parsed = crate::topology::parse_spec(&cfg.topology)?;
        let vcs = match cfg.model {
            crate::config::Model::Flow => usize::MAX,
            crate::config::Model::Packet => cfg.switch.class_vcs() as usize,
        };
        crate::routing::resolve(a, &parsed.family, vcs).map_err(|e| super::classes::per_class(e, cfg))?;
        if parsed.faulty_single_plane() {
            // A fault list that names no link of the network is the first thing to fix: the
            // routing's refusal alone sent users to table routing, only to meet it there.
            // Building the network costs only on this way out.
            crate::topology::Topology::from_spec(&cfg.topology)?;
            return Err(crate::routing::on_faulty_network(a, cfg.topology.trim()));
        }
    }
    Ok(())
}

/// The line (from 1) where `[switch]` of the TOML `text` writes `name`, if found.
fn line_of(text: &str, name: &str) -> Option<usize> {
    let mut in_switch = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_switch = line == "[switch]";
        } else if in_switch && line.strip_prefix(name).is_some_and(|rest| rest.trim_start().starts_with('=')) {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::Params;
    use crate::config::{Config, SwitchConfig};

    const BASE: &str = "topology = \"crossbar:4\"\n[switch]\n";

    /// A technology's field reaches it: no generic `[switch]` field has its name, and no two
    /// technologies declare the same.
    #[test]
    fn every_declared_field_is_the_technology_s() {
        let declared = Params::fields();
        for (i, name) in declared.iter().enumerate() {
            assert!(!declared[..i].contains(name), "{name} declared twice");
            let s: SwitchConfig = toml::from_str(&format!("{name} = 1\n")).unwrap();
            assert_eq!(s.technology_fields.get(name), Some(&serde_json::json!(1)), "{name}");
        }
    }

    /// Every name the unknown-field message lists as a `[switch]` field is one: written, it is
    /// read as that field (a value of the wrong type is refused as such), never kept as a
    /// technology's field.
    #[test]
    fn listed_switch_fields_are_the_table_s() {
        for name in crate::config::presets::SwitchFields::NAMES {
            if let Ok(s) = toml::from_str::<SwitchConfig>(&format!("{name} = 1\n")) {
                assert!(s.technology_fields.iter().next().is_none(), "{name}");
            }
        }
    }

    /// An unknown field names the nearest known one, general or a technology's, and lists both.
    #[test]
    fn unknown_field_suggests_the_nearest() {
        let err = |field: &str| Config::from_toml(&format!("{BASE}{field} = 2\n")).unwrap_err().to_string();
        let e = err("vsc");
        assert!(e.contains("line 3 (in [switch]): unknown field `vsc` (did you mean `vcs`?)"), "{e}");
        assert!(e.contains("`queue_packets`") && e.contains("`speedup`"), "{e}");
        assert!(err("speedupp").contains("(did you mean `speedup`?)"));
        assert!(!err("colour").contains("did you mean"));
    }

    /// Written in any order, from TOML or JSON, the fields read and serialise alike.
    #[test]
    fn fields_serialise_in_declared_order() {
        let a = Config::from_toml(&format!("{BASE}speedup = 3\noutput_queue_packets = 8\n")).unwrap();
        let b = Config::from_toml(&format!("{BASE}output_queue_packets = 8\nspeedup = 3\n")).unwrap();
        assert_eq!(a, b);
        let json = serde_json::to_string(&b).unwrap();
        assert!(json.contains("\"speedup\":3,\"output_queue_packets\":8"), "{json}");
        assert_eq!(Config::from_json(&json).unwrap(), a);
        let p = Params::read(&a.switch.technology_fields).output_queued;
        assert_eq!((p.speedup, p.output_queue_packets), (3, 8));
    }

    /// Bad values and unknown names are one line naming the field and the value.
    #[test]
    fn bad_fields_are_refused_naming_them() {
        for (extra, needle) in [
            ("speedup = -1", "switch.speedup = -1"),
            ("speedup = \"two\"", "switch.speedup = \"two\""),
            ("output_queue_packets = 4097", "switch.output_queue_packets = 4097"),
            ("vcs = 2\nspeedups = 2", "line 4 (in [switch]): unknown field `speedups`"),
        ] {
            let err = Config::from_toml(&format!("{BASE}{extra}\n")).unwrap_err().to_string();
            assert!(err.contains(needle), "{extra}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
        let json = r#"{"topology": "crossbar:4", "switch": {"speedups": 2}}"#;
        let err = Config::from_json(json).unwrap_err().to_string();
        assert!(err.contains("switch: unknown field `speedups`"), "{err}");
    }

    /// An algorithmic routing on a network with faults is refused when the config is read;
    /// table routing, a fault suffix naming nothing, and faulty planes (routed by tables
    /// plane by plane) are not.
    #[test]
    fn algorithmic_routing_on_a_faulty_network_is_refused_when_read() {
        for spec in ["torus:4x4|faults:links=0.0", "torus:4x4|faults:random=2", "torus:4x4|faults:fraction=0.1"] {
            let err = Config::from_toml(&format!("topology = \"{spec}\"\n[switch]\nvcs = 2\n")).unwrap_err();
            let err = err.to_string();
            assert!(err.contains(&format!("routing.algorithm = 'auto' on the faulty network {spec}")), "{err}");
            assert!(err.contains("table routing"), "{err}");
        }
        // A fault list naming no link is reported first, not the routing.
        let err = Config::from_toml("topology = \"torus:4x4|faults:links=99.0\"\n[switch]\nvcs = 2\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("faults.links = 99.0") && !err.contains("table routing"), "{err}");
        let table = "topology = \"torus:4x4|faults:random=2\"\n[routing]\nalgorithm = \"table\"\n";
        assert!(Config::from_toml(table).is_ok());
        assert!(Config::from_toml("topology = \"torus:4x4|faults:random=0\"\n[switch]\nvcs = 2\n").is_ok());
        assert!(Config::from_toml("topology = \"tree:k=2,n=2|planes:2|faults:random=1\"\n").is_ok());
    }
}
