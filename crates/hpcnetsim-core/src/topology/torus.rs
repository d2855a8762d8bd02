//! Meshes and tori of any number of dimensions with any size per dimension.
//!
//! Switch index = position in mixed radix, dimension 0 least significant. Ports
//! `2i` and `2i + 1` are the + and − ports of dimension `i`; terminal ports follow.
//! A torus ring of size 2 has two links between its switches (each switch's + port to
//! the other's − port), so every torus switch has exactly 2n network ports.

use super::lattice_cut::{lattice_bisection, Line};
use super::radix::{digits, from_digits};
use super::symmetry::{Symmetry, SymmetryKind};
use super::wiring::{check_size, wide_product, Builder, Wiring};
use crate::error::Result;

/// A mesh (`wrap = false`) or torus (`wrap = true`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Torus {
    /// Number of switches along each dimension.
    pub dims: Vec<usize>,
    /// Whether dimensions wrap around (torus) or not (mesh).
    pub wrap: bool,
    /// Terminals attached to every switch.
    pub terminals_per_switch: usize,
}

impl Torus {
    /// Validates the size and returns the family.
    pub fn new(spec: &str, dims: Vec<usize>, wrap: bool, t: usize) -> Result<Self> {
        let switches = wide_product(dims.iter().copied());
        check_size(spec, switches, switches.saturating_mul((2 * dims.len() + t) as u128))?;
        if switches * (t as u128) < 2 {
            return Err(crate::Error::invalid(
                spec,
                "terminals",
                switches * t as u128,
                "a network needs at least 2 terminals",
            ));
        }
        Ok(Torus { dims, wrap, terminals_per_switch: t })
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.dims.iter().product()
    }

    /// Position of switch `s` along every dimension.
    pub fn coordinates(&self, s: usize) -> Vec<usize> {
        digits(s, &self.dims)
    }

    /// Port of dimension `dim` in direction + (`true`) or − (`false`).
    pub fn port(dim: usize, plus: bool) -> usize {
        2 * dim + usize::from(!plus)
    }

    pub(crate) fn build(&self) -> Wiring {
        let n = self.dims.len();
        let t = self.terminals_per_switch;
        let mut b = Builder::new(std::iter::repeat_n(2 * n + t, self.switches()));
        for s in 0..self.switches() {
            let x = self.coordinates(s);
            for (i, &k) in self.dims.iter().enumerate() {
                if x[i] + 1 < k || (self.wrap && k > 1) {
                    let mut y = x.clone();
                    y[i] = (x[i] + 1) % k;
                    b.link(s, Self::port(i, true), from_digits(&y, &self.dims), Self::port(i, false));
                }
            }
            for p in 0..t {
                b.attach_terminal(s, 2 * n + p);
            }
        }
        let symmetry = if self.wrap {
            // Translations of a torus preserve port numbers and act freely: one orbit.
            Symmetry::translations(vec![0], vec![0; self.switches()])
        } else {
            self.reflections()
        };
        b.finish(Some(symmetry))
    }

    /// The reflections of a mesh along its (up to six) largest dimensions, with the
    /// switches of one orthant as sources; a reflection swaps the + and − ports of the
    /// dimensions it flips.
    fn reflections(&self) -> Symmetry {
        let n = self.dims.len();
        let ports = 2 * n + self.terminals_per_switch;
        let mut flip: Vec<usize> = (0..n).filter(|&i| self.dims[i] > 1).collect();
        flip.sort_by_key(|&i| std::cmp::Reverse(self.dims[i]));
        flip.truncate(6);
        let channel_maps = (0..1usize << flip.len())
            .map(|g| {
                let flipped: Vec<bool> =
                    (0..n).map(|i| flip.iter().position(|&f| f == i).is_some_and(|b| g >> b & 1 == 1)).collect();
                let mut map = Vec::with_capacity(self.switches() * ports);
                for s in 0..self.switches() {
                    let mut x = self.coordinates(s);
                    for i in 0..n {
                        if flipped[i] {
                            x[i] = self.dims[i] - 1 - x[i];
                        }
                    }
                    let image = from_digits(&x, &self.dims);
                    for p in 0..ports {
                        let q = if p < 2 * n && flipped[p / 2] { p ^ 1 } else { p };
                        map.push((image * ports + q) as u32);
                    }
                }
                map
            })
            .collect();
        let sources = (0..self.switches())
            .filter_map(|s| {
                let x = self.coordinates(s);
                let mut orbit = 1.0;
                for &i in &flip {
                    let twice = 2 * x[i];
                    if twice > self.dims[i] - 1 {
                        return None;
                    }
                    // The middle plane of an odd dimension is its own mirror image.
                    if twice < self.dims[i] - 1 {
                        orbit *= 2.0;
                    }
                }
                Some((s as u32, orbit))
            })
            .collect();
        Symmetry { sources, kind: SymmetryKind::Permutations { channel_maps } }
    }

    /// Cut one dimension in two halves: each torus ring is cut twice, each mesh line once,
    /// and there are S/k_i of them; an odd dimension's middle plane is split in turn
    /// (`lattice_cut.rs`). The best dimension wins.
    pub fn bisection_channels(&self) -> u64 {
        let per_ring = if self.wrap { 2 } else { 1 };
        let lines: Vec<Line> = self.dims.iter().map(|&size| Line { size, cut_per_line: per_ring }).collect();
        lattice_bisection(&lines, self.terminals_per_switch)
    }

    /// Largest switch-channel load of DOR on a mesh under uniform traffic, per unit of
    /// injected load: the middle cut of a dimension of size k is crossed by the traffic of
    /// t·⌊k/2⌋·S/k terminals to t·⌈k/2⌉·S/k others over S/k channels each way, which no
    /// routing can do better than and DOR meets (see `Topology::throughput_bound`).
    pub fn mesh_max_channel_load(&self) -> f64 {
        let s = self.switches() as f64;
        let t = self.terminals_per_switch as f64;
        let n = s * t;
        self.dims
            .iter()
            .map(|&k| t * t * ((k / 2) * k.div_ceil(2)) as f64 * (s / k as f64) / (n - 1.0))
            .fold(0.0, f64::max)
    }

    /// Diameter and average distance between distinct terminals, from per-dimension sums.
    pub fn distances(&self) -> (usize, f64) {
        let s = self.switches() as f64;
        let t = self.terminals_per_switch as f64;
        let n_term = s * t;
        let ring = |k: usize, a: usize, b: usize| {
            let d = a.abs_diff(b);
            if self.wrap {
                d.min(k - d)
            } else {
                d
            }
        };
        // Sum of switch distances over all ordered switch pairs, dimension by dimension.
        let mut switch_sum = 0.0;
        let mut diameter = 0;
        for &k in &self.dims {
            let line: usize = (0..k).flat_map(|a| (0..k).map(move |b| (a, b))).map(|(a, b)| ring(k, a, b)).sum();
            switch_sum += line as f64 * (s / k as f64) * (s / k as f64);
            diameter += (0..k).map(|b| ring(k, 0, b)).max().unwrap_or(0);
        }
        // Every terminal pair on distinct switches adds its two terminal links; pairs on
        // one switch are 2 links apart.
        let total = t * t * switch_sum + 2.0 * (n_term * (n_term - 1.0));
        let diameter = if self.switches() > 1 { diameter + 2 } else { 2 };
        (diameter, total / (n_term * (n_term - 1.0)))
    }
}
