//! Where flows go: a [`PathProvider`] gives, for a (source, destination) terminal pair, one
//! or more weighted channel lists. Algorithmic routings are walked hop by hop
//! ([`RoutingPaths`]); [`MinimalPaths`] spreads a flow evenly over all minimal paths.
//! Table-based routings (one path per LID offset) plug in through the same trait.

use crate::error::{Error, Result};
use crate::routing::{Candidate, Request, Routing};
use crate::topology::{Peer, Topology};
use std::sync::OnceLock;

/// The paths of one flow, kept as weighted channel shares: a path of weight `w` adds `w`
/// to each of its channels. Weights need not sum to 1 (the flow model normalises them).
#[derive(Clone, Debug, Default)]
pub struct PathSet {
    shares: Vec<(u32, f64)>,
    total: f64,
    paths: usize,
}

impl PathSet {
    /// Forgets every path.
    pub fn clear(&mut self) {
        self.shares.clear();
        self.total = 0.0;
        self.paths = 0;
    }

    /// Adds a path of `weight` (> 0) through `channels`: the global port indices of the
    /// switch output channels it takes, ending with the destination's terminal channel.
    pub fn push_path(&mut self, channels: &[u32], weight: f64) {
        self.shares.extend(channels.iter().map(|&c| (c, weight)));
        self.total += weight;
        self.paths += 1;
    }

    /// Adds a flow split given directly as channel shares whose paths weigh `weight` in
    /// total (for providers that spread a flow over a DAG of paths).
    pub fn push_shares(&mut self, shares: &[(u32, f64)], weight: f64) {
        self.shares.extend_from_slice(shares);
        self.total += weight;
        self.paths += 1;
    }

    /// Sum of the path weights.
    pub fn total_weight(&self) -> f64 {
        self.total
    }

    /// Number of `push_*` calls (paths or path bundles).
    pub fn num_paths(&self) -> usize {
        self.paths
    }

    /// The channel shares (a channel may appear several times).
    pub fn shares(&self) -> &[(u32, f64)] {
        &self.shares
    }

    pub(crate) fn shares_mut(&mut self) -> &mut Vec<(u32, f64)> {
        &mut self.shares
    }
}

/// A source of paths for the flow model.
pub trait PathProvider: Sync {
    /// Short description, e.g. `tree-deterministic (first candidate)`.
    fn name(&self) -> String;
    /// Fills `out` (empty on entry) with the paths from terminal `src` to terminal `dst`
    /// (distinct, in range): switch output channels from `src`'s switch to `dst`'s terminal
    /// channel. The injection channel of `src` is added by the flow model.
    fn paths(&self, src: usize, dst: usize, out: &mut PathSet) -> Result<()>;
}

/// How a routing's candidates become paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkMode {
    /// The first candidate at every hop (d-mod-k on trees, dimension order on tori and HyperX).
    First,
    /// The flow splits evenly over the distinct output ports offered at every hop
    /// (the average of an oblivious random choice among an adaptive routing's candidates).
    Spread,
}

/// Paths obtained by walking an algorithmic routing from switch to switch.
pub struct RoutingPaths<'a> {
    topo: &'a Topology,
    routing: Box<dyn Routing>,
    mode: WalkMode,
    max_hops: usize,
}

impl<'a> RoutingPaths<'a> {
    /// Walks `routing` on `topo` in `mode`.
    pub fn new(topo: &'a Topology, routing: Box<dyn Routing>, mode: WalkMode) -> Self {
        let max_hops = 2 * topo.num_switches() + 8;
        RoutingPaths { topo, routing, mode, max_hops }
    }

    fn stuck(&self, src: usize, dst: usize, why: &str) -> Error {
        Error::Unsupported(format!(
            "{}: routing {} from terminal {src} to terminal {dst}: {why}",
            self.topo.spec(),
            self.routing.name()
        ))
    }

    /// Where a packet leaving `switch` through `port` arrives: `None` at the destination.
    fn next(&self, switch: usize, port: usize, src: usize, dst: usize) -> Result<Option<(usize, usize)>> {
        match self.topo.ports(switch).get(port) {
            Some(Peer::Switch { switch, port }) => Ok(Some((*switch as usize, *port as usize))),
            Some(Peer::Terminal(t)) if *t as usize == dst => Ok(None),
            Some(Peer::Terminal(t)) => Err(self.stuck(src, dst, &format!("delivered to terminal {t}"))),
            _ => Err(self.stuck(src, dst, &format!("sent to unplugged port {port} of switch {switch}"))),
        }
    }
}

/// Largest number of salts a [`WalkMode::First`] walk averages over: DOR on a torus of up to
/// six dimensions (2^6 salts) splits its half-ring ties exactly; above, one salt per pair.
const MAX_SPLIT_SALTS: u32 = 64;

