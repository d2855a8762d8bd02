//! Hop-count engines: min-hop and Up*/Down*, both balancing the destinations over the
//! equally short ports by how many destinations each port already carries (as OpenSM's
//! min-hop does).

use super::Tables;
use crate::error::{Error, Result};
use crate::topology::paths::bfs;
use crate::topology::{Family, Topology};
use std::collections::VecDeque;

const FAR: u32 = u32::MAX;

/// Among `(port, channel)` candidates, the one whose channel carries the fewest
/// destinations so far (lowest port on ties); counts it.
fn least_used(cands: impl Iterator<Item = (usize, usize)>, used: &mut [u32]) -> Option<usize> {
    let best = cands.min_by_key(|&(p, c)| (used[c], p))?;
    used[best.1] += 1;
    Some(best.0)
}

/// Min-hop: every switch forwards each destination through a port on a shortest path.
/// Not deadlock-free in general (a torus has cyclic dependencies).
pub fn minhop(topo: &Topology, lmc: u8) -> Tables {
    let mut t = Tables::new("minhop", topo, lmc);
    let mut used = vec![0u32; topo.peers().len()];
    let mut cached: Option<(usize, Vec<u32>)> = None;
    for dst in 0..topo.num_terminals() {
        let (ds, dp) = topo.terminal_attachment(dst);
        if cached.as_ref().map(|c| c.0) != Some(ds) {
            cached = Some((ds, bfs(topo, ds)));
        }
        let dist = &cached.as_ref().expect("just set").1;
        for off in 0..t.offsets() {
            let lid = t.lid(dst, off);
            t.set_port(ds, lid, dp);
            for s in 0..topo.num_switches() {
                if s == ds || dist[s] == FAR {
                    continue;
                }
                let cands = topo.switch_neighbours(s).filter(|&(n, _)| dist[n] + 1 == dist[s]);
                if let Some(p) = least_used(cands.map(|(_, p)| (p, topo.channel(s, p))), &mut used) {
                    t.set_port(s, lid, p);
                }
            }
        }
    }
    t
}

/// Multi-source BFS ranks from `roots`; switches not reached (another component after
/// faults) get their own root: the lowest-indexed switch of that component.
fn ranks(topo: &Topology, roots: &[usize]) -> Vec<u32> {
    let n = topo.num_switches();
    let mut rank = vec![FAR; n];
    let mut queue = VecDeque::new();
    let seed = |r: usize, rank: &mut Vec<u32>, queue: &mut VecDeque<usize>| {
        if rank[r] == FAR {
            rank[r] = 0;
            queue.push_back(r);
        }
    };
    for &r in roots {
        seed(r, &mut rank, &mut queue);
    }
    let mut next_root = 0;
    loop {
        while let Some(u) = queue.pop_front() {
            for (v, _) in topo.switch_neighbours(u) {
                if rank[v] == FAR {
                    rank[v] = rank[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        while next_root < n && rank[next_root] != FAR {
            next_root += 1;
        }
        if next_root == n {
            return rank;
        }
        seed(next_root, &mut rank, &mut queue);
    }
}

/// The automatic Up*/Down* roots: the top level of a tree; otherwise the switch of
/// smallest eccentricity (largest hop distance to any reachable switch), lowest index on ties.
pub fn auto_roots(topo: &Topology) -> Vec<usize> {
    if let Family::Tree(x) = topo.family() {
        let top = x.height() - 1;
        return (0..topo.num_switches()).filter(|&s| topo.switch_level(s) == Some(top)).collect();
    }
    let ecc = |s: usize| bfs(topo, s).into_iter().filter(|&d| d != FAR).max().unwrap_or(0);
    (0..topo.num_switches()).min_by_key(|&s| (ecc(s), s)).into_iter().collect()
}

/// Up*/Down* (Schroeder et al., as OpenSM's `updn`): links point up towards the roots
/// (smaller BFS rank, then smaller switch index); a route climbs zero or more links and
/// then descends, never climbing after a descent, so the channel dependency graph is
/// acyclic on one lane. A switch that can reach the destination by descending only does
/// so (shortest such descent); the others climb along a shortest legal route.
pub fn updn(topo: &Topology, lmc: u8, roots: &[usize]) -> Result<Tables> {
    let n = topo.num_switches();
    if let Some(&bad) = roots.iter().find(|&&r| r >= n) {
        return Err(Error::invalid("routing", "root", bad, format!("a switch index below {n}")));
    }
    let roots = if roots.is_empty() { auto_roots(topo) } else { roots.to_vec() };
    let rank = ranks(topo, &roots);
    let key = |s: usize| (rank[s], s);
    let up = |a: usize, b: usize| key(b) < key(a);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&s| key(s));
    let mut t = Tables::new("updn", topo, lmc);
    let mut used = vec![0u32; topo.peers().len()];
    let (mut down, mut dist) = (vec![FAR; n], vec![FAR; n]);
    let mut queue = VecDeque::new();
    for dst in 0..topo.num_terminals() {
        let (ds, dp) = topo.terminal_attachment(dst);
        // Down-only distances: walk backwards from the destination against down links.
        down.fill(FAR);
        down[ds] = 0;
        queue.push_back(ds);
        while let Some(v) = queue.pop_front() {
            for (u, _) in topo.switch_neighbours(v) {
                if down[u] == FAR && up(v, u) {
                    down[u] = down[v] + 1;
                    queue.push_back(u);
                }
            }
        }
        // Legal distances: climbing leads to switches of smaller key, already final.
        for &s in &order {
            dist[s] = down[s];
            if dist[s] == FAR {
                dist[s] = topo
                    .switch_neighbours(s)
                    .filter(|&(u, _)| up(s, u) && dist[u] != FAR)
                    .map(|(u, _)| dist[u] + 1)
                    .min()
                    .unwrap_or(FAR);
            }
        }
        for off in 0..t.offsets() {
            let lid = t.lid(dst, off);
            t.set_port(ds, lid, dp);
            for s in 0..n {
                if s == ds || dist[s] == FAR {
                    continue;
                }
                let descending = down[s] != FAR;
                let cands = topo.switch_neighbours(s).filter(|&(u, _)| {
                    if descending {
                        !up(s, u) && down[u] != FAR && down[u] + 1 == down[s]
                    } else {
                        up(s, u) && dist[u] != FAR && dist[u] + 1 == dist[s]
                    }
                });
                if let Some(p) = least_used(cands.map(|(_, p)| (p, topo.channel(s, p))), &mut used) {
                    t.set_port(s, lid, p);
                }
            }
        }
    }
    Ok(t)
}
