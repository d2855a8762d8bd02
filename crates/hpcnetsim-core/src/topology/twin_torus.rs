//! The nD twin torus (nDT, paper 003 §2.2): an n-dimensional torus of nodes, each node
//! made of two (n+1)-port cards joined by an internal link, one processing element per
//! card. Ports follow Definition 2.2 (n odd): with m = (n−1)/2, card 0 holds dimensions
//! d_0..d_{m−1} and the port d_m^−, card 1 holds d_m^+ and d_{m+1}..d_{n−1}.
//!
//! Switch `2·node + card` is a card; terminal `2·node + card` is that card's PE. Card
//! ports: the two ports of each of its m full dimensions (+ then −, in dimension order),
//! then its port of d_m, then the internal link, then the PE.

use super::lattice_cut::{lattice_bisection, Line};
use super::radix::{digits, from_digits};
use super::symmetry::Symmetry;
use super::wiring::{check_size, wide_product, Builder, Wiring};
use crate::error::Result;

/// An nD twin torus with the given number of nodes per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwinTorus {
    /// Nodes along each dimension (n odd, n >= 3).
    pub dims: Vec<usize>,
}

impl TwinTorus {
    /// Validates the size and returns the family (the dimension count is checked by the
    /// spec parser).
    pub fn new(spec: &str, dims: Vec<usize>) -> Result<Self> {
        let nodes = wide_product(dims.iter().copied());
        check_size(spec, nodes.saturating_mul(2), nodes.saturating_mul(2 * (dims.len() + 2) as u128))?;
        Ok(TwinTorus { dims })
    }

    /// The middle dimension m = (n−1)/2, split between the two cards.
    pub fn middle(&self) -> usize {
        (self.dims.len() - 1) / 2
    }

    /// Number of nodes (half the number of cards).
    pub fn nodes(&self) -> usize {
        self.dims.iter().product()
    }

    /// Node coordinates followed by the card (0 or 1).
    pub fn coordinates(&self, s: usize) -> Vec<usize> {
        let mut c = digits(s / 2, &self.dims);
        c.push(s % 2);
        c
    }

    /// Card and port of dimension `dim` in direction + or −.
    pub fn port(&self, dim: usize, plus: bool) -> (usize, usize) {
        let m = self.middle();
        match dim.cmp(&m) {
            std::cmp::Ordering::Less => (0, 2 * dim + usize::from(!plus)),
            std::cmp::Ordering::Greater => (1, 2 * (dim - m - 1) + usize::from(!plus)),
            std::cmp::Ordering::Equal => (usize::from(plus), 2 * m),
        }
    }

    /// Port of the internal link on either card.
    pub fn internal_port(&self) -> usize {
        2 * self.middle() + 1
    }

    /// Port of the processing element on either card.
    pub fn pe_port(&self) -> usize {
        2 * self.middle() + 2
    }

    pub(crate) fn build(&self) -> Wiring {
        let nodes = self.nodes();
        let mut b = Builder::new(std::iter::repeat_n(self.pe_port() + 1, 2 * nodes));
        for node in 0..nodes {
            let x = digits(node, &self.dims);
            for (i, &k) in self.dims.iter().enumerate() {
                let mut y = x.clone();
                y[i] = (x[i] + 1) % k;
                let next = from_digits(&y, &self.dims);
                let (card_out, port_out) = self.port(i, true);
                let (card_in, port_in) = self.port(i, false);
                b.link(2 * node + card_out, port_out, 2 * next + card_in, port_in);
            }
            b.link(2 * node, self.internal_port(), 2 * node + 1, self.internal_port());
        }
        for card in 0..2 * nodes {
            b.attach_terminal(card, self.pe_port());
        }
        // Node translations preserve the card layout: two orbits, the two cards.
        let symmetry = Symmetry::translations(vec![0, 1], (0..2 * nodes).map(|s| (s % 2) as u32).collect());
        b.finish(Some(symmetry))
    }

    /// Cut the node torus across one dimension, both cards of a node on the same side:
    /// every ring of that dimension is cut twice; an odd dimension's middle plane of nodes
    /// (two terminals each) is split in turn (`lattice_cut.rs`). The best dimension wins.
    pub fn bisection_channels(&self) -> u64 {
        let lines: Vec<Line> = self.dims.iter().map(|&size| Line { size, cut_per_line: 2 }).collect();
        lattice_bisection(&lines, 2)
    }
}
