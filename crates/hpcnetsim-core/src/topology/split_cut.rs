//! The fewest links that separate two given groups of switches, every other switch free to
//! join either side: a minimum s-t cut, found as a maximum flow (Dinic's algorithm, unit
//! capacities).
//!
//! Networks whose terminals sit on some switches only (a tree's leaves) are bisected by
//! splitting those switches into two halves of the terminals; the switches without
//! terminals then go wherever they cut fewest links, which is exactly this cut. Faulty
//! trees use it (`faulty_bisection.rs`): the intact family's closed form ignores the failed
//! links across it; so do imported fabrics with terminals on some switches only (an
//! OpenSM fat-tree, a tapered tree), which have no closed form at all.

use super::balanced_cut::{adjacency, balancing_moves, STARTS};
use std::collections::VecDeque;

/// Largest graph cut (the flow is at most the links, each augmenting phase linear in them).
pub const MAX_SWITCHES: usize = 1 << 14;

/// One direction of a link in the residual graph; `rev` indexes its opposite arc.
struct Arc {
    to: usize,
    cap: u32,
    rev: usize,
}

/// The residual graph of the switches plus a source and a sink node.
struct Flow {
    arcs: Vec<Vec<Arc>>,
    level: Vec<u32>,
    next: Vec<usize>,
}

impl Flow {
    fn new(nodes: usize) -> Self {
        Flow { arcs: (0..nodes).map(|_| Vec::new()).collect(), level: vec![0; nodes], next: vec![0; nodes] }
    }

    /// An undirected link carries a unit each way: two arcs, each the other's reverse.
    fn link(&mut self, a: usize, b: usize, cap: u32, back: u32) {
        let (ia, ib) = (self.arcs[a].len(), self.arcs[b].len());
        self.arcs[a].push(Arc { to: b, cap, rev: ib });
        self.arcs[b].push(Arc { to: a, cap: back, rev: ia });
    }

    /// Breadth-first levels from `s`; whether `t` is still reachable.
    fn levels(&mut self, s: usize, t: usize) -> bool {
        self.level.iter_mut().for_each(|l| *l = u32::MAX);
        self.level[s] = 0;
        let mut queue = VecDeque::from([s]);
        while let Some(v) = queue.pop_front() {
            for a in &self.arcs[v] {
                if a.cap > 0 && self.level[a.to] == u32::MAX {
                    self.level[a.to] = self.level[v] + 1;
                    queue.push_back(a.to);
                }
            }
        }
        self.level[t] != u32::MAX
    }

    /// One augmenting path along increasing levels (iteratively: trees are deep enough to
    /// make recursion a risk on large graphs); whether one was found.
    fn augment(&mut self, s: usize, t: usize) -> bool {
        let mut path: Vec<(usize, usize)> = Vec::new();
        let mut v = s;
        loop {
            if v == t {
                for &(u, i) in &path {
                    let (to, rev) = (self.arcs[u][i].to, self.arcs[u][i].rev);
                    self.arcs[u][i].cap -= 1;
                    self.arcs[to][rev].cap += 1;
                }
                return true;
            }
            let found = loop {
                let i = self.next[v];
                let Some(a) = self.arcs[v].get(i) else { break None };
                if a.cap > 0 && self.level[a.to] == self.level[v] + 1 {
                    break Some(i);
                }
                self.next[v] += 1;
            };
            match found {
                Some(i) => {
                    path.push((v, i));
                    v = self.arcs[v][i].to;
                }
                None => {
                    // A dead end: no later search goes through it in this phase.
                    self.level[v] = u32::MAX;
                    let Some((u, _)) = path.pop() else { return false };
                    self.next[u] += 1;
                    v = u;
                }
            }
        }
    }
}

/// The fewest of `links` (switch pairs, parallel links repeated) whose removal separates
/// every switch with `side[s] == Some(false)` from every one with `Some(true)`; switches with
/// `None` join either side. `None` above [`MAX_SWITCHES`].
pub fn split_cut(switches: usize, links: &[(usize, usize)], side: &[Option<bool>]) -> Option<u64> {
    if switches > MAX_SWITCHES {
        return None;
    }
    let (source, sink) = (switches, switches + 1);
    let mut g = Flow::new(switches + 2);
    for &(a, b) in links {
        if a != b {
            g.link(a, b, 1, 1);
        }
    }
    // More than every link: the groups themselves are never cut.
    let whole = links.len() as u32 + 1;
    for (s, group) in side.iter().enumerate() {
        match group {
            Some(false) => g.link(source, s, whole, 0),
            Some(true) => g.link(s, sink, whole, 0),
            None => {}
        }
    }
    let mut flow = 0u64;
    while g.levels(source, sink) {
        g.next.iter_mut().for_each(|n| *n = 0);
        while g.augment(source, sink) {
            flow += 1;
        }
    }
    Some(flow)
}

