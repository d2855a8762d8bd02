//! Technology presets (`technology = "qsnet"`): link rate, clock, latencies, packet format and
//! NIC model of real networks, each value with its source (the files of
//! `presets/technology/`). A preset fills the fields the config leaves out; anything the
//! config sets wins. docs/physical.md lists them. Presets
//! with packets of hundreds of phits also lengthen the measurement windows and batches
//! (20 000 cycles), so that independent-traffic runs see enough packets to converge.

use crate::error::{Error, Result};
use serde_json::Value;

/// The names accepted by `technology`.
pub fn names() -> String {
    super::presets::technology_names()
}

/// The partial config (a TOML table) of technology preset `name`, or None.
pub fn table(name: &str) -> Option<toml::Table> {
    let text = super::presets::technology_file(name)?;
    Some(toml::from_str(text).expect("the technology presets are valid TOML"))
}

/// `user` with the values of its `technology` preset in every field it leaves out (the
/// user's values win); unchanged without a technology.
pub fn apply(mut user: Value) -> Result<Value> {
    let name = match user.get("technology") {
        None => return Ok(user),
        Some(Value::String(s)) if s.is_empty() => return Ok(user),
        Some(Value::String(s)) => s.clone(),
        Some(v) => return Err(Error::invalid("config", "technology", v, names())),
    };
    let table = table(&name).ok_or_else(|| Error::invalid("config", "technology", format!("'{name}'"), names()))?;
    let preset = serde_json::to_value(table).expect("TOML values are JSON values");
    fill(&mut user, preset);
    Ok(user)
}

/// Sets every leaf of `preset` that `user` lacks, table by table.
fn fill(user: &mut Value, preset: Value) {
    let (Value::Object(u), Value::Object(p)) = (user, preset) else { return };
    for (k, v) in p {
        match u.get_mut(&k) {
            Some(existing) => fill(existing, v),
            None => {
                u.insert(k, v);
            }
        }
    }
}