/// The tie-breaking bits of a flow when it cannot average over all salts: a hash of the
/// pair, so that half-ring ties go either way for about half of the pairs.
fn pair_salt(src: usize, dst: usize) -> u32 {
    let h = (src as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (dst as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h >> 29) as u32
}

impl RoutingPaths<'_> {
    /// The paths of [`WalkMode::First`]: the packet engine draws a packet's salt (the bits
    /// that break DOR's half-ring ties, one per dimension) at random for every packet, so a
    /// flow is the average over all salts: one walk per salt, each distinct path weighted
    /// by the share of salts taking it. A pair tied in one dimension of a torus thus sends
    /// half of its flow each way round that ring, as the packets do on average.
    fn first_paths(&self, src: usize, dst: usize, out: &mut PathSet) -> Result<()> {
        let salts = self.routing.salts();
        let mut channels: Vec<u32> = Vec::with_capacity(8);
        if salts <= 1 || salts > MAX_SPLIT_SALTS {
            let salt = if salts <= 1 { 0 } else { pair_salt(src, dst) };
            self.first_path(src, dst, salt, &mut channels)?;
            out.push_path(&channels, 1.0);
            return Ok(());
        }
        let mut found: Vec<(Vec<u32>, u32)> = Vec::new();
        for salt in 0..salts {
            self.first_path(src, dst, salt, &mut channels)?;
            match found.iter_mut().find(|(p, _)| *p == channels) {
                Some((_, count)) => *count += 1,
                None => found.push((channels.clone(), 1)),
            }
        }
        for (path, count) in &found {
            out.push_path(path, *count as f64 / salts as f64);
        }
        Ok(())
    }

    /// The channels of the path the first candidates take under `salt`, into `channels`.
    fn first_path(&self, src: usize, dst: usize, salt: u32, channels: &mut Vec<u32>) -> Result<()> {
        let (mut switch, mut in_port) = self.topo.terminal_attachment(src);
        let mut in_vc = 0;
        let mut cands: Vec<Candidate> = Vec::with_capacity(16);
        channels.clear();
        for _ in 0..self.max_hops {
            cands.clear();
            self.routing.route(&Request { switch, in_port, in_vc, src, dst, salt, offset: 0 }, &mut cands);
            let adaptive = cands.iter().any(|c| !c.escape);
            let Some(c) = cands.iter().find(|c| !adaptive || !c.escape) else {
                return Err(self.stuck(src, dst, &format!("no candidate at switch {switch}")));
            };
            let port = c.port as usize;
            channels.push(self.topo.channel(switch, port) as u32);
            match self.next(switch, port, src, dst)? {
                None => return Ok(()),
                Some((s2, p2)) => (switch, in_port, in_vc) = (s2, p2, c.vc as usize),
            }
        }
        Err(self.stuck(src, dst, &format!("no delivery within {} hops (a routing loop?)", self.max_hops)))
    }
}

impl PathProvider for RoutingPaths<'_> {
    fn name(&self) -> String {
        let how = match self.mode {
            WalkMode::First => "first candidate",
            WalkMode::Spread => "spread over candidates",
        };
        format!("{} ({how})", self.routing.name())
    }

    fn paths(&self, src: usize, dst: usize, out: &mut PathSet) -> Result<()> {
        if self.mode == WalkMode::First {
            return self.first_paths(src, dst, out);
        }
        let (s0, p0) = self.topo.terminal_attachment(src);
        let mut cands: Vec<Candidate> = Vec::new();
        // The walk front: (switch, in port, in VC, weight), merged per state at every hop.
        let mut front = vec![(s0, p0, 0usize, 1.0f64)];
        let mut next_front = Vec::new();
        let mut shares = Vec::new();
        for _ in 0..self.max_hops {
            if front.is_empty() {
                out.push_shares(&shares, 1.0);
                return Ok(());
            }
            next_front.clear();
            for &(switch, in_port, in_vc, w) in &front {
                cands.clear();
                let salt = pair_salt(src, dst);
                self.routing.route(&Request { switch, in_port, in_vc, src, dst, salt, offset: 0 }, &mut cands);
                // Escape channels only when nothing else is offered (as the engine does).
                let adaptive = cands.iter().any(|c| !c.escape);
                cands.retain(|c| !adaptive || !c.escape);
                if cands.is_empty() {
                    return Err(self.stuck(src, dst, &format!("no candidate at switch {switch}")));
                }
                let chosen: Vec<Candidate> = match self.mode {
                    WalkMode::First => vec![cands[0]],
                    WalkMode::Spread => {
                        // One candidate per distinct port (its first VC), in routing order.
                        let mut seen: Vec<Candidate> = Vec::new();
                        for &c in &cands {
                            if !seen.iter().any(|s| s.port == c.port) {
                                seen.push(c);
                            }
                        }
                        seen
                    }
                };
                let share = w / chosen.len() as f64;
                for c in chosen {
                    let port = c.port as usize;
                    shares.push((self.topo.channel(switch, port) as u32, share));
                    if let Some((s2, p2)) = self.next(switch, port, src, dst)? {
                        next_front.push((s2, p2, c.vc as usize, share));
                    }
                }
            }
            next_front.sort_by_key(|a| (a.0, a.1, a.2));
            next_front.dedup_by(|b, a| {
                let same = (a.0, a.1, a.2) == (b.0, b.1, b.2);
                if same {
                    a.3 += b.3;
                }
                same
            });
            std::mem::swap(&mut front, &mut next_front);
        }
        Err(self.stuck(src, dst, &format!("no delivery within {} hops (a routing loop?)", self.max_hops)))
    }
}

