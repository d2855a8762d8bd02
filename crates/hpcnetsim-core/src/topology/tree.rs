//! Trees: k-ary n-trees, k:k'-ary n-thin-trees and generalized fat-trees XGFT(h; m; w).
//!
//! Every tree is built as an XGFT. A level-`l` switch (levels 1..=h here, reported as
//! 0..h-1 with 0 = leaf level as in the thin-tree paper) is labelled by the digits
//! `a_h..a_{l+1}` (which level-`l` subtree it serves, `a_j < m_j`) and `b_l..b_2` (which of
//! the subtree's switches it is, `b_j < w_j`). It links to the `w_{l+1}` parents obtained by
//! replacing `a_{l+1}` with `b_{l+1}`. For a k-ary n-tree this is exactly the labelling
//! `<w, l>` of Petrini and Vanneschi (paper 004, Appendix A), with `w` written top digit
//! first. A thin-tree k:k',n is XGFT(n; k..k; 1, k'..k') with k' unplugged up-ports on
//! each top switch.

use super::radix::{digits, from_digits};
use super::wiring::{check_size, wide_product, Builder, Wiring};
use crate::error::{Error, Result};

/// A generalized fat-tree XGFT(h; m_1..m_h; w_1..w_h).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Xgft {
    /// Children per switch at each level, leaf level first (`m_1` = terminals per leaf switch).
    pub m: Vec<usize>,
    /// Parents per node at each level, `w_1` = 1 (one network port per terminal).
    pub w: Vec<usize>,
    /// Unplugged up-ports of every top-level switch (k' for trees given as k, k', n).
    pub top_up_ports: usize,
    /// `(k, k', n)` when the tree was given in the k:k', n form.
    pub thin_tree: Option<(usize, usize, usize)>,
}

impl Xgft {
    /// The k:k'-ary n-thin-tree (a k-ary n-tree when k' = k).
    pub fn thin_tree(spec: &str, k: usize, kp: usize, n: usize) -> Result<Self> {
        let w = std::iter::once(1).chain(std::iter::repeat_n(kp, n - 1)).collect();
        let mut x = Self::new(spec, vec![k; n], w, kp)?;
        x.thin_tree = Some((k, kp, n));
        Ok(x)
    }

    /// A generalized fat-tree; fails if it would be too large to build.
    pub fn new(spec: &str, m: Vec<usize>, w: Vec<usize>, top_up_ports: usize) -> Result<Self> {
        let x = Xgft { m, w, top_up_ports, thin_tree: None };
        let (mut switches, mut ports) = (0u128, 0u128);
        for l in 1..=x.height() {
            // Saturating: a spec such as k=65536, n=16 would wrap around to a small size.
            let size = x.level_size_wide(l);
            switches = switches.saturating_add(size);
            ports = ports.saturating_add(size.saturating_mul(x.ports_at_level(l) as u128));
        }
        check_size(spec, switches, ports)?;
        if x.terminals() < 2 {
            return Err(Error::invalid(spec, "terminals", x.terminals(), "a tree needs at least 2 terminals"));
        }
        Ok(x)
    }

    /// Whether the tree was specified as `tree:k=..,kp=..,n=..`.
    pub fn is_thin_tree_spec(&self) -> bool {
        self.thin_tree.is_some()
    }

    /// Number of switch levels h.
    pub fn height(&self) -> usize {
        self.m.len()
    }

    /// Number of terminals, the product of the m_i.
    pub fn terminals(&self) -> usize {
        self.m.iter().product()
    }

    /// Terminals below one level-`l` switch group: P_l = m_1 · … · m_l (P_0 = 1).
    fn subtree_terminals(&self, l: usize) -> usize {
        self.m[..l].iter().product()
    }

    /// Links leaving one level-`(l-1)` subtree upward: W_l = w_1 · … · w_l.
    fn subtree_uplinks(&self, l: usize) -> usize {
        self.w[..l].iter().product()
    }

    /// Switches at level `l`, saturating at `u128::MAX` (sizes are checked before building).
    fn level_size_wide(&self, l: usize) -> u128 {
        wide_product(self.m[l..].iter().chain(&self.w[1..l]).copied())
    }

    /// Switches at level `l` (1 = leaf level).
    fn level_size(&self, l: usize) -> usize {
        self.level_size_wide(l) as usize
    }

    /// Mixed-radix radices of the labels of level-`l` switches, least significant first:
    /// `[w_2..w_l, m_{l+1}..m_h]`.
    fn label_radices(&self, l: usize) -> Vec<usize> {
        self.w[1..l].iter().chain(&self.m[l..]).copied().collect()
    }

    /// Ports of a level-`l` switch: m_l down plus w_{l+1} up (top: the unplugged ones).
    fn ports_at_level(&self, l: usize) -> usize {
        self.m[l - 1] + if l < self.height() { self.w[l] } else { self.top_up_ports }
    }

    /// Switches per level, leaf level first.
    pub fn switches_per_level(&self) -> Vec<usize> {
        (1..=self.height()).map(|l| self.level_size(l)).collect()
    }

    fn level_offsets(&self) -> Vec<usize> {
        let mut off = vec![0];
        for l in 1..=self.height() {
            off.push(off[l - 1] + self.level_size(l));
        }
        off
    }

