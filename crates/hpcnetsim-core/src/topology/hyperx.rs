//! HyperX (paper 001 §2.2): switches on an n-dimensional integer lattice, every line of
//! every dimension fully connected, T terminals per switch, K parallel links per
//! connected switch pair.
//!
//! Switch index = lattice position in mixed radix, dimension 0 least significant. Ports
//! are numbered by *offset*, not by absolute neighbour: port `base_i + (d−1)·K + c` of
//! dimension `i` leads to the switch `d` steps further along that dimension (mod S_i),
//! copy `c`. Offsets keep port numbers invariant under translation. Terminal ports follow.

use super::lattice_cut::{lattice_bisection, Line};
use super::radix::{digits, from_digits};
use super::symmetry::Symmetry;
use super::wiring::{check_size, wide_product, Builder, Wiring};
use crate::error::Result;

/// A HyperX with sizes S_i, T terminals per switch and K links per switch pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HyperX {
    /// Switches along each dimension.
    pub dims: Vec<usize>,
    /// Terminals per switch.
    pub terminals_per_switch: usize,
    /// Parallel links between two switches of one line.
    pub link_multiplicity: usize,
}

impl HyperX {
    /// Validates the size and returns the family.
    pub fn new(spec: &str, dims: Vec<usize>, t: usize, k: usize) -> Result<Self> {
        let switches = wide_product(dims.iter().copied());
        let ports: u128 = dims.iter().map(|&d| (d as u128 - 1) * k as u128).sum::<u128>() + t as u128;
        check_size(spec, switches, switches.saturating_mul(ports))?;
        Ok(HyperX { dims, terminals_per_switch: t, link_multiplicity: k })
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.dims.iter().product()
    }

    /// Lattice position of switch `s`.
    pub fn coordinates(&self, s: usize) -> Vec<usize> {
        digits(s, &self.dims)
    }

    /// First port of dimension `dim`.
    fn base(&self, dim: usize) -> usize {
        self.dims[..dim].iter().map(|&d| (d - 1) * self.link_multiplicity).sum()
    }

    /// Port of dimension `dim` towards offset `d` (1..S_i), copy `c`.
    pub fn port(&self, dim: usize, offset: usize, copy: usize) -> usize {
        self.base(dim) + (offset - 1) * self.link_multiplicity + copy
    }

    /// Number of network ports of a switch (terminal ports start here).
    pub fn network_ports(&self) -> usize {
        self.base(self.dims.len())
    }

    pub(crate) fn build(&self) -> Wiring {
        let t = self.terminals_per_switch;
        let net = self.network_ports();
        let mut b = Builder::new(std::iter::repeat_n(net + t, self.switches()));
        for s in 0..self.switches() {
            let x = self.coordinates(s);
            for (i, &k) in self.dims.iter().enumerate() {
                // Each pair is linked once, from the switch with the smaller coordinate.
                for d in 1..k - x[i] {
                    let mut y = x.clone();
                    y[i] = x[i] + d;
                    let other = from_digits(&y, &self.dims);
                    for c in 0..self.link_multiplicity {
                        b.link(s, self.port(i, d, c), other, self.port(i, k - d, c));
                    }
                }
            }
            for p in 0..t {
                b.attach_terminal(s, net + p);
            }
        }
        let symmetry = Symmetry::translations(vec![0], vec![0; self.switches()]);
        b.finish(Some(symmetry))
    }

    /// Split one dimension in halves: each of its S/S_i lines (a complete graph on S_i
    /// switches) loses ⌊S_i/2⌋·⌈S_i/2⌉·K links; an odd S_i's middle plane is split in turn
    /// (`lattice_cut.rs`). The best dimension wins.
    pub fn bisection_channels(&self) -> u64 {
        let k = self.link_multiplicity as u64;
        let lines: Vec<Line> =
            self.dims.iter().map(|&d| Line { size: d, cut_per_line: ((d / 2) * d.div_ceil(2)) as u64 * k }).collect();
        lattice_bisection(&lines, self.terminals_per_switch)
    }
}
