//! The fewest links that separate two given groups of switches, every other switch free to
//! join either side: a minimum s-t cut, found as a maximum flow (Dinic's algorithm, unit
//! capacities).
//!
//! Networks whose terminals sit on some switches only (a tree's leaves) are bisected by
//! splitting those switches into two halves of the terminals; the switches without
//! terminals then go wherever they cut fewest links, which is exactly this cut. Faulty
//! trees use it (`faulty_bisection.rs`): the intact family's closed form ignores the failed
//! links across it.

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
