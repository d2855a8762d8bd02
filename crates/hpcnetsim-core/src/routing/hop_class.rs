//! Routings for direct networks without coordinates (Slim Fly, Jellyfish): minimal, Valiant
//! and UGAL-L over the switch graph's shortest paths, deadlock-free by hop classes.
//!
//! - **Minimal** (`graph-minimal`): every neighbour one hop closer to the destination switch
//!   (an all-pairs breadth-first table), the selection policy choosing among them.
//! - **Valiant** (`graph-valiant`): minimal to a random intermediate switch drawn from the
//!   packet's salt, then minimal to the destination (Besta and Hoefler's Slim Fly routing).
//! - **UGAL-L** (`graph-ugal`): at the source switch, the minimal first hops' least queue
//!   load times the minimal distance against the Valiant first hops' times the Valiant
//!   distance (a one-packet threshold favours minimal); later switches follow the choice.
//!
//! VC classes by hop count: a packet's k-th switch-to-switch hop uses class k (UGAL's minimal
//! packets class D + k, with D the diameter), so classes only increase along a route and the
//! channel dependency graph is acyclic. Minimal needs D classes, Valiant and UGAL 2·D (Slim
//! Fly: 2 and 4). The VCs are shared out among the classes as the dragonfly routings share
//! theirs (`vc_share.rs`), so VCs beyond the classes give every class more queues rather
//! than staying idle. The class of the arrival VC tells a later switch the packet's phase: a
//! Valiant packet reaches its intermediate switch after exactly that switch's distance from
//! the source, and a UGAL packet with a class from D on went minimally.

use super::{Candidate, Request, Routing};
use crate::error::{Error, Result};
use crate::topology::{Peer, Topology};

/// Which routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Minimal,
    Valiant,
    Ugal,
}

/// Most switches of a network these routings build their distance table for (one byte per
/// pair: 64 MiB).
pub const MAX_SWITCHES: usize = 8192;

/// Most VCs a routing gets (`switch.vcs` per traffic class).
const MAX_CLASS_VCS: usize = 8;

/// A load difference below this many packets never makes a packet leave its minimal path.
const THRESHOLD_PACKETS: u32 = 1;

/// VC classes `mode` needs on a network of this diameter (one at least, a single switch's).
fn class_count(mode: Mode, diameter: usize) -> usize {
    if mode == Mode::Minimal {
        diameter.max(1)
    } else {
        2 * diameter.max(1)
    }
}

/// A hop-class routing on one network.
pub struct HopClassRouting {
    mode: Mode,
    vcs: usize,
    switches: usize,
    /// The network's diameter in switch-to-switch hops.
    diameter: usize,
    /// `dist[a · switches + b]`: switch-to-switch hops from `a` to `b`.
    dist: Vec<u8>,
    /// Per switch: its switch neighbours (port, switch).
    neighbours: Vec<Vec<(u16, u32)>>,
    /// Per terminal: its switch and port.
    attach: Vec<(u32, u16)>,
    /// Per switch: whether port `p` leads to a terminal.
    terminal_port: Vec<Vec<bool>>,
    threshold: u32,
}

