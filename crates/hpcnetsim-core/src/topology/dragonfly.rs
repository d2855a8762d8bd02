//! Dragonfly (Kim, Dally, Scott and Abts, ISCA 2008): `g` groups of `a` switches, the
//! switches of a group fully connected by local links, `p` terminals and `h` global links
//! per switch, the `a·h` global links of a group spread over the other groups (one link
//! per group pair when `g = a·h + 1`, the default and largest size).
//!
//! Switch `group·a + r` is switch `r` of its group. Ports: the `a − 1` local ports first
//! (port `r'` leads to switch `r'` of the group if `r' < r`, else `r' + 1`), then the `h`
//! global ports, then the `p` terminal ports. Global port `k` of switch `r` is the group's
//! global port `j = r·h + k`; with `m = a·h/(g − 1)` links per group pair, `j` belongs to
//! *slot* `i = j / m` (copy `j mod m`) and the arrangement (`absolute`, `relative` or
//! `circulant`, `arrangement.rs`) maps slots to groups.
//!
//! Relative and circulant arrangements are invariant under the group rotation `x → x + 1`,
//! which keeps port numbers: it is declared as the symmetry (one source per local index).

pub use super::arrangement::Arrangement;
use super::balanced_cut::{balancing_moves, best_bisection};
use super::symmetry::Symmetry;
use super::wiring::{check_size, Builder, Wiring};
use crate::error::{Error, Result};

/// A dragonfly with `a` switches per group, `p` terminals and `h` global links per switch,
/// `g` groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dragonfly {
    /// Switches per group.
    pub a: usize,
    /// Terminals per switch.
    pub p: usize,
    /// Global links per switch.
    pub h: usize,
    /// Number of groups.
    pub g: usize,
    /// The global-link arrangement.
    pub arrangement: Arrangement,
}

/// Largest dragonfly whose bisection also tries the refined cut (`balanced_cut.rs`, S² work
/// per pass): a few milliseconds at this size, where describing a network stays instant.
const REFINED_UP_TO: usize = 256;

impl Dragonfly {
    /// Validates the parameters (`g` defaults to `a·h + 1`) and the size.
    pub fn new(spec: &str, a: usize, p: usize, h: usize, g: Option<usize>, arrangement: Arrangement) -> Result<Self> {
        let full = a * h + 1;
        let g = g.unwrap_or(full);
        if g < 2 || g > full || !(a * h).is_multiple_of(g - 1) {
            let divisors: Vec<String> =
                (2..=full).filter(|&x| (a * h).is_multiple_of(x - 1)).map(|x| x.to_string()).collect();
            return Err(Error::invalid(
                spec,
                "g",
                g,
                format!(
                    "a number of groups g with g − 1 dividing a·h = {} (every group pair gets the same number of \
                     global links): one of {}",
                    a * h,
                    divisors.join(", ")
                ),
            ));
        }
        let switches = (a * g) as u128;
        check_size(spec, switches, switches * (a - 1 + h + p) as u128)?;
        Ok(Dragonfly { a, p, h, g, arrangement })
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.a * self.g
    }

    /// Number of terminals.
    pub fn terminals(&self) -> usize {
        self.switches() * self.p
    }

    /// Global links between every pair of groups.
    pub fn links_per_group_pair(&self) -> usize {
        self.a * self.h / (self.g - 1)
    }

    /// Network ports of a switch (terminal ports start here).
    pub fn network_ports(&self) -> usize {
        self.a - 1 + self.h
    }

    /// `[group, switch within the group]` of switch `s`.
    pub fn coordinates(&self, s: usize) -> Vec<usize> {
        vec![s / self.a, s % self.a]
    }

    /// Local port of switch `r` towards switch `other` of the same group.
    pub fn local_port(&self, r: usize, other: usize) -> usize {
        if other < r {
            other
        } else {
            other - 1
        }
    }

