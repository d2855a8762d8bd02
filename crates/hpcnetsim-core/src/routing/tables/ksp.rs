//! k-shortest-paths tables (`ksp`): the routing Singla, Hong, Popa and Godfrey propose for
//! Jellyfish (NSDI 2012, with k = 8 paths), on forwarding tables. Every terminal owns
//! `k = 2^lmc` addresses, and the route towards address `i` of a destination follows, from
//! every switch, its `i`-th shortest path there as far as the tables allow.
//!
//! **The paths.** The `k` shortest simple paths between two switches, links counted: the
//! paths of the shortest length first, then those one link longer, and so on, the same
//! paths as Yen's algorithm gives with unit weights. They are enumerated length by length,
//! depth first, a branch cut as soon as its length so far plus its distance to the
//! destination (one breadth-first search per destination) exceeds the length sought; the
//! search stops at `k` paths, or when no branch was cut, i.e. when no longer simple path
//! exists. Among paths of one length the order is lexicographic, each switch's neighbours
//! (by index) taken from a position drawn from the source and destination, so that ties
//! spread over the network instead of all favouring low switch indices.
//!
//! **The tables.** A table routes by destination only, so the routes towards one address
//! form a tree into its switch. For destination switch `d` and offset `i`, sources are taken
//! farthest first (then by index): each follows its `i`-th path (its `i mod n`-th when it
//! has only `n < k`) and sets the entry of every switch it passes until it meets a switch
//! whose entry is already set, where it joins the route already there. Entries are only set
//! on switches without one, so the routes form a tree and never loop; offset 0 uses the
//! shortest paths, whose sub-paths are shortest, so it routes minimally. Among parallel
//! links the least used channel is taken (lowest port on ties), as min-hop does.
//!
//! **Deadlock.** The paths are not minimal and follow no turn rule: like `dfsssp`, the
//! engine gives every path a virtual lane by the layering of `layers.rs`, and fails in one
//! line when more lanes than allowed are needed.

use super::Tables;
use crate::topology::paths::bfs;
use crate::topology::{Peer, Topology};

/// Distance of a switch that cannot be reached.
const FAR: u32 = u32::MAX;

/// The switch graph without parallel links: every switch's neighbours in increasing order,
/// each with the ports that lead to it.
struct Neighbours {
    of: Vec<Vec<(usize, Vec<usize>)>>,
}

impl Neighbours {
    fn new(topo: &Topology) -> Self {
        let of = (0..topo.num_switches())
            .map(|s| {
                let mut v: Vec<(usize, Vec<usize>)> = Vec::new();
                let mut links: Vec<(usize, usize)> = topo
                    .ports(s)
                    .iter()
                    .enumerate()
                    .filter_map(|(p, peer)| match *peer {
                        Peer::Switch { switch, .. } if switch as usize != s => Some((switch as usize, p)),
                        _ => None,
                    })
                    .collect();
                links.sort_unstable();
                for (n, p) in links {
                    match v.last_mut() {
                        Some((last, ports)) if *last == n => ports.push(p),
                        _ => v.push((n, vec![p])),
                    }
                }
                v
            })
            .collect();
        Neighbours { of }
    }
}

/// Where the neighbour lists of every switch start for the paths from `src` to `dst` (a
/// mix of both, so that ties are broken differently for every pair).
fn start(src: usize, dst: usize) -> u64 {
    let mut x = (src as u64) << 32 ^ dst as u64 ^ 0x9E37_79B9_7F4A_7C15;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The depth-first search of the simple paths of exactly `len` links to `dst`.
struct Search<'a> {
    nb: &'a Neighbours,
    dist: &'a [u32],
    dst: usize,
    rot: u64,
    len: u32,
    k: usize,
    on_path: Vec<bool>,
    path: Vec<usize>,
    found: Vec<Vec<usize>>,
    /// Whether some branch was cut for being too long (a longer path may exist).
    cut: bool,
}

