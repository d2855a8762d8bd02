//! The values of the table-routing fields of `[routing]` (`engine`, `lmc`, `layering`): the
//! engines' names and limits the config checks against. The engines are in
//! `crate::routing::tables`.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Largest LMC (InfiniBand allows up to 7; 2 is what PARX needs).
pub const MAX_LMC: u8 = 7;

/// Names of the table routing engines, as used by `hpcnetsim route` and configs.
pub const ENGINES: &str = "minhop, sssp, dfsssp, updn, ftree, parx, ksp";

/// The engine that computes forwarding tables (`routing.engine`, `hpcnetsim route`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TableEngine {
    /// Min-hop: each destination through a port on a shortest path, the least used one.
    MinHop,
    /// Single-source shortest paths with link weights that balance the routes.
    Sssp,
    /// SSSP with its paths layered on virtual lanes until every lane is acyclic.
    #[default]
    Dfsssp,
    /// Up*/Down* from the roots.
    Updn,
    /// The fat-tree engine.
    Ftree,
    /// PARX (paper 001): 2D HyperX, LMC 2, four addresses routed around each other, DFSSSP's
    /// lanes.
    Parx,
    /// The k shortest paths of every pair, one per address (2^lmc), DFSSSP's lanes
    /// (Jellyfish, Singla et al.).
    Ksp,
}

impl TableEngine {
    /// Every engine, in the order of `ENGINES`.
    pub const ALL: [TableEngine; 7] = [
        TableEngine::MinHop,
        TableEngine::Sssp,
        TableEngine::Dfsssp,
        TableEngine::Updn,
        TableEngine::Ftree,
        TableEngine::Parx,
        TableEngine::Ksp,
    ];

    /// The engine's name in configs, commands and tables.
    pub fn name(self) -> &'static str {
        match self {
            TableEngine::MinHop => "minhop",
            TableEngine::Sssp => "sssp",
            TableEngine::Dfsssp => "dfsssp",
            TableEngine::Updn => "updn",
            TableEngine::Ftree => "ftree",
            TableEngine::Parx => "parx",
            TableEngine::Ksp => "ksp",
        }
    }

    /// The LMC when the config gives none: 3 for `ksp` (Singla et al.'s 8 paths per pair), 2
    /// for `parx` (its only one: four addresses routed around each other), 0 otherwise.
    pub fn default_lmc(self) -> u8 {
        match self {
            TableEngine::Ksp => 3,
            TableEngine::Parx => 2,
            _ => 0,
        }
    }

    /// The engine called `name`.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The engine called `name`, or an error naming `field` in `section`.
    pub fn parse(name: &str, section: &str, field: &str) -> Result<Self> {
        Self::named(name)
            .ok_or_else(|| Error::invalid(section, field, format!("'{name}'"), format!("one of {ENGINES}")))
    }
}

impl std::str::FromStr for TableEngine {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        TableEngine::parse(name, "routing", "engine")
    }
}

impl std::fmt::Display for TableEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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
