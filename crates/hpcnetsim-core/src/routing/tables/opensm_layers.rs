//! OpenSM's DFSSSP layering (`routing.layering = "opensm"`): the procedure of
//! `dfsssp_remove_deadlocks()` in OpenSM's `opensm/osm_ucast_dfsssp.c` (3.3.23), kept step by
//! step so that the lane counts InfiniBand users see can be reproduced (paper 001 reports 3
//! lanes on its faulty HyperX, where hpcnetsim's own placement needs 2).
//!
//! Every path starts in layer 0. A depth-first search of the layer's channel dependency
//! graph, started at the root of a binary tree of channels ordered by channel number and
//! resumed where it stopped, stops at the first cycle; the dependency of that cycle with the
//! fewest paths still on it (the first along the cycle on ties) is deleted and every path on
//! it moves to the next layer, whatever that layer holds; the search goes on. A channel the
//! search has finished forgets its dependencies' paths, as OpenSM frees them.
//!
//! OpenSM numbers channels by the LIDs of their switches; here switch `s` stands for LID
//! `s + 1`, which orders the channels as hpcnetsim numbers them (by switch, then port).
//! OpenSM also lays out the paths to the switches' own ports, which hpcnetsim does not model,
//! so its lane count can be higher than this one (benchmarks/peers/README.md).

use std::collections::HashMap;

const UNKNOWN: u8 = 0;
const GRAY: u8 = 1;
const BLACK: u8 = 2;

/// Paths with the same channels, laid out together: OpenSM's (source, destination) pairs of
/// one source switch and one address.
pub struct PathGroup {
    /// Switch-to-switch channels of the path, in order.
    pub channels: Vec<u32>,
    /// Number of (source LID, destination LID) pairs it stands for.
    pub pairs: u32,
}

struct Link {
    node: usize,
    groups: Vec<u32>,
    pairs: u32,
    removed: u32,
}

struct Node {
    channel: u32,
    links: Vec<Link>,
    status: u8,
    pre: Option<usize>,
    left: Option<usize>,
    right: Option<usize>,
}

#[derive(Default)]
struct Cdg {
    nodes: Vec<Node>,
    index: HashMap<u32, usize>,
    root: Option<usize>,
    /// The channels in pre-order of the tree, once the tree is complete (`freeze`), and the
    /// position of each. OpenSM walks the tree from its root for every new search start; the
    /// first unvisited channel in pre-order is the same, found by a cursor that no unvisited
    /// channel precedes (it moves back when a cycle's channels become unvisited again).
    pos: Vec<u32>,
    preorder: Vec<usize>,
    cursor: usize,
}

impl Cdg {
    /// The node of `channel`, inserted into the (unbalanced) binary tree when new.
    fn node(&mut self, channel: u32) -> usize {
        if let Some(&i) = self.index.get(&channel) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(Node { channel, links: Vec::new(), status: UNKNOWN, pre: None, left: None, right: None });
        self.index.insert(channel, i);
        let Some(mut cur) = self.root else {
            self.root = Some(i);
            return i;
        };
        loop {
            let left = channel < self.nodes[cur].channel;
            let next = if left { self.nodes[cur].left } else { self.nodes[cur].right };
            match next {
                Some(n) => cur = n,
                None => {
                    if left {
                        self.nodes[cur].left = Some(i);
                    } else {
                        self.nodes[cur].right = Some(i);
                    }
                    return i;
                }
            }
        }
    }

    /// `update_channel_dep_graph`: each dependency of the path gains the group (appended to
    /// the earlier channel's list when new).
    fn add_path(&mut self, group: u32, pairs: u32, channels: &[u32]) {
        let mut last: Option<usize> = None;
        for &c in channels {
            let n = self.node(c);
            if let Some(l) = last {
                let links = &mut self.nodes[l].links;
                match links.iter_mut().find(|k| k.node == n) {
                    Some(k) => {
                        k.groups.push(group);
                        k.pairs = k.pairs.wrapping_add(pairs);
                    }
                    None => links.push(Link { node: n, groups: vec![group], pairs, removed: 0 }),
                }
            }
            last = Some(n);
        }
    }

    /// `remove_path_from_cdg`: the dependencies stay, counting the pairs as removed.
    fn remove_path(&mut self, pairs: u32, channels: &[u32]) {
        let mut last: Option<usize> = None;
        for &c in channels {
            let n = self.index[&c];
            if let Some(l) = last {
                if let Some(k) = self.nodes[l].links.iter_mut().find(|k| k.node == n) {
                    k.removed = k.removed.wrapping_add(pairs);
                }
            }
            last = Some(n);
        }
    }

