//! Duato's fully adaptive minimal routing on meshes and tori with a dimension-order escape
//! (paper 003 §3: EXTOLL's adaptive traffic classes). VCs 0 and 1 are the escape
//! sub-network, routed in dimension order with the upper/lower VC rule of `dor-upper-lower`;
//! VCs 2.. are adaptive and may take any minimal port. A packet may always fall back to the
//! escape VC of its dimension-order port, and may leave the escape VCs again at the next hop.
//!
//! Deadlock freedom rests on Duato's condition: the escape sub-network's extended channel
//! dependency graph (direct dependencies, and indirect ones through adaptive hops) is
//! acyclic. [`extended_escape_cdg`] builds that graph for any routing with escape candidates.

use super::deadlock::Cdg;
use super::torus::Grid;
use super::{Candidate, Request, Routing};
use crate::error::{Error, Result};
use crate::topology::torus::Torus;
use crate::topology::{Peer, Topology};
use std::collections::HashMap;

/// VCs of the escape sub-network (the two deterministic VCs of an EXTOLL traffic class).
pub const ESCAPE_VCS: usize = 2;

/// Duato's routing: adaptive minimal on VCs 2.., dimension order (upper/lower) on VCs 0-1.
pub struct Duato {
    grid: Grid,
    vcs: usize,
}

impl Duato {
    /// Duato's routing on the given torus or mesh with `vcs` VCs (at least three).
    pub fn new(t: &Torus, vcs: usize) -> Self {
        Duato { grid: Grid::new(t), vcs }
    }
}

impl Routing for Duato {
    fn name(&self) -> &'static str {
        "duato"
    }

    fn salts(&self) -> u32 {
        1 << self.grid.dims.len().min(31)
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let g = &self.grid;
        let Some((dim, plus)) = g.minimal_adaptive(req, ESCAPE_VCS..self.vcs, self.vcs, out) else { return };
        let dst_switch = req.dst / g.terminals_per_switch;
        let port = Torus::port(dim, plus) as u16;
        let escape = |vc: usize| Candidate { port, vc: vc as u8, escape: true, bubble: false };
        if g.wrap {
            // Upper/lower: VC 1 while the destination lies above in this dimension, VC 0
            // otherwise; the rule depends only on where the packet is, so an adaptive packet
            // may join the escape sub-network anywhere.
            out.push(escape(usize::from(g.at(dst_switch, dim) > g.at(req.switch, dim))));
        } else {
            out.extend((0..ESCAPE_VCS).map(escape));
        }
    }
}

/// A state of the walk: switch, input port, input VC.
type State = (usize, usize, usize);

/// Duato's extended channel dependency graph of `routing`'s escape channels: an edge from
/// escape channel A to escape channel B when a packet holding A may request B at the next
/// switch (direct) or after any number of non-escape hops (indirect). Every candidate is
/// explored, for every destination and salt, from every injection port. For routings whose
/// candidates do not depend on the source terminal (requests carry the starting terminal);
/// their non-escape hops must not loop (minimal adaptive routes never do).
pub fn extended_escape_cdg(topo: &Topology, routing: &dyn Routing, vcs: usize) -> Result<Cdg> {
    let mut cdg = Cdg::new(topo, vcs);
    let n = topo.num_terminals();
    for dst in 0..n {
        for salt in 0..routing.salts() {
            let mut walk = Walk { topo, routing, dst, salt, src: 0, memo: HashMap::new(), active: Vec::new() };
            for src in (0..n).filter(|&s| s != dst) {
                walk.src = src;
                let (s0, p0) = topo.terminal_attachment(src);
                for vc in 0..vcs.max(1) {
                    walk.reach((s0, p0, vc), &mut cdg)?;
                }
            }
        }
    }
    Ok(cdg)
}

/// The walk towards one destination: for every state, the escape channels a packet there
/// may request before it holds another escape channel (memoised).
struct Walk<'a> {
    topo: &'a Topology,
    routing: &'a dyn Routing,
    dst: usize,
    salt: u32,
    src: usize,
    memo: HashMap<State, Vec<(usize, usize)>>,
    active: Vec<State>,
}

impl Walk<'_> {
    /// The escape channels requestable from `state` through non-escape hops; records the
    /// dependencies of every escape channel taken on the way.
    fn reach(&mut self, state: State, cdg: &mut Cdg) -> Result<Vec<(usize, usize)>> {
        if let Some(r) = self.memo.get(&state) {
            return Ok(r.clone());
        }
        if self.active.contains(&state) {
            return Err(Error::Unsupported(format!(
                "routing '{}' loops on non-escape channels towards terminal {} (switch {})",
                self.routing.name(),
                self.dst,
                state.0
            )));
        }
        self.active.push(state);
        let (s, in_port, in_vc) = state;
        let mut cands = Vec::new();
        let req = Request { switch: s, in_port, in_vc, src: self.src, dst: self.dst, salt: self.salt, offset: 0 };
        self.routing.route(&req, &mut cands);
        if cands.is_empty() {
            return Err(Error::Unsupported(format!(
                "routing '{}' offers no candidate at switch {s} for terminal {}",
                self.routing.name(),
                self.dst
            )));
        }
        let mut reached = Vec::new();
        for c in cands {
            let channel = self.topo.channel(s, c.port as usize);
            let next = match self.topo.ports(s)[c.port as usize] {
                Peer::Switch { switch, port } => Some((switch as usize, port as usize, c.vc as usize)),
                Peer::Terminal(t) if t as usize == self.dst => None,
                other => {
                    return Err(Error::Unsupported(format!(
                        "routing '{}' sends a packet for terminal {} from switch {s} port {} to {other:?}",
                        self.routing.name(),
                        self.dst,
                        c.port
                    )))
                }
            };
            let Some(next) = next else { continue };
            let further = self.reach(next, cdg)?;
            if c.escape {
                let held = (channel, c.vc as usize);
                push_new(&mut reached, held);
                for b in further {
                    cdg.add_edge(held, b);
                }
            } else {
                for b in further {
                    push_new(&mut reached, b);
                }
            }
        }
        self.active.pop();
        self.memo.insert(state, reached.clone());
        Ok(reached)
    }
}

fn push_new(v: &mut Vec<(usize, usize)>, x: (usize, usize)) {
    if !v.contains(&x) {
        v.push(x);
    }
}
