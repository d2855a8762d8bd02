//! Non-minimal HyperX routings (paper 001 §6 names them as what adaptive HyperX hardware
//! does): Valiant (VAL), UGAL with local queue information (UGAL-L) and Ahn et al.'s
//! Dimensionally-Adaptive, Load-balanced routing (DAL).
//!
//! - **Valiant**: every packet goes in dimension order to an intermediate switch drawn from
//!   its per-packet salt, then in dimension order to its destination. Phase 0 travels on the
//!   lower half of the VCs, phase 1 on the upper half: each phase is dimension order (acyclic
//!   on a HyperX, whose lines are complete graphs crossed in one hop), and packets only move
//!   from the lower class to the upper one, so the channel dependency graph is acyclic.
//! - **UGAL-L**: at the source switch a packet compares the load of its minimal first hop
//!   times the minimal hop count with the load of its Valiant first hop times the Valiant
//!   hop count, and goes the cheaper way. Minimal packets travel on the phase-1 class (a
//!   Valiant route whose intermediate is the source), so the VC rule is Valiant's.
//! - **DAL**: in every unaligned dimension a packet may go straight to the destination's
//!   coordinate or, while it still sits at its source's coordinate there, deroute once to
//!   any other coordinate of that line; dimensions are taken in any order. A deroute is
//!   offered only when the minimal hop of that dimension is loaded more than twice as much
//!   as the deroute. Adaptive hops use VCs 1..; VC 0 is a dimension-order escape channel
//!   (Duato), whose sub-network alone is acyclic.
//!
//! All state a decision needs is in the request (source, destination, salt, input VC), so
//! the deadlock analysis can explore every route; without load information (the analysis,
//! the flow model) UGAL and DAL offer the union of their choices.

use super::{Candidate, Request, Routing};
use crate::topology::hyperx::HyperX;

/// Which non-minimal routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Valiant: always through a random intermediate switch.
    Valiant,
    /// UGAL-L: minimal or Valiant, decided at the source from local queue loads.
    Ugal,
    /// DAL: per-dimension deroutes when the minimal hop is congested; DOR escape on VC 0.
    Dal,
}

/// A load difference below this many phits never makes a packet leave its minimal path
/// (one maximum-size packet in the input-queued model: a single queued packet is noise).
const THRESHOLD_PACKETS: u32 = 1;

/// Valiant, UGAL-L or DAL on one HyperX.
pub struct HyperxNonMinimal {
    h: HyperX,
    vcs: usize,
    mode: Mode,
    coords: Vec<u32>,
    threshold: u32,
}

impl HyperxNonMinimal {
    /// The routing `mode` on `h` with `vcs` VCs (at least 2, checked by the caller);
    /// `max_packet_phits` sets the UGAL/DAL threshold.
    pub fn new(h: &HyperX, vcs: usize, mode: Mode, max_packet_phits: u32) -> Self {
        let coords = (0..h.switches()).flat_map(|s| h.coordinates(s)).map(|c| c as u32).collect();
        HyperxNonMinimal { h: h.clone(), vcs, mode, coords, threshold: THRESHOLD_PACKETS * max_packet_phits }
    }

    fn at(&self, switch: usize, dim: usize) -> usize {
        self.coords[switch * self.h.dims.len() + dim] as usize
    }

    /// Switch-to-switch hops between two switches (unaligned dimensions).
    fn hops(&self, a: usize, b: usize) -> u32 {
        (0..self.h.dims.len()).filter(|&i| self.at(a, i) != self.at(b, i)).count() as u32
    }