    /// The group that slot `i` of group `x` leads to, and the slot of that group that
    /// leads back.
    pub fn slot_target(&self, x: usize, i: usize) -> (usize, usize) {
        self.arrangement.slot_target(self.g, x, i)
    }

    /// The group-level global port `j` of group `x` as `(switch, port)`.
    fn global_end(&self, x: usize, j: usize) -> (usize, usize) {
        (x * self.a + j / self.h, self.a - 1 + j % self.h)
    }

    /// Calls `f(a, port a, b, port b)` once for every switch-to-switch link.
    pub fn for_each_link(&self, mut f: impl FnMut(usize, usize, usize, usize)) {
        let (a, m) = (self.a, self.links_per_group_pair());
        for x in 0..self.g {
            for r in 0..a {
                for other in r + 1..a {
                    f(x * a + r, self.local_port(r, other), x * a + other, self.local_port(other, r));
                }
            }
            for j in 0..a * self.h {
                let (i, copy) = (j / m, j % m);
                let (t, back) = self.slot_target(x, i);
                let jt = back * m + copy;
                // Each global link once, from its end with the smaller (group, global port).
                if (x, j) < (t, jt) {
                    let (s, p) = self.global_end(x, j);
                    let (st, pt) = self.global_end(t, jt);
                    f(s, p, st, pt);
                }
            }
        }
    }

    pub(crate) fn build(&self) -> Wiring {
        let net = self.network_ports();
        let mut b = Builder::new(std::iter::repeat_n(net + self.p, self.switches()));
        self.for_each_link(|s, ps, t, pt| b.link(s, ps, t, pt));
        for s in 0..self.switches() {
            for k in 0..self.p {
                b.attach_terminal(s, net + k);
            }
        }
        let symmetry = self.arrangement.is_rotation_invariant().then(|| {
            Symmetry::translations(
                (0..self.a as u32).collect(),
                (0..self.switches()).map(|s| (s % self.a) as u32).collect(),
            )
        });
        b.finish(symmetry)
    }

    /// A balanced cut: the first ⌊g/2⌋ groups on one side and, when `g` is odd, ⌊a/2⌋
    /// switches of the middle group with them, those with the most global links into the
    /// side (ties: lower index), completed with the terminal links that balance the sides.
    /// Exact on most of the small instances the tests search exhaustively; an upper bound
    /// on the minimum in general (docs/topologies.md).
    pub fn bisection_channels(&self) -> u64 {
        let (a, mid) = (self.a, self.g / 2);
        let mut side = vec![false; self.switches()];
        side[..mid * a].iter_mut().for_each(|x| *x = true);
        if self.g % 2 == 1 {
            let mut pull = vec![0usize; a];
            self.for_each_link(|s, _, t, _| {
                for (x, y) in [(s, t), (t, s)] {
                    if x / a == mid && y < mid * a {
                        pull[x % a] += 1;
                    }
                }
            });
            let mut order: Vec<usize> = (0..a).collect();
            order.sort_by_key(|&r| (std::cmp::Reverse(pull[r]), r));
            for &r in &order[..a / 2] {
                side[mid * a + r] = true;
            }
        }
        let mut cut = 0u64;
        self.for_each_link(|s, _, t, _| cut += u64::from(side[s] != side[t]));
        let on_side = side.iter().filter(|&&x| x).count() * self.p;
        let by_groups = cut + balancing_moves(self.terminals(), on_side);
        // Cutting between whole groups is not always best (the circulant arrangement of
        // `dragonfly:a=4,p=2,h=2`: 24 links, where a refined cut of the same graph read from a
        // file found 20): on small networks the refined cut is tried too, the smaller kept.
        if self.switches() > REFINED_UP_TO {
            return by_groups;
        }
        let mut links = Vec::new();
        self.for_each_link(|s, _, t, _| links.push((s, t)));
        best_bisection(self.switches(), &links, self.p).map_or(by_groups, |refined| refined.min(by_groups))
    }
}
