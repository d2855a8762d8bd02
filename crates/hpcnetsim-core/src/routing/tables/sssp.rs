//! Weighted shortest paths, destination by destination (OpenSM's SSSP, the routing half
//! of DFSSSP by Domke, Hoefler and Nagel): every channel starts with one hop's weight; after the
//! routes towards one destination address are set, every channel they use gains +1 per
//! route (per source terminal), so later destinations avoid busy channels. PARX (paper 001
//! §3.2, Algorithm 1) runs the same loop on a 2D HyperX with four addresses per terminal,
//! hiding half of the network's links while it routes towards each address.

use super::Tables;
use crate::error::{Error, Result};
use crate::topology::{Family, Peer, Topology};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// State shared by the destinations of one engine run.
struct Weighted<'a> {
    topo: &'a Topology,
    /// Weight of every channel (switch output port).
    weight: Vec<u64>,
    /// For every switch, `(neighbour, channel to it, channel from it)`.
    adj: Vec<Vec<(usize, usize, usize)>>,
    /// Owner switch of every channel.
    owner: Vec<usize>,
    dist: Vec<u64>,
    next: Vec<usize>,
}

const NONE: usize = usize::MAX;

impl<'a> Weighted<'a> {
    fn new(topo: &'a Topology) -> Self {
        let n = topo.num_switches();
        let mut owner = Vec::with_capacity(topo.peers().len());
        let mut adj = vec![Vec::new(); n];
        for (s, a) in adj.iter_mut().enumerate() {
            owner.extend(std::iter::repeat_n(s, topo.num_ports(s)));
            for (p, peer) in topo.ports(s).iter().enumerate() {
                if let Peer::Switch { switch, port } = *peer {
                    a.push((switch as usize, topo.channel(s, p), topo.channel(switch as usize, port as usize)));
                }
            }
        }
        // Every hop starts heavier than all later updates together, so routes stay minimal
        // (paper 001 §3.2.1: InfiniBand's static engines route along minimal paths only);
        // the updates only choose among the minimal paths.
        let updates = (topo.num_terminals() as u64).pow(2) * 4 * 255;
        let hop = updates * n as u64 + 1;
        Weighted { topo, weight: vec![hop; topo.peers().len()], adj, owner, dist: vec![0; n], next: vec![NONE; n] }
    }

    /// Dijkstra towards switch `ds` over the channels not `hidden`; fills `next` (the
    /// channel each switch forwards on, `NONE` at `ds` and where unreachable).
    fn shortest_to(&mut self, ds: usize, hidden: Option<&[bool]>) {
        self.dist.fill(u64::MAX);
        self.next.fill(NONE);
        self.dist[ds] = 0;
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0u64, ds)));
        while let Some(Reverse((d, v))) = heap.pop() {
            if d > self.dist[v] {
                continue;
            }
            for &(u, _, into_v) in &self.adj[v] {
                if hidden.is_some_and(|h| h[into_v]) {
                    continue;
                }
                let nd = d + self.weight[into_v];
                if nd < self.dist[u] {
                    self.dist[u] = nd;
                    self.next[u] = into_v;
                    heap.push(Reverse((nd, u)));
                }
            }
        }
    }

    /// Whether every switch with terminals reaches `ds` in the last computed tree.
    fn all_reached(&self) -> bool {
        (0..self.next.len()).all(|s| self.dist[s] != u64::MAX || self.topo.terminals_at()[s] == 0)
    }

    /// Writes the last tree into the tables for `lid` (destination port `dp` at `ds`).
    fn store(&self, t: &mut Tables, lid: usize, ds: usize, dp: usize) {
        t.set_port(ds, lid, dp);
        for (s, &c) in self.next.iter().enumerate() {
            if c != NONE {
                t.set_port(s, lid, c - self.topo.channel(s, 0));
            }
        }
    }

    /// Adds `w(s)` to every channel of the route from each switch `s`.
    fn add_weights(&mut self, w: impl Fn(usize) -> u64) {
        for s in 0..self.next.len() {
            let add = w(s);
            if add == 0 {
                continue;
            }
            let mut u = s;
            while self.next[u] != NONE {
                let c = self.next[u];
                self.weight[c] += add;
                u = match self.topo.peers()[c] {
                    Peer::Switch { switch, .. } => switch as usize,
                    _ => unreachable!("routes follow switch links"),
                };
            }
        }
    }

    /// Number of source terminals at switch `s` whose packets to terminal `dst` (attached
    /// to `ds`) cross the network.
    fn sources(&self, s: usize, ds: usize) -> u64 {
        if s == ds {
            0
        } else {
            self.topo.terminals_at()[s] as u64
        }
    }
}

/// SSSP: balanced weighted shortest paths (see the module comment). Not deadlock-free by
/// itself; DFSSSP adds the virtual layers.
pub fn sssp(topo: &Topology, lmc: u8) -> Tables {
    let mut t = Tables::new("sssp", topo, lmc);
    let mut g = Weighted::new(topo);
    for dst in 0..topo.num_terminals() {
        let (ds, dp) = topo.terminal_attachment(dst);
        for off in 0..t.offsets() {
            g.shortest_to(ds, None);
            let lid = t.lid(dst, off);
            g.store(&mut t, lid, ds, dp);
            let counts: Vec<u64> = (0..topo.num_switches()).map(|s| g.sources(s, ds)).collect();
            g.add_weights(|s| counts[s]);
        }
    }
    t
}

