//! Jellyfish (Singla, Hong, Popa and Godfrey, NSDI 2012): a random k-regular graph of `n`
//! switches, `p` terminals per switch, drawn from a seed.
//!
//! The paper's incremental construction: link random pairs of non-adjacent switches with
//! free ports until no such pair is left; then a switch with two or more free ports takes
//! a random link `(x, y)` it is adjacent to neither end of, removes it and links itself to
//! `x` and `y` (two switches with one free port each, adjacent to each other, do the same
//! with one end each). The draw uses the setup stream of `seed`, so a spec always gives the
//! same graph; a disconnected draw (likely only for tiny `k`) is redrawn from the next
//! stream. Ports: switch `s`'s neighbours in increasing order, then the terminals.

use super::graph::{check_size, Builder};
use super::{Family, Topology};
use crate::error::{Error, Result};
use crate::rng::{stream, Owner, Stream};
use rand::Rng;

/// Stream id of the draws (under [`Owner::Setup`]); attempt `i` uses `JELLYFISH_STREAM + i`.
const JELLYFISH_STREAM: u64 = 0x1E11_0000;

/// Draws before a parameter set that gives disconnected graphs is refused.
const ATTEMPTS: u64 = 64;

/// A Jellyfish network: the parameters and the drawn graph.
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
    /// Sorted neighbours of every switch.
    pub neighbours: Vec<Vec<u32>>,
}

impl Jellyfish {
    /// Validates the parameters and draws the graph.
    pub fn new(spec: &str, n: usize, k: usize, p: usize, seed: u64) -> Result<Self> {
        if k >= n {
            return Err(Error::invalid(spec, "k", k, format!("fewer links per switch than n = {n} switches")));
        }
        if n * k % 2 == 1 {
            return Err(Error::invalid(spec, "k", k, format!("an even k (n·k must be even, n = {n} is odd)")));
        }
        check_size(spec, n as u128, n as u128 * (k + p) as u128)?;
        // The draw happens when the spec is parsed, before the footprint check of the graph:
        // its adjacency lists and link list (12 bytes per link end) are checked here.
        let ends = n as u128 * k as u128;
        crate::memory::check(spec, "size", &format!("{n} switches of {k} links"), ends * 12 + n as u128 * 24)?;
        for attempt in 0..ATTEMPTS {
            let mut rng = stream(seed, Owner::Setup, JELLYFISH_STREAM + attempt);
            let drawn = draw(n, k, &mut rng);
            if let Some(neighbours) = drawn.filter(|adj| connected(adj)) {
                return Ok(Jellyfish { n, k, p, seed, neighbours });
            }
        }
        Err(Error::invalid(
            spec,
            "k",
            k,
            format!("a degree that gives a connected k-regular graph on n = {n} switches ({ATTEMPTS} draws failed)"),
        ))
    }

    /// A balanced cut from [`super::balanced_cut`] (an upper bound on the minimum), `u64::MAX`
    /// above its size limit.
    pub fn bisection_channels(&self) -> u64 {
        let links: Vec<(usize, usize)> = self
            .neighbours
            .iter()
            .enumerate()
            .flat_map(|(s, l)| l.iter().map(move |&t| (s, t as usize)))
            .filter(|&(s, t)| s < t)
            .collect();
        let Some(cut) = super::balanced_cut::balanced_cut(self.n, &links) else { return u64::MAX };
        // ⌊S/2⌋ switches on one side: for odd S, terminal links balance the sides.
        cut + super::family::balancing_moves(self.n * self.p, self.n / 2 * self.p)
    }

    pub(crate) fn build(&self, spec: &str, family: Family) -> Topology {
        let mut b = Builder::new(std::iter::repeat_n(self.k + self.p, self.n));
        for (s, list) in self.neighbours.iter().enumerate() {
            for (i, &t) in list.iter().enumerate() {
                let t = t as usize;
                if s < t {
                    let back = self.neighbours[t].binary_search(&(s as u32)).expect("links are symmetric");
                    b.link(s, i, t, back);
                }
            }
            for j in 0..self.p {
                b.attach_terminal(s, self.k + j);
            }
        }
        b.finish(spec.to_string(), family, None)
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

/// Whether every switch reaches every other.
fn connected(adj: &[Vec<u32>]) -> bool {
    let mut seen = vec![false; adj.len()];
    let mut stack = vec![0usize];
    seen[0] = true;
    let mut count = 1;
    while let Some(s) = stack.pop() {
        for &t in &adj[s] {
            if !seen[t as usize] {
                seen[t as usize] = true;
                count += 1;
                stack.push(t as usize);
            }
        }
    }
    count == adj.len()
}
