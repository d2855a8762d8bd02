//! Dragonfly routings (Kim, Dally, Scott and Abts 2008): minimal, Valiant, UGAL-L, UGAL-G,
//! and PAR (Jiang, Kim and Dally 2009), on every dragonfly family: Kim et al.'s dragonfly
//! (complete groups), the Cray Cascade (`cascade.rs`: groups of all-to-all rows and
//! columns) and Megafly (`megafly.rs`: groups as two-level fat-trees). A family tells the
//! routing its groups and the minimal routes inside a group ([`Groups`]); the global links
//! are read from the graph. "Local hop" below is a hop inside a group: one on the dragonfly,
//! up to two on the Cascade (a row hop, then a column hop) and on Megafly (up then down, or
//! down then up).
//!
//! A route to a switch of another group takes the global links of the shortest routes with
//! one global hop (local hops to the link, the link, local hops from where it lands); a
//! route to an intermediate group (Valiant) the group's nearest links to it (the switch's
//! own if it holds any). Every switch on the way chooses again among the links it may still
//! reach in the packet's VC class (`Groups::continues`: on the Cascade no row hop after a
//! column hop, on the dragonfly no second local hop), and the links chosen before stay
//! among them, so routes keep their length. With one global link per group pair (Kim et
//! al.'s largest dragonfly) both rules take that link.
//!
//! - **Minimal**: local hops to a switch holding a global link to the destination group,
//!   that global link, and local hops to the destination switch. With `m > 1` links per
//!   group pair every nearest one is offered. VC classes: class 0 in the source group, class
//!   1 after the global hop, so the channel dependency graph runs local 0 → global 0 →
//!   local 1 → ejection and is acyclic (≥ 2 VCs): within a class, local hops keep their
//!   order (dragonfly: one; Cascade: row then column; Megafly: up then down in the source
//!   and destination groups) and lead only to a global hop or the ejection.
//! - **Valiant**: minimal to a random intermediate group (drawn from the packet's salt),
//!   then minimal to the destination: up to local, global, local, global, local. Packets
//!   within a group, or whose intermediate group is the source's or the destination's, go
//!   minimally.
//! - **UGAL-L**: at the source switch a packet compares the load of its minimal first hop
//!   times the minimal hop count with the load of its Valiant first hop times the Valiant
//!   hop count and goes the cheaper way (a threshold of one packet favours minimal).
//! - **UGAL-G**: the same rule on the output queues of the global links each way would take
//!   out of the source group (the minimal route's, the Valiant route's first), wherever in
//!   the group they are: the simulator's global knowledge, the ideal UGAL that Kim et al.
//!   compare UGAL-L with. In input-queued switches a link's output queue is what is
//!   committed downstream and the packets waiting at its switch that may take it
//!   (`Routing::route_global`); the committed phits alone stay small on a saturated global
//!   link whose far end drains fast, and UGAL-G read that way fell below UGAL-L under
//!   worst-case traffic. Reading another switch's state, it runs on one thread.
//! - **PAR** (progressive adaptive routing): UGAL-L at the source switch, and a packet
//!   routed minimally that reaches another switch of its source group (the one holding its
//!   minimal global link, now a local port there) applies the rule once more from there and
//!   may turn to its intermediate group: a congested global link of another switch is seen
//!   where it is, not only through the backpressure on the local link towards it.
//!
//! Valiant, UGAL-L and UGAL-G use three VC classes (≥ 3 VCs): class 0 for a Valiant packet
//! in its source group (local and global hop), class 1 for a Valiant packet in its
//! intermediate group and for a minimal packet in its source group, class 2 in the
//! destination group. Classes never decrease along a route and a packet's local hops of a
//! class keep their order and end in a global hop or ejection, so no class has a cycle: the
//! graph is acyclic. (Megafly's intermediate group turns down then up, its other groups up
//! then down: class 1 holds only the first turn, classes 0 and 2 only the second.) The class of the arrival VC tells later switches of the source group which
//! way the source switch chose. Without load information (the deadlock analysis, the flow
//! model) UGAL offers the union of both ways.
//!
//! PAR's re-decision adds local hops in the source group: minimal local, then local to the
//! switch holding the link to the intermediate group. A minimally routed packet keeps class
//! 0 for its local hops (one on the dragonfly, up to two on the Cascade) and may re-decide
//! at every switch it reaches on class 0. On UGAL's classes that is a class-1
//! local hop depending on a class-1 local hop, and those close cycles among a group's
//! switches (s → t → u → s). PAR therefore takes four classes (≥ 4 VCs): class 0 for the
//! local hop of a packet the source switch routed minimally (the hop to the re-deciding
//! switches), class 1 for everything else in the source group (a Valiant packet's local and
//! global hops, from the source switch or after a re-decision, and a minimal packet's
//! global hop), class 2 in the intermediate group, class 3 in the destination group. Class-0
//! local hops keep their order and lead to a hop of class 1 or more, class-1 local hops keep
//! theirs and lead to the global link they head for (class 1), and every global hop enters
//! a group of a higher class: classes never decrease and no class has a cycle, so the graph
//! is acyclic. Arrival class 0 marks the switches that may re-decide. With three VCs the
//! classes 0 and 1 share a VC (the control of `tests/suite/dragonfly_routing.rs`: cyclic).

