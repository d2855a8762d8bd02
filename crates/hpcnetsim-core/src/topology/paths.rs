//! Minimal paths on the switch graph: distances, path counts and the channel load of
//! uniform traffic spread evenly over all minimal paths (Dally & Towles' channel-load
//! method), computed per source *switch* with Brandes' dependency accumulation.
//!
//! When the family declares a translation [`Symmetry`], only one source per orbit is
//! needed: the load of channel `(u, p)` is the sum, over the representatives `r` and the
//! switches `u'` of `u`'s orbit, of the dependency of `r` on `(u', p)`.

use super::graph::{Peer, Symmetry, Topology};
use crate::error::{Error, Result};
use rayon::prelude::*;

const UNREACHED: u32 = u32::MAX;

/// Switch-link distances from `src` to every switch (`u32::MAX` when unreachable).
pub fn bfs(topo: &Topology, src: usize) -> Vec<u32> {
    let mut dist = vec![UNREACHED; topo.num_switches()];
    let mut order = Vec::with_capacity(topo.num_switches());
    bfs_into(topo, src, &mut dist, &mut order);
    dist
}

/// BFS filling `dist` (must be all `UNREACHED`) and the visit order.
fn bfs_into(topo: &Topology, src: usize, dist: &mut [u32], order: &mut Vec<u32>) {
    order.clear();
    dist[src] = 0;
    order.push(src as u32);
    let mut head = 0;
    while head < order.len() {
        let u = order[head] as usize;
        head += 1;
        for peer in topo.ports(u) {
            if let Peer::Switch { switch, .. } = *peer {
                if dist[switch as usize] == UNREACHED {
                    dist[switch as usize] = dist[u] + 1;
                    order.push(switch);
                }
            }
        }
    }
}

/// Sources whose results stand for the whole network, with the multiplicity of each:
/// one switch per orbit of `symmetry`, or every switch that has terminals.
fn sources(topo: &Topology, symmetry: Option<&Symmetry>) -> Vec<(usize, f64)> {
    match symmetry {
        Some(sym) => {
            let weight = topo.num_switches() as f64 / sym.representatives.len() as f64;
            sym.representatives.iter().map(|&r| (r as usize, weight)).collect()
        }
        None => (0..topo.num_switches()).filter(|&s| topo.terminals_at()[s] > 0).map(|s| (s, 1.0)).collect(),
    }
}

/// Diameter and average distance in links between distinct terminals, terminal links
/// included (two terminals on one switch are 2 links apart), averaged over ordered pairs.
/// Errors if some terminal cannot reach another.
pub fn distances(topo: &Topology) -> Result<(usize, f64)> {
    distances_with(topo, topo.symmetry())
}

/// [`distances`] with an explicit symmetry (`None` forces one BFS per source switch).
pub fn distances_with(topo: &Topology, symmetry: Option<&Symmetry>) -> Result<(usize, f64)> {
    let t = topo.terminals_at();
    let n = topo.num_terminals() as f64;
    let per_source = |(s, weight): (usize, f64)| -> Result<(usize, f64)> {
        let dist = bfs(topo, s);
        let ts = t[s] as f64;
        let (mut diam, mut sum) = (if t[s] > 1 { 2 } else { 0 }, 2.0 * ts * (ts - 1.0));
        for (d, &td) in t.iter().enumerate() {
            if td == 0 || d == s {
                continue;
            }
            if dist[d] == UNREACHED {
                return Err(Error::Unsupported(format!(
                    "{}: terminals on switches {s} and {d} are disconnected",
                    topo.spec()
                )));
            }
            diam = diam.max(dist[d] as usize + 2);
            sum += ts * td as f64 * (dist[d] as f64 + 2.0);
        }
        Ok((diam, weight * sum))
    };
    let parts: Vec<(usize, f64)> = sources(topo, symmetry).into_par_iter().map(per_source).collect::<Result<_>>()?;
    let diameter = parts.iter().map(|p| p.0).max().unwrap_or(0);
    let total: f64 = parts.iter().map(|p| p.1).sum();
    Ok((diameter, total / (n * (n - 1.0))))
}

/// Number of minimal paths between two distinct terminals (paths through parallel links
/// count separately). Errors when the count does not fit in 128 bits.
pub fn minimal_paths(topo: &Topology, a: usize, b: usize) -> Result<u128> {
    let n = topo.num_terminals();
    for (name, t) in [("terminal a", a), ("terminal b", b)] {
        if t >= n {
            return Err(Error::invalid(topo.spec(), name, t, format!("a terminal index in 0..{n}")));
        }
    }
    if a == b {
        return Err(Error::invalid(topo.spec(), "terminal b", b, "a terminal other than terminal a"));
    }
    let (src, _) = topo.terminal_attachment(a);
    let (dst, _) = topo.terminal_attachment(b);
    let mut dist = vec![UNREACHED; topo.num_switches()];
    let mut order = Vec::new();
    bfs_into(topo, src, &mut dist, &mut order);
    let mut sigma = vec![0u128; topo.num_switches()];
    sigma[src] = 1;
    for &u in &order {
        let u = u as usize;
        for peer in topo.ports(u) {
            if let Peer::Switch { switch, .. } = *peer {
                let v = switch as usize;
                if dist[v] == dist[u] + 1 {
                    sigma[v] = sigma[v]
                        .checked_add(sigma[u])
                        .ok_or_else(|| Error::Unsupported(format!("{}: more than 2^128 minimal paths", topo.spec())))?;
                }
            }
        }
    }
    Ok(sigma[dst])
}

