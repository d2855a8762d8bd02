//! Jellyfish (Singla, Hong, Popa and Godfrey, NSDI 2012): a random k-regular graph of `n`
//! switches, `p` terminals per switch, drawn from a seed.
//!
//! The paper's incremental construction: link random pairs of non-adjacent switches with
//! free ports until no such pair is left; then a switch with two or more free ports takes
//! a random link `(x, y)` it is adjacent to neither end of, removes it and links itself to
//! `x` and `y` (two switches with one free port each, adjacent to each other, do the same
//! with one end each). The draw uses the setup stream of `seed`, so a spec always gives the
//! same graph. A draw with several components (likely only for tiny `k`) is joined: links
//! `(a, b)` and `(c, d)` of two components become `(a, c)` and `(b, d)`, which keeps every
//! degree, until one component is left; a draw that gets stuck (tiny graphs) is redrawn from
//! the next stream, and after 64 the circulant graph (switch `s` linked to `s ± 1 … s ± k/2`,
//! and `s + n/2` for odd `k`) is used. The graph is drawn when the network is built, not
//! when the spec is parsed. Ports: switch `s`'s neighbours in increasing order, then the
//! terminals.

use super::wiring::{check_size, Builder, Wiring};
use crate::error::{Error, Result};
use crate::rng::{stream, Owner, Stream};
use rand::Rng;

/// Stream id of the draws (under [`Owner::Setup`]); attempt `i` uses `JELLYFISH_STREAM + i`.
const JELLYFISH_STREAM: u64 = 0x1E11_0000;

/// Draws that may get stuck before the circulant graph is used.
const ATTEMPTS: u64 = 64;

/// A Jellyfish network's parameters (the graph is drawn from them: [`Jellyfish::neighbours`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Jellyfish {
    /// Number of switches.
    pub n: usize,
    /// Switch-to-switch links per switch.
    pub k: usize,
    /// Terminals per switch.
    pub p: usize,
    /// Seed of the draw.
    pub seed: u64,
}

impl Jellyfish {
    /// Validates the parameters and the size.
    pub fn new(spec: &str, n: usize, k: usize, p: usize, seed: u64) -> Result<Self> {
        if k >= n {
            return Err(Error::invalid(spec, "k", k, format!("fewer links per switch than n = {n} switches")));
        }
        if (n * k) % 2 == 1 {
            return Err(Error::invalid(spec, "k", k, format!("an even k (n·k must be even, n = {n} is odd)")));
        }
        if k < 2 && n > 2 {
            return Err(Error::invalid(
                spec,
                "k",
                k,
                format!("at least 2 (one link per switch leaves n = {n} switches in pairs)"),
            ));
        }
        check_size(spec, n as u128, n as u128 * (k + p) as u128)?;
        Ok(Jellyfish { n, k, p, seed })
    }

    /// The drawn graph: the sorted neighbours of every switch.
    pub fn neighbours(&self) -> Vec<Vec<u32>> {
        let (n, k) = (self.n, self.k);
        for attempt in 0..ATTEMPTS {
            let mut rng = stream(self.seed, Owner::Setup, JELLYFISH_STREAM + attempt);
            if let Some(mut adj) = draw(n, k, &mut rng) {
                join_components(&mut adj);
                adj.iter_mut().for_each(|l| l.sort_unstable());
                return adj;
            }
        }
        circulant(n, k)
    }

    /// A balanced cut from [`super::balanced_cut`] (an upper bound on the minimum), `u64::MAX`
    /// above its size limit.
    pub fn bisection_channels(&self) -> u64 {
        if self.n > super::balanced_cut::MAX_SWITCHES {
            return u64::MAX;
        }
        let links: Vec<(usize, usize)> = self
            .neighbours()
            .iter()
            .enumerate()
            .flat_map(|(s, l)| l.iter().map(move |&t| (s, t as usize)))
            .filter(|&(s, t)| s < t)
            .collect();
        super::balanced_cut::bisection_from(self.n, &links, self.p, 0).unwrap_or(u64::MAX)
    }

    pub(crate) fn build(&self) -> Wiring {
        let neighbours = self.neighbours();
        let mut b = Builder::new(std::iter::repeat_n(self.k + self.p, self.n));
        for (s, list) in neighbours.iter().enumerate() {
            for (i, &t) in list.iter().enumerate() {
                let t = t as usize;
                if s < t {
                    let back = neighbours[t].binary_search(&(s as u32)).expect("links are symmetric");
                    b.link(s, i, t, back);
                }
            }
            for j in 0..self.p {
                b.attach_terminal(s, self.k + j);
            }
        }
        b.finish(None)
    }
}

