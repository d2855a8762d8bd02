//! The topology families and the per-family facts the generic code asks for.
//!
//! A family's file (`tree.rs`, `torus.rs`, ...) holds its parameters, its builder and its
//! closed forms, on the wiring below it (`wiring.rs`); this enum sits above the families
//! and dispatches to them, and the [`Topology`](super::Topology) it becomes sits above it.

pub use super::cascade::Cascade;
pub use super::crossbar::Crossbar;
pub use super::dragonfly::Dragonfly;
pub use super::fabric::Fabric;
pub use super::hyperx::HyperX;
pub use super::jellyfish::Jellyfish;
pub use super::megafly::Megafly;
pub use super::slimfly::SlimFly;
pub use super::torus::Torus;
pub use super::tree::Xgft;
pub use super::twin_torus::TwinTorus;
use super::wiring::Wiring;

/// A topology family with its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Family {
    /// k-ary n-trees, k:k'-ary n-thin-trees and generalized fat-trees.
    Tree(Xgft),
    /// Meshes and tori of any dimension.
    Torus(Torus),
    /// nD twin torus (two cards per node).
    TwinTorus(TwinTorus),
    /// HyperX (flattened butterfly generalisation).
    HyperX(HyperX),
    /// Dragonfly (groups of fully connected switches, global links between groups).
    Dragonfly(Dragonfly),
    /// Cray Cascade dragonfly (groups of 2D all-to-all rows and columns).
    Cascade(Cascade),
    /// Megafly / Dragonfly+ (groups as two-level fat-trees).
    Megafly(Megafly),
    /// Slim Fly (McKay–Miller–Širáň graph).
    SlimFly(SlimFly),
    /// Jellyfish (seeded random regular graph).
    Jellyfish(Jellyfish),
    /// A single switch.
    Crossbar(Crossbar),
    /// A fabric read from a file (ibnetdiscover output or an edge list).
    Fabric(Box<Fabric>),
}

impl Family {
    /// Wires the family's network with its builder (the spec and the family are added by
    /// [`Topology::build`](super::Topology::build)). One line per family.
    pub(crate) fn wire(&self) -> Wiring {
        match self {
            Family::Tree(f) => f.build(),
            Family::Torus(f) => f.build(),
            Family::TwinTorus(f) => f.build(),
            Family::HyperX(f) => f.build(),
            Family::Dragonfly(f) => f.build(),
            Family::Cascade(f) => f.build(),
            Family::Megafly(f) => f.build(),
            Family::SlimFly(f) => f.build(),
            Family::Jellyfish(f) => f.build(),
            Family::Crossbar(f) => f.build(),
            Family::Fabric(f) => f.build(),
        }
    }

    /// Whether switches carry terminals and forward traffic alike (tori, meshes, twin tori,
    /// HyperX, dragonflies, Cascades, Slim Fly, Jellyfish), as opposed to trees, Megaflies and
    /// crossbars, whose terminals hang from edge switches.
    pub fn is_direct(&self) -> bool {
        matches!(
            self,
            Family::Torus(_)
                | Family::TwinTorus(_)
                | Family::HyperX(_)
                | Family::Dragonfly(_)
                | Family::Cascade(_)
                | Family::SlimFly(_)
                | Family::Jellyfish(_)
        )
    }

    /// A lower bound on the longest minimal route, in links (terminal links included),
    /// from the parameters alone: for checks that must not build the graph.
    pub fn min_diameter_links(&self) -> usize {
        let rings =
            |dims: &[usize], wrap: bool| -> usize { dims.iter().map(|&k| if wrap { k / 2 } else { k - 1 }).sum() };
        2 + match self {
            Family::Tree(x) => 2 * (x.height() - 1),
            Family::Torus(t) => rings(&t.dims, t.wrap),
            Family::TwinTorus(t) => rings(&t.dims, true),
            Family::HyperX(h) => h.dims.iter().filter(|&&k| k > 1).count(),
            // Two switches of different groups are at least one global link apart.
            Family::Dragonfly(d) => usize::from(d.g > 1),
            Family::Cascade(c) => usize::from(c.switches() > 1),
            // Leaf, spine, leaf at least between two leaves; a leaf alone has only terminals.
            Family::Megafly(m) => 2 * usize::from(m.groups * m.leaves > 1),
            // Diameter 2 (the MMS graph is not complete).
            Family::SlimFly(_) => 2,
            Family::Jellyfish(j) => usize::from(j.n > 1),
            Family::Crossbar(_) | Family::Fabric(_) => 0,
        }
    }

