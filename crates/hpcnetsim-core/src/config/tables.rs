//! The values of the table-routing fields of `[routing]` (`engine`, `lmc`, `layering`): the
//! engines' names and limits the config checks against. The engines are in
//! `crate::routing::tables`.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Largest LMC (InfiniBand allows up to 7; 2 is what PARX needs).
pub const MAX_LMC: u8 = 7;

/// Names of the table routing engines, as used by `hpcnetsim route` and configs.
pub const ENGINES: &str = "minhop, sssp, dfsssp, updn, ftree, parx, ksp";

/// The LMC of `engine` when the config gives none: 3 for `ksp` (Singla et al.'s 8 paths per
/// pair), 0 otherwise (PARX sets its own 2).
pub fn default_lmc(engine: &str) -> u8 {
    if engine == "ksp" {
        3
    } else {
        0
    }
}

/// How DFSSSP and PARX give every path a lane (`routing.layering`, `--layering`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layering {
    /// hpcnetsim's placement: each path where it adds the fewest new dependencies.
    #[default]
    Placement,
    /// OpenSM's procedure: all in layer 0, cycle by cycle the weakest dependency's paths
    /// moved to the next layer.
    Opensm,
}

/// Names of the layerings, as used by configs and `hpcnetsim route`.
pub const LAYERINGS: &str = "placement, opensm";

impl Layering {
    /// The layering called `name`, or an error naming `field`.
    pub fn parse(name: &str, section: &str, field: &str) -> Result<Self> {
        match name {
            "placement" => Ok(Layering::Placement),
            "opensm" => Ok(Layering::Opensm),
            other => Err(Error::invalid(section, field, format!("'{other}'"), format!("one of {LAYERINGS}"))),
        }
    }
}
