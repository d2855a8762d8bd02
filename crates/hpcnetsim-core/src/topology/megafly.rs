//! Megafly (Flajslik et al., ISC 2018), also Dragonfly+ (Shpiner, Haramaty, Eliad, Zdornov,
//! Gafni and Zahavi, HiPINEB 2017): a dragonfly whose groups are two-level fat-trees.
//! `groups` groups of `leaves` leaf routers, each with `p` terminals and a link to every one
//! of the group's `spines` spine routers, each spine with `h` global links to other groups.
//! The `spines·h` global links of a group are spread over the other groups, `m =
//! spines·h/(groups − 1)` per group pair (one per pair for `groups = spines·h + 1`, the
//! default and largest size). The papers' balanced router of radix k has `leaves = spines =
//! p = h = k/2`.
//!
//! Switch `group·(leaves + spines) + i` is leaf `i` of its group for `i < leaves`, spine
//! `i − leaves` otherwise; coordinates `[group, 0, leaf]` or `[group, 1, spine]`. Ports, down
//! first as in the trees: a leaf's `p` terminal ports, then an up-port to every spine (port
//! `p + j` to spine `j`); a spine's down-port to every leaf (port `i` to leaf `i`), then its
//! `h` global ports. Global port `k` of spine `j` is the group's global port `j·h + k`, in
//! slot `(j·h + k)/m` of the arrangement (`arrangement.rs`), as in the dragonfly.

use super::arrangement::Arrangement;
use super::balanced_cut::balancing_moves;
use super::symmetry::Symmetry;
use super::wiring::{check_size, Builder, Wiring};
use crate::error::{Error, Result};

/// A Megafly (Dragonfly+) network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Megafly {
    /// Number of groups.
    pub groups: usize,
    /// Leaf routers per group.
    pub leaves: usize,
    /// Spine routers per group.
    pub spines: usize,
    /// Terminals per leaf.
    pub p: usize,
    /// Global links per spine.
    pub h: usize,
    /// The global-link arrangement.
    pub arrangement: Arrangement,
}

impl Megafly {
    /// Validates the parameters (`groups` defaults to `spines·h + 1`) and the size.
    pub fn new(
        spec: &str,
        groups: Option<usize>,
        leaves: usize,
        spines: usize,
        p: usize,
        h: usize,
        arrangement: Arrangement,
    ) -> Result<Self> {
        let full = spines * h + 1;
        let g = groups.unwrap_or(full);
        if g < 2 || g > full || !(spines * h).is_multiple_of(g - 1) {
            let divisors: Vec<String> =
                (2..=full).filter(|&x| (spines * h).is_multiple_of(x - 1)).map(|x| x.to_string()).collect();
            return Err(Error::invalid(
                spec,
                "groups",
                g,
                format!(
                    "a number of groups with groups − 1 dividing spines·h = {} (every group pair gets the same number \
                     of global links): one of {}",
                    spines * h,
                    divisors.join(", ")
                ),
            ));
        }
        let f = Megafly { groups: g, leaves, spines, p, h, arrangement };
        let ports = (g * leaves * (p + spines) + g * spines * (leaves + h)) as u128;
        check_size(spec, f.switches() as u128, ports)?;
        Ok(f)
    }

    /// Routers per group.
    pub fn group_size(&self) -> usize {
        self.leaves + self.spines
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.groups * self.group_size()
    }

    /// Number of terminals.
    pub fn terminals(&self) -> usize {
        self.groups * self.leaves * self.p
    }

    /// Global links between every pair of groups.
    pub fn links_per_group_pair(&self) -> usize {
        self.spines * self.h / (self.groups - 1)
    }

    /// The group of switch `s`.
    pub fn group(&self, s: usize) -> usize {
        s / self.group_size()
    }

    /// Whether switch `s` is a spine.
    pub fn is_spine(&self, s: usize) -> bool {
        s % self.group_size() >= self.leaves
    }

    /// Leaf `i` of group `g`.
    pub fn leaf(&self, g: usize, i: usize) -> usize {
        g * self.group_size() + i
    }

    /// Spine `j` of group `g`.
    pub fn spine(&self, g: usize, j: usize) -> usize {
        g * self.group_size() + self.leaves + j
    }

    /// `[group, 0, leaf]` or `[group, 1, spine]` of switch `s`.
    pub fn coordinates(&self, s: usize) -> Vec<usize> {
        let (g, i) = (s / self.group_size(), s % self.group_size());
        if i < self.leaves {
            vec![g, 0, i]
        } else {
            vec![g, 1, i - self.leaves]
        }
    }

    /// Ports of switch `s`.
    pub fn ports(&self, s: usize) -> usize {
        if self.is_spine(s) {
            self.leaves + self.h
        } else {
            self.p + self.spines
        }
    }