/// The incremental random k-regular construction (see the module documentation); `None`
/// when no link can be spliced (tiny graphs).
fn draw(n: usize, k: usize, rng: &mut Stream) -> Option<Vec<Vec<u32>>> {
    let mut adj: Vec<Vec<u32>> = vec![Vec::with_capacity(k); n];
    let mut links: Vec<(u32, u32)> = Vec::with_capacity(n * k / 2);
    let linked = |adj: &[Vec<u32>], a: usize, b: usize| adj[a].contains(&(b as u32));
    let mut free: Vec<usize> = (0..n).collect();
    let add = |adj: &mut Vec<Vec<u32>>, links: &mut Vec<(u32, u32)>, a: usize, b: usize| {
        adj[a].push(b as u32);
        adj[b].push(a as u32);
        links.push((a as u32, b as u32));
    };
    let mut misses = 0;
    loop {
        // Random pairs first (full switches leave the list as they are met); after a run of
        // misses, list the pairs that are left.
        let mut done = false;
        for _ in 0..32 {
            if free.is_empty() {
                break;
            }
            let i = rng.random_range(0..free.len());
            if adj[free[i]].len() == k {
                free.swap_remove(i);
                continue;
            }
            let j = rng.random_range(0..free.len());
            if adj[free[j]].len() == k {
                free.swap_remove(j);
                continue;
            }
            let (a, b) = (free[i], free[j]);
            if a != b && !linked(&adj, a, b) {
                add(&mut adj, &mut links, a, b);
                done = true;
                break;
            }
        }
        if done {
            misses = 0;
            continue;
        }
        free.retain(|&s| adj[s].len() < k);
        if free.is_empty() {
            break;
        }
        // The list below is quadratic: drawn again first while many switches are free.
        misses += 1;
        if free.len() > 64 && misses < 4 {
            continue;
        }
        let pairs: Vec<(usize, usize)> = free
            .iter()
            .enumerate()
            .flat_map(|(i, &a)| free[i + 1..].iter().map(move |&b| (a, b)))
            .filter(|&(a, b)| !linked(&adj, a, b))
            .collect();
        if !pairs.is_empty() {
            let (a, b) = pairs[rng.random_range(0..pairs.len())];
            add(&mut adj, &mut links, a, b);
            continue;
        }
        // Stuck: splice a random existing link.
        let two = free.iter().copied().find(|&s| k - adj[s].len() >= 2);
        let (u, v) = match two {
            Some(u) => (u, u),
            None => (free[0], free[1]),
        };
        let usable: Vec<usize> = (0..links.len())
            .filter(|&i| {
                let (x, y) = (links[i].0 as usize, links[i].1 as usize);
                x != u && y != u && x != v && y != v && !linked(&adj, u, x) && !linked(&adj, v, y)
            })
            .collect();
        if usable.is_empty() {
            return None;
        }
        let i = usable[rng.random_range(0..usable.len())];
        let (x, y) = links.swap_remove(i);
        let (x, y) = (x as usize, y as usize);
        adj[x].retain(|&z| z as usize != y);
        adj[y].retain(|&z| z as usize != x);
        add(&mut adj, &mut links, u, x);
        add(&mut adj, &mut links, v, y);
    }
    for list in &mut adj {
        list.sort_unstable();
    }
    Some(adj)
}

/// The component of every switch, and the number of components.
fn components(adj: &[Vec<u32>]) -> (Vec<usize>, usize) {
    let mut comp = vec![usize::MAX; adj.len()];
    let mut count = 0;
    for start in 0..adj.len() {
        if comp[start] != usize::MAX {
            continue;
        }
        comp[start] = count;
        let mut stack = vec![start];
        while let Some(s) = stack.pop() {
            for &t in &adj[s] {
                if comp[t as usize] == usize::MAX {
                    comp[t as usize] = count;
                    stack.push(t as usize);
                }
            }
        }
        count += 1;
    }
    (comp, count)
}

/// Joins the components of a graph of degree ≥ 2: a link `(a, b)` of the first component
/// and `(c, d)` of another become `(a, c)` and `(b, d)` (no parallel links arise, the two
/// components were not linked), until one component is left.
fn join_components(adj: &mut [Vec<u32>]) {
    loop {
        let (comp, count) = components(adj);
        if count < 2 {
            return;
        }
        let a = 0;
        let c = (0..adj.len()).find(|&s| comp[s] != comp[a]).expect("two components");
        let (b, d) = (adj[a][0] as usize, adj[c][0] as usize);
        for (x, old, new) in [(a, b, c), (b, a, d), (c, d, a), (d, c, b)] {
            let i = adj[x].iter().position(|&y| y as usize == old).expect("a link of the draw");
            adj[x][i] = new as u32;
        }
    }
}

/// The circulant k-regular graph: `s` linked to `s ± 1 … s ± ⌊k/2⌋`, and to `s + n/2` for
/// odd `k` (then `n` is even); connected for `k ≥ 2`.
fn circulant(n: usize, k: usize) -> Vec<Vec<u32>> {
    (0..n)
        .map(|s| {
            let mut l: Vec<u32> = (1..=k / 2).flat_map(|d| [((s + d) % n) as u32, ((s + n - d) % n) as u32]).collect();
            if k % 2 == 1 {
                l.push(((s + n / 2) % n) as u32);
            }
            l.sort_unstable();
            l
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regular_simple_connected(adj: &[Vec<u32>], k: usize) -> bool {
        adj.iter().enumerate().all(|(s, l)| {
            let mut v = l.clone();
            v.sort_unstable();
            v.dedup();
            v.len() == k && !v.contains(&(s as u32)) && v.iter().all(|&t| adj[t as usize].contains(&(s as u32)))
        }) && components(adj).1 == 1
    }

    #[test]
    fn the_circulant_fallback_is_regular_and_connected() {
        for (n, k) in [(3, 2), (6, 3), (10, 4), (9, 8), (12, 5), (2, 1)] {
            assert!(regular_simple_connected(&circulant(n, k), k), "n = {n}, k = {k}");
        }
    }

    #[test]
    fn joining_keeps_degrees_and_leaves_one_component() {
        // Three triangles and a square: four cycles, degree 2.
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); 13];
        for cycle in [vec![0, 1, 2], vec![3, 4, 5], vec![6, 7, 8], vec![9, 10, 11, 12]] {
            for (i, &a) in cycle.iter().enumerate() {
                let b = cycle[(i + 1) % cycle.len()];
                adj[a].push(b as u32);
                adj[b].push(a as u32);
            }
        }
        assert_eq!(components(&adj).1, 4);
        join_components(&mut adj);
        assert!(regular_simple_connected(&adj, 2));
    }
}