use super::{Candidate, Request, Routing};
use crate::topology::dragonfly::Dragonfly;
use crate::topology::{Peer, Topology};

/// What the dragonfly routings need of a dragonfly family: its groups and the minimal routes
/// inside a group (the global links are read from the graph).
pub trait Groups: Clone + Send + Sync + 'static {
    /// Number of groups.
    fn num_groups(&self) -> usize;
    /// The group of switch `s`.
    fn group(&self, s: usize) -> usize;
    /// Global links between every pair of groups.
    fn links_per_group_pair(&self) -> usize;
    /// Switch-to-switch hops of a minimal route from `a` to `b`, two switches of one group.
    fn local_hops(&self, a: usize, b: usize) -> u32;
    /// Calls `f(port)` for the first hop of every minimal route from `cur` to `to` (≠ `cur`)
    /// in its group, in port order; the hops after it keep the family's order (Cascade: row,
    /// then column).
    fn local_ports(&self, cur: usize, to: usize, f: impl FnMut(usize));
    /// Whether a packet that arrived at `cur` through `in_port` may still take the minimal
    /// local route from `cur` to `to` in the same VC class (Cascade: not a row hop after a
    /// column hop; dragonfly: no second local hop).
    fn continues(&self, cur: usize, in_port: usize, to: usize) -> bool;
    /// Whether port `port` of switch `s` holds a terminal.
    fn is_terminal_port(&self, s: usize, port: usize) -> bool;
}

impl Groups for Dragonfly {
    fn num_groups(&self) -> usize {
        self.g
    }
    fn group(&self, s: usize) -> usize {
        s / self.a
    }
    fn links_per_group_pair(&self) -> usize {
        Dragonfly::links_per_group_pair(self)
    }
    fn local_hops(&self, a: usize, b: usize) -> u32 {
        u32::from(a != b)
    }
    fn local_ports(&self, cur: usize, to: usize, mut f: impl FnMut(usize)) {
        f(self.local_port(cur % self.a, to % self.a))
    }
    fn continues(&self, cur: usize, in_port: usize, to: usize) -> bool {
        in_port >= self.a - 1 || to == cur
    }
    fn is_terminal_port(&self, _s: usize, port: usize) -> bool {
        port >= self.network_ports()
    }
}

/// Which dragonfly routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Minimal routes only.
    Minimal,
    /// Always through a random intermediate group.
    Valiant,
    /// Minimal or Valiant, decided at the source switch from local queue loads (UGAL-L).
    Ugal,
    /// Minimal or Valiant, decided at the source switch from the loads of the global links
    /// each way would take (UGAL-G).
    UgalG,
    /// UGAL-L at the source switch, and once more at the next switches of a packet it routed
    /// minimally (progressive adaptive routing).
    Par,
}

/// A load difference below this many packets never makes a packet leave its minimal path.
const THRESHOLD_PACKETS: u32 = 1;

/// A dragonfly routing on one network of a dragonfly family `N`.
pub struct DragonflyRouting<N: Groups = Dragonfly> {
    net: N,
    vcs: usize,
    mode: Mode,
    threshold: u32,
    /// `exits[(x·g + y)·m + c]`: the switch of group `x` holding copy `c` of the global link
    /// to group `y`, its port, and the switch it lands on.
    exits: Vec<(u32, u16, u32)>,
    /// Per terminal: its switch and port.
    attach: Vec<(u32, u16)>,
}

