//! Minimal paths on the switch graph: distances, path counts and the channel load of
//! uniform traffic spread evenly over all minimal paths (Dally & Towles' channel-load
//! method), computed per source *switch* with Brandes' dependency accumulation.
//!
//! When the family declares a [`Symmetry`], only one source per orbit is needed and the
//! symmetry spreads the sources' dependencies over all channels.

use super::graph::Topology;
use super::symmetry::{Symmetry, SymmetryKind};
use super::wiring::Peer;
use crate::error::{Error, Result};
use rayon::prelude::*;

const UNREACHED: u32 = u32::MAX;

/// The switch graph in compact form: for every switch, its switch neighbours and the
/// channels joining them, so the inner loops never look at terminal or unplugged ports.
struct Adjacency {
    offset: Vec<u32>,
    /// `(neighbour, channel from this switch to it, channel from it to this switch)`.
    entries: Vec<(u32, u32, u32)>,
}

impl Adjacency {
    fn new(topo: &Topology) -> Self {
        let mut offset = vec![0u32];
        let mut entries = Vec::new();
        for s in 0..topo.num_switches() {
            for (p, peer) in topo.ports(s).iter().enumerate() {
                if let Peer::Switch { switch, port } = *peer {
                    let back = topo.channel(switch as usize, port as usize);
                    entries.push((switch, topo.channel(s, p) as u32, back as u32));
                }
            }
            offset.push(entries.len() as u32);
        }
        Adjacency { offset, entries }
    }

    fn of(&self, s: usize) -> &[(u32, u32, u32)] {
        &self.entries[self.offset[s] as usize..self.offset[s + 1] as usize]
    }
}

/// Switch-link distances from `src` to every switch (`u32::MAX` when unreachable).
pub fn bfs(topo: &Topology, src: usize) -> Vec<u32> {
    let adj = Adjacency::new(topo);
    let mut dist = vec![UNREACHED; topo.num_switches()];
    let mut order = Vec::with_capacity(topo.num_switches());
    bfs_into(&adj, src, &mut dist, &mut order);
    dist
}

/// BFS filling `dist` (must be all `UNREACHED`) and the visit order.
fn bfs_into(adj: &Adjacency, src: usize, dist: &mut [u32], order: &mut Vec<u32>) {
    order.clear();
    dist[src] = 0;
    order.push(src as u32);
    let mut head = 0;
    while head < order.len() {
        let u = order[head] as usize;
        head += 1;
        for &(v, _, _) in adj.of(u) {
            if dist[v as usize] == UNREACHED {
                dist[v as usize] = dist[u] + 1;
                order.push(v);
            }
        }
    }
}