/// Switch-graph distances and minimal-path counts from one switch.
struct Bfs {
    dist: Vec<u32>,
    sigma: Vec<f64>,
}

/// Every flow spread evenly over all minimal paths between its switches (each path has
/// the same weight; parallel links count as distinct paths).
pub struct MinimalPaths<'a> {
    topo: &'a Topology,
    /// Per switch: its output channels to other switches, as (neighbour, channel).
    adj: Vec<Vec<(u32, u32)>>,
    /// Breadth-first searches kept per source switch when the network is small enough.
    cache: Option<Vec<OnceLock<Bfs>>>,
}

/// Largest switch count for which every switch's BFS is kept (memory ~ switches² × 12 bytes).
const CACHE_SWITCHES: usize = 4096;

impl<'a> MinimalPaths<'a> {
    /// Minimal paths on `topo`.
    pub fn new(topo: &'a Topology) -> Self {
        let adj = (0..topo.num_switches())
            .map(|s| topo.switch_neighbours(s).map(|(v, p)| (v as u32, topo.channel(s, p) as u32)).collect())
            .collect();
        let n = topo.num_switches();
        let cache = (n <= CACHE_SWITCHES).then(|| (0..n).map(|_| OnceLock::new()).collect());
        MinimalPaths { topo, adj, cache }
    }

    fn bfs(&self, src: usize) -> Bfs {
        let n = self.adj.len();
        let mut dist = vec![u32::MAX; n];
        let mut sigma = vec![0.0; n];
        let mut order = vec![src as u32];
        dist[src] = 0;
        sigma[src] = 1.0;
        let mut head = 0;
        while head < order.len() {
            let u = order[head] as usize;
            head += 1;
            for &(v, _) in &self.adj[u] {
                let v = v as usize;
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    order.push(v as u32);
                }
                if dist[v] == dist[u] + 1 {
                    sigma[v] += sigma[u];
                }
            }
        }
        Bfs { dist, sigma }
    }

    fn with_bfs<T>(&self, s: usize, f: impl FnOnce(&Bfs) -> T) -> T {
        match &self.cache {
            Some(cache) => f(cache[s].get_or_init(|| self.bfs(s))),
            None => f(&self.bfs(s)),
        }
    }
}

impl PathProvider for MinimalPaths<'_> {
    fn name(&self) -> String {
        "minimal (all minimal paths, evenly)".into()
    }

    fn paths(&self, src: usize, dst: usize, out: &mut PathSet) -> Result<()> {
        let (a, _) = self.topo.terminal_attachment(src);
        let (b, pb) = self.topo.terminal_attachment(dst);
        let eject = self.topo.channel(b, pb) as u32;
        if a == b {
            out.push_path(&[eject], 1.0);
            return Ok(());
        }
        let mut shares = vec![(eject, 1.0)];
        self.with_bfs(a, |from_a| {
            self.with_bfs(b, |from_b| -> Result<()> {
                let d = from_a.dist[b];
                if d == u32::MAX {
                    return Err(Error::Unsupported(format!(
                        "{}: terminals {src} and {dst} are disconnected",
                        self.topo.spec()
                    )));
                }
                let total = from_a.sigma[b];
                // Channel u→v lies on a minimal path iff dist_a(u) + 1 + dist_b(v) = d; its
                // share is the fraction of minimal paths through it.
                let mut layer = vec![a as u32];
                let mut next = Vec::new();
                let mut mark = vec![false; self.adj.len()];
                for step in 0..d {
                    next.clear();
                    for &u in &layer {
                        let u = u as usize;
                        for &(v, ch) in &self.adj[u] {
                            let v = v as usize;
                            if from_a.dist[v] == step + 1 && from_b.dist[v] == d - step - 1 {
                                shares.push((ch, from_a.sigma[u] * from_b.sigma[v] / total));
                                if !mark[v] {
                                    mark[v] = true;
                                    next.push(v as u32);
                                }
                            }
                        }
                    }
                    std::mem::swap(&mut layer, &mut next);
                }
                Ok(())
            })
        })?;
        out.push_shares(&shares, 1.0);
        Ok(())
    }
}