impl<N: Groups> DragonflyRouting<N> {
    /// The routing `mode` on `topo` (a network `net` of a dragonfly family) with `vcs` VCs
    /// (checked by the caller: 2 for minimal, 3 otherwise, 4 for PAR); `max_packet_phits`
    /// sets the UGAL threshold.
    pub fn new(net: &N, topo: &Topology, vcs: usize, mode: Mode, max_packet_phits: u32) -> Self {
        let (g, m) = (net.num_groups(), if net.num_groups() > 1 { net.links_per_group_pair() } else { 0 });
        let mut lists: Vec<Vec<(u32, u16, u32)>> = vec![Vec::new(); g * g];
        for s in 0..topo.num_switches() {
            for (p, peer) in topo.ports(s).iter().enumerate() {
                if let Peer::Switch { switch, .. } = *peer {
                    let (x, y) = (net.group(s), net.group(switch as usize));
                    if x != y {
                        lists[x * g + y].push((s as u32, p as u16, switch));
                    }
                }
            }
        }
        debug_assert!(lists.iter().enumerate().all(|(i, l)| l.len() == if i / g == i % g { 0 } else { m }));
        let exits = lists.into_iter().flat_map(|l| l.into_iter().chain(std::iter::repeat((0, 0, 0))).take(m)).collect();
        let attach =
            (0..topo.num_terminals()).map(|t| topo.terminal_attachment(t)).map(|(s, p)| (s as u32, p as u16)).collect();
        DragonflyRouting { net: net.clone(), vcs, mode, threshold: THRESHOLD_PACKETS * max_packet_phits, exits, attach }
    }

    /// Number of VC classes of the mode.
    fn classes(&self) -> usize {
        match self.mode {
            Mode::Minimal => 2,
            Mode::Par => 4,
            _ => 3,
        }
    }

    /// VCs of class `c` (`vc_share`: an equal share, the last class taking the remainder;
    /// with fewer VCs than classes, the deadlock tests' control, the lowest classes share VC
    /// 0: PAR on three VCs is PAR on UGAL's classes).
    fn class(&self, c: usize) -> std::ops::Range<usize> {
        super::vc_share::class_vcs(self.vcs, self.classes(), c)
    }

    /// The class of arrival VC `vc`.
    fn class_of(&self, vc: usize) -> usize {
        super::vc_share::class_of(self.vcs, self.classes(), vc)
    }

    fn group(&self, s: usize) -> usize {
        self.net.group(s)
    }

    /// The global links from group `x` to group `y`.
    fn exits(&self, x: usize, y: usize) -> &[(u32, u16, u32)] {
        let m = self.net.links_per_group_pair();
        let i = (x * self.net.num_groups() + y) * m;
        &self.exits[i..i + m]
    }

    /// The global links from `cur`'s group to group `y` that a route from `cur` heads for,
    /// with the local hops to their switch. Towards switch `to` of group `y`: those of the
    /// shortest routes through one global link (local hops to it, the link, local hops from
    /// where it lands to `to`), among those that a packet which arrived through `in_port`
    /// may still reach in its VC class (`None`: a packet starting in its class). Towards
    /// group `y` as a whole (`to` = `None`): the nearest.
    fn heads(
        &self,
        cur: usize,
        y: usize,
        to: Option<usize>,
        in_port: Option<usize>,
        mut f: impl FnMut((u32, u16, u32), u32),
    ) {
        let exits = self.exits(self.group(cur), y);
        let cost = |&(s, _, land): &(u32, u16, u32)| -> Option<(u32, u32)> {
            if in_port.is_some_and(|p| !self.net.continues(cur, p, s as usize)) {
                return None;
            }
            let d = self.net.local_hops(cur, s as usize);
            Some((d + to.map_or(0, |t| self.net.local_hops(land as usize, t)), d))
        };
        let Some(best) = exits.iter().filter_map(|e| cost(e).map(|c| c.0)).min() else { return };
        for e in exits {
            match cost(e) {
                Some((c, d)) if c == best => f(*e, d),
                _ => {}
            }
        }
    }

    /// The first hops of the routes of [`Self::heads`]: `(port, switch-to-switch hops to land
    /// in group y, landing switch)`: a global port of `cur`, or the first local hops towards
    /// the switch of the link.
    fn firsts(&self, cur: usize, y: usize, to: Option<usize>, in_port: Option<usize>) -> Vec<(usize, u32, usize)> {
        let mut out = Vec::new();
        self.heads(cur, y, to, in_port, |(s, p, land), d| {
            if d == 0 {
                out.push((p as usize, 1, land as usize));
            } else {
                self.net.local_ports(cur, s as usize, |q| out.push((q, d + 1, land as usize)));
            }
        });
        out
    }

    /// Switch-to-switch hops of a minimal route from `from` to `to`.
    fn min_hops(&self, from: usize, to: usize) -> u32 {
        if self.group(from) == self.group(to) {
            return self.net.local_hops(from, to);
        }
        let exits = self.exits(self.group(from), self.group(to));
        exits
            .iter()
            .map(|&(s, _, land)| self.net.local_hops(from, s as usize) + 1 + self.net.local_hops(land as usize, to))
            .min()
            .unwrap_or(u32::MAX)
    }

