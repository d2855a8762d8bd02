//! A directed graph kept acyclic as edges arrive: every insertion that would close a cycle
//! is refused. A topological order is maintained incrementally, after Pearce and Kelly ("A
//! dynamic topological sort algorithm for directed acyclic graphs", JEA 2006): an edge that
//! agrees with the order costs nothing, and for one that does not, a search forward from its
//! head and one backward from its tail, among the nodes ordered between its ends, run a step
//! each in turn. They meet when the edge closes a cycle; otherwise the first to run out has
//! found all the nodes that must move, and only those move (past the tail or before the head).
//! Moving one side needs free places there, so the order is kept as sparse labels (gaps of
//! 2^32, relabelled when a gap runs out). Pearce and Kelly's procedure, which moves both
//! sides into their old places, needs both searches complete: on the dense dependency graphs
//! of a dragonfly one of them covers most of the layer.
//!
//! Whether a whole path fits (`fits`) is asked without touching the graph: inserting and
//! removing its dependencies one by one would reorder the nodes for every layer tried, and
//! most tries are refused or never committed. Used to fill virtual layers with paths (see
//! `layers`).

use std::collections::BTreeMap;

/// Distance between consecutive labels after a relabelling.
const GAP: u64 = 1 << 32;

/// An acyclic graph over nodes `0..n` with an incrementally maintained topological order.
#[derive(Clone, Debug)]
pub struct Dag {
    succ: Vec<Vec<u32>>,
    pred: Vec<Vec<u32>>,
    /// Label of every node, increasing along every edge (a topological order).
    ord: Vec<u64>,
    /// The nodes by label.
    by_label: BTreeMap<u64, u32>,
    /// Forward visit marks of the current search (`mark[v] == epoch`).
    mark: Vec<u32>,
    /// Backward visit marks of the current search (`bmark[v] == epoch`).
    bmark: Vec<u32>,
    epoch: u32,
    fwd: Vec<u32>,
    back: Vec<u32>,
    /// Nodes the forward and the backward search have finished.
    fdone: Vec<u32>,
    bdone: Vec<u32>,
    gap: u64,
}

impl Dag {
    /// An empty graph over `n` nodes.
    pub fn new(n: usize) -> Self {
        Self::with_gap(n, GAP)
    }

    /// An empty graph over `n` nodes whose labels are `gap` apart after a relabelling (small
    /// gaps make the tests relabel often).
    fn with_gap(n: usize, gap: u64) -> Self {
        let ord: Vec<u64> = (0..n as u64).map(|i| (i + 1) * gap).collect();
        Dag {
            succ: vec![Vec::new(); n],
            pred: vec![Vec::new(); n],
            by_label: ord.iter().enumerate().map(|(v, &l)| (l, v as u32)).collect(),
            ord,
            mark: vec![0; n],
            bmark: vec![0; n],
            epoch: 0,
            fwd: Vec::new(),
            back: Vec::new(),
            fdone: Vec::new(),
            bdone: Vec::new(),
            gap,
        }
    }

    /// Whether the edge `a -> b` is present.
    pub fn has(&self, a: u32, b: u32) -> bool {
        self.succ[a as usize].contains(&b)
    }

    /// Adds `a -> b` unless it would close a cycle; returns whether the graph holds it.
    pub fn try_add(&mut self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        if self.has(a, b) {
            return true;
        }
        if self.ord[a as usize] > self.ord[b as usize] && !self.reorder(a, b) {
            return false;
        }
        self.succ[a as usize].push(b);
        self.pred[b as usize].push(a);
        true
    }

