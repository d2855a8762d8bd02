//! SST DUMPI binary traces: a `.meta` file and one binary file per rank.

use super::builder::{Builder, Scale};
use crate::error::{Error, Result};
use std::path::Path;

/// Reads a DUMPI trace from its `.meta` file.
pub fn read(path: &Path, _scale: Scale) -> Result<Builder> {
    Err(Error::Unsupported(format!("{}: the DUMPI reader is not available yet", path.display())))
}