/// The smallest of several balanced bisections of a network whose terminals sit on some
/// switches only (`terminals`, one count per switch), or `None` when none has terminals or
/// the graph is above [`MAX_SWITCHES`]. Each takes the switches with terminals in an order,
/// puts them on the first side until it holds half the terminals, the rest on the other,
/// places the switches without terminals by [`split_cut`] and adds the terminal links that
/// balance an uneven split. The orders: the switches' numbering from [`STARTS`] starts
/// spread over it (a generated tree numbers its leaves subtree by subtree), and breadth-first
/// from as many switches with terminals (an imported fabric's numbering may mean nothing,
/// but switches near each other in the graph are the ones a good cut keeps together: a
/// tree's leaves under one subtree).
pub(crate) fn host_split_bisection(terminals: &[u32], links: &[(usize, usize)]) -> Option<u64> {
    let switches = terminals.len();
    let hosts: Vec<usize> = (0..switches).filter(|&s| terminals[s] > 0).collect();
    if hosts.is_empty() || switches > MAX_SWITCHES {
        return None;
    }
    let starts = STARTS.min(hosts.len());
    let adj = adjacency(switches, links);
    let by_number = (0..starts).map(|i| {
        let first = i * hosts.len() / starts;
        (0..hosts.len()).map(|k| hosts[(first + k) % hosts.len()]).collect::<Vec<_>>()
    });
    let by_distance = (0..starts).map(|i| breadth_first_hosts(&adj, terminals, hosts[i * hosts.len() / starts]));
    by_number.chain(by_distance).map(|order| halves_cut(terminals, links, &order)).min()
}

/// The switches with terminals in breadth-first order from `start` (those the search does
/// not reach, in a disconnected graph, after them in index order).
fn breadth_first_hosts(adj: &[Vec<usize>], terminals: &[u32], start: usize) -> Vec<usize> {
    let mut seen = vec![false; adj.len()];
    let mut order = Vec::new();
    let mut queue = VecDeque::from([start]);
    seen[start] = true;
    while let Some(v) = queue.pop_front() {
        if terminals[v] > 0 {
            order.push(v);
        }
        for &t in &adj[v] {
            if !seen[t] {
                seen[t] = true;
                queue.push_back(t);
            }
        }
    }
    order.extend((0..adj.len()).filter(|&s| !seen[s] && terminals[s] > 0));
    order
}

/// The bisection that puts the switches of `order` (all those with terminals) on the first
/// side while that brings it closer to half the terminals, the others on the second.
fn halves_cut(terminals: &[u32], links: &[(usize, usize)], order: &[usize]) -> u64 {
    let total: usize = terminals.iter().map(|&t| t as usize).sum();
    let mut side = vec![None; terminals.len()];
    let mut held = 0;
    for &s in order {
        let t = terminals[s] as usize;
        let first = held + t <= total / 2 || (held < total / 2 && held + t - total / 2 < total / 2 - held);
        side[s] = Some(!first);
        held += if first { t } else { 0 };
    }
    let cut = split_cut(terminals.len(), links, &side).expect("the size was checked");
    cut + balancing_moves(total, held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_cut_once_and_parallel_links_count() {
        // 0 - 1 - 2 - 3 with 0 and 3 fixed apart: one link.
        let path = [(0, 1), (1, 2), (2, 3)];
        assert_eq!(split_cut(4, &path, &[Some(false), None, None, Some(true)]), Some(1));
        // Two links between 1 and 2 and three at each end: the two.
        let links = [(0, 1), (0, 1), (0, 1), (1, 2), (1, 2), (2, 3), (2, 3), (2, 3)];
        assert_eq!(split_cut(4, &links, &[Some(false), None, None, Some(true)]), Some(2));
        // Groups already apart: nothing to cut.
        assert_eq!(split_cut(4, &[(0, 1), (2, 3)], &[Some(false), None, None, Some(true)]), Some(0));
    }

    #[test]
    fn a_star_of_free_switches_goes_to_the_cheaper_side() {
        // Hub 4 linked to 0, 1, 2 (one side) and 3 (the other): cutting 4-3 is cheapest.
        let links = [(0, 4), (1, 4), (2, 4), (3, 4)];
        let side = [Some(false), Some(false), Some(false), Some(true), None];
        assert_eq!(split_cut(5, &links, &side), Some(1));
    }
}
