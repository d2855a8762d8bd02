//! Automorphisms that let global properties be computed from a few source switches.
//!
//! A load or distance summed over all sources equals a sum over one source per orbit,
//! weighted by the orbit size, provided the pattern seen from `g·r` is the image under `g`
//! of the pattern seen from `r`. Two kinds of groups are used:
//! - *translations* (tori, HyperX, twin tori, crossbar): the group acts freely on switches
//!   and keeps port numbers, so every channel's load is the total over its class
//!   `(orbit, port)` of the representatives' dependencies;
//! - *permutations* (mesh reflections): a small group listed as channel permutations;
//!   the load of channel `e` is `Σ_g D(g·e)` with `D = Σ_r δ_r / |Stab(r)|`.

/// A group of automorphisms of a topology and one source switch per orbit.
#[derive(Clone, Debug)]
pub struct Symmetry {
    /// One switch per orbit and the number of switches in its orbit.
    pub sources: Vec<(u32, f64)>,
    /// How the group acts on channels.
    pub kind: SymmetryKind,
}

/// How a [`Symmetry`] maps channels.
#[derive(Clone, Debug)]
pub enum SymmetryKind {
    /// Free, port-preserving action; `orbit[s]` indexes the source of switch `s`'s orbit.
    Translations {
        /// Orbit (index into `sources`) of every switch.
        orbit: Vec<u32>,
    },
    /// The whole group, element by element, as maps from channel to image channel.
    Permutations {
        /// `channel_maps[g][e]` is the image of channel `e` under group element `g`.
        channel_maps: Vec<Vec<u32>>,
    },
}

impl Symmetry {
    /// A free, port-preserving group with the given orbit of every switch; source `i` of
    /// the result is `representatives[i]`.
    pub fn translations(representatives: Vec<u32>, orbit: Vec<u32>) -> Self {
        let size = orbit.len() as f64 / representatives.len() as f64;
        Symmetry {
            sources: representatives.into_iter().map(|r| (r, size)).collect(),
            kind: SymmetryKind::Translations { orbit },
        }
    }

    /// Weight of source `i`'s dependencies before they are spread over the group
    /// (`paths::channel_loads_with`).
    pub(crate) fn dependency_weight(&self, i: usize) -> f64 {
        match &self.kind {
            SymmetryKind::Translations { .. } => 1.0,
            SymmetryKind::Permutations { channel_maps } => self.sources[i].1 / channel_maps.len() as f64,
        }
    }
}
