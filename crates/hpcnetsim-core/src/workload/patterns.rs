//! Destination patterns of independent traffic (paper 002 §2, paper 003 §4.1).

use crate::config::{PatternKind, TrafficConfig, ZipfRanks};
use crate::error::{Error, Result};
use crate::rng::{stream, Owner, Stream};
use crate::topology::{Family, Topology};
use rand::seq::SliceRandom;
use rand::Rng;

/// A destination pattern bound to a topology.
pub struct Pattern {
    kind: PatternKind,
    n: usize,
    bits: u32,
    /// Fixed destination per source for the permutation patterns (`usize::MAX` = idle).
    fixed: Vec<usize>,
    /// Grid of terminals for tornado and nearest neighbour: per-switch coordinates' radices
    /// and terminals per switch; empty for families without a grid.
    grid: Vec<usize>,
    per_switch: usize,
    wrap: bool,
    hot: Vec<usize>,
    hot_fraction: f64,
    /// Cumulative Zipf weights over ranks 1..N−1.
    zipf_cdf: Vec<f64>,
    /// Zipf ranks in a random order: the terminals in that order, and each one's position
    /// (both empty for ranks by index).
    zipf_order: Vec<usize>,
    zipf_position: Vec<usize>,
}

impl Pattern {
    /// Binds the configured pattern to `topo`; fails when the pattern needs what the
    /// network does not have (a power-of-two size, valid hot nodes).
    pub fn new(cfg: &TrafficConfig, topo: &Topology, seed: u64) -> Result<Pattern> {
        let n = topo.num_terminals();
        let kind = cfg.pattern;
        let name = crate::config::config_name(&kind);
        let power_of_two = n.is_power_of_two();
        let bits = n.trailing_zeros();
        let needs_pow2 = matches!(
            kind,
            PatternKind::BitComplement
                | PatternKind::BitReversal
                | PatternKind::Transpose
                | PatternKind::PerfectShuffle
                | PatternKind::Butterfly
        );
        if needs_pow2 && !power_of_two {
            return Err(Error::invalid(
                "config",
                "traffic.pattern",
                format!("'{name}'"),
                format!("a pattern for networks of 2^b terminals ({n} is not a power of two)"),
            ));
        }
        if kind == PatternKind::Transpose && bits % 2 == 1 {
            return Err(Error::invalid(
                "config",
                "traffic.pattern",
                "'transpose'",
                format!("a pattern for networks of 4^b terminals ({n} is not)"),
            ));
        }
        let (grid, per_switch, wrap) = match topo.family() {
            Family::Torus(t) => (t.dims.clone(), t.terminals_per_switch, t.wrap),
            Family::HyperX(h) => (h.dims.clone(), h.terminals_per_switch, true),
            Family::TwinTorus(t) => (t.dims.clone(), 2, true),
            _ => (Vec::new(), 1, true),
        };
        let mut p = Pattern {
            kind,
            n,
            bits,
            fixed: Vec::new(),
            grid,
            per_switch,
            wrap,
            hot: Vec::new(),
            hot_fraction: cfg.hot_fraction,
            zipf_cdf: Vec::new(),
            zipf_order: Vec::new(),
            zipf_position: Vec::new(),
        };
        match kind {
            PatternKind::HotSpot => {
                if cfg.hot_nodes.is_empty() {
                    return Err(Error::invalid("config", "traffic.hot_nodes", "[]", "at least one terminal index"));
                }
                if let Some(&bad) = cfg.hot_nodes.iter().find(|&&h| h >= n) {
                    return Err(Error::invalid(
                        "config",
                        "traffic.hot_nodes",
                        bad,
                        format!("terminal indices in 0..{n}"),
                    ));
                }
                p.hot = cfg.hot_nodes.clone();
            }
            PatternKind::HotRegion => {
                let size = ((cfg.hot_region_fraction * n as f64).ceil() as usize).clamp(1, n);
                p.hot = (0..size).collect();
            }
            PatternKind::Zipf => {
                let mut acc = 0.0;
                p.zipf_cdf = (1..n)
                    .map(|r| {
                        acc += (r as f64).powf(-cfg.zipf_exponent);
                        acc
                    })
                    .collect();
                if cfg.zipf_ranks == ZipfRanks::Shuffled {
                    let mut rng = stream(seed, Owner::Setup, 1);
                    p.zipf_order = (0..n).collect();
                    p.zipf_order.shuffle(&mut rng);
                    p.zipf_position = vec![0; n];
                    for (i, &t) in p.zipf_order.iter().enumerate() {
                        p.zipf_position[t] = i;
                    }
                }
            }
            PatternKind::GroupShift => {
                let group = match topo.family() {
                    Family::Dragonfly(d) => d.a * d.p,
                    Family::Cascade(c) => c.group_size() * c.p,
                    Family::Megafly(m) => m.leaves * m.p,
                    Family::Fabric(f) if f.group_size.is_some() && n.is_multiple_of(topo.num_switches()) => {
                        f.group_size.unwrap_or(1) * (n / topo.num_switches())
                    }
                    _ => {
                        return Err(Error::invalid(
                            "config",
                            "traffic.pattern",
                            "'group-shift'",
                            format!(
                                "a pattern for dragonflies (dragonfly:, cascade: and megafly: specs, codes-dragonfly: fabrics); {} is {}",
                                topo.spec(),
                                topo.family().name()
                            ),
                        ))
                    }
                };
                if group >= n {
                    return Err(Error::invalid(
                        "config",
                        "traffic.pattern",
                        "'group-shift'",
                        "a dragonfly of at least two groups",
                    ));
                }
                p.fixed = (0..n).map(|s| (s + group) % n).collect();
            }
            PatternKind::RandomPermutation => {
                let mut rng = stream(seed, Owner::Setup, 0);
                let mut perm: Vec<usize> = (0..n).collect();
                perm.shuffle(&mut rng);
                // No terminal may send to itself: swap fixed points with a neighbour.
                for i in 0..n {
                    if perm[i] == i {
                        let j = (i + 1) % n;
                        perm.swap(i, j);
                    }
                }
                p.fixed = perm;
            }
            _ => {}
        }
        if needs_pow2 {
            p.fixed = (0..n).map(|s| p.bit_pattern(s)).collect();
            for (s, d) in p.fixed.iter_mut().enumerate() {
                if *d == s {
                    *d = usize::MAX;
                }
            }
        }
        if kind == PatternKind::Tornado {
            p.fixed = (0..n).map(|s| p.tornado(s)).collect();
            for (s, d) in p.fixed.iter_mut().enumerate() {
                if *d == s {
                    *d = usize::MAX;
                }
            }
        }
        // A permutation that maps every terminal to itself leaves every source silent: the
        // run would measure nothing and report it as a converged run that accepted no load.
        if !p.fixed.is_empty() && p.fixed.iter().all(|&d| d == usize::MAX) {
            return Err(Error::invalid(
                "config",
                "traffic.pattern",
                format!("'{name}'"),
                format!(
                    "a pattern that sends: on {} ({n} terminals) it maps every terminal to itself, so no terminal sends",
                    topo.spec()
                ),
            ));
        }
        Ok(p)
    }

