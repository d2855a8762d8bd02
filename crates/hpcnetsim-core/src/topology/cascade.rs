//! The Cray Cascade dragonfly of the XC systems and their Aries routers (Faanes et al., SC
//! 2012; Alverson, Froese, Kaplan and Roweth, "Cray XC Series Network", 2012): `groups`
//! groups of `rows × cols` routers (a row is a chassis, a column the same slot in every
//! chassis of the group), every router linked to every router of its row by `green` links
//! (the chassis backplane), to every router of its column by `black` links (cables between
//! the chassis; three per router pair on Aries) and to routers of other groups by global
//! ("blue", optical) links, `global` of them between every pair of groups.
//!
//! Switch `group·rows·cols + row·cols + col` is the router at `(row, col)` of its group
//! (CODES' `dragonfly-custom` numbering). Ports: the `(cols − 1)·green` green ports first
//! (copy `k` towards column `c'` at `idx(c, c')·green + k`, `idx(a, b)` = `b` if `b < a`, else
//! `b − 1`), then the `(rows − 1)·black` black ports (copy `k` towards row `r'` at
//! `idx(r, r')·black + k`), then the `h` global ports (Aries: 10; those no cable reaches stay
//! unplugged), then the `p` terminal ports.
//!
//! The global links follow the rule of the Edison and Theta link maps. A router's global
//! ports are wired `cable` at a time to one far router (consecutive ports `layer·cable + t`,
//! `t < cable`); the group's global ports are numbered layer by layer, column by column, row
//! by row: global port `k = layer·cable + t` of the router at `(row, col)` is the group's
//! port `j = ((layer·cols + col)·rows + row)·cable + t`. The first `(groups − 1)·global` of
//! them are cut into slots of `global` links, one per other group, by the arrangement
//! (absolute by default, as on Edison and Theta); copy `c` of a slot meets copy `c` of the
//! slot leading back. A slot of Edison (24 links) is then two columns of every chassis, two
//! cables each, chassis `r` cabled to chassis `r` of the other group.

use super::arrangement::Arrangement;
use super::balanced_cut::balancing_moves;
use super::symmetry::Symmetry;
use super::wiring::{check_size, Builder, Wiring};
use crate::error::{Error, Result};

/// The kind of a Cascade link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// Between routers of one row (chassis backplane).
    Green,
    /// Between routers of one column (cables between the chassis of a group).
    Black,
    /// Between groups (optical).
    Global,
}

/// The parameters of a Cascade dragonfly, as the spec gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CascadeParams {
    /// Number of groups.
    pub groups: usize,
    /// Rows (chassis) per group.
    pub rows: usize,
    /// Columns (routers per chassis).
    pub cols: usize,
    /// Terminals per router.
    pub p: usize,
    /// Parallel links between two routers of a row (default 1).
    pub green: Option<usize>,
    /// Parallel links between two routers of a column (default 3, Aries).
    pub black: Option<usize>,
    /// Global ports per router (default 10, Aries).
    pub h: Option<usize>,
    /// Global ports of a router wired to the same far router (default 2 for even `h`, 1 for odd).
    pub cable: Option<usize>,
    /// Global links between every pair of groups (default: the most that fit).
    pub global: Option<usize>,
    /// The global-link arrangement (default absolute).
    pub arrangement: Option<Arrangement>,
}

/// A Cascade dragonfly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cascade {
    /// Number of groups.
    pub groups: usize,
    /// Rows (chassis) per group.
    pub rows: usize,
    /// Columns (routers per chassis).
    pub cols: usize,
    /// Terminals per router.
    pub p: usize,
    /// Parallel links between two routers of a row.
    pub green: usize,
    /// Parallel links between two routers of a column.
    pub black: usize,
    /// Global ports per router.
    pub h: usize,
    /// Global ports of a router wired to one far router.
    pub cable: usize,
    /// Global links between every pair of groups (0 with one group).
    pub global: usize,
    /// The global-link arrangement.
    pub arrangement: Arrangement,
}

