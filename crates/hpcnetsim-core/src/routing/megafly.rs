//! Minimal routes inside a Megafly (Dragonfly+) group, for the dragonfly routings
//! (`dragonfly.rs`): a group is a two-level fat-tree, every leaf linked to every spine, so
//! a leaf reaches a spine in one hop and another leaf up through any spine, and a spine
//! reaches a leaf in one hop and another spine down through any leaf. The global links sit
//! on the spines: a packet climbs from its leaf to a spine holding a link to the group it
//! heads for, lands on a spine of that group and descends, or in an intermediate group
//! descends to any leaf and climbs to a spine holding the link onwards.

use super::dragonfly::Groups;
use crate::topology::megafly::Megafly;

impl Groups for Megafly {
    fn num_groups(&self) -> usize {
        self.groups
    }

    fn group(&self, s: usize) -> usize {
        Megafly::group(self, s)
    }

    fn links_per_group_pair(&self) -> usize {
        Megafly::links_per_group_pair(self)
    }

    fn local_hops(&self, a: usize, b: usize) -> u32 {
        match (a == b, self.is_spine(a) == self.is_spine(b)) {
            (true, _) => 0,
            (false, true) => 2,
            (false, false) => 1,
        }
    }

    fn local_ports(&self, cur: usize, to: usize, mut f: impl FnMut(usize)) {
        let n = self.group_size();
        match (self.is_spine(cur), self.is_spine(to)) {
            // Up through every spine, or to the one wanted.
            (false, false) => (0..self.spines).for_each(|j| f(self.p + j)),
            (false, true) => f(self.p + to % n - self.leaves),
            // Down to the leaf wanted, or through every leaf.
            (true, false) => f(to % n),
            (true, true) => (0..self.leaves).for_each(&mut f),
        }
    }

    /// Always: the links a route heads for are all one hop up from a leaf, and from a spine
    /// either its own or two hops (down, up) for every other, so no route asks for a turn
    /// its class does not already take.
    fn continues(&self, _cur: usize, _in_port: usize, _to: usize) -> bool {
        true
    }

    fn is_terminal_port(&self, s: usize, port: usize) -> bool {
        !self.is_spine(s) && port < self.p
    }
}