    /// Short family name as used in specs.
    pub fn name(&self) -> &'static str {
        match self {
            Family::Tree(x) if x.is_thin_tree_spec() => "tree",
            Family::Tree(_) => "xgft",
            Family::Torus(t) if t.wrap => "torus",
            Family::Torus(_) => "mesh",
            Family::TwinTorus(_) => "twin-torus",
            Family::HyperX(_) => "hyperx",
            Family::Dragonfly(_) => "dragonfly",
            Family::Cascade(_) => "cascade",
            Family::Megafly(_) => "megafly",
            Family::SlimFly(_) => "slimfly",
            Family::Jellyfish(_) => "jellyfish",
            Family::Crossbar(_) => "crossbar",
            Family::Fabric(_) => "fabric",
        }
    }

    /// Switches per tree level, leaf level first; empty for other families.
    pub fn switches_per_level(&self) -> Vec<usize> {
        match self {
            Family::Tree(x) => x.switches_per_level(),
            _ => Vec::new(),
        }
    }

    /// Links cut by a minimum balanced bisection (terminals split in halves), from the
    /// family's closed form. Keeping every switch on one side and cutting the links of
    /// half of the terminals is always balanced, and wins on tiny rings.
    pub fn bisection_channels(&self) -> u64 {
        let terminal_cut = (self.terminals() / 2) as u64;
        let family_cut = match self {
            Family::Tree(x) => x.bisection_channels(),
            Family::Torus(t) => t.bisection_channels(),
            Family::TwinTorus(t) => t.bisection_channels(),
            Family::HyperX(h) => h.bisection_channels(),
            Family::Crossbar(c) => (c.ports / 2) as u64,
            Family::Dragonfly(d) => d.bisection_channels(),
            Family::Cascade(c) => c.bisection_channels(),
            Family::Megafly(m) => m.bisection_channels(),
            // A refined balanced cut of the graph (an upper bound), up to its size limit.
            Family::SlimFly(f) => f.bisection_channels(),
            Family::Jellyfish(j) => j.bisection_channels(),
            // Refined as a Slim Fly's when every switch has the same terminals; else the
            // terminal cut below, an upper bound.
            Family::Fabric(f) => f.bisection_channels(),
        };
        family_cut.min(terminal_cut)
    }

    /// Number of terminals.
    pub fn terminals(&self) -> usize {
        match self {
            Family::Tree(x) => x.terminals(),
            Family::Torus(t) => t.switches() * t.terminals_per_switch,
            Family::TwinTorus(t) => 2 * t.nodes(),
            Family::HyperX(h) => h.switches() * h.terminals_per_switch,
            Family::Dragonfly(d) => d.terminals(),
            Family::Cascade(c) => c.terminals(),
            Family::Megafly(m) => m.terminals(),
            Family::SlimFly(f) => f.switches() * f.p,
            Family::Jellyfish(j) => j.n * j.p,
            Family::Crossbar(c) => c.ports,
            Family::Fabric(f) => f.terminals.len(),
        }
    }

    /// Coordinates of a switch in the family's own terms (tree: level then label digits;
    /// torus/HyperX: position per dimension; twin torus: node position then card;
    /// dragonfly: group then switch; Cascade: group, row, column; Megafly: group, 0 (leaf) or
    /// 1 (spine), index; Slim Fly: subgraph, x or m, y or c).
    pub fn switch_coordinates(&self, s: usize) -> Vec<usize> {
        match self {
            Family::Tree(x) => {
                let (level, label) = x.switch_label(s);
                std::iter::once(level).chain(label).collect()
            }
            Family::Torus(t) => t.coordinates(s),
            Family::TwinTorus(t) => t.coordinates(s),
            Family::HyperX(h) => h.coordinates(s),
            Family::Dragonfly(d) => d.coordinates(s),
            Family::Cascade(c) => c.coordinates(s),
            Family::Megafly(m) => m.coordinates(s),
            Family::SlimFly(f) => f.coordinates(s),
            Family::Crossbar(_) => vec![0],
            Family::Jellyfish(_) => vec![s],
            Family::Fabric(_) => vec![s],
        }
    }

    /// Level of a switch (0 = leaf level) for trees, `None` otherwise.
    pub fn switch_level(&self, s: usize) -> Option<usize> {
        match self {
            Family::Tree(x) => Some(x.switch_label(s).0),
            _ => None,
        }
    }
}