impl Cascade {
    /// Validates the parameters, fills the defaults and checks the size.
    pub fn new(spec: &str, q: CascadeParams) -> Result<Self> {
        let (g, rows, cols) = (q.groups, q.rows, q.cols);
        let h = q.h.unwrap_or(10);
        let cable = q.cable.unwrap_or(if h.is_multiple_of(2) { 2 } else { 1 });
        if !h.is_multiple_of(cable) {
            return Err(Error::invalid(
                spec,
                "cable",
                cable,
                format!("a divisor of h = {h} (a router's global ports are wired cable by cable)"),
            ));
        }
        let ports = rows * cols * h;
        let global = match (g, q.global) {
            (1, None | Some(0)) => 0,
            (1, Some(m)) => {
                return Err(Error::invalid(spec, "global", m, "0 or nothing: one group has no global links"))
            }
            (_, Some(m)) => {
                let most = ports / (g - 1);
                if m == 0 || m > most {
                    return Err(Error::invalid(
                        spec,
                        "global",
                        m,
                        format!(
                            "between 1 and {most} links per group pair ({} groups share the {ports} global ports \
                             of a group: rows·cols·h)",
                            g
                        ),
                    ));
                }
                if !m.is_multiple_of(cable) {
                    return Err(Error::invalid(
                        spec,
                        "global",
                        m,
                        format!(
                            "a multiple of cable = {cable} (a router's global ports are wired {cable} at a time to \
                             one far router; cable=1 allows any number)"
                        ),
                    ));
                }
                m
            }
            (_, None) => {
                let m = ports / (g - 1) / cable * cable;
                if m == 0 {
                    return Err(Error::invalid(
                        spec,
                        "groups",
                        g,
                        format!(
                            "at most {} groups: each other group needs a cable of {cable} of the {ports} global ports \
                             of a group (or give global=)",
                            ports / cable + 1
                        ),
                    ));
                }
                m
            }
        };
        let c = Cascade {
            groups: g,
            rows,
            cols,
            p: q.p,
            green: q.green.unwrap_or(1),
            black: q.black.unwrap_or(3),
            h,
            cable,
            global,
            arrangement: q.arrangement.unwrap_or(Arrangement::Absolute),
        };
        let switches = c.switches() as u128;
        check_size(spec, switches, switches * (c.network_ports() + c.p) as u128)?;
        Ok(c)
    }

    /// Routers per group.
    pub fn group_size(&self) -> usize {
        self.rows * self.cols
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.groups * self.group_size()
    }

    /// Number of terminals.
    pub fn terminals(&self) -> usize {
        self.switches() * self.p
    }

    /// Green ports of a router (black ports start here).
    pub fn green_ports(&self) -> usize {
        (self.cols - 1) * self.green
    }

    /// Black ports of a router.
    pub fn black_ports(&self) -> usize {
        (self.rows - 1) * self.black
    }

    /// First global port of a router.
    pub fn first_global_port(&self) -> usize {
        self.green_ports() + self.black_ports()
    }

    /// Network ports of a router, unplugged global ports included (terminal ports start here).
    pub fn network_ports(&self) -> usize {
        self.first_global_port() + self.h
    }

    /// `[group, row, col]` of switch `s`.
    pub fn coordinates(&self, s: usize) -> Vec<usize> {
        let (g, local) = (s / self.group_size(), s % self.group_size());
        vec![g, local / self.cols, local % self.cols]
    }

    /// The group of switch `s`.
    pub fn group(&self, s: usize) -> usize {
        s / self.group_size()
    }

    /// Switch at `(row, col)` of group `g`.
    pub fn switch(&self, g: usize, row: usize, col: usize) -> usize {
        g * self.group_size() + row * self.cols + col
    }

    fn idx(a: usize, b: usize) -> usize {
        if b < a {
            b
        } else {
            b - 1
        }
    }

    /// Green port `copy` of a router in column `col` towards column `other`.
    pub fn green_port(&self, col: usize, other: usize, copy: usize) -> usize {
        Self::idx(col, other) * self.green + copy
    }

    /// Black port `copy` of a router in row `row` towards row `other`.
    pub fn black_port(&self, row: usize, other: usize, copy: usize) -> usize {
        self.green_ports() + Self::idx(row, other) * self.black + copy
    }

    /// The kind of network port `port` (`None` for terminal ports).
    pub fn port_kind(&self, port: usize) -> Option<LinkKind> {
        if port < self.green_ports() {
            Some(LinkKind::Green)
        } else if port < self.first_global_port() {
            Some(LinkKind::Black)
        } else if port < self.network_ports() {
            Some(LinkKind::Global)
        } else {
            None
        }
    }

    /// The group-level global port `j` of group `x` as `(switch, port)`.
    pub fn global_end(&self, x: usize, j: usize) -> (usize, usize) {
        let (w, r, c) = (self.cable, self.rows, self.cols);
        let (t, rest) = (j % w, j / w);
        let (row, rest) = (rest % r, rest / r);
        let (col, layer) = (rest % c, rest / c);
        (self.switch(x, row, col), self.first_global_port() + layer * w + t)
    }

