//! Minimal routes inside a Cray Cascade group, for the dragonfly routings
//! (`dragonfly.rs`): a group is a 2D all-to-all of rows (green links) and columns (black
//! links), and a minimal route takes its row hop first, then its column hop (dimension
//! order, as the group's own deadlock freedom needs within one VC class: a column hop is
//! never followed by a row hop of the same class). Every parallel copy of a link is offered.
//!
//! With dimension order, the nearest global links the dragonfly routings head for stay the
//! nearest at every switch of the way: after a row hop the switch is in the column of the
//! links it heads for (any other link of its row would have been nearer from the start), and
//! a column hop ends at the link's switch.

use super::dragonfly::Groups;
use crate::topology::cascade::Cascade;

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

    fn is_terminal_port(&self, _s: usize, port: usize) -> bool {
        port >= self.network_ports()
    }
}
