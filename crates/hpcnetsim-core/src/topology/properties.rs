//! The properties, throughput bounds and costs of a topology (`topo describe`).

use super::family::Family;
use super::paths;
use super::Topology;
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Most breadth-first-search steps (sources x (switches + channels)) of `describe` on a
/// network without symmetry: `twin-torus:20x20x20|faults:`, 1.5 x 10^9 steps, takes 12 s on
/// two cores, so 2^32 is about half a minute.
pub const MAX_DESCRIBE_STEPS: u128 = 1 << 32;

/// Everything `hpcnetsim topo describe` reports, in its JSON key order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Properties {
    /// The spec the topology was built from.
    pub spec: String,
    /// Number of terminals N (NIC ports: every endpoint's port on every plane).
    pub terminals: usize,
    /// Number of identical planes (1 for a single network).
    pub planes: usize,
    /// Number of endpoints (compute nodes): N / planes.
    pub endpoints: usize,
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
    /// cut and come back), which takes all traffic to leave its subtree and so falls below
    /// `ideal_throughput` on tapered and small trees (docs/topologies.md). Tori, meshes, twin
    /// tori, HyperX: the half of the traffic that crosses a balanced cut (N/2 · N/2 / (N − 1)
    /// of the pairs) shares the B_C channels of each direction, B_C·(N − 1)/(⌊N/2⌋·⌈N/2⌉) ≈
    /// 4·B_C/N. Crossbars: 1.
    pub bisection_throughput: f64,
    /// Upper bound on the uniform-traffic throughput of every routing (minimal or not,
    /// oblivious or adaptive), as a fraction of injection bandwidth: 1 over the smallest
    /// possible largest channel load, terminal links included (so at most 1). From the
    /// family's closed form where one is proven, else the multicommodity-flow program
    /// ([`crate::topology::optimal`]); `None` where that program is too large to solve.
    pub ideal_throughput: Option<f64>,
    /// 1/γ_max capped at 1 with γ_max the largest channel load when every pair spreads
    /// evenly over its minimal paths: the exact bound of that routing, below
    /// `ideal_throughput` where the even spread crowds some channels (meshes: their centre).
    pub minimal_spread_throughput: f64,
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
        if self.planes() > 1 {
            return self.per_plane(Topology::max_channel_load).into_iter().fold(0.0, f64::max);
        }
        let switch_max = match self.family() {
            _ if self.faulty_links() > 0 => paths::max_switch_channel_load(self),
            Family::Tree(x) => x.max_switch_channel_load(),
            _ => paths::max_switch_channel_load(self),
        };
        switch_max.max(1.0)
    }

    /// [`Properties::ideal_throughput`]: the uniform-traffic throughput no routing can beat.
    ///
    /// Closed forms, where the even spread over minimal paths is provably optimal (or, for
    /// meshes, DOR is): in each case a family of channels that every route between some
    /// pairs must cross gives a lower bound on the largest load of any routing, and a
    /// routing reaches it.
    /// - Tori: a route between switches whose ring coordinates in dimension i are r apart
    ///   takes at least r channels of dimension i, so some channel of dimension i carries at
    ///   least the sum of those ring distances over all pairs divided by the dimension's
    ///   channels. Minimal routes take exactly r, and the even spread, invariant under the
    ///   translations and per-dimension reflections that map any channel of a dimension to
    ///   any other, loads them all alike: it meets the bound.
    /// - HyperX: the same with r = 1 for pairs that differ in dimension i (each line is a
    ///   complete graph, its channels exchanged by permuting the line's positions and the K
    ///   parallel copies).
    /// - Trees (XGFT, thin-trees): a route leaving a level-l subtree takes at least one of
    ///   its up-channels to level l + 1; minimal routes take exactly one, and the even
    ///   spread loads a level's up-channels (and down-channels) alike by the tree's
    ///   symmetry, so again it meets the cut bound.
    /// - Meshes: the even spread is not optimal (it crowds the centre). The cut between
    ///   positions x and x + 1 of a dimension of size k is crossed by S/k channels each way
    ///   and by the traffic of t(x + 1)S/k terminals to t(k − x − 1)S/k others, so some
    ///   channel carries t²(x + 1)(k − x − 1)(S/k)/(N − 1); DOR loads every channel of that
    ///   cut exactly so, the most at the middle cut of the largest dimension.
    /// - Crossbars: only terminal links, 1.
    ///
    /// Other networks (twin tori, imported fabrics, any network with faults): 1 when the
    /// even spread loads no switch channel above the terminal links' 1; else the even
    /// spread when the channels it loads most are certified unavoidable
    /// ([`crate::topology::optimal::certify_minimal_spread`]); else the linear program, `None`
    /// when it is too large.
    pub fn throughput_bound(&self) -> Option<f64> {
        if self.planes() > 1 {
            return least_bound(self.per_plane(Topology::throughput_bound));
        }
        let switch_max = match self.family() {
            _ if self.faulty_links() > 0 => return self.solved_throughput_bound(),
            Family::Crossbar(_) => 0.0,
            Family::Tree(_) | Family::HyperX(_) => return Some(self.minimal_spread_throughput()),
            Family::Torus(t) if t.wrap => return Some(self.minimal_spread_throughput()),
            Family::Torus(t) => t.mesh_max_channel_load(),
            Family::TwinTorus(_)
            | Family::Dragonfly(_)
            | Family::Cascade(_)
            | Family::Megafly(_)
            | Family::SlimFly(_)
            | Family::Jellyfish(_)
            | Family::Fabric(_) => return self.solved_throughput_bound(),
        };
        Some(1.0 / switch_max.max(1.0))
    }

    /// The bound of a network without a closed form (see [`Topology::throughput_bound`]),
    /// kept per spec for the process: a sweep runs the same network many times and the
    /// program can take a second. A spec fixes the graph (random faults are seeded) except
    /// for fabrics read from files, which are not kept.
    fn solved_throughput_bound(&self) -> Option<f64> {
        static KEPT: OnceLock<Mutex<HashMap<String, Option<f64>>>> = OnceLock::new();
        let keep = !matches!(self.family(), Family::Fabric(_));
        let kept = KEPT.get_or_init(Default::default);
        if keep {
            if let Some(&bound) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(self.spec()) {
                return bound;
            }
        }
        let bound = self.solve_throughput_bound();
        if keep {
            kept.lock().unwrap_or_else(|e| e.into_inner()).insert(self.spec().to_string(), bound);
        }
        bound
    }

    fn solve_throughput_bound(&self) -> Option<f64> {
        use crate::topology::optimal;
        let loads = paths::channel_loads(self);
        let spread_max = loads
            .iter()
            .zip(self.peers())
            .filter(|(_, p)| matches!(p, super::Peer::Switch { .. }))
            .map(|(l, _)| *l)
            .fold(0.0, f64::max);
        // Spread loads at most 1: the terminal links bound every routing at 1 and the even
        // spread reaches it. Certified: the spread is optimal, its own figure is the bound.
        let switch_max = if spread_max <= 1.0 || optimal::certify_minimal_spread(self, &loads) {
            spread_max
        } else {
            optimal::optimal_max_channel_load(self)?.certified
        };
        Some(1.0 / switch_max.max(1.0))
    }

    /// [`Properties::minimal_spread_throughput`]: 1 / [`Topology::max_channel_load`].
    pub fn minimal_spread_throughput(&self) -> f64 {
        1.0 / self.max_channel_load()
    }

    /// Diameter and average distance between terminals, from closed forms where the
    /// family has them.
    pub fn distances(&self) -> Result<(usize, f64)> {
        if self.planes() > 1 {
            let each = self.per_plane(Topology::distances).into_iter().collect::<Result<Vec<_>>>()?;
            let diameter = each.iter().map(|d| d.0).max().unwrap_or(0);
            return Ok((diameter, each.iter().map(|d| d.1).sum::<f64>() / each.len() as f64));
        }
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
            // Imported fabrics with terminals on some switches only (trees' leaves): the
            // paper's formula on the terminal cut. Those with the same terminals on every
            // switch (dragonflies, Slim Flies) have a refined cut and the general bound below.
            Family::Fabric(f) if f.uniform_terminals().is_none() => 2.0 * b / n,
            Family::Tree(_) => 2.0 * b / n,
            _ => b * (n - 1.0) / ((n / 2.0).floor() * (n / 2.0).ceil()),
        };
        bound.min(1.0)
    }

    /// Refuses describing a network without symmetry (a fabric file, any network with faults,
    /// a family whose switches are not all alike such as a Megafly) whose distances and
    /// channel loads, one breadth-first search per switch with terminals over every switch
    /// and channel, would take more than [`MAX_DESCRIBE_STEPS`]:
    /// `torus:40x40x40|faults:random=1` ran for minutes where it now fails at once.
    fn check_describe_work(&self) -> Result<()> {
        // Intact trees have closed forms for both (`distances`, `max_channel_load`).
        let closed_forms = self.faulty_links() == 0 && matches!(self.family(), Family::Tree(_));
        if closed_forms || self.symmetry().is_some() {
            return Ok(());
        }
        let sources = self.terminals_at().iter().filter(|&&t| t > 0).count() as u128;
        let channels = self.peers().len() as u128;
        let steps = sources * (self.num_switches() as u128 + channels);
        if steps <= MAX_DESCRIBE_STEPS {
            return Ok(());
        }
        Err(Error::invalid(
            self.spec(),
            "size",
            format!("{sources} switches with terminals x {channels} channels"),
            "at most 2^32 search steps for the distances and loads of a network without a closed form \
             or symmetry to shorten them (one search per switch with terminals); use a smaller network",
        ))
    }

    /// Computes all properties.
    pub fn describe(&self) -> Result<Properties> {
        if self.planes() > 1 {
            return self.describe_planes();
        }
        let n = self.num_terminals();
        let s = self.num_switches();
        let r = self.radix() as f64;
        let bisection_channels = super::faulty_bisection::bisection_channels(self);
        let bisection_ratio = bisection_channels as f64 / (n as f64 / 2.0);
        self.check_describe_work()?;
        let (diameter, avg_distance) = self.distances()?;
        Ok(Properties {
            spec: self.spec().to_string(),
            terminals: n,
            planes: 1,
            endpoints: n,
            switches: s,
            switches_per_level: self.family().switches_per_level(),
            links: self.links(),
            switch_links: self.switch_links(),
            radix: self.radix(),
            bisection_channels,
            bisection_ratio,
            bisection_throughput: self.bisection_throughput(bisection_channels),
            ideal_throughput: self.throughput_bound(),
            minimal_spread_throughput: self.minimal_spread_throughput(),
            diameter,
            avg_distance,
            cost_constant: s as f64,
            cost_linear: s as f64 * r,
            cost_quadratic: s as f64 * r * r,
        })
    }

    /// `f` of every plane of a multi-plane network, each plane routed on its own (traffic
    /// never crosses planes): once for all when the network is intact, its planes identical.
    fn per_plane<T>(&self, f: impl Fn(&Topology) -> T) -> Vec<T> {
        match self.faulty_links() {
            0 => vec![f(self.plane())],
            _ => (0..self.planes()).map(|p| f(&self.plane_slice(p))).collect(),
        }
    }

    /// The properties of a multi-plane network from its planes': counts and costs add up,
    /// a bisection that splits the endpoints cuts every plane, and the distances and
    /// throughput bounds (per NIC port) are a plane's, the worst plane's with faults.
    fn describe_planes(&self) -> Result<Properties> {
        let mut planes = self.per_plane(Topology::describe).into_iter().collect::<Result<Vec<_>>>()?;
        if planes.len() == 1 {
            planes = vec![planes[0].clone(); self.planes()];
        }
        let sum = |f: fn(&Properties) -> usize| planes.iter().map(f).sum::<usize>();
        let first = &planes[0];
        let bisection_channels = planes.iter().map(|p| p.bisection_channels).sum::<u64>();
        let terminals = sum(|p| p.terminals);
        let min = |f: fn(&Properties) -> f64| planes.iter().map(f).fold(f64::INFINITY, f64::min);
        let ideal = least_bound(planes.iter().map(|p| p.ideal_throughput));
        let mut per_level = vec![0; first.switches_per_level.len()];
        for p in &planes {
            per_level.iter_mut().zip(&p.switches_per_level).for_each(|(a, b)| *a += b);
        }
        Ok(Properties {
            spec: self.spec().to_string(),
            terminals,
            planes: self.planes(),
            endpoints: self.endpoints(),
            switches: sum(|p| p.switches),
            switches_per_level: per_level,
            links: sum(|p| p.links),
            switch_links: sum(|p| p.switch_links),
            radix: first.radix,
            bisection_channels,
            bisection_ratio: bisection_channels as f64 / (terminals as f64 / 2.0),
            bisection_throughput: min(|p| p.bisection_throughput),
            ideal_throughput: ideal,
            minimal_spread_throughput: min(|p| p.minimal_spread_throughput),
            diameter: planes.iter().map(|p| p.diameter).max().unwrap_or(0),
            avg_distance: planes.iter().map(|p| p.avg_distance).sum::<f64>() / planes.len() as f64,
            cost_constant: planes.iter().map(|p| p.cost_constant).sum(),
            cost_linear: planes.iter().map(|p| p.cost_linear).sum(),
            cost_quadratic: planes.iter().map(|p| p.cost_quadratic).sum(),
        })
    }
}

/// The least of several throughput bounds (a multi-plane network's planes'), `None` when any
/// of them is unknown.
pub fn least_bound(bounds: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    bounds.into_iter().try_fold(f64::INFINITY, |m, b| b.map(|b| m.min(b)))
}