impl Search<'_> {
    fn visit(&mut self, v: usize) {
        let depth = self.path.len() as u32 - 1;
        let n = self.nb.of[v].len();
        if n == 0 {
            return;
        }
        let first = (self.rot % n as u64) as usize;
        for j in 0..n {
            if self.found.len() == self.k {
                return;
            }
            let w = self.nb.of[v][(first + j) % n].0;
            if self.on_path[w] || self.dist[w] == FAR {
                continue;
            }
            if w == self.dst {
                if depth + 1 == self.len {
                    self.path.push(w);
                    self.found.push(self.path.clone());
                    self.path.pop();
                }
                continue;
            }
            if depth + 1 + self.dist[w] > self.len {
                self.cut = true;
                continue;
            }
            self.on_path[w] = true;
            self.path.push(w);
            self.visit(w);
            self.path.pop();
            self.on_path[w] = false;
        }
    }
}

/// The `k` shortest simple paths from switch `src` to switch `dst` (switch sequences, both
/// ends included), given `dist`, every switch's distance to `dst`; shortest first, ties in
/// the order of the module doc. Empty when `dst` cannot be reached; `[[src]]` when they are
/// the same switch.
fn shortest_paths(nb: &Neighbours, dist: &[u32], src: usize, dst: usize, k: usize) -> Vec<Vec<usize>> {
    if src == dst {
        return vec![vec![src]];
    }
    if dist[src] == FAR || k == 0 {
        return Vec::new();
    }
    let mut s = Search {
        nb,
        dist,
        dst,
        rot: start(src, dst),
        len: dist[src],
        k,
        on_path: vec![false; dist.len()],
        path: vec![src],
        found: Vec::new(),
        cut: false,
    };
    s.on_path[src] = true;
    let longest = dist.len() as u32 - 1;
    while s.found.len() < k && s.len <= longest {
        s.cut = false;
        s.visit(src);
        if !s.cut {
            break;
        }
        s.len += 1;
    }
    s.found
}

/// The `k` shortest simple paths between switches `src` and `dst` of `topo`, as the `ksp`
/// engine uses them (see the module doc).
pub fn k_shortest_paths(topo: &Topology, src: usize, dst: usize, k: usize) -> Vec<Vec<usize>> {
    let dist = bfs(topo, dst);
    shortest_paths(&Neighbours::new(topo), &dist, src, dst, k)
}

/// k-shortest-paths tables with `k = 2^lmc` addresses per terminal (see the module doc);
/// lanes are assigned by the caller.
pub fn ksp(topo: &Topology, lmc: u8) -> Tables {
    let mut t = Tables::new("ksp", topo, lmc);
    let k = t.offsets();
    let n = topo.num_switches();
    let nb = Neighbours::new(topo);
    let mut used = vec![0u32; topo.peers().len()];
    let mut next = vec![usize::MAX; n];
    for d in 0..n {
        let homes: Vec<(usize, usize)> = topo
            .ports(d)
            .iter()
            .enumerate()
            .filter_map(|(p, peer)| match *peer {
                Peer::Terminal(x) => Some((x as usize, p)),
                _ => None,
            })
            .collect();
        if homes.is_empty() {
            continue;
        }
        // `bfs` from `d`: links are full duplex, so these are the distances to `d`.
        let dist = bfs(topo, d);
        let mut order: Vec<usize> = (0..n).filter(|&s| s != d && dist[s] != FAR).collect();
        order.sort_by_key(|&s| (std::cmp::Reverse(dist[s]), s));
        let paths: Vec<Vec<Vec<usize>>> =
            (0..n).map(|s| if s == d { Vec::new() } else { shortest_paths(&nb, &dist, s, d, k) }).collect();
        for i in 0..k {
            next.fill(usize::MAX);
            for &s in &order {
                let mine = &paths[s];
                let Some(p) = mine.get(i % mine.len().max(1)) else { continue };
                for hop in p.windows(2) {
                    if next[hop[0]] != usize::MAX {
                        break;
                    }
                    next[hop[0]] = hop[1];
                }
            }
            for &(term, port) in &homes {
                let lid = t.lid(term, i);
                t.set_port(d, lid, port);
                for s in (0..n).filter(|&s| next[s] != usize::MAX) {
                    // `next[s]` is a neighbour of `s` (a hop of one of its paths).
                    let Ok(j) = nb.of[s].binary_search_by_key(&next[s], |x| x.0) else { continue };
                    let ports = &nb.of[s][j].1;
                    if let Some(best) = ports.iter().copied().min_by_key(|&p| (used[topo.channel(s, p)], p)) {
                        used[topo.channel(s, best)] += 1;
                        t.set_port(s, lid, best);
                    }
                }
            }
        }
    }
    t
}