    /// The K parallel ports from `switch` to coordinate `to` along `dim` (≠ its own).
    fn ports_to(&self, switch: usize, dim: usize, to: usize) -> impl Iterator<Item = usize> + '_ {
        let s = self.h.dims[dim];
        let offset = (to + s - self.at(switch, dim)) % s;
        (0..self.h.link_multiplicity).map(move |c| self.h.port(dim, offset, c))
    }

    /// The dimension-order ports from `switch` towards switch `target` (≠ `switch`).
    fn dor_ports(&self, switch: usize, target: usize) -> impl Iterator<Item = usize> + '_ {
        let dim = (0..self.h.dims.len()).find(|&i| self.at(switch, i) != self.at(target, i)).unwrap_or(0);
        self.ports_to(switch, dim, self.at(target, dim))
    }

    /// VCs of Valiant phase `phase` (0: lower half, 1: upper half).
    fn class(&self, phase: usize) -> std::ops::Range<usize> {
        let half = self.vcs / 2;
        if phase == 0 {
            0..half
        } else {
            half..self.vcs
        }
    }

    fn eject(&self, req: &Request, out: &mut Vec<Candidate>) {
        let port = self.h.network_ports() + req.dst % self.h.terminals_per_switch;
        out.extend((0..self.vcs).map(|vc| Candidate::new(port, vc)));
    }

    fn push_dor(&self, switch: usize, target: usize, phase: usize, out: &mut Vec<Candidate>) {
        for p in self.dor_ports(switch, target) {
            out.extend(self.class(phase).map(|vc| Candidate::new(p, vc)));
        }
    }

    /// The intermediate switch of a packet (Valiant and UGAL).
    fn intermediate(&self, req: &Request) -> usize {
        req.salt as usize % self.h.switches()
    }

    /// Valiant and UGAL. `choose` is `None` for the union of UGAL's options, or the loads
    /// of the switch's output ports for UGAL-L's decision.
    fn route_two_phase(&self, req: &Request, load: Option<&dyn Fn(usize) -> u32>, out: &mut Vec<Candidate>) {
        let t = self.h.terminals_per_switch;
        let (cur, src_sw, dst_sw) = (req.switch, req.src / t, req.dst / t);
        let inter = self.intermediate(req);
        let at_source = req.in_port >= self.h.network_ports();
        if at_source {
            if cur == dst_sw {
                return self.eject(req, out);
            }
            // A Valiant route through the source or destination switch is minimal.
            if inter == src_sw || inter == dst_sw {
                return self.push_dor(cur, dst_sw, 1, out);
            }
            if self.mode == Mode::Valiant {
                return self.push_dor(cur, inter, 0, out);
            }
            match load {
                None => {
                    self.push_dor(cur, dst_sw, 1, out);
                    self.push_dor(cur, inter, 0, out);
                }
                Some(load) => {
                    let q_min = self.dor_ports(cur, dst_sw).map(load).min().unwrap_or(0);
                    let q_val = self.dor_ports(cur, inter).map(load).min().unwrap_or(0);
                    let h_min = self.hops(cur, dst_sw);
                    let h_val = self.hops(cur, inter) + self.hops(inter, dst_sw);
                    if q_min * h_min <= q_val * h_val + self.threshold {
                        self.push_dor(cur, dst_sw, 1, out);
                    } else {
                        self.push_dor(cur, inter, 0, out);
                    }
                }
            }
            return;
        }
        let phase0 = self.class(0).contains(&req.in_vc) && cur != inter;
        if phase0 {
            self.push_dor(cur, inter, 0, out);
        } else if cur == dst_sw {
            self.eject(req, out);
        } else {
            self.push_dor(cur, dst_sw, 1, out);
        }
    }

    /// DAL. Without `load` every permitted deroute is offered.
    fn route_dal(&self, req: &Request, load: Option<&dyn Fn(usize) -> u32>, out: &mut Vec<Candidate>) {
        let t = self.h.terminals_per_switch;
        let (cur, src_sw, dst_sw) = (req.switch, req.src / t, req.dst / t);
        if cur == dst_sw {
            return self.eject(req, out);
        }
        for i in (0..self.h.dims.len()).filter(|&i| self.at(cur, i) != self.at(dst_sw, i)) {
            let target = self.at(dst_sw, i);
            let may_deroute = self.at(cur, i) == self.at(src_sw, i) && self.h.dims[i] > 2;
            let others = || (0..self.h.dims[i]).filter(move |&c| c != target && c != self.at(cur, i));
            let deroute = match (may_deroute, load) {
                (false, _) => None,
                (true, None) => Some(None),
                (true, Some(load)) => {
                    let q_min = self.ports_to(cur, i, target).map(load).min().unwrap_or(0);
                    let best = others().map(|c| (self.ports_to(cur, i, c).map(load).min().unwrap_or(0), c)).min();
                    // Two hops instead of one in this dimension: deroute only when that is cheaper.
                    best.filter(|&(q, _)| q_min > 2 * q + self.threshold).map(|(_, c)| Some(c))
                }
            };
            match deroute {
                None => {
                    for p in self.ports_to(cur, i, target) {
                        out.extend((1..self.vcs).map(|vc| Candidate::new(p, vc)));
                    }
                }
                Some(only) => {
                    let coords: Vec<usize> = match only {
                        Some(c) => vec![c],
                        None => std::iter::once(target).chain(others()).collect(),
                    };
                    for c in coords {
                        for p in self.ports_to(cur, i, c) {
                            out.extend((1..self.vcs).map(|vc| Candidate::new(p, vc)));
                        }
                    }
                }
            }
        }
        for p in self.dor_ports(cur, dst_sw) {
            out.push(Candidate { port: p as u16, vc: 0, escape: true, bubble: false });
        }
    }
}

impl Routing for HyperxNonMinimal {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Valiant => "hyperx-valiant",
            Mode::Ugal => "hyperx-ugal",
            Mode::Dal => "hyperx-dal",
        }
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        match self.mode {
            Mode::Dal => self.route_dal(req, None, out),
            _ => self.route_two_phase(req, None, out),
        }
    }

    fn reads_load(&self) -> bool {
        true
    }

    fn route_loaded(&self, req: &Request, load: &dyn Fn(usize) -> u32, out: &mut Vec<Candidate>) {
        match self.mode {
            Mode::Dal => self.route_dal(req, Some(load), out),
            _ => self.route_two_phase(req, Some(load), out),
        }
    }

    fn salts(&self) -> u32 {
        match self.mode {
            Mode::Dal => 1,
            _ => self.h.switches() as u32,
        }
    }
}