    /// Calls `f(a, port a, b, port b, kind)` once for every switch-to-switch link.
    pub fn for_each_link(&self, mut f: impl FnMut(usize, usize, usize, usize, LinkKind)) {
        let (rows, cols) = (self.rows, self.cols);
        for x in 0..self.groups {
            for r in 0..rows {
                for c in 0..cols {
                    let s = self.switch(x, r, c);
                    for c2 in c + 1..cols {
                        let t = self.switch(x, r, c2);
                        for k in 0..self.green {
                            f(s, self.green_port(c, c2, k), t, self.green_port(c2, c, k), LinkKind::Green);
                        }
                    }
                    for r2 in r + 1..rows {
                        let t = self.switch(x, r2, c);
                        for k in 0..self.black {
                            f(s, self.black_port(r, r2, k), t, self.black_port(r2, r, k), LinkKind::Black);
                        }
                    }
                }
            }
        }
        if self.groups > 1 {
            self.arrangement.for_each_global(self.groups, self.global, |x, j, t, jt| {
                let (s, ps) = self.global_end(x, j);
                let (st, pt) = self.global_end(t, jt);
                f(s, ps, st, pt, LinkKind::Global);
            });
        }
    }

    pub(crate) fn build(&self) -> Wiring {
        let net = self.network_ports();
        let mut b = Builder::new(std::iter::repeat_n(net + self.p, self.switches()));
        self.for_each_link(|s, ps, t, pt, _| b.link(s, ps, t, pt));
        for s in 0..self.switches() {
            for k in 0..self.p {
                b.attach_terminal(s, net + k);
            }
        }
        let n = self.group_size();
        let symmetry = (self.groups > 1 && self.arrangement.is_rotation_invariant()).then(|| {
            Symmetry::translations((0..n as u32).collect(), (0..self.switches()).map(|s| (s % n) as u32).collect())
        });
        b.finish(symmetry)
    }

    /// Links cut between the switches `side(s) == true` and the others, plus the terminal
    /// links that balance the sides.
    fn cut(&self, side: impl Fn(usize) -> bool) -> u64 {
        let mut cut = 0u64;
        self.for_each_link(|s, _, t, _, _| cut += u64::from(side(s) != side(t)));
        let on_side = (0..self.switches()).filter(|&s| side(s)).count() * self.p;
        cut + balancing_moves(self.terminals(), on_side)
    }

    /// The smallest of the balanced cuts of docs/topologies.md: the first ⌊groups/2⌋ groups
    /// against the others (for an odd number of groups, with any number of the middle
    /// group's columns, or rows, those with the most global links into the first side), and
    /// every group cut alike in half by columns or by rows; each completed with the terminal
    /// links that balance the sides. An upper bound on the minimum, equal to it on the small
    /// instances the tests search exhaustively.
    pub fn bisection_channels(&self) -> u64 {
        let (rows, cols, n) = (self.rows, self.cols, self.group_size());
        let coord = |s: usize| (s / n, (s % n) / cols, s % cols);
        let mut best = u64::MAX;
        // Every group alike: the first half of its columns, or of its rows.
        best = best.min(self.cut(|s| coord(s).2 < cols / 2));
        best = best.min(self.cut(|s| coord(s).1 < rows / 2));
        if self.groups > 1 {
            let mid = self.groups / 2;
            if self.groups.is_multiple_of(2) {
                best = best.min(self.cut(|s| coord(s).0 < mid));
            } else {
                // Global links of the middle group's columns and rows into the first groups,
                // less those into the last.
                let (mut col_pull, mut row_pull) = (vec![0i64; cols], vec![0i64; rows]);
                self.for_each_link(|s, _, t, _, kind| {
                    if kind != LinkKind::Global {
                        return;
                    }
                    for (x, y) in [(s, t), (t, s)] {
                        let (gx, r, c) = coord(x);
                        if gx == mid {
                            let pull = if coord(y).0 < mid { 1 } else { -1 };
                            col_pull[c] += pull;
                            row_pull[r] += pull;
                        }
                    }
                });
                let top = |pull: &[i64], k: usize| -> Vec<bool> {
                    let mut order: Vec<usize> = (0..pull.len()).collect();
                    order.sort_by_key(|&i| (std::cmp::Reverse(pull[i]), i));
                    let mut chosen = vec![false; pull.len()];
                    order[..k].iter().for_each(|&i| chosen[i] = true);
                    chosen
                };
                // Any number of the middle group's columns (or rows), most pulled first: the
                // terminal links balance what the group does not (up to 64 columns or rows; a
                // half, none or all beyond).
                let counts = |n: usize| -> Vec<usize> {
                    if n <= 64 {
                        (0..=n).collect()
                    } else {
                        vec![0, n / 2, n]
                    }
                };
                for k in counts(cols) {
                    let by_col = top(&col_pull, k);
                    best = best.min(self.cut(|s| {
                        let (g, _, c) = coord(s);
                        g < mid || (g == mid && by_col[c])
                    }));
                }
                for k in counts(rows) {
                    let by_row = top(&row_pull, k);
                    best = best.min(self.cut(|s| {
                        let (g, r, _) = coord(s);
                        g < mid || (g == mid && by_row[r])
                    }));
                }
            }
        }
        best
    }
}
