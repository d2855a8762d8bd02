//! Mesh and torus routings: dimension order with a dateline per ring (two VC classes),
//! and paper 002's bubble escape channel with fully adaptive minimal routing (Duato).

use super::{Candidate, Request, Routing};
use crate::topology::torus::Torus;

/// The facts the torus routings need: the ring sizes, and how a switch's number encodes
/// its coordinates.
pub(super) struct Grid {
    pub(super) dims: Vec<usize>,
    pub(super) wrap: bool,
    pub(super) terminals_per_switch: usize,
    /// Per dimension: its ring size and the product of the sizes before it (switch numbers
    /// are mixed-radix numbers, first dimension fastest).
    radix: Vec<(u32, u32)>,
}

impl Grid {
    pub(super) fn new(t: &Torus) -> Self {
        let radix =
            (0..t.dims.len()).map(|i| (t.dims[i] as u32, t.dims[..i].iter().product::<usize>() as u32)).collect();
        Grid { dims: t.dims.clone(), wrap: t.wrap, terminals_per_switch: t.terminals_per_switch, radix }
    }

    /// Coordinate `dim` of `switch`, computed rather than looked up: on a large torus a
    /// table of coordinates is one more cache miss per routing decision (two divisions cost
    /// far less).
    pub(super) fn at(&self, switch: usize, dim: usize) -> usize {
        let (k, stride) = self.radix[dim];
        (switch as u32 / stride % k) as usize
    }

    /// Port of the destination terminal on its switch.
    pub(super) fn eject_port(&self, dst: usize) -> usize {
        2 * self.dims.len() + dst % self.terminals_per_switch
    }

    /// Minimal directions along `dim` from `cur` towards `dst` (+ is `true`); both when a
    /// torus offset is exactly half the ring.
    pub(super) fn directions(&self, dim: usize, cur: usize, dst: usize) -> (bool, bool) {
        if !self.wrap {
            return (dst > cur, dst < cur);
        }
        let k = self.dims[dim];
        let off = (dst + k - cur) % k;
        (off > 0 && 2 * off <= k, off > 0 && 2 * off >= k)
    }

    /// The part minimal adaptive routings with a DOR escape channel share: at the
    /// destination switch, its terminal's port on every VC below `vcs`; elsewhere, every
    /// minimal port on each VC of `adaptive` (the fully adaptive candidates), and the DOR
    /// step the escape channel takes, returned for the caller to add it.
    pub(super) fn minimal_adaptive(
        &self,
        req: &Request,
        adaptive: std::ops::Range<usize>,
        vcs: usize,
        out: &mut Vec<Candidate>,
    ) -> Option<(usize, bool)> {
        let dst_switch = req.dst / self.terminals_per_switch;
        let Some(step) = self.dor_step(req.switch, dst_switch, req.salt) else {
            out.extend((0..vcs).map(|vc| Candidate::new(self.eject_port(req.dst), vc)));
            return None;
        };
        for i in 0..self.dims.len() {
            let (p, m) = self.directions(i, self.at(req.switch, i), self.at(dst_switch, i));
            for (ok, dir) in [(p, true), (m, false)] {
                if ok {
                    out.extend(adaptive.clone().map(|vc| Candidate::new(Torus::port(i, dir), vc)));
                }
            }
        }
        Some(step)
    }

    /// First dimension where the packet is not yet aligned, with the DOR direction; a
    /// half-ring offset goes + when bit `dim` of the packet's salt is set.
    pub(super) fn dor_step(&self, switch: usize, dst_switch: usize, salt: u32) -> Option<(usize, bool)> {
        (0..self.dims.len()).find(|&i| self.at(switch, i) != self.at(dst_switch, i)).map(|i| {
            let (plus, minus) = self.directions(i, self.at(switch, i), self.at(dst_switch, i));
            (i, if plus && minus { (salt >> (i % 32)) & 1 == 1 } else { plus })
        })
    }
}

