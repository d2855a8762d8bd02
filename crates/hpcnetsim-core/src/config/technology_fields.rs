//! The `[switch]` fields a switch technology adds (`switch.speedup` of the output-queued
//! switch, ...): the config keeps them as written, in order, and knows nothing else about
//! them. Each technology declares, reads and checks its own, in its file
//! (`Technology::Params` in `crate::switch`), so that a new technology needs no field here;
//! `switch/parameters.rs` refuses the names no technology declares.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The technologies' fields of a `[switch]` table: name and value, in the order written
/// (a switch preset's first, then the config's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TechnologyFields(Vec<(String, Value)>);

impl TechnologyFields {
    /// The value of field `name`, if written.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Sets field `name` (in place if it is written already, else after the others).
    pub fn set(&mut self, name: String, value: Value) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => *v = value,
            None => self.0.push((name, value)),
        }
    }

    /// Every field, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// Puts the fields in the order of `names` (the technologies' declarations), so that
    /// configs written in any order serialise alike; names not listed keep their place after.
    pub fn sort_as(&mut self, names: &[&str]) {
        self.0.sort_by_key(|(n, _)| names.iter().position(|m| m == n).unwrap_or(names.len()));
    }
}

impl Serialize for TechnologyFields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for TechnologyFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = TechnologyFields;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("switch technology fields")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TechnologyFields, A::Error> {
                let mut fields = TechnologyFields::default();
                while let Some((name, value)) = map.next_entry::<String, Value>()? {
                    fields.set(name, value);
                }
                Ok(fields)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}