/// Sources whose results stand for the whole network, with the number of switches each
/// stands for: one switch per orbit of `symmetry`, or every switch that has terminals.
fn sources(topo: &Topology, symmetry: Option<&Symmetry>) -> Vec<(usize, f64)> {
    match symmetry {
        Some(sym) => sym.sources.iter().map(|&(r, size)| (r as usize, size)).collect(),
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
    let adj = Adjacency::new(topo);
    let per_source = |(s, weight): (usize, f64)| -> Result<(usize, f64)> {
        let mut dist = vec![UNREACHED; topo.num_switches()];
        bfs_into(&adj, s, &mut dist, &mut Vec::new());
        let ts = t[s] as f64;
        let (mut diam, mut sum) = (if t[s] > 1 { 2 } else { 0 }, 2.0 * ts * (ts - 1.0));
        for (d, &td) in t.iter().enumerate() {
            if td == 0 || d == s {
                continue;
            }
            if dist[d] == UNREACHED {
                // A failed switch (`faults:switches=`) keeps its terminals but none of its links:
                // say so, the user may have meant to fail a switch without terminals.
                let cut_off: Vec<String> = [s, d]
                    .into_iter()
                    .filter(|&x| !topo.ports(x).iter().any(|p| matches!(p, Peer::Switch { .. })))
                    .map(|x| format!("switch {x} has terminals but no working link"))
                    .collect();
                let why = if cut_off.is_empty() { String::new() } else { format!(" ({})", cut_off.join(", ")) };
                return Err(Error::Unsupported(format!(
                    "{}: terminals on switches {s} and {d} are disconnected{why}",
                    topo.spec()
                )));
            }
            // A switch without terminals (a Megafly spine, a tree's upper levels) is no end
            // of a terminal pair: it reaches the others but sets no distance.
            if ts > 0.0 {
                diam = diam.max(dist[d] as usize + 2);
            }
            sum += ts * td as f64 * (dist[d] as f64 + 2.0);
        }
        Ok((diam, weight * sum))
    };
    // The first source alone finds any cut of a network whose links run both ways, and the
    // error names the same pair every run.
    let sources = sources(topo, symmetry);
    let parts = crate::in_order::map_in_order(sources.len(), || (), |_, i| per_source(sources[i]))?;
    let diameter = parts.iter().map(|p| p.0).max().unwrap_or(0);
    let total: f64 = parts.iter().map(|p| p.1).sum();
    Ok((diameter, total / (n * (n - 1.0))))
}

/// Checks that `a` and `b` are two distinct terminal indices.
fn check_pair(topo: &Topology, a: usize, b: usize) -> Result<()> {
    let n = topo.num_terminals();
    for (name, t) in [("terminal a", a), ("terminal b", b)] {
        if t >= n {
            return Err(Error::invalid(topo.spec(), name, t, format!("a terminal index in 0..{n}")));
        }
    }
    if a == b {
        return Err(Error::invalid(topo.spec(), "terminal b", b, "a terminal other than terminal a"));
    }
    Ok(())
}

/// Distance in links between two distinct terminals, terminal links included.
pub fn terminal_distance(topo: &Topology, a: usize, b: usize) -> Result<usize> {
    check_pair(topo, a, b)?;
    let dist = bfs(topo, topo.terminal_attachment(a).0)[topo.terminal_attachment(b).0];
    if dist == UNREACHED {
        return Err(Error::Unsupported(format!("{}: terminals {a} and {b} are disconnected", topo.spec())));
    }
    Ok(dist as usize + 2)
}

/// Number of minimal paths between two distinct terminals (paths through parallel links
/// count separately). Errors when the count does not fit in 128 bits.
pub fn minimal_paths(topo: &Topology, a: usize, b: usize) -> Result<u128> {
    check_pair(topo, a, b)?;
    let (src, _) = topo.terminal_attachment(a);
    let (dst, _) = topo.terminal_attachment(b);
    let adj = Adjacency::new(topo);
    let mut dist = vec![UNREACHED; topo.num_switches()];
    let mut order = Vec::new();
    bfs_into(&adj, src, &mut dist, &mut order);
    let mut sigma = vec![0u128; topo.num_switches()];
    sigma[src] = 1;
    for &u in &order {
        let u = u as usize;
        for &(v, _, _) in adj.of(u) {
            let v = v as usize;
            if dist[v] == dist[u] + 1 {
                sigma[v] = sigma[v]
                    .checked_add(sigma[u])
                    .ok_or_else(|| Error::Unsupported(format!("{}: more than 2^128 minimal paths", topo.spec())))?;
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

/// Adds to `load`, scaled by `weight`, the per-channel load of the traffic sourced at
/// switch `src`: each of its terminals sends one unit spread uniformly over the other N−1
/// terminals, and each pair's share evenly over its minimal paths.
fn accumulate(topo: &Topology, adj: &Adjacency, src: usize, weight: f64, load: &mut [f64], sc: &mut Scratch) {
    let t = topo.terminals_at();
    let per_dest = weight * t[src] as f64 / (topo.num_terminals() as f64 - 1.0);
    // One pass does BFS and path counting: a switch's count is final when it is dequeued.
    sc.order.clear();
    sc.order.push(src as u32);
    sc.dist[src] = 0;
    sc.sigma[src] = 1.0;
    sc.delta[src] = 0.0;
    let mut head = 0;
    while head < sc.order.len() {
        let u = sc.order[head] as usize;
        head += 1;
        let next = sc.dist[u] + 1;
        for &(v, _, _) in adj.of(u) {
            let v = v as usize;
            if sc.dist[v] == UNREACHED {
                sc.dist[v] = next;
                sc.sigma[v] = 0.0;
                sc.delta[v] = 0.0;
                sc.order.push(v as u32);
            }
            if sc.dist[v] == next {
                sc.sigma[v] += sc.sigma[u];
            }
        }
    }
    // Walk back from the farthest switches: the flow into w (its own terminals' share plus
    // what it forwards) splits over its incoming minimal channels in proportion to sigma.
    for &w in sc.order[1..].iter().rev() {
        let w = w as usize;
        let through = (t[w] as f64 * per_dest + sc.delta[w]) / sc.sigma[w];
        let prev = sc.dist[w] - 1;
        for &(v, _, into_w) in adj.of(w) {
            let v = v as usize;
            if sc.dist[v] == prev {
                let share = sc.sigma[v] * through;
                load[into_w as usize] += share;
                sc.delta[v] += share;
            }
        }
    }
    for &u in &sc.order {
        sc.dist[u as usize] = UNREACHED;
    }
}

/// Sources whose loads one task of [`channel_loads_with`] sums before adding them to the total.
const LOAD_CHUNK: usize = 32;

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
    let adj = Adjacency::new(topo);
    let weights: Vec<(usize, f64)> = match symmetry {
        Some(sym) => {
            sym.sources.iter().enumerate().map(|(i, &(r, _))| (r as usize, sym.dependency_weight(i))).collect()
        }
        None => sources(topo, None),
    };
    // Floating-point sums depend on their order: the sources are summed in fixed chunks, each
    // in source order, and the chunks' loads added to the total in chunk order, so the loads
    // are the same bits whatever the threads and their scheduling (rayon's fold and reduce
    // split the work differently from run to run). A batch of chunks, one per thread, is
    // computed at a time, so memory stays at one load vector per thread.
    let chunks: Vec<&[(usize, f64)]> = weights.chunks(LOAD_CHUNK).collect();
    let mut dependencies = vec![0.0; channels];
    for batch in chunks.chunks(rayon::current_num_threads().max(1)) {
        let loads: Vec<Vec<f64>> = batch
            .par_iter()
            .map(|chunk| {
                let (mut sc, mut load) = (Scratch::new(switches), vec![0.0; channels]);
                for &(s, w) in chunk.iter() {
                    accumulate(topo, &adj, s, w, &mut load, &mut sc);
                }
                load
            })
            .collect();
        for load in &loads {
            dependencies.iter_mut().zip(load).for_each(|(x, y)| *x += y);
        }
    }
    let mut load = match symmetry {
        Some(sym) => spread(sym, topo, &dependencies),
        None => dependencies,
    };
    for (l, peer) in load.iter_mut().zip(topo.peers()) {
        match peer {
            Peer::Terminal(_) => *l = 1.0,
            Peer::Unplugged => *l = 0.0,
            Peer::Switch { .. } => {}
        }
    }
    load
}

/// Turns the weighted dependencies of a symmetry's sources into the load of every channel
/// (see `symmetry.rs` for why this sum is the load).
fn spread(symmetry: &Symmetry, topo: &Topology, dependencies: &[f64]) -> Vec<f64> {
    match &symmetry.kind {
        SymmetryKind::Translations { orbit } => {
            let width = topo.radix();
            let mut class = vec![0.0; symmetry.sources.len() * width];
            let index = |s: usize, p: usize| orbit[s] as usize * width + p;
            for s in 0..topo.num_switches() {
                for p in 0..topo.num_ports(s) {
                    class[index(s, p)] += dependencies[topo.channel(s, p)];
                }
            }
            let mut load = vec![0.0; dependencies.len()];
            for s in 0..topo.num_switches() {
                for p in 0..topo.num_ports(s) {
                    load[topo.channel(s, p)] = class[index(s, p)];
                }
            }
            load
        }
        SymmetryKind::Permutations { channel_maps } => {
            let mut load = vec![0.0; dependencies.len()];
            for map in channel_maps {
                for (l, &image) in load.iter_mut().zip(map) {
                    *l += dependencies[image as usize];
                }
            }
            load
        }
    }
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
