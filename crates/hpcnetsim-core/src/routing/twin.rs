//! nD twin torus routings (paper 003 §2.2 and §3.1).
//!
//! - DORT: dimension order d_0 → d_{n−1}; when the port of the next hop sits on the other
//!   card of the node, the packet first crosses the internal link. External links use two VC
//!   classes with a dateline per ring (even VCs before the wrap-around, odd after). The
//!   internal link separates its three uses on VCs 0..4 (needs 4 VCs): to the destination PE
//!   on the other card (0), to a dimension owned by the other card (1), and travelling along
//!   d_m, whose two ports sit on different cards (2 before the dateline of d_m, 3 after).
//! - TS-DOR: packets from PE0 go d_0 → d_{n−1} on VCs {0, 1}, packets from PE1 go
//!   d_{n−1} → d_0 on VCs {2, 3} (the paper's traffic classes). Within a class the upper VC
//!   is used when the destination's coordinate in the current dimension is above the current
//!   one, the lower otherwise; on the internal link the same rule applies while travelling
//!   along d_m, and otherwise the upper VC from card 0 to card 1 and the lower from 1 to 0.
//!   When d_m's offset is exactly half its ring, PE0's packets take d_m^− and PE1's d_m^+,
//!   which keeps them on their own card.

use super::{Candidate, Request, Routing};
use crate::topology::twin_torus::TwinTorus;

/// Which twin-torus routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TwinAlgorithm {
    /// Dimension order with internal-link VCs.
    Dort,
    /// Twin-source dimension order.
    TsDor,
}

/// DORT or TS-DOR on an nD twin torus.
pub struct TwinRouting {
    t: TwinTorus,
    algorithm: TwinAlgorithm,
    coords: Vec<u32>,
}

impl TwinRouting {
    /// The routing on `t` (both need 4 VCs; checked by the caller).
    pub fn new(t: &TwinTorus, algorithm: TwinAlgorithm) -> Self {
        let coords =
            (0..t.nodes()).flat_map(|n| crate::topology::radix::digits(n, &t.dims)).map(|c| c as u32).collect();
        TwinRouting { t: t.clone(), algorithm, coords }
    }

    fn at(&self, node: usize, dim: usize) -> usize {
        self.coords[node * self.t.dims.len() + dim] as usize
    }

    /// The next dimension to correct, in the packet's order, and its direction.
    fn step(&self, node: usize, src_card: usize, dst_node: usize, salt: u32) -> Option<(usize, bool)> {
        let n = self.t.dims.len();
        let reverse = self.algorithm == TwinAlgorithm::TsDor && src_card == 1;
        let mut order = (0..n).map(|i| if reverse { n - 1 - i } else { i });
        let dim = order.find(|&i| self.at(node, i) != self.at(dst_node, i))?;
        let k = self.t.dims[dim];
        let off = (self.at(dst_node, dim) + k - self.at(node, dim)) % k;
        let plus = if 2 * off == k {
            if dim == self.t.middle() {
                // Tie along d_m: stay on the card that owns the half the packet can use
                // (paper 003 §3.1).
                src_card == 1
            } else {
                // Other ties go either way, per packet (bit `dim` of its salt), as DOR on tori
                // does: always + would leave the − links of 2-node rings idle and load the +
                // side of 4-node rings three times the − side.
                (salt >> (dim % 32)) & 1 == 1
            }
        } else {
            2 * off < k
        };
        Some((dim, plus))
    }
}

impl Routing for TwinRouting {
    fn name(&self) -> &'static str {
        match self.algorithm {
            TwinAlgorithm::Dort => "dort",
            TwinAlgorithm::TsDor => "ts-dor",
        }
    }

    fn salts(&self) -> u32 {
        1 << self.t.dims.len().min(31)
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let (node, card) = (req.switch / 2, req.switch % 2);
        let (dst_node, dst_card) = (req.dst / 2, req.dst % 2);
        let src_card = req.src % 2;
        let internal = self.t.internal_port();
        let single = |port: usize, vc: usize, out: &mut Vec<Candidate>| out.push(Candidate::new(port, vc));
        let Some((dim, plus)) = self.step(node, src_card, dst_node, req.salt) else {
            if card == dst_card {
                // Any VC of the class may eject.
                let class = if self.algorithm == TwinAlgorithm::TsDor { 2 * src_card } else { 0 };
                single(self.t.pe_port(), class, out);
            } else {
                let vc = match self.algorithm {
                    TwinAlgorithm::Dort => 0,
                    TwinAlgorithm::TsDor => 2 * src_card + card, // 0 → 1 upper, 1 → 0 lower
                };
                single(internal, vc, out);
            }
            return;
        };
        let (port_card, port) = self.t.port(dim, plus);
        let (k, cur, dst) = (self.t.dims[dim], self.at(node, dim), self.at(dst_node, dim));
        let vc = match self.algorithm {
            TwinAlgorithm::Dort => {
                let start = self.at(req.src / 2, dim);
                let wrapped = if plus { cur < start || cur == k - 1 } else { cur > start || cur == 0 };
                if port_card == card {
                    usize::from(wrapped)
                } else if dim == self.t.middle() {
                    // The internal hop precedes this node's external hop: it counts as
                    // wrapped only if an earlier hop already crossed the wrap-around link.
                    2 + usize::from((plus && cur < start) || (!plus && cur > start))
                } else {
                    1
                }
            }
            TwinAlgorithm::TsDor => {
                let upper = if port_card == card || dim == self.t.middle() { dst > cur } else { card == 0 };
                2 * src_card + usize::from(!upper)
            }
        };
        single(if port_card == card { port } else { internal }, vc, out);
    }
}
