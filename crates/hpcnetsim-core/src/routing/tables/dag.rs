//! A directed graph kept acyclic as edges arrive: every insertion that would close a cycle
//! is refused. A topological order is maintained incrementally (Pearce and Kelly, "A
//! dynamic topological sort algorithm for directed acyclic graphs", JEA 2006), so an edge
//! that agrees with the order costs nothing and one that does not only searches the nodes
//! between its ends. Used to fill virtual layers with paths (see `layers`).

/// An acyclic graph over nodes `0..n` with an incrementally maintained topological order.
#[derive(Clone, Debug)]
pub struct Dag {
    succ: Vec<Vec<u32>>,
    pred: Vec<Vec<u32>>,
    /// Position of every node in a topological order (a permutation of `0..n`).
    ord: Vec<u32>,
    /// Visit marks of the current search (`mark[v] == epoch`).
    mark: Vec<u32>,
    epoch: u32,
    fwd: Vec<u32>,
    back: Vec<u32>,
    stack: Vec<u32>,
}

impl Dag {
    /// An empty graph over `n` nodes.
    pub fn new(n: usize) -> Self {
        Dag {
            succ: vec![Vec::new(); n],
            pred: vec![Vec::new(); n],
            ord: (0..n as u32).collect(),
            mark: vec![0; n],
            epoch: 0,
            fwd: Vec::new(),
            back: Vec::new(),
            stack: Vec::new(),
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
        let (lb, ub) = (self.ord[b as usize], self.ord[a as usize]);
        if ub > lb {
            // The order disagrees: look for a path b ~> a among the nodes ordered up to a.
            if !self.forward(b, a, ub) {
                return false;
            }
            self.backward(a, lb);
            self.reorder();
        }
        self.succ[a as usize].push(b);
        self.pred[b as usize].push(a);
        true
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
            self.epoch = 1;
        }
    }

    /// Collects in `fwd` the nodes reachable from `start` with order at most `ub`; false
    /// when `target` is among them (the edge would close a cycle).
    fn forward(&mut self, start: u32, target: u32, ub: u32) -> bool {
        self.next_epoch();
        self.fwd.clear();
        self.stack.clear();
        self.stack.push(start);
        self.mark[start as usize] = self.epoch;
        while let Some(v) = self.stack.pop() {
            self.fwd.push(v);
            for &w in &self.succ[v as usize] {
                if w == target {
                    return false;
                }
                if self.mark[w as usize] != self.epoch && self.ord[w as usize] < ub {
                    self.mark[w as usize] = self.epoch;
                    self.stack.push(w);
                }
            }
        }
        true
    }

    /// Collects in `back` the nodes reaching `start` with order at least `lb`.
    fn backward(&mut self, start: u32, lb: u32) {
        self.next_epoch();
        self.back.clear();
        self.stack.clear();
        self.stack.push(start);
        self.mark[start as usize] = self.epoch;
        while let Some(v) = self.stack.pop() {
            self.back.push(v);
            for &w in &self.pred[v as usize] {
                if self.mark[w as usize] != self.epoch && self.ord[w as usize] > lb {
                    self.mark[w as usize] = self.epoch;
                    self.stack.push(w);
                }
            }
        }
    }

    /// Gives the positions held by `back` and `fwd` first to `back`, then to `fwd`, each
    /// keeping its relative order.
    fn reorder(&mut self) {
        let ord = &self.ord;
        self.back.sort_unstable_by_key(|&v| ord[v as usize]);
        self.fwd.sort_unstable_by_key(|&v| ord[v as usize]);
        let mut slots: Vec<u32> = self.back.iter().chain(self.fwd.iter()).map(|&v| ord[v as usize]).collect();
        slots.sort_unstable();
        for (&v, &s) in self.back.iter().chain(self.fwd.iter()).zip(&slots) {
            self.ord[v as usize] = s;
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
        // Compare with a brute-force reachability check on a small random graph.
        let n = 12;
        let mut g = Dag::new(n);
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
}