    /// The group-level global port `j` of group `x` as `(switch, port)`.
    fn global_end(&self, x: usize, j: usize) -> (usize, usize) {
        (self.spine(x, j / self.h), self.leaves + j % self.h)
    }

    /// Calls `f(a, port a, b, port b)` once for every switch-to-switch link: the leaf-spine
    /// links of every group, then the global links.
    pub fn for_each_link(&self, mut f: impl FnMut(usize, usize, usize, usize)) {
        for x in 0..self.groups {
            for i in 0..self.leaves {
                for j in 0..self.spines {
                    f(self.leaf(x, i), self.p + j, self.spine(x, j), i);
                }
            }
        }
        self.arrangement.for_each_global(self.groups, self.links_per_group_pair(), |x, j, t, jt| {
            let (s, ps) = self.global_end(x, j);
            let (st, pt) = self.global_end(t, jt);
            f(s, ps, st, pt);
        });
    }

    pub(crate) fn build(&self) -> Wiring {
        let mut b = Builder::new((0..self.switches()).map(|s| self.ports(s)));
        self.for_each_link(|s, ps, t, pt| b.link(s, ps, t, pt));
        for x in 0..self.groups {
            for i in 0..self.leaves {
                for k in 0..self.p {
                    b.attach_terminal(self.leaf(x, i), k);
                }
            }
        }
        let n = self.group_size();
        let symmetry = self.arrangement.is_rotation_invariant().then(|| {
            Symmetry::translations((0..n as u32).collect(), (0..self.switches()).map(|s| (s % n) as u32).collect())
        });
        b.finish(symmetry)
    }

    /// Links cut between the switches `side(s) == true` and the others, plus the terminal
    /// links that balance the sides.
    fn cut(&self, side: impl Fn(usize) -> bool) -> u64 {
        let mut cut = 0u64;
        self.for_each_link(|s, _, t, _| cut += u64::from(side(s) != side(t)));
        let on_side = (0..self.switches()).filter(|&s| side(s) && !self.is_spine(s)).count() * self.p;
        cut + balancing_moves(self.terminals(), on_side)
    }

    /// The first `mid` groups and `k` leaves of group `mid` on one side, each spine of group
    /// `mid` on the side it has more links into (its leaves there and its global links to the
    /// groups there), and the terminal links that balance the sides.
    fn cut_with_middle(&self, mid: usize, k: usize) -> u64 {
        let local = |s: usize| s % self.group_size();
        let first = |s: usize, spines: &[bool]| match self.group(s).cmp(&mid) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal if local(s) < self.leaves => local(s) < k,
            std::cmp::Ordering::Equal => spines[local(s) - self.leaves],
        };
        let none = vec![false; self.spines];
        let mut pull = vec![0i64; self.spines];
        self.for_each_link(|s, _, t, _| {
            for (x, y) in [(s, t), (t, s)] {
                if self.group(x) == mid && local(x) >= self.leaves && !(self.group(y) == mid && self.is_spine(y)) {
                    pull[local(x) - self.leaves] += if first(y, &none) { 1 } else { -1 };
                }
            }
        });
        let spines: Vec<bool> = pull.iter().map(|&p| p > 0).collect();
        self.cut(|s| first(s, &spines))
    }

    /// The smallest of the balanced cuts of docs/topologies.md: the first ⌊groups/2⌋ groups
    /// against the others, for an odd number of groups with any number of leaves of the middle
    /// group on the first side and each of its spines on the side it has more links into;
    /// and every group cut alike, the first halves of its leaves and spines on one side.
    /// Spines carry no terminals, so either side may take them. Completed with the terminal
    /// links that balance the sides; an upper bound on the minimum, equal to it on the small
    /// instances the tests search exhaustively.
    pub fn bisection_channels(&self) -> u64 {
        let (n, mid) = (self.group_size(), self.groups / 2);
        let local = |s: usize| s % n;
        let mut best = self.cut(|s| {
            let i = local(s);
            if i < self.leaves {
                i < self.leaves / 2
            } else {
                i - self.leaves < self.spines / 2
            }
        });
        if self.groups.is_multiple_of(2) {
            return best.min(self.cut(|s| self.group(s) < mid));
        }
        // Any number of the middle group's leaves on the first side (up to 64; a half, none or
        // all beyond), the terminal links balancing what the group does not.
        let counts: Vec<usize> =
            if self.leaves <= 64 { (0..=self.leaves).collect() } else { vec![0, self.leaves / 2, self.leaves] };
        for k in counts {
            best = best.min(self.cut_with_middle(mid, k));
        }
        best
    }
}
