//! The properties, throughput bounds and costs of a topology (`topo describe`).

use super::family::Family;
use super::paths;
use super::Topology;
use crate::error::Result;
use serde::Serialize;

/// Everything `hpcnetsim topo describe` reports, in its JSON key order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Properties {
    /// The spec the topology was built from.
    pub spec: String,
    /// Number of terminals N.
    pub terminals: usize,
    /// Number of switches S.
    pub switches: usize,
    /// Switches per tree level, leaf level first (empty for non-trees).
    pub switches_per_level: Vec<usize>,
    /// Links, terminal links included, unplugged ports excluded (thin-tree paper Table 1).
    pub links: usize,
    /// Switch-to-switch links only.
    pub switch_links: usize,
    /// Switch radix R: ports per switch, unplugged ones included.
    pub radix: usize,
    /// Links cut by a minimum balanced bisection, B_C.
    pub bisection_channels: u64,
    /// B_C / (N/2).
    pub bisection_ratio: f64,
    /// Uniform-traffic bound from the bisection, as a fraction of injection bandwidth, capped
    /// at 1. Trees: the thin-tree paper's Θ = 2·B_C/N (its crossing paths climb through the
    /// cut and come back). Tori, meshes, twin tori, HyperX: the half of the traffic that
    /// crosses a balanced cut (N/2 · N/2 / (N − 1) of the pairs) shares the B_C channels of
    /// each direction, B_C·(N − 1)/(⌊N/2⌋·⌈N/2⌉) ≈ 4·B_C/N. Crossbars: 1.
    pub bisection_throughput: f64,
    /// 1/γ_max capped at 1: exact uniform-traffic bound with minimal paths weighted evenly;
    /// also the bound of DOR on tori, whose random half-ring ties load every ring alike.
    pub ideal_throughput: f64,
    /// Largest distance between two terminals, in links.
    pub diameter: usize,
    /// Average distance between distinct terminals, in links (ordered pairs).
    pub avg_distance: f64,
    /// c_C = S.
    pub cost_constant: f64,
    /// c_L = S·R.
    pub cost_linear: f64,
    /// c_Q = S·R².
    pub cost_quadratic: f64,
}

impl Topology {
    /// Largest channel load per unit of injected load under uniform traffic (terminal
    /// links carry exactly 1), from the family's closed form when it has one.
    pub fn max_channel_load(&self) -> f64 {
        let switch_max = match self.family() {
            _ if self.faulty_links() > 0 => paths::max_switch_channel_load(self),
            Family::Tree(x) => x.max_switch_channel_load(),
            _ => paths::max_switch_channel_load(self),
        };
        switch_max.max(1.0)
    }

    /// Diameter and average distance between terminals, from closed forms where the
    /// family has them.
    pub fn distances(&self) -> Result<(usize, f64)> {
        match self.family() {
            _ if self.faulty_links() > 0 => paths::distances(self),
            Family::Tree(x) => Ok(x.distances()),
            Family::Torus(t) => Ok(t.distances()),
            _ => paths::distances(self),
        }
    }

    /// The uniform-traffic bisection bound (see `Properties::bisection_throughput`).
    pub fn bisection_throughput(&self, bisection_channels: u64) -> f64 {
        let n = self.num_terminals() as f64;
        let b = bisection_channels as f64;
        let bound = match self.family() {
            Family::Crossbar(_) => 1.0,
            // Imported fabrics: the paper's formula on the terminal cut (an upper bound).
            Family::Tree(_) | Family::Fabric(_) => 2.0 * b / n,
            _ => b * (n - 1.0) / ((n / 2.0).floor() * (n / 2.0).ceil()),
        };
        bound.min(1.0)
    }

    /// Computes all properties.
    pub fn describe(&self) -> Result<Properties> {
        let n = self.num_terminals();
        let s = self.num_switches();
        let r = self.radix() as f64;
        let bisection_channels = self.family().bisection_channels();
        let bisection_ratio = bisection_channels as f64 / (n as f64 / 2.0);
        let (diameter, avg_distance) = self.distances()?;
        Ok(Properties {
            spec: self.spec().to_string(),
            terminals: n,
            switches: s,
            switches_per_level: self.family().switches_per_level(),
            links: self.links(),
            switch_links: self.switch_links(),
            radix: self.radix(),
            bisection_channels,
            bisection_ratio,
            bisection_throughput: self.bisection_throughput(bisection_channels),
            ideal_throughput: 1.0 / self.max_channel_load(),
            diameter,
            avg_distance,
            cost_constant: s as f64,
            cost_linear: s as f64 * r,
            cost_quadratic: s as f64 * r * r,
        })
    }
}
