//! Virtual layers (DFSSSP, Domke et al. 2011; also PARX): every path gets a layer, each
//! layer is a virtual lane, and the routing is deadlock-free when no layer's channel
//! dependency graph has a cycle. More layers than lanes is an error.
//!
//! OpenSM puts every path in layer 0, then repeatedly finds a cycle and moves all paths of
//! its least used dependency one layer up. Those moves are blind to the next layer: on
//! tori of 10x10 and more they cascade through more than 8 layers. hpcnetsim instead
//! places the paths one at a time, destination by destination, each in the layer where
//! it adds the fewest new dependencies among those it keeps acyclic (checked incrementally,
//! see `dag`), opening a layer only when it fits nowhere. Paths with the same turns gather
//! in the same layer, much as a torus' direction classes would. If the result still needs
//! more lanes than allowed, the placement is repeated with the paths regrouped by their
//! previous layer (iterated greedy), which often frees a layer.
//!
//! `Layering::Opensm` runs OpenSM's procedure instead (`opensm_layers`), on the same paths
//! in OpenSM's order.

use super::dag::Dag;
use super::opensm_layers::{self, PathGroup};
use super::{Layering, Tables};
use crate::error::{Error, Result};
use crate::topology::{Peer, Topology};

/// Rounds of regrouping tried when the first placement needs too many lanes.
const ROUNDS: usize = 6;

/// Layers beyond the allowed lanes that the first placement may open before it is
/// abandoned (regrouping rarely saves more).
const SLACK: usize = 3;

/// Paths from one switch to one address (they share their lane) and their channels.
struct Group {
    switch: usize,
    lid: usize,
    channels: Vec<u32>,
}

/// Assigns a lane to every path of `t` (paths from one switch to one address share it) and
/// records the number of lanes used, by hpcnetsim's placement or OpenSM's procedure.
pub fn assign(topo: &Topology, t: &mut Tables, max_vls: usize, how: Layering) -> Result<()> {
    let lids = t.lids();
    let (groups, result) = match how {
        Layering::Placement => {
            let sources: Vec<usize> = (0..topo.num_switches()).filter(|&s| topo.terminals_at()[s] > 0).collect();
            // Destination by destination: the order SSSP routed them in.
            let mut groups: Vec<Group> = Vec::new();
            for lid in 0..lids {
                for &s in &sources {
                    if let Some(p) = t.switch_path(topo, s, lid) {
                        if p.len() >= 2 {
                            groups.push(Group { switch: s, lid, channels: p.into_iter().map(|c| c as u32).collect() });
                        }
                    }
                }
            }
            let result = layering(topo.peers().len(), &groups, max_vls);
            (groups, result)
        }
        Layering::Opensm => {
            let groups = opensm_order(topo, t);
            let paths: Vec<PathGroup> = groups
                .iter()
                .map(|g| PathGroup {
                    channels: g.channels.clone(),
                    pairs: topo.terminals_at()[g.switch] << (lids / t.terminals()).trailing_zeros(),
                })
                .collect();
            let result = opensm_layers::layering(&paths, max_vls);
            (groups, result)
        }
    };
    let (layer, used) = result.ok_or_else(|| {
        Error::invalid(
            "routing",
            "vls",
            max_vls,
            format!(
                "too few: engine '{}' needs more than {max_vls} virtual lanes on {} (at most {} allowed)",
                t.engine,
                topo.spec(),
                super::MAX_VLS
            ),
        )
    })?;
    let mut by_group = vec![0u8; topo.num_switches() * lids];
    for (g, grp) in groups.iter().enumerate() {
        by_group[grp.switch * lids + grp.lid] = layer[g];
    }
    let mut vl = vec![0u8; t.terminals() * lids];
    for src in 0..t.terminals() {
        let (s, _) = topo.terminal_attachment(src);
        vl[src * lids..(src + 1) * lids].copy_from_slice(&by_group[s * lids..(s + 1) * lids]);
    }
    t.set_vls(vl, used);
    Ok(())
}