    /// The minimal next hops from `cur` to switch `to` on VC class `class`, for a packet that
    /// arrived through `in_port` and stays in its class.
    fn push_minimal(&self, cur: usize, to: usize, class: usize, in_port: usize, out: &mut Vec<Candidate>) {
        if self.group(cur) == self.group(to) {
            self.net.local_ports(cur, to, |p| out.extend(self.class(class).map(|vc| Candidate::new(p, vc))));
            return;
        }
        for (p, _, _) in self.firsts(cur, self.group(to), Some(to), Some(in_port)) {
            out.extend(self.class(class).map(|vc| Candidate::new(p, vc)));
        }
    }

    /// Ports of the first hops towards switch `to` (`Some`) or group `y` (for the UGAL loads).
    fn first_ports(&self, cur: usize, y: usize, to: Option<usize>, in_port: Option<usize>) -> Vec<usize> {
        self.firsts(cur, y, to, in_port).into_iter().map(|(p, _, _)| p).collect()
    }

    fn eject(&self, req: &Request, out: &mut Vec<Candidate>) {
        let port = self.attach[req.dst].1 as usize;
        out.extend((0..self.vcs).map(|vc| Candidate::new(port, vc)));
    }

    /// The intermediate group of a packet (Valiant and UGAL).
    fn intermediate(&self, req: &Request) -> usize {
        req.salt as usize % self.net.num_groups()
    }

    /// The switch-to-switch hops of the Valiant way from `cur` through group `ig` to `to`.
    fn valiant_hops(&self, cur: usize, ig: usize, to: usize) -> u32 {
        let firsts = self.firsts(cur, ig, None, None);
        firsts.iter().map(|&(_, h, land)| h + self.min_hops(land, to)).min().unwrap_or(u32::MAX)
    }

    /// The UGAL rule at switch `cur`: minimal unless its queue `q_min` times its hops costs
    /// more than the Valiant way's `q_val` times its hops, by at least the threshold.
    fn minimal_wins(&self, cur: usize, to: usize, ig: usize, q_min: u32, q_val: u32) -> bool {
        let (h_min, h_val) = (self.min_hops(cur, to), self.valiant_hops(cur, ig, to));
        q_min * h_min <= q_val.saturating_mul(h_val).saturating_add(self.threshold)
    }

    /// The global links a route from `cur` (its source switch) takes out of its group:
    /// towards switch `to` of group `y` the minimal route's, towards group `y` the nearest.
    fn global_exits(&self, cur: usize, y: usize, to: Option<usize>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.heads(cur, y, to, None, |(s, p, _), _| out.push((s as usize, p as usize)));
        out
    }

    /// PAR's minimal next hops in the source group: local hops on class 0 (the switch they
    /// reach may still re-decide), or the switch's own global link on class 1.
    fn push_par_minimal(&self, cur: usize, to: usize, in_port: usize, out: &mut Vec<Candidate>) {
        for (p, h, _) in self.firsts(cur, self.group(to), Some(to), Some(in_port)) {
            let class = if h == 1 { 1 } else { 0 };
            out.extend(self.class(class).map(|vc| Candidate::new(p, vc)));
        }
    }

