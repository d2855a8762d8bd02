//! Deadlock analysis by the channel dependency graph (Dally and Seitz): a node per
//! (switch output channel, VC); an edge from one to the next whenever some route holds the
//! first while it requests the second. A routing whose graph is acyclic cannot deadlock.
//!
//! Routes come from anywhere: an algorithmic [`Routing`] (every candidate it may offer is
//! explored, so adaptive routings are judged conservatively), or explicit paths such as the
//! ones forwarding tables give. The verdict is either acyclic or one concrete cycle.

use super::{Request, Routing};
use crate::error::{Error, Result};
use crate::topology::{Peer, Topology};
use serde::Serialize;
use std::collections::HashSet;

/// One channel of a route: the output port of a switch, on one virtual channel (lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Hop {
    /// Switch the channel leaves from.
    pub switch: u32,
    /// Output port of that switch.
    pub port: u16,
    /// Virtual channel (virtual lane) used on it.
    pub vc: u8,
}

/// The verdict of the analysis (JSON: `"acyclic"` or `{"cycle": [hops]}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No cycle: the routing is deadlock-free.
    Acyclic,
    /// A cycle of channels, each depending on the next and the last on the first.
    Cycle(Vec<Hop>),
}

impl Verdict {
    /// Whether the graph is acyclic.
    pub fn is_acyclic(&self) -> bool {
        matches!(self, Verdict::Acyclic)
    }
}

/// A channel dependency graph over the (channel, VC) pairs of one topology.
#[derive(Clone, Debug)]
pub struct Cdg {
    vcs: usize,
    /// Switch and port of every global channel (output port) index.
    owner: Vec<(u32, u16)>,
    /// Successors of every node `channel * vcs + vc`.
    succ: Vec<Vec<u32>>,
}

impl Cdg {
    /// An empty graph for `topo` with `vcs` virtual channels per link.
    pub fn new(topo: &Topology, vcs: usize) -> Self {
        let vcs = vcs.max(1);
        let mut owner = Vec::with_capacity(topo.peers().len());
        for s in 0..topo.num_switches() {
            owner.extend((0..topo.num_ports(s)).map(|p| (s as u32, p as u16)));
        }
        Cdg { vcs, succ: vec![Vec::new(); owner.len() * vcs], owner }
    }

    fn node(&self, channel: usize, vc: usize) -> u32 {
        (channel * self.vcs + vc.min(self.vcs - 1)) as u32
    }

    /// Adds the dependency "holding (`a`, `va`) the route requests (`b`, `vb`)".
    pub fn add_edge(&mut self, a: (usize, usize), b: (usize, usize)) {
        let (x, y) = (self.node(a.0, a.1), self.node(b.0, b.1));
        let out = &mut self.succ[x as usize];
        // Out-degrees are bounded by ports × VCs, so a linear scan deduplicates cheaply.
        if !out.contains(&y) {
            out.push(y);
        }
    }

    /// Adds the dependencies of one route given as (global channel, VC) pairs in order.
    pub fn add_path(&mut self, path: &[(usize, usize)]) {
        for w in path.windows(2) {
            self.add_edge(w[0], w[1]);
        }
    }

    /// Keeps only the dependencies `keep(from, to)` accepts (bubble flow control sets aside
    /// the dependencies along a ring, see `deadlock_check`).
    pub fn retain(&mut self, mut keep: impl FnMut(Hop, Hop) -> bool) {
        let hop = |owner: &[(u32, u16)], vcs: usize, n: u32| {
            let (switch, port) = owner[n as usize / vcs];
            Hop { switch, port, vc: (n as usize % vcs) as u8 }
        };
        for x in 0..self.succ.len() {
            let from = hop(&self.owner, self.vcs, x as u32);
            let owner = &self.owner;
            let vcs = self.vcs;
            self.succ[x].retain(|&y| keep(from, hop(owner, vcs, y)));
        }
    }

    /// Number of dependency edges.
    pub fn edges(&self) -> usize {
        self.succ.iter().map(Vec::len).sum()
    }

    /// Acyclic, or one cycle (found by an iterative depth-first search, nodes in order).
    pub fn verdict(&self) -> Verdict {
        match self.find_cycle() {
            None => Verdict::Acyclic,
            Some(nodes) => Verdict::Cycle(
                nodes
                    .into_iter()
                    .map(|n| {
                        let (switch, port) = self.owner[n as usize / self.vcs];
                        Hop { switch, port, vc: (n as usize % self.vcs) as u8 }
                    })
                    .collect(),
            ),
        }
    }