    /// Makes the order agree with a new edge `a -> b` (`a` ordered after `b`); false when
    /// `b` reaches `a` (the order is then unchanged).
    fn reorder(&mut self, a: u32, b: u32) -> bool {
        let (lb, ub) = (self.ord[b as usize], self.ord[a as usize]);
        self.next_epoch();
        let e = self.epoch;
        self.fwd.clear();
        self.back.clear();
        self.fdone.clear();
        self.bdone.clear();
        self.mark[b as usize] = e;
        self.fwd.push(b);
        self.bmark[a as usize] = e;
        self.back.push(a);
        // Forward: the nodes reachable from b ordered before a. Backward: the nodes reaching
        // a ordered after b.
        let forward_side = loop {
            let Some(v) = self.fwd.pop() else { break true };
            self.fdone.push(v);
            for &w in &self.succ[v as usize] {
                if self.bmark[w as usize] == e {
                    return false;
                }
                if self.mark[w as usize] != e && self.ord[w as usize] < ub {
                    self.mark[w as usize] = e;
                    self.fwd.push(w);
                }
            }
            let Some(u) = self.back.pop() else { break false };
            self.bdone.push(u);
            for &x in &self.pred[u as usize] {
                if self.mark[x as usize] == e {
                    return false;
                }
                if self.bmark[x as usize] != e && self.ord[x as usize] > lb {
                    self.bmark[x as usize] = e;
                    self.back.push(x);
                }
            }
        };
        let mut moved = std::mem::take(if forward_side { &mut self.fdone } else { &mut self.bdone });
        let ord = &self.ord;
        moved.sort_unstable_by_key(|&v| ord[v as usize]);
        // The free labels: just after a for the forward side, just before b for the other.
        let (lo, hi) = loop {
            let (lo, hi) = if forward_side {
                let l = self.ord[a as usize];
                (l, self.by_label.range(l + 1..).next().map_or(u64::MAX, |(&h, _)| h))
            } else {
                let h = self.ord[b as usize];
                (self.by_label.range(..h).next_back().map_or(0, |(&l, _)| l), h)
            };
            if (hi - lo) / (moved.len() as u64 + 1) > 0 {
                break (lo, hi);
            }
            self.relabel(moved.len() as u64 + 2);
        };
        let step = (hi - lo) / (moved.len() as u64 + 1);
        for (i, &v) in moved.iter().enumerate() {
            self.by_label.remove(&self.ord[v as usize]);
            let l = lo + step * (i as u64 + 1);
            self.ord[v as usize] = l;
            self.by_label.insert(l, v);
        }
        self.fdone = moved;
        true
    }

    /// Spreads the labels apart again (at least `min`), in the same order.
    fn relabel(&mut self, min: u64) {
        let gap = self.gap.max(min);
        let nodes: Vec<u32> = self.by_label.values().copied().collect();
        self.by_label.clear();
        for (i, &v) in nodes.iter().enumerate() {
            let l = (i as u64 + 1) * gap;
            self.ord[v as usize] = l;
            self.by_label.insert(l, v);
        }
    }