    fn bit_pattern(&self, s: usize) -> usize {
        let b = self.bits;
        let mask = self.n - 1;
        match self.kind {
            PatternKind::BitComplement => !s & mask,
            PatternKind::BitReversal => (0..b).fold(0, |acc, i| acc | (((s >> i) & 1) << (b - 1 - i))),
            PatternKind::Transpose => {
                let half = b / 2;
                ((s << half) | (s >> half)) & mask
            }
            PatternKind::PerfectShuffle => ((s << 1) | (s >> (b - 1))) & mask,
            PatternKind::Butterfly => {
                let (lo, hi) = (s & 1, (s >> (b - 1)) & 1);
                (s & !(1 | (1 << (b - 1)))) | (lo << (b - 1)) | hi
            }
            _ => s,
        }
    }

    /// Tornado: ⌈k/2⌉ − 1 steps along every dimension of the grid, or N/2 − 1 terminals on.
    fn tornado(&self, s: usize) -> usize {
        if self.grid.is_empty() {
            return (s + self.n.div_ceil(2) - 1) % self.n;
        }
        let (switch, local) = (s / self.per_switch, s % self.per_switch);
        let mut x = crate::topology::radix::digits(switch, &self.grid);
        for (xi, &k) in x.iter_mut().zip(&self.grid) {
            let step = k.div_ceil(2) - 1;
            *xi = if self.wrap { (*xi + step) % k } else { (*xi + step).min(k - 1) };
        }
        crate::topology::radix::from_digits(&x, &self.grid) * self.per_switch + local
    }

    /// Whether terminal `s` sends anything (permutations may map a terminal to itself).
    pub fn is_active(&self, s: usize) -> bool {
        self.fixed.is_empty() || self.fixed[s] != usize::MAX
    }

    /// A uniformly random terminal other than `s`.
    fn uniform(&self, s: usize, rng: &mut Stream) -> usize {
        let d = rng.random_range(0..self.n - 1);
        if d >= s {
            d + 1
        } else {
            d
        }
    }

    /// Draws the destination of a packet from `s` (never `s` itself).
    pub fn destination(&self, s: usize, rng: &mut Stream) -> usize {
        if !self.fixed.is_empty() {
            return self.fixed[s];
        }
        match self.kind {
            PatternKind::NearestNeighbour => self.neighbour(s, rng),
            PatternKind::HotSpot | PatternKind::HotRegion => {
                if rng.random_bool(self.hot_fraction) {
                    let d = self.hot[rng.random_range(0..self.hot.len())];
                    if d != s {
                        return d;
                    }
                }
                self.uniform(s, rng)
            }
            PatternKind::Zipf => {
                let total = *self.zipf_cdf.last().expect("N >= 2");
                let u = rng.random_range(0.0..total);
                let rank = self.zipf_cdf.partition_point(|&c| c <= u) + 1;
                match self.zipf_order.is_empty() {
                    true => (s + rank.min(self.n - 1)) % self.n,
                    false => self.zipf_order[(self.zipf_position[s] + rank.min(self.n - 1)) % self.n],
                }
            }
            _ => self.uniform(s, rng),
        }
    }

    /// ±1 along a random dimension of the grid (mesh borders reflect), or ±1 terminal.
    fn neighbour(&self, s: usize, rng: &mut Stream) -> usize {
        let plus = rng.random_bool(0.5);
        let dims: Vec<usize> = (0..self.grid.len()).filter(|&i| self.grid[i] > 1).collect();
        if dims.is_empty() {
            return if plus { (s + 1) % self.n } else { (s + self.n - 1) % self.n };
        }
        let (switch, local) = (s / self.per_switch, s % self.per_switch);
        let mut x = crate::topology::radix::digits(switch, &self.grid);
        let i = dims[rng.random_range(0..dims.len())];
        let k = self.grid[i];
        x[i] = match (plus, self.wrap) {
            (true, true) => (x[i] + 1) % k,
            (false, true) => (x[i] + k - 1) % k,
            (true, false) => {
                if x[i] + 1 < k {
                    x[i] + 1
                } else {
                    x[i] - 1
                }
            }
            (false, false) => {
                if x[i] > 0 {
                    x[i] - 1
                } else {
                    x[i] + 1
                }
            }
        };
        crate::topology::radix::from_digits(&x, &self.grid) * self.per_switch + local
    }
}