    /// Numbers the channels in pre-order of the tree, all unvisited; no channel may be added
    /// afterwards.
    fn freeze(&mut self) {
        self.preorder.clear();
        let mut stack: Vec<usize> = self.root.into_iter().collect();
        while let Some(n) = stack.pop() {
            self.preorder.push(n);
            stack.extend(self.nodes[n].right);
            stack.extend(self.nodes[n].left);
        }
        self.pos = vec![0; self.nodes.len()];
        for (i, &n) in self.preorder.iter().enumerate() {
            self.pos[n] = i as u32;
        }
        self.cursor = 0;
    }

    fn set_status(&mut self, node: usize, status: u8) {
        if status == UNKNOWN {
            self.cursor = self.cursor.min(self.pos[node] as usize);
        }
        self.nodes[node].status = status;
    }

    /// `get_next_cdg_node`: the first unvisited channel in pre-order of the tree.
    fn next_unknown(&mut self) -> Option<usize> {
        while self.cursor < self.preorder.len() && self.nodes[self.preorder[self.cursor]].status != UNKNOWN {
            self.cursor += 1;
        }
        self.preorder.get(self.cursor).copied()
    }

    /// `search_cycle_in_channel_dep_graph`: depth-first from `start`, the state kept between
    /// calls; the GRAY channel closing a cycle, if any.
    fn search_cycle(&mut self, start: usize) -> Option<usize> {
        let mut cur = Some(start);
        while let Some(c) = cur {
            self.set_status(c, GRAY);
            let mut next = None;
            for k in &self.nodes[c].links {
                match self.nodes[k.node].status {
                    UNKNOWN => {
                        next = Some(k.node);
                        break;
                    }
                    GRAY => return Some(k.node),
                    _ => {}
                }
            }
            if let Some(n) = next {
                self.nodes[n].pre = Some(c);
                cur = Some(n);
            } else {
                self.set_status(c, BLACK);
                let node = &mut self.nodes[c];
                for k in &mut node.links {
                    k.groups = Vec::new();
                    k.pairs = 0;
                    k.removed = 0;
                }
                cur = match node.pre.take() {
                    Some(p) => Some(p),
                    None => self.next_unknown(),
                };
            }
        }
        None
    }

    /// The GRAY successor of `node` first in its list.
    fn gray_link(&self, node: usize) -> Option<usize> {
        self.nodes[node].links.iter().position(|k| self.nodes[k.node].status == GRAY)
    }

    /// `get_weakest_link_in_cycle`: the dependency of the cycle through `cycle` with the
    /// fewest pairs left, unlinked from the graph; the cycle's channels become unvisited.
    fn weakest_link(&mut self, cycle: usize) -> Link {
        let first = self.gray_link(cycle).expect("a cycle leaves its first channel");
        let (mut owner, mut best) = (cycle, first);
        let mut cur = self.nodes[cycle].links[first].node;
        let left = |k: &Link| k.pairs.wrapping_sub(k.removed);
        for _ in 0..=self.nodes.len() {
            self.set_status(cur, UNKNOWN);
            if let Some(i) = self.gray_link(cur) {
                if left(&self.nodes[cur].links[i]) < left(&self.nodes[owner].links[best]) {
                    (owner, best) = (cur, i);
                }
                cur = self.nodes[cur].links[i].node;
            }
            if cur == cycle {
                break;
            }
        }
        self.set_status(cycle, UNKNOWN);
        self.nodes[owner].links.remove(best)
    }
}

/// Layer of every group and the number of layers, when at most `max_vls`; `None` otherwise.
/// `groups` are in OpenSM's order: destinations outer, sources inner.
pub fn layering(groups: &[PathGroup], max_vls: usize) -> Option<(Vec<u8>, usize)> {
    let max_vls = max_vls.max(1);
    let mut cdg: Vec<Cdg> = (0..max_vls).map(|_| Cdg::default()).collect();
    let mut layer = vec![0u8; groups.len()];
    for (g, grp) in groups.iter().enumerate() {
        cdg[0].add_path(g as u32, grp.pairs, &grp.channels);
    }
    let mut needed = 1;
    for test in 0..max_vls - 1 {
        let (here, rest) = cdg.split_at_mut(test + 1);
        let (here, next) = (&mut here[test], &mut rest[0]);
        here.freeze();
        let mut start = here.root;
        while let Some(s) = start {
            let cycle = here.search_cycle(s);
            if let Some(c) = cycle {
                needed = test + 2;
                for &g in &here.weakest_link(c).groups {
                    let grp = &groups[g as usize];
                    if layer[g as usize] as usize != test {
                        continue; // moved before
                    }
                    here.remove_path(grp.pairs, &grp.channels);
                    next.add_path(g, grp.pairs, &grp.channels);
                    layer[g as usize] = (test + 1) as u8;
                }
            }
            start = cycle;
        }
    }
    let last = &mut cdg[max_vls - 1];
    last.freeze();
    if let Some(r) = last.root {
        if last.search_cycle(r).is_some() {
            needed = max_vls + 1;
        }
    }
    (needed <= max_vls).then_some((layer, needed))
}
