//! The topology layer: one port-level graph type for every family, the spec grammar,
//! and the analytic properties (distances, bisection, throughput bounds, cost).

pub mod crossbar;
pub mod export;
pub mod family;
pub mod graph;
pub mod hyperx;
pub mod paths;
pub mod properties;
pub mod spec;
pub mod symmetry;
pub mod torus;
pub mod tree;
pub mod twin_torus;

pub use family::Family;
pub use graph::{Peer, Topology};
pub use properties::Properties;
pub use symmetry::{Symmetry, SymmetryKind};

impl Topology {
    /// Parses and builds a topology from a spec such as `tree:k=8,kp=4,n=4`.
    pub fn from_spec(spec: &str) -> crate::Result<Topology> {
        let family = spec::parse(spec)?;
        Ok(family.build(spec.trim()))
    }
}
