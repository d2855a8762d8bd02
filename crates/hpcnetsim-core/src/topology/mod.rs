//! The topology layer: one port-level graph type for every family, the spec grammar,
//! and the analytic properties (distances, bisection, throughput bounds, cost).

pub mod anynet;
pub mod arrangement;
pub mod balanced_cut;
pub mod cascade;
pub mod codes;
pub mod crossbar;
pub mod director_tree;
pub mod dragonfly;
pub mod export;
pub mod fabric;
pub mod family;
pub mod faults;
pub mod faulty_bisection;
pub mod finite_field;
pub mod footprint;
pub mod graph;
pub mod hyperx;
pub mod ibdm;
pub mod import;
pub mod jellyfish;
pub mod lattice_cut;
pub mod megafly;
pub mod optimal;
pub mod paths;
pub mod planes;
pub mod properties;
pub mod radix;
pub mod slimfly;
pub mod spec;
pub mod split_cut;
pub mod symmetry;
pub mod torus;
pub mod tree;
pub mod twin_torus;
pub mod wiring;

pub use family::Family;
pub use graph::Topology;
pub use properties::Properties;
pub use symmetry::{Symmetry, SymmetryKind};
pub use wiring::Peer;

/// A spec parsed, suffixes included, without building the network.
pub struct ParsedSpec {
    pub family: Family,
    /// The plane count of a `|planes:N` suffix.
    pub planes: Option<usize>,
    /// The fault set of a `|faults:...` suffix.
    pub faults: Option<faults::Faults>,
}

impl ParsedSpec {
    /// Whether this is one network (no planes) with a fault suffix that names faults: what
    /// the algorithmic routings, which assume every link works, cannot route (a multi-plane
    /// network routes a faulty plane by tables itself).
    pub fn faulty_single_plane(&self) -> bool {
        self.planes.is_none() && self.faults.as_ref().is_some_and(faults::Faults::any)
    }
}

/// Parses a spec (and its plane and fault suffixes) without building the network.
pub fn parse_spec(spec: &str) -> crate::Result<ParsedSpec> {
    let (base, plane_text, fault_text) = faults::split(spec)?;
    Ok(ParsedSpec {
        family: spec::parse(base)?,
        planes: plane_text.map(|text| planes::parse(spec.trim(), text)).transpose()?,
        faults: fault_text.map(|text| faults::parse(spec.trim(), text)).transpose()?,
    })
}

/// Parses a spec (and its plane and fault suffixes) without building the network; returns
/// the family.
pub fn check_spec(spec: &str) -> crate::Result<Family> {
    parse_spec(spec).map(|parsed| parsed.family)
}

impl Topology {
    /// Parses and builds a topology from a spec such as `tree:k=8,kp=4,n=4`, optionally
    /// followed by a plane count (`|planes:2`, see [`planes`]) and a fault set
    /// (`|faults:random=15,seed=3`, see [`faults`]), which applies to the whole network.
    pub fn from_spec(spec: &str) -> crate::Result<Topology> {
        let (base, plane_text, fault_text) = faults::split(spec)?;
        let family = spec::parse(base)?;
        let mut topo = Topology::build(base, family);
        if let Some(text) = plane_text {
            let n = planes::parse(spec.trim(), text)?;
            let name = match fault_text {
                Some(_) => format!("{base}|{text}"),
                None => spec.trim().to_string(),
            };
            topo = planes::replicate(topo, n, &name);
        }
        match fault_text {
            None => Ok(topo),
            Some(text) => {
                let faults = faults::parse(spec.trim(), text)?;
                // The spec as written, suffixes included: `apply` names it in its errors.
                topo.spec = spec.trim().to_string();
                faults.apply(&topo)
            }
        }
    }
}