impl HopClassRouting {
    /// The routing `mode` on `topo` with `vcs` VCs; refuses a network too large for the
    /// distance table, a disconnected one, or too few VCs for its hop classes.
    pub fn new(topo: &Topology, vcs: usize, mode: Mode, max_packet_phits: u32) -> Result<Self> {
        let n = topo.num_switches();
        if n > MAX_SWITCHES {
            return Err(Error::invalid(
                "config",
                "routing.algorithm",
                format!("'{}' on {} switches", name(mode), n),
                format!("at most {MAX_SWITCHES} switches for the graph routings (use table routing beyond)"),
            ));
        }
        let neighbours: Vec<Vec<(u16, u32)>> = (0..n)
            .map(|s| {
                topo.ports(s)
                    .iter()
                    .enumerate()
                    .filter_map(|(p, peer)| match *peer {
                        Peer::Switch { switch, .. } => Some((p as u16, switch)),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut dist = vec![u8::MAX; n * n];
        let mut queue = Vec::with_capacity(n);
        for a in 0..n {
            let row = &mut dist[a * n..(a + 1) * n];
            row[a] = 0;
            queue.clear();
            queue.push(a as u32);
            let mut i = 0;
            while i < queue.len() {
                let u = queue[i] as usize;
                i += 1;
                for &(_, v) in &neighbours[u] {
                    if row[v as usize] == u8::MAX {
                        row[v as usize] = row[u].saturating_add(1).min(u8::MAX - 1);
                        queue.push(v);
                    }
                }
            }
        }
        if dist.contains(&u8::MAX) {
            return Err(Error::invalid(
                "config",
                "routing.algorithm",
                format!("'{}' on {}", name(mode), topo.spec()),
                "a connected network (some switches cannot reach others)",
            ));
        }
        let diameter = dist.iter().copied().max().unwrap_or(0) as usize;
        let classes = class_count(mode, diameter);
        if vcs < classes {
            // A switch has at most MAX_CLASS_VCS VCs per traffic class: beyond, no value helps.
            let beyond = if classes > MAX_CLASS_VCS {
                format!(", more than the {MAX_CLASS_VCS} a switch has: use routing.algorithm = \"table\"")
            } else {
                String::new()
            };
            return Err(Error::invalid(
                "config",
                "switch.vcs",
                vcs,
                format!(
                    "at least {} for '{}' on {} (one VC per hop of the longest route{beyond})",
                    classes,
                    name(mode),
                    topo.spec()
                ),
            ));
        }
        Ok(HopClassRouting {
            mode,
            vcs,
            switches: n,
            diameter,
            dist,
            neighbours,
            attach: (0..topo.num_terminals())
                .map(|t| topo.terminal_attachment(t))
                .map(|(s, p)| (s as u32, p as u16))
                .collect(),
            terminal_port: (0..n)
                .map(|s| topo.ports(s).iter().map(|p| matches!(p, Peer::Terminal(_))).collect())
                .collect(),
            threshold: THRESHOLD_PACKETS * max_packet_phits,
        })
    }

    #[inline]
    fn d(&self, a: usize, b: usize) -> usize {
        self.dist[a * self.switches + b] as usize
    }

    /// The intermediate switch of a Valiant route.
    fn intermediate(&self, req: &Request) -> usize {
        req.salt as usize % self.switches
    }

    /// Ports of the neighbours of `cur` one hop closer to `to`.
    fn closer(&self, cur: usize, to: usize) -> impl Iterator<Item = usize> + '_ {
        let d = self.d(cur, to);
        self.neighbours[cur].iter().filter(move |&&(_, v)| self.d(v as usize, to) + 1 == d).map(|&(p, _)| p as usize)
    }

    /// Number of VC classes of the mode.
    fn classes(&self) -> usize {
        class_count(self.mode, self.diameter)
    }

    /// VCs of class `c` (`vc_share`: an equal share, the last class taking the remainder).
    fn class_vcs(&self, c: usize) -> std::ops::Range<usize> {
        super::vc_share::class_vcs(self.vcs, self.classes(), c)
    }

    /// The class of arrival VC `vc`.
    fn class_of(&self, vc: usize) -> usize {
        super::vc_share::class_of(self.vcs, self.classes(), vc)
    }

    /// The next hops from `cur` towards switch `to` on every VC of class `class`.
    fn push(&self, cur: usize, to: usize, class: usize, out: &mut Vec<Candidate>) {
        debug_assert!(class < self.classes(), "class {class} of {}", self.classes());
        let vcs = self.class_vcs(class);
        out.extend(self.closer(cur, to).flat_map(|p| vcs.clone().map(move |vc| Candidate::new(p, vc))));
    }

    fn route_with(&self, req: &Request, load: Option<&dyn Fn(usize) -> u32>, out: &mut Vec<Candidate>) {
        let (src_sw, _) = self.attach[req.src];
        let (dst_sw, dst_port) = self.attach[req.dst];
        let (cur, src_sw, dst_sw) = (req.switch, src_sw as usize, dst_sw as usize);
        if cur == dst_sw {
            out.extend((0..self.vcs).map(|vc| Candidate::new(dst_port as usize, vc)));
            return;
        }
        let at_source = self.terminal_port[cur][req.in_port];
        let mid = self.intermediate(req);
        let detour = self.mode != Mode::Minimal && mid != src_sw && mid != dst_sw;
        if !at_source {
            let class = self.class_of(req.in_vc);
            let next = class + 1;
            // Classes from the diameter on are UGAL's minimal packets; below, a packet is on
            // its way to its intermediate switch exactly while it has taken fewer hops than
            // that switch's distance from the source.
            if detour && class < self.diameter && next < self.d(src_sw, mid) {
                return self.push(cur, mid, next, out);
            }
            return self.push(cur, dst_sw, next, out);
        }
        if !detour {
            return self.push(cur, dst_sw, 0, out);
        }
        match (self.mode, load) {
            (Mode::Valiant, _) => self.push(cur, mid, 0, out),
            (_, None) => {
                self.push(cur, dst_sw, self.diameter, out);
                self.push(cur, mid, 0, out);
            }
            (_, Some(load)) => {
                let q_min = self.closer(cur, dst_sw).map(load).min().unwrap_or(0);
                let q_val = self.closer(cur, mid).map(load).min().unwrap_or(0);
                let h_min = self.d(cur, dst_sw) as u32;
                let h_val = (self.d(cur, mid) + self.d(mid, dst_sw)) as u32;
                if q_min * h_min <= q_val.saturating_mul(h_val).saturating_add(self.threshold) {
                    self.push(cur, dst_sw, self.diameter, out)
                } else {
                    self.push(cur, mid, 0, out)
                }
            }
        }
    }
}

/// Config name of a mode.
fn name(mode: Mode) -> &'static str {
    match mode {
        Mode::Minimal => "graph-minimal",
        Mode::Valiant => "graph-valiant",
        Mode::Ugal => "graph-ugal",
    }
}

impl Routing for HopClassRouting {
    fn name(&self) -> &'static str {
        name(self.mode)
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        self.route_with(req, None, out)
    }

    fn reads_load(&self) -> bool {
        true
    }

    fn route_loaded(&self, req: &Request, load: &dyn Fn(usize) -> u32, out: &mut Vec<Candidate>) {
        self.route_with(req, Some(load), out)
    }

    fn salts(&self) -> u32 {
        match self.mode {
            Mode::Minimal => 1,
            _ => self.switches as u32,
        }
    }
}
