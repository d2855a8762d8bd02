//! Virtual layers (DFSSSP, Domke et al. 2011; also PARX): every path starts in layer 0;
//! while a layer's channel dependency graph has a cycle, the paths that induce the cycle's
//! least-used dependency move up one layer. Each layer is a virtual lane, so the routing
//! is deadlock-free when every layer is acyclic; more layers than lanes is an error.

use super::super::deadlock::Cdg;
use super::Tables;
use crate::error::{Error, Result};
use crate::topology::Topology;
use std::collections::HashMap;

/// Assigns a lane to every path of `t` (paths from one switch to one address share it) and
/// records the number of lanes used.
pub fn assign(topo: &Topology, t: &mut Tables, max_vls: usize) -> Result<()> {
    let lids = t.lids();
    // Groups: (source switch with terminals, destination address) and their channels.
    let mut groups: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for s in (0..topo.num_switches()).filter(|&s| topo.terminals_at()[s] > 0) {
        for lid in 0..lids {
            if let Some(p) = t.switch_path(topo, s, lid) {
                if p.len() >= 2 {
                    groups.push((s, lid, p));
                }
            }
        }
    }
    let mut layer = vec![0u8; groups.len()];
    let mut used = 1;
    for current in 0..max_vls {
        let moved = break_cycles(topo, &groups, &mut layer, current as u8);
        if moved == 0 {
            break;
        }
        if current + 1 == max_vls {
            return Err(Error::invalid(
                "routing",
                "vls",
                max_vls,
                format!(
                    "too few: engine '{}' needs more than {max_vls} virtual lanes on {} (at most {} allowed)",
                    t.engine,
                    topo.spec(),
                    super::MAX_VLS
                ),
            ));
        }
        used = current + 2;
    }
    let mut by_group: HashMap<(usize, usize), u8> = HashMap::with_capacity(groups.len());
    for (g, &(s, lid, _)) in groups.iter().enumerate() {
        by_group.insert((s, lid), layer[g]);
    }
    let mut vl = vec![0u8; t.terminals() * lids];
    for src in 0..t.terminals() {
        let (s, _) = topo.terminal_attachment(src);
        for lid in 0..lids {
            vl[src * lids + lid] = by_group.get(&(s, lid)).copied().unwrap_or(0);
        }
    }
    t.set_vls(vl, used);
    Ok(())
}

/// Breaks every cycle of layer `current` by moving paths to `current + 1`; returns how
/// many paths moved.
fn break_cycles(topo: &Topology, groups: &[(usize, usize, Vec<usize>)], layer: &mut [u8], current: u8) -> usize {
    // Dependency -> paths inducing it (in this layer), and how many are left.
    let mut users: HashMap<(u32, u32), (u32, Vec<u32>)> = HashMap::new();
    for (g, (_, _, p)) in groups.iter().enumerate() {
        if layer[g] == current {
            for w in p.windows(2) {
                let e = users.entry((w[0] as u32, w[1] as u32)).or_default();
                e.0 += 1;
                e.1.push(g as u32);
            }
        }
    }
    // Sorted, so that the cycles found (and the layers) do not depend on hashing.
    let mut edges: Vec<(u32, u32)> = users.keys().copied().collect();
    edges.sort_unstable();
    let mut cdg = Cdg::new(topo, 1);
    for (a, b) in edges {
        cdg.add_edge((a as usize, 0), (b as usize, 0));
    }
    let mut moved = 0;
    while let Some(cycle) = cdg.find_cycle() {
        // The dependency of the cycle with the fewest remaining paths.
        let edge = (0..cycle.len())
            .map(|i| (cycle[i], cycle[(i + 1) % cycle.len()]))
            .min_by_key(|e| (users[e].0, *e))
            .expect("a cycle has edges");
        let paths: Vec<u32> = users[&edge].1.iter().copied().filter(|&g| layer[g as usize] == current).collect();
        for g in paths {
            layer[g as usize] = current + 1;
            moved += 1;
            for w in groups[g as usize].2.windows(2) {
                let e = (w[0] as u32, w[1] as u32);
                let u = users.get_mut(&e).expect("edge of a path");
                u.0 -= 1;
                if u.0 == 0 {
                    cdg.remove_edge(e.0, e.1);
                }
            }
        }
    }
    moved
}
