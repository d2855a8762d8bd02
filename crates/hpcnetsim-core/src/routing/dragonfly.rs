//! Dragonfly routings (Kim, Dally, Scott and Abts 2008): minimal, Valiant and UGAL-L.
//!
//! - **Minimal**: at most a local hop to the switch holding a global link to the
//!   destination group, that global link, and a local hop to the destination switch. With
//!   `m > 1` links per group pair every one of them is offered (those the current switch
//!   holds itself, else the local hops to their switches). VC classes: class 0 in the source
//!   group, class 1 after the global hop, so the channel dependency graph runs local 0 →
//!   global 0 → local 1 → ejection and is acyclic (≥ 2 VCs).
//! - **Valiant**: minimal to a random intermediate group (drawn from the packet's salt),
//!   then minimal to the destination: up to local, global, local, global, local. Packets
//!   within a group, or whose intermediate group is the source's or the destination's, go
//!   minimally.
//! - **UGAL-L**: at the source switch a packet compares the load of its minimal first hop
//!   times the minimal hop count with the load of its Valiant first hop times the Valiant
//!   hop count and goes the cheaper way (a threshold of one packet favours minimal).
//!
//! Valiant and UGAL use three VC classes (≥ 3 VCs): class 0 for a Valiant packet in its
//! source group (local and global hop), class 1 for a Valiant packet in its intermediate
//! group and for a minimal packet in its source group, class 2 in the destination group.
//! Classes never decrease along a route and a packet takes at most one local hop of a class
//! before a global hop or ejection, so no class has a cycle: the graph is acyclic. The
//! class of the arrival VC tells later switches of the source group which way the source
//! switch chose. Without load information (the deadlock analysis, the flow model) UGAL
//! offers the union of both ways.

use super::{Candidate, Request, Routing};
use crate::topology::dragonfly::Dragonfly;
use crate::topology::{Peer, Topology};

/// Which dragonfly routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Minimal routes only.
    Minimal,
    /// Always through a random intermediate group.
    Valiant,
    /// Minimal or Valiant, decided at the source switch from local queue loads.
    Ugal,
}

/// A load difference below this many packets never makes a packet leave its minimal path.
const THRESHOLD_PACKETS: u32 = 1;

/// A dragonfly routing on one network.
pub struct DragonflyRouting {
    d: Dragonfly,
    vcs: usize,
    mode: Mode,
    threshold: u32,
    /// `exits[(x·g + y)·m + c]`: the switch of group `x` holding copy `c` of the global link
    /// to group `y`, its port, and the switch it lands on.
    exits: Vec<(u32, u16, u32)>,
}

impl DragonflyRouting {
    /// The routing `mode` on `topo` (a dragonfly `d`) with `vcs` VCs (checked by the caller:
    /// 2 for minimal, 3 otherwise); `max_packet_phits` sets the UGAL threshold.
    pub fn new(d: &Dragonfly, topo: &Topology, vcs: usize, mode: Mode, max_packet_phits: u32) -> Self {
        let (a, g, m) = (d.a, d.g, d.links_per_group_pair());
        let mut lists: Vec<Vec<(u32, u16, u32)>> = vec![Vec::new(); g * g];
        for s in 0..topo.num_switches() {
            for (p, peer) in topo.ports(s).iter().enumerate() {
                if let Peer::Switch { switch, .. } = *peer {
                    if switch as usize / a != s / a {
                        lists[(s / a) * g + switch as usize / a].push((s as u32, p as u16, switch));
                    }
                }
            }
        }
        debug_assert!(lists.iter().enumerate().all(|(i, l)| l.len() == if i / g == i % g { 0 } else { m }));
        let exits = lists.into_iter().flat_map(|l| l.into_iter().chain(std::iter::repeat((0, 0, 0))).take(m)).collect();
        DragonflyRouting { d: d.clone(), vcs, mode, threshold: THRESHOLD_PACKETS * max_packet_phits, exits }
    }

    /// Number of VC classes of the mode.
    fn classes(&self) -> usize {
        if self.mode == Mode::Minimal {
            2
        } else {
            3
        }
    }

    /// VCs of class `c`: an equal share, the last class taking the remainder.
    fn class(&self, c: usize) -> std::ops::Range<usize> {
        let n = self.classes();
        let share = self.vcs / n;
        if c + 1 == n {
            c * share..self.vcs
        } else {
            c * share..(c + 1) * share
        }
    }

    /// The class of arrival VC `vc`.
    fn class_of(&self, vc: usize) -> usize {
        (0..self.classes()).find(|&c| self.class(c).contains(&vc)).unwrap_or(0)
    }

    fn group(&self, s: usize) -> usize {
        s / self.d.a
    }

    /// The global links from group `x` to group `y`.
    fn exits(&self, x: usize, y: usize) -> &[(u32, u16, u32)] {
        let m = self.d.links_per_group_pair();
        let i = (x * self.d.g + y) * m;
        &self.exits[i..i + m]
    }

    /// The minimal first hops from switch `cur` towards group `y` (≠ its own): its own global
    /// links to `y` if it holds any, else the local hops to the switches that do. Returns
    /// `(port, switch-to-switch hops to land in group y)` pairs and the landing switches.
    fn towards_group(&self, cur: usize, y: usize, out: &mut Vec<(usize, u32, usize)>) {
        let exits = self.exits(self.group(cur), y);
        let own = exits.iter().any(|&(s, _, _)| s as usize == cur);
        for &(s, p, land) in exits {
            if own && s as usize == cur {
                out.push((p as usize, 1, land as usize));
            } else if !own {
                out.push((self.d.local_port(cur % self.d.a, s as usize % self.d.a), 2, land as usize));
            }
        }
    }