    fn route_with(
        &self,
        req: &Request,
        load: Option<&dyn Fn(usize) -> u32>,
        remote: Option<&dyn Fn(usize, usize) -> u32>,
        out: &mut Vec<Candidate>,
    ) {
        let (cur, src_sw, dst_sw) = (req.switch, self.attach[req.src].0 as usize, self.attach[req.dst].0 as usize);
        if cur == dst_sw {
            return self.eject(req, out);
        }
        let (cg, sg, dg) = (self.group(cur), self.group(src_sw), self.group(dst_sw));
        if self.mode == Mode::Minimal {
            return self.push_minimal(cur, dst_sw, usize::from(cg != sg), req.in_port, out);
        }
        let par = self.mode == Mode::Par;
        // The classes of a Valiant packet in its source group, of the intermediate group and
        // of the destination group (PAR's are one higher: its class 0 is the minimal first hop).
        let (c_src, c_mid, c_dst) = if par { (1, 2, 3) } else { (0, 1, 2) };
        if cg == dg {
            return self.push_minimal(cur, dst_sw, c_dst, req.in_port, out);
        }
        let ig = self.intermediate(req);
        let detour = ig != sg && ig != dg;
        if cg != sg {
            // In the intermediate group: on to the destination group.
            return self.push_minimal(cur, dst_sw, c_mid, req.in_port, out);
        }
        let at_source = self.net.is_terminal_port(cur, req.in_port);
        if !at_source && par {
            // Class 0: routed minimally so far, which this switch may overturn; class 1: the
            // way through the intermediate group is set.
            return match (self.class_of(req.in_vc), detour, load) {
                (0, true, None) => {
                    self.push_par_minimal(cur, dst_sw, req.in_port, out);
                    self.push_group(cur, ig, 1, out);
                }
                (0, true, Some(load)) => {
                    let q_min = self.first_ports(cur, dg, Some(dst_sw), Some(req.in_port)).into_iter().map(load).min();
                    let q_val = self.first_ports(cur, ig, None, None).into_iter().map(load).min();
                    let (q_min, q_val) = (q_min.unwrap_or(0), q_val.unwrap_or(0));
                    match self.minimal_wins(cur, dst_sw, ig, q_min, q_val) {
                        true => self.push_par_minimal(cur, dst_sw, req.in_port, out),
                        false => self.push_group(cur, ig, 1, out),
                    }
                }
                (0, false, _) => self.push_par_minimal(cur, dst_sw, req.in_port, out),
                (_, true, _) => self.push_group(cur, ig, 1, out),
                (_, false, _) => self.push_minimal(cur, dst_sw, 1, req.in_port, out),
            };
        }
        if !at_source {
            // The source switch chose: class 0 is the way through the intermediate group.
            return match self.class_of(req.in_vc) {
                0 if detour => self.push_group(cur, ig, 0, out),
                _ => self.push_minimal(cur, dst_sw, 1, req.in_port, out),
            };
        }
        let minimal = |out: &mut Vec<Candidate>| match par {
            true => self.push_par_minimal(cur, dst_sw, req.in_port, out),
            false => self.push_minimal(cur, dst_sw, 1, req.in_port, out),
        };
        if !detour || self.mode == Mode::Valiant {
            return if detour { self.push_group(cur, ig, c_src, out) } else { minimal(out) };
        }
        // UGAL-L and PAR weigh the switch's first hops, UGAL-G the global links behind them.
        let queues = match (self.mode, load, remote) {
            (Mode::UgalG, _, Some(remote)) => {
                let q = |y, to| self.global_exits(cur, y, to).into_iter().map(|(s, p)| remote(s, p)).min().unwrap_or(0);
                Some((q(dg, Some(dst_sw)), q(ig, None)))
            }
            (Mode::UgalG, _, _) | (_, None, _) => None,
            (_, Some(load), _) => {
                let q = |y, to| self.first_ports(cur, y, to, None).into_iter().map(load).min().unwrap_or(0);
                Some((q(dg, Some(dst_sw)), q(ig, None)))
            }
        };
        match queues {
            None => {
                minimal(out);
                self.push_group(cur, ig, c_src, out);
            }
            Some((q_min, q_val)) if self.minimal_wins(cur, dst_sw, ig, q_min, q_val) => minimal(out),
            Some(_) => self.push_group(cur, ig, c_src, out),
        }
    }

    /// The minimal next hops from `cur` into group `y` (any of its switches), class `class`.
    fn push_group(&self, cur: usize, y: usize, class: usize, out: &mut Vec<Candidate>) {
        for p in self.first_ports(cur, y, None, None) {
            out.extend(self.class(class).map(|vc| Candidate::new(p, vc)));
        }
    }
}

impl<N: Groups> Routing for DragonflyRouting<N> {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Minimal => "dragonfly-minimal",
            Mode::Valiant => "dragonfly-valiant",
            Mode::Ugal => "dragonfly-ugal",
            Mode::UgalG => "dragonfly-ugal-g",
            Mode::Par => "dragonfly-par",
        }
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        self.route_with(req, None, None, out)
    }

    fn reads_load(&self) -> bool {
        true
    }

    fn route_loaded(&self, req: &Request, load: &dyn Fn(usize) -> u32, out: &mut Vec<Candidate>) {
        self.route_with(req, Some(load), None, out)
    }

    fn global_view(&self) -> bool {
        self.mode == Mode::UgalG
    }

    fn route_global(
        &self,
        req: &Request,
        load: &dyn Fn(usize) -> u32,
        remote: &dyn Fn(usize, usize) -> u32,
        out: &mut Vec<Candidate>,
    ) {
        self.route_with(req, Some(load), Some(remote), out)
    }

    fn salts(&self) -> u32 {
        match self.mode {
            Mode::Minimal => 1,
            _ => self.net.num_groups() as u32,
        }
    }
}