/// Quadrant of a 2D HyperX switch at `(x, y)` as paper 001 Fig. 3 numbers them (from
/// Table 1 and rules R1-R4): Q0 left-top, Q1 left-bottom, Q2 right-bottom, Q3 right-top;
/// left is `x < S0/2`, top is `y < S1/2`.
pub fn quadrant(x: usize, y: usize, dims: &[usize]) -> usize {
    match (x < dims[0] / 2, y < dims[1] / 2) {
        (true, true) => 0,
        (true, false) => 1,
        (false, false) => 2,
        (false, true) => 3,
    }
}

/// Whether rule R(i+1) hides the link between switches at `a` and `b`: LID_0 hides the
/// left half, LID_1 the right half, LID_2 the top half, LID_3 the bottom half (a link is
/// in a half when both its ends are).
fn hidden_by(rule: usize, a: &[usize], b: &[usize], dims: &[usize]) -> bool {
    let left = |p: &[usize]| p[0] < dims[0] / 2;
    let top = |p: &[usize]| p[1] < dims[1] / 2;
    match rule {
        0 => left(a) && left(b),
        1 => !left(a) && !left(b),
        2 => top(a) && top(b),
        _ => !top(a) && !top(b),
    }
}

/// Checks PARX applies: a 2D HyperX with even sizes.
pub fn parx_dims(topo: &Topology) -> Result<Vec<usize>> {
    match topo.family() {
        Family::HyperX(h) if h.dims.len() == 2 && h.dims.iter().all(|d| d % 2 == 0) => Ok(h.dims.clone()),
        _ => Err(Error::invalid(
            "routing",
            "engine",
            format!("'parx' on {}", topo.spec()),
            "a 2D HyperX with even sizes (paper 001 §3.2); use dfsssp, sssp, updn or minhop elsewhere",
        )),
    }
}

/// Normalises byte demands to paper 001's 0..=255 scale (0 only for no bytes).
pub fn normalise_demands(demands: &[(usize, usize, f64)]) -> Vec<(usize, usize, u64)> {
    let max = demands.iter().map(|d| d.2).fold(0.0f64, f64::max);
    demands
        .iter()
        .filter(|d| d.2 > 0.0 && max > 0.0)
        .map(|&(s, d, b)| (s, d, ((255.0 * b / max).round() as u64).clamp(1, 255)))
        .collect()
}

/// PARX (paper 001 Algorithm 1): LMC = 2; destinations with communication demands are
/// routed first, each edge update adding the normalised demand of every source; the other
/// destinations follow with +1 per route. Towards LID_i the links of rule R(i+1) are hidden;
/// where that cuts a switch with terminals off (faults), that address is routed on the
/// whole network instead. Layers are assigned afterwards, as in DFSSSP. Demands between
/// terminals of one switch are left out: they use no link.
pub fn parx(topo: &Topology, demands: &[(usize, usize, f64)]) -> Result<Tables> {
    let dims = parx_dims(topo)?;
    let n = topo.num_terminals();
    // An infinite demand would scale every other to nothing (all weighed alike).
    if let Some(d) = demands.iter().find(|d| d.0 >= n || d.1 >= n || !d.2.is_finite() || d.2 < 0.0) {
        return Err(Error::invalid(
            "routing",
            "demand",
            format!("{} {} {}", d.0, d.1, d.2),
            format!("source and destination terminals below {n} and a finite byte count >= 0"),
        ));
    }
    let coords: Vec<Vec<usize>> = (0..topo.num_switches()).map(|s| topo.switch_coordinates(s)).collect();
    let mut g = Weighted::new(topo);
    let hidden: Vec<Vec<bool>> = (0..4)
        .map(|rule| {
            g.owner
                .iter()
                .enumerate()
                .map(|(c, &s)| match topo.peers()[c] {
                    Peer::Switch { switch, .. } => hidden_by(rule, &coords[s], &coords[switch as usize], &dims),
                    _ => false,
                })
                .collect()
        })
        .collect();
    // Pairs on one switch (a rank's messages to itself among them, common in profiles taken
    // from traces) cross no link: they neither set the scale nor put their destination first.
    let crossing: Vec<(usize, usize, f64)> = demands
        .iter()
        .copied()
        .filter(|&(s, d, _)| topo.terminal_attachment(s).0 != topo.terminal_attachment(d).0)
        .collect();
    let norm = normalise_demands(&crossing);
    // demand_to[dst]: (source switch, weight) pairs.
    let mut demand_to: Vec<Vec<(usize, u64)>> = vec![Vec::new(); n];
    for &(s, d, w) in &norm {
        demand_to[d].push((topo.terminal_attachment(s).0, w));
    }
    let order: Vec<usize> =
        (0..n).filter(|&d| !demand_to[d].is_empty()).chain((0..n).filter(|&d| demand_to[d].is_empty())).collect();
    let mut t = Tables::new("parx", topo, 2);
    for dst in order {
        let (ds, dp) = topo.terminal_attachment(dst);
        for (i, hide) in hidden.iter().enumerate() {
            g.shortest_to(ds, Some(hide));
            if !g.all_reached() {
                g.shortest_to(ds, None);
            }
            let lid = t.lid(dst, i);
            g.store(&mut t, lid, ds, dp);
            let mut add = vec![0u64; topo.num_switches()];
            if demand_to[dst].is_empty() {
                for (s, a) in add.iter_mut().enumerate() {
                    *a = g.sources(s, ds);
                }
            } else {
                for &(s, w) in &demand_to[dst] {
                    if s != ds {
                        add[s] += w;
                    }
                }
            }
            g.add_weights(|s| add[s]);
        }
    }
    Ok(t)
}
