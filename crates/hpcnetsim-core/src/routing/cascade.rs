//! Minimal routes inside a Cray Cascade group, for the dragonfly routings
//! (`dragonfly.rs`): a group is a 2D all-to-all of rows (green links) and columns (black
//! links), and a minimal route takes its row hop first, then its column hop (dimension
//! order, as the group's own deadlock freedom needs within one VC class: a column hop is
//! never followed by a row hop of the same class). Every parallel copy of a link is offered.
//!
//! After a row hop a packet may still take a column hop in its class, after a column hop
//! none: the dragonfly routings choose again at every switch only among the global links
//! that it may still reach (`Groups::continues`).

use super::dragonfly::Groups;
use crate::topology::cascade::{Cascade, LinkKind};

impl Groups for Cascade {
    fn num_groups(&self) -> usize {
        self.groups
    }

    fn group(&self, s: usize) -> usize {
        Cascade::group(self, s)
    }

    fn links_per_group_pair(&self) -> usize {
        self.global
    }

    fn local_hops(&self, a: usize, b: usize) -> u32 {
        let (ra, ca) = ((a % self.group_size()) / self.cols, a % self.cols);
        let (rb, cb) = ((b % self.group_size()) / self.cols, b % self.cols);
        u32::from(ra != rb) + u32::from(ca != cb)
    }

    fn local_ports(&self, cur: usize, to: usize, mut f: impl FnMut(usize)) {
        let (r, c) = ((cur % self.group_size()) / self.cols, cur % self.cols);
        let (rt, ct) = ((to % self.group_size()) / self.cols, to % self.cols);
        if c != ct {
            (0..self.green).for_each(|k| f(self.green_port(c, ct, k)));
        } else if r != rt {
            (0..self.black).for_each(|k| f(self.black_port(r, rt, k)));
        }
    }

    fn continues(&self, cur: usize, in_port: usize, to: usize) -> bool {
        match self.port_kind(in_port) {
            Some(LinkKind::Green) => to % self.cols == cur % self.cols,
            Some(LinkKind::Black) => to == cur,
            _ => true,
        }
    }

    fn is_terminal_port(&self, _s: usize, port: usize) -> bool {
        port >= self.network_ports()
    }
}