/// Reusable buffers of one Brandes pass.
struct Scratch {
    dist: Vec<u32>,
    order: Vec<u32>,
    sigma: Vec<f64>,
    delta: Vec<f64>,
}

impl Scratch {
    fn new(switches: usize) -> Self {
        Scratch {
            dist: vec![UNREACHED; switches],
            order: Vec::new(),
            sigma: vec![0.0; switches],
            delta: vec![0.0; switches],
        }
    }
}

/// Adds to `load` the per-channel load of the traffic sourced at switch `src`: each of
/// its terminals sends one unit spread uniformly over the other N−1 terminals, and each
/// pair's share evenly over its minimal paths.
fn accumulate(topo: &Topology, src: usize, load: &mut [f64], sc: &mut Scratch) {
    let t = topo.terminals_at();
    let per_dest = t[src] as f64 / (topo.num_terminals() as f64 - 1.0);
    bfs_into(topo, src, &mut sc.dist, &mut sc.order);
    for &u in &sc.order {
        sc.sigma[u as usize] = 0.0;
        sc.delta[u as usize] = 0.0;
    }
    sc.sigma[src] = 1.0;
    for &u in &sc.order {
        let u = u as usize;
        for peer in topo.ports(u) {
            if let Peer::Switch { switch, .. } = *peer {
                if sc.dist[switch as usize] == sc.dist[u] + 1 {
                    sc.sigma[switch as usize] += sc.sigma[u];
                }
            }
        }
    }
    // Walk back from the farthest switches: the flow into w (its own terminals' share plus
    // what it forwards) splits over its incoming minimal channels in proportion to sigma.
    for &w in sc.order.iter().rev() {
        let w = w as usize;
        if w == src {
            continue;
        }
        let through = (t[w] as f64 * per_dest + sc.delta[w]) / sc.sigma[w];
        for peer in topo.ports(w) {
            if let Peer::Switch { switch: v, port: pv } = *peer {
                let v = v as usize;
                if sc.dist[v] + 1 == sc.dist[w] {
                    let share = sc.sigma[v] * through;
                    load[topo.channel(v, pv as usize)] += share;
                    sc.delta[v] += share;
                }
            }
        }
    }
    for &u in &sc.order {
        sc.dist[u as usize] = UNREACHED;
    }
}

/// Load of every channel (indexed like [`Topology::peers`]) per unit of load injected by
/// every terminal, uniform traffic, minimal paths weighted evenly. Channels to terminals
/// carry 1, unplugged ports 0.
pub fn channel_loads(topo: &Topology) -> Vec<f64> {
    channel_loads_with(topo, topo.symmetry())
}

/// [`channel_loads`] with an explicit symmetry (`None` forces one pass per source switch).
pub fn channel_loads_with(topo: &Topology, symmetry: Option<&Symmetry>) -> Vec<f64> {
    let channels = topo.peers().len();
    let switches = topo.num_switches();
    // Orbit sums below stand for the other sources, so each source counts once here.
    let mut load = sources(topo, symmetry)
        .into_par_iter()
        .fold(
            || (Scratch::new(switches), vec![0.0; channels]),
            |(mut sc, mut load), (s, _)| {
                accumulate(topo, s, &mut load, &mut sc);
                (sc, load)
            },
        )
        .map(|(_, load)| load)
        .reduce(|| vec![0.0; channels], |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect());
    if let Some(sym) = symmetry {
        // Channels of one class (orbit, port) carry the same load: the class total.
        let orbits = sym.representatives.len();
        let width = (0..switches).map(|s| topo.num_ports(s)).max().unwrap_or(0);
        let mut class = vec![0.0; orbits * width];
        for s in 0..switches {
            for p in 0..topo.num_ports(s) {
                class[sym.orbit[s] as usize * width + p] += load[topo.channel(s, p)];
            }
        }
        for s in 0..switches {
            for p in 0..topo.num_ports(s) {
                load[topo.channel(s, p)] = class[sym.orbit[s] as usize * width + p];
            }
        }
    }
    for (l, peer) in load.iter_mut().zip(topo.peers()) {
        match peer {
            Peer::Terminal(_) => *l = 1.0,
            Peer::Unplugged => *l = 0.0,
            Peer::Switch { .. } => {}
        }
    }
    load
}

/// Largest switch-to-switch channel load from [`channel_loads`].
pub fn max_switch_channel_load(topo: &Topology) -> f64 {
    channel_loads(topo)
        .iter()
        .zip(topo.peers())
        .filter(|(_, p)| matches!(p, Peer::Switch { .. }))
        .map(|(l, _)| *l)
        .fold(0.0, f64::max)
}