/// The paths in OpenSM's order (`dfsssp_remove_deadlocks`): destination ports outer, source
/// ports inner, both in its port order (switches by attached terminals, most first, ties by
/// switch; terminals by port), a destination's addresses innermost.
fn opensm_order(topo: &Topology, t: &Tables) -> Vec<Group> {
    let lids = t.lids();
    let per = lids / t.terminals();
    let counts = topo.terminals_at();
    let mut switches: Vec<usize> = (0..topo.num_switches()).filter(|&s| counts[s] > 0).collect();
    switches.sort_by_key(|&s| std::cmp::Reverse(counts[s]));
    let mut groups = Vec::new();
    for &d in &switches {
        for peer in topo.ports(d) {
            let Peer::Terminal(dst) = *peer else { continue };
            for &s in &switches {
                for lid in dst as usize * per..(dst as usize + 1) * per {
                    // A path of one channel has no dependency but its channel enters the
                    // graph (and OpenSM's tree of channels), as in OpenSM.
                    if let Some(p) = t.switch_path(topo, s, lid).filter(|p| !p.is_empty()) {
                        groups.push(Group { switch: s, lid, channels: p.into_iter().map(|c| c as u32).collect() });
                    }
                }
            }
        }
    }
    groups
}

/// Layer of every group and the number of layers, within `max_vls`, or `None`.
fn layering(nodes: usize, groups: &[Group], max_vls: usize) -> Option<(Vec<u8>, usize)> {
    let mut order: Vec<usize> = (0..groups.len()).collect();
    let (mut layer, mut used) = place(nodes, groups, &order, max_vls + SLACK)?;
    let mut stale = 0;
    for round in 0..ROUNDS {
        if used <= max_vls || stale == 3 {
            break;
        }
        // Regroup by the last layers: in reverse, largest first, smallest first in turn.
        let mut size = vec![0usize; used];
        for &l in &layer {
            size[l as usize] += 1;
        }
        let mut classes: Vec<usize> = (0..used).collect();
        match round % 3 {
            0 => classes.reverse(),
            1 => classes.sort_by_key(|&c| (std::cmp::Reverse(size[c]), c)),
            _ => classes.sort_by_key(|&c| (size[c], c)),
        }
        let mut rank = vec![0usize; used];
        for (i, &c) in classes.iter().enumerate() {
            rank[c] = i;
        }
        // Stable: within a class the previous order is kept.
        let mut next = order.clone();
        next.sort_by_key(|&g| rank[layer[g] as usize]);
        match place(nodes, groups, &next, used - 1) {
            Some((l, u)) => {
                (layer, used, order) = (l, u, next);
                stale = 0;
            }
            None => stale += 1,
        }
    }
    (used <= max_vls).then_some((layer, used))
}

/// Places the groups in `order` (see the module comment); `None` when more than `cap`
/// layers would be needed.
fn place(nodes: usize, groups: &[Group], order: &[usize], cap: usize) -> Option<(Vec<u8>, usize)> {
    let mut dags: Vec<Dag> = Vec::new();
    // Dependencies known to close a cycle in a layer: committed edges are never removed,
    // so such a refusal is final.
    let mut blocked: Vec<Vec<Vec<u32>>> = Vec::new();
    let mut layer = vec![0u8; groups.len()];
    for &g in order {
        let p = &groups[g].channels;
        // A layer that already holds every dependency of the path costs nothing: the
        // lowest such is the choice, found without any cycle test.
        let free = dags.iter().position(|d| p.windows(2).all(|w| d.has(w[0], w[1])));
        let mut choice: Option<(usize, usize)> = free.map(|l| (l, 0));
        for (l, d) in dags.iter_mut().enumerate() {
            if choice.is_some_and(|c| c.1 == 0) {
                break;
            }
            // Count the dependencies this layer lacks (one known to close a cycle settles it),
            // then test them all at once.
            let mut missing = 0;
            let mut known = false;
            for w in p.windows(2) {
                if !d.has(w[0], w[1]) {
                    missing += 1;
                    if blocked[l][w[0] as usize].contains(&w[1]) {
                        known = true;
                        break;
                    }
                }
            }
            let fits = !known
                && match d.fits(p) {
                    None => true,
                    Some(j) => {
                        // When a single dependency up to the cycle is new, it closes the cycle
                        // by itself.
                        let mut new = p[..=j].windows(2).filter(|w| !d.has(w[0], w[1]));
                        if let (Some(w), None) = (new.next(), new.next()) {
                            blocked[l][w[0] as usize].push(w[1]);
                        }
                        false
                    }
                };
            if fits && choice.is_none_or(|c| missing < c.1) {
                choice = Some((l, missing));
                if missing == 0 {
                    break;
                }
            }
        }
        let l = match choice {
            Some((l, _)) => l,
            None if dags.len() == cap => return None,
            None => {
                dags.push(Dag::new(nodes));
                blocked.push(vec![Vec::new(); nodes]);
                dags.len() - 1
            }
        };
        for w in p.windows(2) {
            let fits = dags[l].try_add(w[0], w[1]);
            debug_assert!(fits, "layer {l} was tested for this path");
        }
        layer[g] = l as u8;
    }
    let used = dags.len().max(1);
    Some((layer, used))
}
