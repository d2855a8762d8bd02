//! A collector's output: named columns of equal length, which the Python package turns into
//! a DataFrame and writes as Parquet beside the result.

use serde::Serialize;
use std::collections::BTreeMap;

/// One column.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Column {
    Int(Vec<u64>),
    Float(Vec<f64>),
}

/// Columns by name, in the order they were added.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Table {
    /// Column names in order (the map below is keyed by them).
    pub columns: Vec<String>,
    pub data: BTreeMap<String, Column>,
}

impl Table {
    /// Adds an integer column.
    pub fn int(mut self, name: &str, values: Vec<u64>) -> Self {
        self.columns.push(name.into());
        self.data.insert(name.into(), Column::Int(values));
        self
    }

    /// Adds a real-valued column.
    pub fn float(mut self, name: &str, values: Vec<f64>) -> Self {
        self.columns.push(name.into());
        self.data.insert(name.into(), Column::Float(values));
        self
    }

    /// Rows (the length of the first column).
    pub fn rows(&self) -> usize {
        match self.data.values().next() {
            Some(Column::Int(v)) => v.len(),
            Some(Column::Float(v)) => v.len(),
            None => 0,
        }
    }
}
