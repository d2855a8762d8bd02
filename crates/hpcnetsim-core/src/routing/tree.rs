//! Tree routing (paper 000 §4.1, paper 004 Fig. 19): climb to a nearest common ancestor,
//! then descend along the only path. The up-phase is adaptive (any up-port, chosen by the
//! selection policy: most credits, ties at random) or deterministic (destination mod k);
//! the down-phase is always deterministic.

use super::{Candidate, Request, Routing};
use crate::topology::tree::Xgft;

/// Up*/down* minimal routing on an XGFT.
pub struct TreeRouting {
    adaptive: bool,
    vcs: usize,
    /// Level (1 = leaf) and subtree index of every switch.
    place: Vec<(u8, u32)>,
    /// m_l per level (index l).
    m: Vec<usize>,
    /// w_{l+1} per level (index l), 0 at the top.
    up: Vec<usize>,
    /// P_l = m_1···m_l: terminals below a level-l subtree (index l).
    below: Vec<usize>,
    /// w_2···w_l: switches per level-l subtree (index l).
    per_subtree: Vec<usize>,
}

impl TreeRouting {
    /// Routing tables of coordinates for every switch of `x`.
    pub fn new(x: &Xgft, vcs: usize, adaptive: bool) -> Self {
        let h = x.height();
        let mut below = vec![1usize];
        let mut per_subtree = vec![1usize, 1];
        for l in 1..=h {
            below.push(below[l - 1] * x.m[l - 1]);
            if l >= 2 {
                per_subtree.push(per_subtree[l - 1] * x.w[l - 1]);
            }
        }
        let mut place = Vec::new();
        for (l, &size) in x.switches_per_level().iter().enumerate() {
            let l = l + 1;
            place.extend((0..size).map(|i| (l as u8, (i / per_subtree[l]) as u32)));
        }
        let m = std::iter::once(0).chain(x.m.iter().copied()).collect();
        let up = std::iter::once(0).chain((1..=h).map(|l| if l < h { x.w[l] } else { 0 })).collect();
        TreeRouting { adaptive, vcs, place, m, up, below, per_subtree }
    }
}

impl Routing for TreeRouting {
    fn name(&self) -> &'static str {
        if self.adaptive {
            "tree-adaptive"
        } else {
            "tree-deterministic"
        }
    }

    fn prefetch(&self, switch: usize) {
        crate::perf::prefetch::prefetch(&self.place, switch);
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let (l, subtree) = self.place[req.switch];
        let l = l as usize;
        let d = req.dst;
        if d / self.below[l] == subtree as usize {
            // Descending: the destination's digit a_l names the down-port.
            let port = (d / self.below[l - 1]) % self.m[l];
            out.extend((0..self.vcs).map(|vc| Candidate::new(port, vc)));
        } else if self.adaptive {
            for b in 0..self.up[l] {
                out.extend((0..self.vcs).map(|vc| Candidate::new(self.m[l] + b, vc)));
            }
        } else {
            // d-mod-k: the destination's digits spread the up-ports level by level.
            let b = (d / self.per_subtree[l]) % self.up[l];
            out.extend((0..self.vcs).map(|vc| Candidate::new(self.m[l] + b, vc)));
        }
    }
}
