//! HyperX routings: dimension order (one hop per unaligned dimension, over any of the K
//! parallel links), and minimal adaptive over the unaligned dimensions with a
//! dimension-order escape channel on VC 0 (Duato).

use super::{Candidate, Request, Routing};
use crate::topology::hyperx::HyperX;

/// Minimal HyperX routing, dimension order or adaptive.
pub struct HyperxRouting {
    h: HyperX,
    vcs: usize,
    adaptive: bool,
    coords: Vec<u32>,
}

impl HyperxRouting {
    /// Routing on `h`; `adaptive` needs at least two VCs (checked by the caller).
    pub fn new(h: &HyperX, vcs: usize, adaptive: bool) -> Self {
        let coords = (0..h.switches()).flat_map(|s| h.coordinates(s)).map(|c| c as u32).collect();
        HyperxRouting { h: h.clone(), vcs, adaptive, coords }
    }

    fn at(&self, switch: usize, dim: usize) -> usize {
        self.coords[switch * self.h.dims.len() + dim] as usize
    }

    /// The K parallel ports from `switch` towards the destination's position along `dim`.
    fn ports(&self, switch: usize, dst_switch: usize, dim: usize) -> impl Iterator<Item = usize> + '_ {
        let s = self.h.dims[dim];
        let offset = (self.at(dst_switch, dim) + s - self.at(switch, dim)) % s;
        (0..self.h.link_multiplicity).map(move |c| self.h.port(dim, offset, c))
    }
}

impl Routing for HyperxRouting {
    fn name(&self) -> &'static str {
        if self.adaptive {
            "hyperx-adaptive"
        } else {
            "hyperx-dor"
        }
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let t = self.h.terminals_per_switch;
        let dst_switch = req.dst / t;
        let unaligned: Vec<usize> =
            (0..self.h.dims.len()).filter(|&i| self.at(req.switch, i) != self.at(dst_switch, i)).collect();
        let Some(&first) = unaligned.first() else {
            let port = self.h.network_ports() + req.dst % t;
            out.extend((0..self.vcs).map(|vc| Candidate::new(port, vc)));
            return;
        };
        if !self.adaptive {
            for p in self.ports(req.switch, dst_switch, first) {
                out.extend((0..self.vcs).map(|vc| Candidate::new(p, vc)));
            }
            return;
        }
        for &i in &unaligned {
            for p in self.ports(req.switch, dst_switch, i) {
                out.extend((1..self.vcs).map(|vc| Candidate::new(p, vc)));
            }
        }
        for p in self.ports(req.switch, dst_switch, first) {
            out.push(Candidate { port: p as u16, vc: 0, escape: true, bubble: false });
        }
    }
}
