//! Where each value of a resolved config comes from: the layers a config is resolved in
//! (`presets/mod.rs`) told field by field, for `hpcnetsim config show`. A value is the
//! config's own when the config writes it, the technology preset's when the preset fills it,
//! the switch preset's when the preset's file sets it, derived from `[link]` when the clock
//! converted it, and a default otherwise.

use super::{presets, technology, Config};
use crate::error::Result;
use serde_json::Value;

/// One resolved field: its dotted path, its value and where the value comes from.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Sourced {
    pub field: String,
    pub value: Value,
    pub source: String,
}

/// Every leaf of `v` under `prefix`, as (dotted path, value).
fn leaves(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                leaves(&path, x, out);
            }
        }
        other => out.push((prefix.to_string(), other.clone())),
    }
}

/// Whether the dotted path `field` is written in `v`.
fn written(v: &Value, field: &str) -> bool {
    field.split('.').try_fold(v, |t, k| t.get(k)).is_some()
}

/// The resolved config of the JSON text `user` (a config as written, after overrides), each
/// field with its source.
pub fn sources(user: &str) -> Result<Vec<Sourced>> {
    let resolved = Config::read_json(user)?;
    let written_by_user: Value = serde_json::from_str(user).unwrap_or(Value::Null);
    let tech = match resolved.technology.as_str() {
        "" => Value::Null,
        name => technology::table(name).map_or(Value::Null, |t| serde_json::to_value(t).unwrap_or(Value::Null)),
    };
    let preset = presets::switch_file(&resolved.switch.preset)
        .and_then(|text| toml::from_str::<toml::Table>(text).ok())
        .map_or(Value::Null, |t| serde_json::json!({ "switch": t }));
    // The config without a clock (no `[link]`, no technology): a value not written by any
    // layer that differs from it was converted from the clock's times.
    let unclocked: Value = {
        let mut plain: Value = serde_json::from_str(user).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut plain {
            m.remove("link");
            m.remove("technology");
        }
        Config::read_json(&plain.to_string()).ok().map_or(Value::Null, |c| serde_json::to_value(c).unwrap_or_default())
    };
    let mut all = Vec::new();
    leaves("", &serde_json::to_value(&resolved).expect("configs serialise"), &mut all);
    Ok(all
        .into_iter()
        .map(|(field, value)| {
            let source = if written(&written_by_user, &field) {
                "config".to_string()
            } else if written(&tech, &field) {
                format!("technology {}", resolved.technology)
            } else if written(&preset, &field) {
                format!("switch preset {}", resolved.switch.preset)
            } else if !unclocked.is_null() && set_by_clock(&unclocked, &field, &value) {
                "[link] clock".to_string()
            } else {
                "default".to_string()
            };
            Sourced { field, value, source }
        })
        .collect())
}

/// Whether `value` of `field` differs from the config without a clock (`unclocked`): there, an
/// optional field the clock sets (`switch.nic_link_delay_cycles`, from `link.nic_wire_latency`)
/// is absent from a table that is present.
fn set_by_clock(unclocked: &Value, field: &str, value: &Value) -> bool {
    let (parent, leaf) = field.rsplit_once('.').unwrap_or(("", field));
    let table =
        if parent.is_empty() { Some(unclocked) } else { parent.split('.').try_fold(unclocked, |t, k| t.get(k)) };
    match table.map(|t| t.get(leaf)) {
        Some(Some(u)) => u != value,
        Some(None) => !value.is_null(),
        None => false,
    }
}