    /// Switch-to-switch hops of a minimal route from `from` to `to`.
    fn min_hops(&self, from: usize, to: usize) -> u32 {
        if from == to {
            0
        } else if self.group(from) == self.group(to) {
            1
        } else {
            let mut firsts = Vec::new();
            self.towards_group(from, self.group(to), &mut firsts);
            firsts.iter().map(|&(_, h, land)| h + u32::from(land != to)).min().unwrap_or(u32::MAX)
        }
    }

    /// The minimal next hops from `cur` to switch `to` on VC class `class`.
    fn push_minimal(&self, cur: usize, to: usize, class: usize, out: &mut Vec<Candidate>) {
        if self.group(cur) == self.group(to) {
            let p = self.d.local_port(cur % self.d.a, to % self.d.a);
            out.extend(self.class(class).map(|vc| Candidate::new(p, vc)));
            return;
        }
        let mut firsts = Vec::new();
        self.towards_group(cur, self.group(to), &mut firsts);
        for (p, _, _) in firsts {
            out.extend(self.class(class).map(|vc| Candidate::new(p, vc)));
        }
    }

    /// Ports of the first hops of `push_minimal` (for the UGAL loads).
    fn first_ports(&self, cur: usize, to_group: usize) -> Vec<usize> {
        let mut firsts = Vec::new();
        self.towards_group(cur, to_group, &mut firsts);
        firsts.into_iter().map(|(p, _, _)| p).collect()
    }

    fn eject(&self, req: &Request, out: &mut Vec<Candidate>) {
        let port = self.d.network_ports() + req.dst % self.d.p;
        out.extend((0..self.vcs).map(|vc| Candidate::new(port, vc)));
    }

    /// The intermediate group of a packet (Valiant and UGAL).
    fn intermediate(&self, req: &Request) -> usize {
        req.salt as usize % self.d.g
    }

    fn route_with(&self, req: &Request, load: Option<&dyn Fn(usize) -> u32>, out: &mut Vec<Candidate>) {
        let p = self.d.p;
        let (cur, src_sw, dst_sw) = (req.switch, req.src / p, req.dst / p);
        if cur == dst_sw {
            return self.eject(req, out);
        }
        let (cg, sg, dg) = (self.group(cur), self.group(src_sw), self.group(dst_sw));
        if self.mode == Mode::Minimal {
            return self.push_minimal(cur, dst_sw, usize::from(cg != sg), out);
        }
        if cg == dg {
            return self.push_minimal(cur, dst_sw, 2, out);
        }
        let ig = self.intermediate(req);
        let detour = ig != sg && ig != dg;
        if cg != sg {
            // In the intermediate group: on to the destination group.
            return self.push_minimal(cur, dst_sw, 1, out);
        }
        let at_source = req.in_port >= self.d.network_ports();
        if !at_source {
            // The source switch chose: class 0 is the way through the intermediate group.
            return match self.class_of(req.in_vc) {
                0 if detour => self.push_group(cur, ig, 0, out),
                _ => self.push_minimal(cur, dst_sw, 1, out),
            };
        }
        if !detour || self.mode == Mode::Valiant {
            return if detour { self.push_group(cur, ig, 0, out) } else { self.push_minimal(cur, dst_sw, 1, out) };
        }
        match load {
            None => {
                self.push_minimal(cur, dst_sw, 1, out);
                self.push_group(cur, ig, 0, out);
            }
            Some(load) => {
                let q_min = self.first_ports(cur, dg).into_iter().map(load).min().unwrap_or(0);
                let q_val = self.first_ports(cur, ig).into_iter().map(load).min().unwrap_or(0);
                let h_min = self.min_hops(cur, dst_sw);
                let mut firsts = Vec::new();
                self.towards_group(cur, ig, &mut firsts);
                let h_val =
                    firsts.iter().map(|&(_, h, land)| h + self.min_hops(land, dst_sw)).min().unwrap_or(u32::MAX);
                if q_min * h_min <= q_val.saturating_mul(h_val).saturating_add(self.threshold) {
                    self.push_minimal(cur, dst_sw, 1, out);
                } else {
                    self.push_group(cur, ig, 0, out);
                }
            }
        }
    }

    /// The minimal next hops from `cur` into group `y` (any of its switches), class `class`.
    fn push_group(&self, cur: usize, y: usize, class: usize, out: &mut Vec<Candidate>) {
        for p in self.first_ports(cur, y) {
            out.extend(self.class(class).map(|vc| Candidate::new(p, vc)));
        }
    }
}

impl Routing for DragonflyRouting {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Minimal => "dragonfly-minimal",
            Mode::Valiant => "dragonfly-valiant",
            Mode::Ugal => "dragonfly-ugal",
        }
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        self.route_with(req, None, out)
    }

    fn route_loaded(&self, req: &Request, load: &dyn Fn(usize) -> u32, out: &mut Vec<Candidate>) {
        self.route_with(req, Some(load), out)
    }

    fn salts(&self) -> u32 {
        match self.mode {
            Mode::Minimal => 1,
            _ => self.d.g as u32,
        }
    }
}