    /// Removes `a -> b` (the order stays valid).
    pub fn remove(&mut self, a: u32, b: u32) {
        self.succ[a as usize].retain(|&x| x != b);
        self.pred[b as usize].retain(|&x| x != a);
    }

    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.fill(0);
            self.bmark.fill(0);
            self.epoch = 1;
        }
    }

    /// `None` when the dependencies of the channel sequence `p` (`p[i] -> p[i + 1]`) can all
    /// be added without closing a cycle, else the first `j` such that those of `p[..=j]`
    /// close one; the graph is left unchanged. They close one exactly when
    /// some `p[j]` already reaches an earlier `p[k]` (k < j): any cycle through the new edges
    /// leaves the sequence forwards and must come back to an earlier channel through the graph.
    /// Such a walk only climbs the topological order, so only earlier channels ordered after
    /// `p[j]` can be reached.
    pub fn fits(&mut self, p: &[u32]) -> Option<usize> {
        for j in 1..p.len() {
            let (c, oc) = (p[j], self.ord[p[j] as usize]);
            if p[..j].contains(&c) {
                return Some(j);
            }
            let mut ub = 0u64;
            let mut any = false;
            for &t in &p[..j] {
                let ot = self.ord[t as usize];
                if ot > oc {
                    ub = ub.max(ot);
                    any = true;
                }
            }
            if any && self.reaches(c, &p[..j], ub) {
                return Some(j);
            }
        }
        None
    }

    /// Whether `start` reaches one of `targets` (those ordered after it, the last at `ub`):
    /// a forward search from `start` among the nodes ordered before `ub` and a backward one
    /// from the targets among the nodes ordered after `start`, one step each in turn, until
    /// they meet or one runs out (which bounds the work by twice the smaller region).
    fn reaches(&mut self, start: u32, targets: &[u32], ub: u64) -> bool {
        let lb = self.ord[start as usize];
        self.next_epoch();
        let e = self.epoch;
        self.fwd.clear();
        self.back.clear();
        self.mark[start as usize] = e;
        self.fwd.push(start);
        for &t in targets {
            if self.ord[t as usize] > lb && self.bmark[t as usize] != e {
                self.bmark[t as usize] = e;
                self.back.push(t);
            }
        }
        loop {
            let Some(v) = self.fwd.pop() else { return false };
            for &w in &self.succ[v as usize] {
                if self.bmark[w as usize] == e {
                    return true;
                }
                if self.mark[w as usize] != e && self.ord[w as usize] < ub {
                    self.mark[w as usize] = e;
                    self.fwd.push(w);
                }
            }
            let Some(u) = self.back.pop() else { return false };
            for &x in &self.pred[u as usize] {
                if self.mark[x as usize] == e {
                    return true;
                }
                if self.bmark[x as usize] != e && self.ord[x as usize] > lb {
                    self.bmark[x as usize] = e;
                    self.back.push(x);
                }
            }
        }
    }

    /// Whether the order is topological for every edge (checked in tests).
    pub fn order_is_valid(&self) -> bool {
        self.succ.iter().enumerate().all(|(a, s)| s.iter().all(|&b| self.ord[a] < self.ord[b as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::Dag;

    #[test]
    fn refuses_exactly_the_edges_that_close_cycles() {
        let mut g = Dag::new(5);
        assert!(g.try_add(3, 1));
        assert!(g.try_add(1, 4));
        assert!(g.try_add(4, 0));
        assert!(!g.try_add(0, 3), "0 -> 3 closes 3 1 4 0");
        assert!(!g.try_add(4, 3));
        assert!(g.try_add(2, 3));
        assert!(!g.try_add(0, 2), "0 -> 2 closes 2 3 1 4 0");
        g.remove(4, 0);
        assert!(g.try_add(0, 2), "cycle gone once 4 -> 0 is removed");
        assert!(g.order_is_valid());
    }

    #[test]
    fn order_stays_topological_under_random_insertions() {
        // Compare with a brute-force reachability check on a small random graph; with labels
        // two apart, most reorderings relabel.
        for gap in [super::GAP, 2] {
            random_insertions(gap);
        }
    }

    fn random_insertions(gap: u64) {
        let n = 12;
        let mut g = Dag::with_gap(n, gap);
        let mut adj = vec![vec![false; n]; n];
        let mut x: u64 = 12345;
        for _ in 0..400 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (a, b) = (((x >> 33) % n as u64) as usize, ((x >> 45) % n as u64) as usize);
            // b reaches a?
            let mut seen = vec![false; n];
            let mut st = vec![b];
            while let Some(v) = st.pop() {
                if !seen[v] {
                    seen[v] = true;
                    st.extend((0..n).filter(|&w| adj[v][w]));
                }
            }
            let ok = a != b && !seen[a];
            assert_eq!(g.try_add(a as u32, b as u32), ok || adj[a][b], "edge {a} -> {b}");
            if ok {
                adj[a][b] = true;
            }
            assert!(g.order_is_valid());
        }
    }

    #[test]
    fn fits_agrees_with_inserting_the_path_edge_by_edge() {
        // On growing random graphs, a whole path fits exactly when adding its dependencies one
        // by one never closes a cycle, and asking leaves the graph (and its answers) unchanged.
        for gap in [super::GAP, 2] {
            random_paths(gap);
        }
    }

    fn random_paths(gap: u64) {
        let n = 16;
        let mut g = Dag::with_gap(n, gap);
        let mut x: u64 = 99;
        let mut next = |m: usize| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % m as u64) as u32
        };
        let (mut fit, mut refused) = (0, 0);
        for _ in 0..600 {
            let len = 2 + next(4) as usize;
            let p: Vec<u32> = (0..len).map(|_| next(n)).collect();
            let mut copy = g.clone();
            let first_bad = (1..len).find(|&j| !copy.try_add(p[j - 1], p[j]));
            assert_eq!(g.fits(&p), first_bad, "path {p:?}");
            if first_bad.is_some() {
                refused += 1;
            } else {
                fit += 1;
            }
            // Grow the graph by an edge or, now and then, by the whole path.
            if next(5) == 0 && first_bad.is_none() {
                for w in p.windows(2) {
                    assert!(g.try_add(w[0], w[1]));
                }
            } else {
                g.try_add(next(n), next(n));
            }
            assert!(g.order_is_valid());
        }
        assert!(fit > 50 && refused > 50, "{fit} fit, {refused} refused");
    }
}
