//! Fat-tree routing (Zahavi et al., OpenSM's `ftree`): destinations are taken leaf switch by
//! leaf switch, terminal by terminal. From the destination's leaf the route climbs, each
//! time through the parent whose link down to the current switch carries the fewest routes
//! so far; every switch on this chain points down to it. Going down from each chain switch,
//! every switch not yet routed points up towards it. On a k-ary n-tree this is
//! destination-mod-k routing, which makes shift permutations contention-free; routes are
//! always up then down, so the tables are deadlock-free on one lane.
//!
//! Levels come from the family for generated trees; for other graphs level 0 holds the
//! switches with terminals and every other switch sits one level above its nearest leaf.

use super::Tables;
use crate::error::{Error, Result};
use crate::topology::{Family, Topology};
use std::collections::VecDeque;

const FAR: u32 = u32::MAX;

/// Levels of every switch (0 = leaves; `FAR` for switches cut off from every leaf), checked
/// to form a fat-tree: every link joins adjacent levels.
pub fn levels(topo: &Topology) -> Result<Vec<u32>> {
    let n = topo.num_switches();
    let level: Vec<u32> = if let Family::Tree(_) = topo.family() {
        (0..n).map(|s| topo.switch_level(s).map_or(FAR, |l| l as u32)).collect()
    } else {
        let mut level = vec![FAR; n];
        let mut queue: VecDeque<usize> = (0..n).filter(|&s| topo.terminals_at()[s] > 0).collect();
        for &s in &queue {
            level[s] = 0;
        }
        while let Some(u) = queue.pop_front() {
            for (v, _) in topo.switch_neighbours(u) {
                if level[v] == FAR {
                    level[v] = level[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        level
    };
    for s in 0..n {
        for (v, _) in topo.switch_neighbours(s) {
            if level[s] != FAR && level[v] != FAR && level[s].abs_diff(level[v]) != 1 {
                return Err(Error::invalid(
                    "routing",
                    "engine",
                    format!("'ftree' on {}", topo.spec()),
                    format!(
                        "a fat-tree (switches {s} and {v} are linked at levels {} and {}); use updn or dfsssp elsewhere",
                        level[s], level[v]
                    ),
                ));
            }
        }
        if topo.terminals_at()[s] > 0 && level[s] != 0 {
            return Err(Error::invalid(
                "routing",
                "engine",
                format!("'ftree' on {}", topo.spec()),
                format!("a fat-tree with terminals on leaf switches only (switch {s} at level {})", level[s]),
            ));
        }
    }
    Ok(level)
}

/// Computes ftree tables (see the module comment).
pub fn ftree(topo: &Topology, lmc: u8) -> Result<Tables> {
    let level = levels(topo)?;
    let n = topo.num_switches();
    let mut t = Tables::new("ftree", topo, lmc);
    // Routes descending / climbing through every channel so far.
    let mut down = vec![0u32; topo.peers().len()];
    let mut up = vec![0u32; topo.peers().len()];
    let neighbours: Vec<Vec<(usize, usize, usize)>> = (0..n)
        .map(|s| {
            topo.switch_neighbours(s)
                .map(|(v, p)| {
                    let back = match topo.ports(s)[p] {
                        crate::topology::Peer::Switch { port, .. } => port as usize,
                        _ => unreachable!(),
                    };
                    (v, p, back)
                })
                .collect()
        })
        .collect();
    let mut leaves: Vec<usize> = (0..n).filter(|&s| level[s] == 0).collect();
    leaves.sort_unstable();
    let must_reach: Vec<usize> = (0..n).filter(|&s| topo.terminals_at()[s] > 0).collect();
    let mut banned = vec![false; n];
    for &leaf in &leaves {
        let mut dests: Vec<(usize, usize)> = (0..topo.num_terminals())
            .map(|d| (d, topo.terminal_attachment(d)))
            .filter(|&(_, (s, _))| s == leaf)
            .map(|(d, (_, p))| (p, d))
            .collect();
        dests.sort_unstable();
        for (dp, dst) in dests {
            for off in 0..t.offsets() {
                let lid = t.lid(dst, off);
                // After faults a chain may end at a top switch that cannot reach every
                // leaf: undo it and try again without the switches of that chain.
                banned.fill(false);
                let mut complete = false;
                for _ in 0..n {
                    let mut r = Route::new(topo, &level, &neighbours, &mut t, lid, &mut down, &mut up);
                    let chain = r.route_from(leaf, dp, &banned);
                    let covered = must_reach.iter().filter(|&&s| r.t.port(s, lid).is_some()).count();
                    let log = std::mem::take(&mut r.log);
                    if covered == must_reach.len() {
                        complete = true;
                        break;
                    }
                    let fresh_ban = chain.iter().skip(1).any(|&s| !banned[s]);
                    r.undo(log);
                    if !fresh_ban {
                        break;
                    }
                    for &s in chain.iter().skip(1) {
                        banned[s] = true;
                    }
                }
                if !complete {
                    // No chain reaches everything: keep the first one (the unreachable
                    // pairs are reported).
                    banned.fill(false);
                    Route::new(topo, &level, &neighbours, &mut t, lid, &mut down, &mut up)
                        .route_from(leaf, dp, &banned);
                }
            }
        }
    }
    Ok(t)
}

/// The routing of one address, with a log of what it set so that it can be undone.
struct Route<'a> {
    topo: &'a Topology,
    level: &'a [u32],
    neighbours: &'a [Vec<(usize, usize, usize)>],
    t: &'a mut Tables,
    lid: usize,
    down: &'a mut [u32],
    up: &'a mut [u32],
    /// (switch set, channel counted, whether in `down`).
    log: Vec<(usize, usize, bool)>,
}

impl<'a> Route<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        topo: &'a Topology,
        level: &'a [u32],
        neighbours: &'a [Vec<(usize, usize, usize)>],
        t: &'a mut Tables,
        lid: usize,
        down: &'a mut [u32],
        up: &'a mut [u32],
    ) -> Self {
        Route { topo, level, neighbours, t, lid, down, up, log: Vec::new() }
    }

    /// Routes the address from its leaf (port `dp` there): the chain, then the switches it
    /// left out. Returns the chain.
    fn route_from(&mut self, leaf: usize, dp: usize, banned: &[bool]) -> Vec<usize> {
        self.t.set_port(leaf, self.lid, dp);
        let chain = self.chain(leaf, banned);
        self.patch_unrouted();
        chain
    }

    fn set(&mut self, s: usize, port: usize, channel: usize, is_down: bool) {
        self.t.set_port(s, self.lid, port);
        if is_down {
            self.down[channel] += 1;
        } else {
            self.up[channel] += 1;
        }
        self.log.push((s, channel, is_down));
    }

    /// Clears what a failed attempt set (the leaf's own entry included).
    fn undo(&mut self, log: Vec<(usize, usize, bool)>) {
        for (s, c, is_down) in log {
            self.t.clear_port(s, self.lid);
            if is_down {
                self.down[c] -= 1;
            } else {
                self.up[c] -= 1;
            }
        }
    }

    /// Climbs from `leaf` (see the module comment), avoiding `banned` parents; returns the chain.
    fn chain(&mut self, leaf: usize, banned: &[bool]) -> Vec<usize> {
        let (topo, level, neighbours, lid) = (self.topo, self.level, self.neighbours, self.lid);
        let mut chain = vec![leaf];
        let mut cur = leaf;
        let mut stack = Vec::new();
        loop {
            // Going down from the chain switch: everything unrouted below points up.
            stack.push(cur);
            while let Some(x) = stack.pop() {
                for &(y, _, back) in &neighbours[x] {
                    if level[y] + 1 != level[x] || self.t.port(y, lid).is_some() {
                        continue;
                    }
                    // Among parallel links y -> x, the least used (first found on ties).
                    let p = neighbours[y]
                        .iter()
                        .filter(|&&(z, _, _)| z == x)
                        .map(|&(_, q, _)| q)
                        .min_by_key(|&q| (self.up[topo.channel(y, q)], q))
                        .unwrap_or(back);
                    self.set(y, p, topo.channel(y, p), false);
                    stack.push(y);
                }
            }
            // Climb through the parent whose link down to `cur` is least used.
            let parent = neighbours[cur]
                .iter()
                .filter(|&&(v, _, _)| level[v] == level[cur] + 1 && !banned[v] && self.t.port(v, lid).is_none())
                .min_by_key(|&&(v, p, back)| (self.down[topo.channel(v, back)], v, p));
            let Some(&(p_switch, _, back)) = parent else { return chain };
            self.set(p_switch, back, topo.channel(p_switch, back), true);
            chain.push(p_switch);
            cur = p_switch;
        }
    }

    /// After faults some switches may not be reached by the chain's downward sweep: from
    /// the top level down, such a switch climbs to any routed parent (least used link),
    /// which keeps routes up-then-down.
    fn patch_unrouted(&mut self) {
        let (topo, level, neighbours, lid) = (self.topo, self.level, self.neighbours, self.lid);
        let mut order: Vec<usize> = (0..topo.num_switches()).filter(|&s| level[s] != FAR).collect();
        if order.iter().all(|&s| self.t.port(s, lid).is_some()) {
            return;
        }
        order.sort_by_key(|&s| (std::cmp::Reverse(level[s]), s));
        for s in order {
            if self.t.port(s, lid).is_some() {
                continue;
            }
            let best = neighbours[s]
                .iter()
                .filter(|&&(v, _, _)| level[v] == level[s] + 1 && self.t.port(v, lid).is_some())
                .map(|&(_, p, _)| p)
                .min_by_key(|&p| (self.up[topo.channel(s, p)], p));
            if let Some(p) = best {
                self.set(s, p, topo.channel(s, p), false);
            }
        }
    }
}