/// Dimension-order routing. On a mesh every VC is legal. On a torus the VC class (odd or
/// even VCs) follows one of two rules that break each ring's cycle:
/// - dateline (`dor`): class 1 from the hop that crosses the ring's wrap-around link on,
///   class 0 before;
/// - upper/lower (`dor-upper-lower`, paper 003 §3.1): class 1 while the destination
///   coordinate in the current dimension is above the current one, class 0 otherwise. A
///   packet that must wrap goes on class 0 up to the wrap-around link (+ direction) or class
///   1 up to it (−) and changes class after it, so neither class's channels close a ring.
pub struct DimensionOrder {
    grid: Grid,
    vcs: usize,
    upper_lower: bool,
}

impl DimensionOrder {
    /// DOR with the dateline rule on the given mesh or torus.
    pub fn new(t: &Torus, vcs: usize) -> Self {
        DimensionOrder { grid: Grid::new(t), vcs, upper_lower: false }
    }

    /// DOR with the upper/lower rule on the given torus.
    pub fn upper_lower(t: &Torus, vcs: usize) -> Self {
        DimensionOrder { grid: Grid::new(t), vcs, upper_lower: true }
    }
}

impl Routing for DimensionOrder {
    fn name(&self) -> &'static str {
        if self.upper_lower {
            "dor-upper-lower"
        } else {
            "dor"
        }
    }

    fn salts(&self) -> u32 {
        1 << self.grid.dims.len().min(31)
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let g = &self.grid;
        let t = g.terminals_per_switch;
        let Some((dim, plus)) = g.dor_step(req.switch, req.dst / t, req.salt) else {
            out.extend((0..self.vcs).map(|vc| Candidate::new(g.eject_port(req.dst), vc)));
            return;
        };
        let port = Torus::port(dim, plus);
        if !g.wrap {
            out.extend((0..self.vcs).map(|vc| Candidate::new(port, vc)));
            return;
        }
        let class = if self.upper_lower {
            usize::from(g.at(req.dst / t, dim) > g.at(req.switch, dim))
        } else {
            // DOR leaves a dimension's coordinate untouched until its turn: the packet
            // entered this ring at the source's coordinate.
            let (k, cur, start) = (g.dims[dim], g.at(req.switch, dim), g.at(req.src / t, dim));
            usize::from(if plus { cur < start || cur == k - 1 } else { cur > start || cur == 0 })
        };
        out.extend((class..self.vcs).step_by(2).map(|vc| Candidate::new(port, vc)));
    }
}

/// Paper 002's torus routing: VC 0 is an escape channel routed in dimension order with
/// bubble flow control (a packet entering a ring needs room for two packets, so a ring is
/// never full); VCs 1.. are fully adaptive over every minimal direction.
pub struct BubbleAdaptive {
    grid: Grid,
    vcs: usize,
}

impl BubbleAdaptive {
    /// Bubble + adaptive routing on the given torus or mesh.
    pub fn new(t: &Torus, vcs: usize) -> Self {
        BubbleAdaptive { grid: Grid::new(t), vcs }
    }
}

impl Routing for BubbleAdaptive {
    fn name(&self) -> &'static str {
        "bubble-adaptive"
    }

    fn salts(&self) -> u32 {
        1 << self.grid.dims.len().min(31)
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let g = &self.grid;
        let Some((dim, plus)) = g.minimal_adaptive(req, 1..self.vcs, self.vcs, out) else { return };
        // Staying on the escape channel of the same ring needs one packet of room; every
        // other way onto it (injection, turning, leaving an adaptive VC) needs two.
        let continuing = req.in_vc == 0 && req.in_port == Torus::port(dim, !plus);
        out.push(Candidate { port: Torus::port(dim, plus) as u16, vc: 0, escape: true, bubble: g.wrap && !continuing });
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;
    use crate::topology::torus::Torus;

    /// The computed coordinates are the topology's, on rings of different sizes.
    #[test]
    fn coordinates_follow_the_topology() {
        let t = Torus::new("torus:3x5x4", vec![3, 5, 4], true, 1).unwrap();
        let g = Grid::new(&t);
        for s in 0..t.switches() {
            let c: Vec<usize> = (0..3).map(|d| g.at(s, d)).collect();
            assert_eq!(c, t.coordinates(s), "switch {s}");
        }
    }
}