    /// Level (0 = leaf) and label of switch `s`; the label is `w` of paper 004 written top
    /// digit first: `a_h..a_{l+1}` followed by `b_l..b_2`.
    pub fn switch_label(&self, s: usize) -> (usize, Vec<usize>) {
        let off = self.level_offsets();
        let l = (1..=self.height()).find(|&l| s < off[l]).expect("switch index out of range");
        let mut label = digits(s - off[l - 1], &self.label_radices(l));
        label.reverse();
        (l - 1, label)
    }

    /// Terminal `t` as an n-tuple `p_0..p_{n-1}`, top digit first (paper 004 Definition A.2).
    pub fn node_tuple(&self, t: usize) -> Vec<usize> {
        let mut d = digits(t, &self.m);
        d.reverse();
        d
    }

    /// Minimal different index of two distinct terminals (paper 004 Definition A.3).
    pub fn mdi(&self, p: usize, q: usize) -> Option<usize> {
        let (a, b) = (self.node_tuple(p), self.node_tuple(q));
        a.iter().zip(&b).position(|(x, y)| x != y)
    }

    /// Nearest common ancestors of two distinct terminals (paper 004 Definition A.5), as
    /// switch indices; empty when `p == q`.
    pub fn nca(&self, p: usize, q: usize) -> Vec<usize> {
        let Some(mdi) = self.mdi(p, q) else {
            return Vec::new();
        };
        let l = self.height() - mdi; // 1-based level of the common ancestors
        let radices = self.label_radices(l);
        let a = digits(p, &self.m);
        let off = self.level_offsets()[l - 1];
        (0..self.level_size(l)).filter(|&i| digits(i, &radices)[l - 1..] == a[l..]).map(|i| off + i).collect()
    }

    /// Builds the graph: level by level, parents of a level-`l` switch found by replacing
    /// digit `a_{l+1}` of its label with each `b_{l+1}`.
    pub(crate) fn build(&self) -> Wiring {
        let h = self.height();
        let off = self.level_offsets();
        let ports = (1..=h).flat_map(|l| std::iter::repeat_n(self.ports_at_level(l), self.level_size(l)));
        let mut b = Builder::new(ports);
        for s in 0..self.level_size(1) {
            for a1 in 0..self.m[0] {
                b.attach_terminal(s, a1);
            }
        }
        for l in 1..h {
            let (rad, parent_rad) = (self.label_radices(l), self.label_radices(l + 1));
            for i in 0..self.level_size(l) {
                let mut d = digits(i, &rad);
                let a_next = d[l - 1]; // a_{l+1}: down-port at the parent
                for up in 0..self.w[l] {
                    d[l - 1] = up;
                    let parent = from_digits(&d, &parent_rad);
                    b.link(off[l - 1] + i, self.m[l - 1] + up, off[l] + parent, a_next);
                }
            }
        }
        b.finish(None)
    }

    /// Minimum balanced bisection: keep every switch from some level `l` up on one side and
    /// move half of the terminals to the other side as whole subtrees, largest first (each
    /// level-`(j-1)` subtree moved cuts its W_j up-links); the best `l` wins. For
    /// `l = h` this is the cut through the top level of the thin-tree paper, for `l = 1`
    /// the cut of N/2 terminal links that under-subscribed trees reach.
    pub fn bisection_channels(&self) -> u64 {
        let half = self.terminals() / 2;
        (1..=self.height())
            .map(|top| {
                let mut left = half;
                let mut cost = 0u64;
                for j in (1..=top).rev() {
                    let size = self.subtree_terminals(j - 1);
                    cost += (left / size) as u64 * self.subtree_uplinks(j) as u64;
                    left %= size;
                }
                cost
            })
            .min()
            .unwrap_or(0)
    }

    /// Largest load of a switch-to-switch channel per unit of injected load under uniform
    /// traffic with every pair's load spread evenly over its minimal paths. All up (and
    /// down) channels of a level are equivalent, so a level-`l` up-channel carries the
    /// traffic leaving a level-`l` subtree, P_l·(N−P_l)/(N−1), shared by its W_{l+1} up-links.
    pub fn max_switch_channel_load(&self) -> f64 {
        let n = self.terminals() as f64;
        (1..self.height())
            .map(|l| {
                let p = self.subtree_terminals(l) as f64;
                p * (n - p) / ((n - 1.0) * self.subtree_uplinks(l + 1) as f64)
            })
            .fold(0.0, f64::max)
    }

    /// Diameter and average distance in links between distinct terminals: two terminals
    /// whose lowest common subtree is at level `i` are 2i links apart.
    pub fn distances(&self) -> (usize, f64) {
        let n = self.terminals() as f64;
        let mut total = 0.0;
        let mut diameter = 0;
        for i in 1..=self.height() {
            let pairs_per_terminal = (self.subtree_terminals(i) - self.subtree_terminals(i - 1)) as f64;
            if pairs_per_terminal > 0.0 {
                diameter = 2 * i;
            }
            total += pairs_per_terminal * 2.0 * i as f64;
        }
        (diameter, total / (n - 1.0))
    }
}