    /// One cycle as node ids, or `None`.
    pub(crate) fn find_cycle(&self) -> Option<Vec<u32>> {
        // Colours: 0 unvisited, 1 on the current DFS stack, 2 finished.
        let mut colour = vec![0u8; self.succ.len()];
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for start in 0..self.succ.len() {
            if colour[start] != 0 || self.succ[start].is_empty() {
                continue;
            }
            colour[start] = 1;
            stack.push((start as u32, 0));
            while let Some(top) = stack.last_mut() {
                let (node, i) = (top.0, top.1);
                top.1 += 1;
                match self.succ[node as usize].get(i).copied() {
                    Some(m) => match colour[m as usize] {
                        0 => {
                            colour[m as usize] = 1;
                            stack.push((m, 0));
                        }
                        1 => {
                            let from = stack.iter().position(|&(n, _)| n == m).expect("grey node on stack");
                            return Some(stack[from..].iter().map(|&(n, _)| n).collect());
                        }
                        _ => {}
                    },
                    None => {
                        colour[node as usize] = 2;
                        stack.pop();
                    }
                }
            }
        }
        None
    }
}

/// A walk state: switch, input port, input VC, and the (channel, VC) held on arrival.
type State = (usize, usize, usize, Option<(usize, usize)>);

/// Builds the dependency graph of an algorithmic routing by exploring, for every ordered
/// pair of terminals, every (switch, input port, VC) state reachable through any candidate
/// the routing offers. With `collapse`, every VC is merged into one (the control showing
/// what the VCs buy). With `escape_only`, where a routing offers escape candidates only
/// those are followed (Duato: the escape sub-network alone must be acyclic).
pub fn routing_cdg(
    topo: &Topology,
    routing: &dyn Routing,
    vcs: usize,
    collapse: bool,
    escape_only: bool,
) -> Result<Cdg> {
    let mut cdg = Cdg::new(topo, if collapse { 1 } else { vcs });
    let n = topo.num_terminals();
    let mut cands = Vec::new();
    let mut seen: HashSet<(u32, u16, u8)> = HashSet::new();
    let offsets = routing.offsets();
    let salts = routing.salts();
    for src in 0..n {
        for (dst, offset, salt) in
            (0..n).flat_map(|d| (0..offsets).flat_map(move |o| (0..salts).map(move |t| (d, o as u8, t))))
        {
            if src == dst {
                continue;
            }
            seen.clear();
            let (s0, p0) = topo.terminal_attachment(src);
            // State: (switch, input port, input VC, channel held on arrival).
            let mut todo: Vec<State> = match routing.injection_vc(src, dst, offset) {
                Some(v) => vec![(s0, p0, v, None)],
                None => (0..vcs.max(1)).map(|v| (s0, p0, v, None)).collect(),
            };
            while let Some((s, in_port, in_vc, held)) = todo.pop() {
                cands.clear();
                routing.route(&Request { switch: s, in_port, in_vc, src, dst, offset, salt }, &mut cands);
                if escape_only && cands.iter().any(|c| c.escape) {
                    cands.retain(|c| c.escape);
                }
                if cands.is_empty() {
                    return Err(Error::Unsupported(format!(
                        "routing '{}' offers no candidate at switch {s} (input port {in_port}, VC {in_vc}) for terminal {src} -> {dst}",
                        routing.name()
                    )));
                }
                for c in cands.iter() {
                    let channel = topo.channel(s, c.port as usize);
                    let vc = if collapse { 0 } else { c.vc as usize };
                    if let Some(h) = held {
                        cdg.add_edge(h, (channel, vc));
                    }
                    match topo.ports(s)[c.port as usize] {
                        Peer::Switch { switch, port } => {
                            if seen.insert((switch, port as u16, c.vc)) {
                                todo.push((switch as usize, port as usize, c.vc as usize, Some((channel, vc))));
                            }
                        }
                        Peer::Terminal(t) if t as usize == dst => {}
                        other => {
                            return Err(Error::Unsupported(format!(
                                "routing '{}' sends terminal {src} -> {dst} from switch {s} port {} to {other:?}",
                                routing.name(),
                                c.port
                            )))
                        }
                    }
                }
            }
        }
    }
    Ok(cdg)
}

/// The verdict for an algorithmic routing (see [`routing_cdg`]).
pub fn check_routing(topo: &Topology, routing: &dyn Routing, vcs: usize, collapse: bool) -> Result<Verdict> {
    Ok(routing_cdg(topo, routing, vcs, collapse, false)?.verdict())
}

/// The verdict for explicit routes, each a sequence of (global channel, VC) pairs.
pub fn check_paths<'a>(topo: &Topology, vcs: usize, paths: impl IntoIterator<Item = &'a [(usize, usize)]>) -> Verdict {
    let mut cdg = Cdg::new(topo, vcs);
    for p in paths {
        cdg.add_path(p);
    }
    cdg.verdict()
}

/// Whether consecutive hops of `cycle` really depend on each other in `topo`: each hop's
/// channel must lead into the switch the next hop leaves from (used to validate verdicts).
pub fn cycle_is_connected(topo: &Topology, cycle: &[Hop]) -> bool {
    !cycle.is_empty()
        && (0..cycle.len()).all(|i| {
            let (a, b) = (cycle[i], cycle[(i + 1) % cycle.len()]);
            matches!(topo.ports(a.switch as usize)[a.port as usize], Peer::Switch { switch, .. } if switch == b.switch)
        })
}
