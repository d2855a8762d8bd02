//! Slim Fly (Besta and Hoefler, SC 2014) by the McKay–Miller–Širáň construction: for a
//! prime power `q = 4w + δ` (δ ∈ {−1, 0, 1}), switches `(0, x, y)` and `(1, m, c)` with
//! `x, y, m, c` in the field F_q ([`super::finite_field`]), and a primitive element ξ of F_q:
//!
//! - `(0, x, y) ~ (0, x, y')` when `y − y' ∈ X`, `(1, m, c) ~ (1, m, c')` when `c − c' ∈ X'`;
//! - `(0, x, y) ~ (1, m, c)` when `y = m·x + c`;
//!
//! with X = {ξ^0, ξ^2, …, ξ^(q−3)} and X' = {ξ^1, ξ^3, …, ξ^(q−2)} for δ = 1,
//! X = {ξ^0, ξ^2, …, ξ^(q−2)} and X' = {ξ^1, ξ^3, …, ξ^(q−1)} for δ = 0, and for δ = −1
//! X = {ξ^0, ξ^2, …, ξ^(2w−2)} ∪ {ξ^(2w−1), ξ^(2w+1), …, ξ^(4w−3)},
//! X' = {ξ^1, ξ^3, …, ξ^(2w−1)} ∪ {ξ^(2w), ξ^(2w+2), …, ξ^(4w−2)}.
//! 2q² switches of network degree k' = (3q − δ)/2 and diameter 2; `p` terminals per switch,
//! ⌈k'/2⌉ by default (the paper's full global bandwidth). Field elements are numbered as in
//! [`super::finite_field`] (integers mod q when q is prime).
//!
//! Switch `x·q + y` is `(0, x, y)`, switch `q² + m·q + c` is `(1, m, c)`. Ports: first the
//! |X| = |X'| = (q − δ)/2 ports of the own subgraph (port i to `y + X[i]`, resp. `c + X'[i]`,
//! X in increasing order), then q ports to the other subgraph (port `|X| + m` of `(0, x, y)`
//! leads to `(1, m, y − m·x)`, port `|X| + x` of `(1, m, c)` to `(0, x, m·x + c)`), then
//! the terminals. The shift `y → y + t`, `c → c + t` keeps every port: it is declared as
//! the symmetry (one source per `(0, x, ·)` and `(1, m, ·)` column).

use super::finite_field::FiniteField;
use super::symmetry::Symmetry;
use super::wiring::{check_size, Builder, Wiring};
use crate::error::{Error, Result};

/// A Slim Fly MMS graph of prime power `q` with `p` terminals per switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlimFly {
    /// The prime power q.
    pub q: usize,
    /// Terminals per switch.
    pub p: usize,
}

impl SlimFly {
    /// Validates `q` (a prime power other than 2) and the size; `p` defaults to ⌈k'/2⌉.
    pub fn new(spec: &str, q: usize, p: Option<usize>) -> Result<Self> {
        if q < 3 || super::finite_field::prime_power(q).is_none() {
            return Err(Error::invalid(
                spec,
                "q",
                q,
                "a prime power of at least 3 (3, 4, 5, 7, 8, 9, 11, 13, 16, ...)",
            ));
        }
        let k = (3 * q as isize - Self::delta_of(q)) as usize / 2;
        let p = p.unwrap_or(k.div_ceil(2));
        let switches = 2 * (q as u128) * (q as u128);
        check_size(spec, switches, switches * (k + p) as u128)?;
        Ok(SlimFly { q, p })
    }

    fn delta_of(q: usize) -> isize {
        match q % 4 {
            1 => 1,
            3 => -1,
            _ => 0,
        }
    }

    /// F_q.
    pub fn field(&self) -> FiniteField {
        FiniteField::new(self.q).expect("q is a prime power (checked by new)")
    }

    /// δ in q = 4w + δ.
    pub fn delta(&self) -> isize {
        Self::delta_of(self.q)
    }

    /// Network degree k' = (3q − δ)/2.
    pub fn network_degree(&self) -> usize {
        (3 * self.q as isize - self.delta()) as usize / 2
    }

    /// Number of switches, 2q².
    pub fn switches(&self) -> usize {
        2 * self.q * self.q
    }

    /// The generator sets X and X' (increasing order).
    pub fn generator_sets(&self) -> (Vec<usize>, Vec<usize>) {
        let q = self.q;
        let field = self.field();
        let (even, odd): (Vec<usize>, Vec<usize>) = if self.delta() == 1 {
            ((0..q - 1).step_by(2).collect(), (1..q - 1).step_by(2).collect())
        } else if self.delta() == 0 {
            ((0..q - 1).step_by(2).collect(), (1..q).step_by(2).collect())
        } else {
            let w = (q + 1) / 4;
            (
                (0..=2 * w - 2).step_by(2).chain((2 * w - 1..=4 * w - 3).step_by(2)).collect(),
                (1..=2 * w - 1).step_by(2).chain((2 * w..=4 * w - 2).step_by(2)).collect(),
            )
        };
        let set = |exps: Vec<usize>| {
            let mut v: Vec<usize> = exps.into_iter().map(|e| field.xi_pow(e)).collect();
            v.sort_unstable();
            v
        };
        (set(even), set(odd))
    }

    /// `[subgraph, x or m, y or c]` of switch `s`.
    pub fn coordinates(&self, s: usize) -> Vec<usize> {
        let q = self.q;
        vec![s / (q * q), s / q % q, s % q]
    }

    /// Calls `f(a, port a, b, port b)` once for every switch-to-switch link.
    pub fn for_each_link(&self, mut f: impl FnMut(usize, usize, usize, usize)) {
        let q = self.q;
        let field = self.field();
        let (x_set, xp_set) = self.generator_sets();
        let own = x_set.len();
        let pos = |set: &[usize], v: usize| set.binary_search(&v).expect("generator sets are closed under negation");
        for (half, set) in [(0, &x_set), (1, &xp_set)] {
            for col in 0..q {
                for y in 0..q {
                    let s = half * q * q + col * q + y;
                    for (i, &d) in set.iter().enumerate() {
                        let t = half * q * q + col * q + field.add(y, d);
                        if s < t {
                            f(s, i, t, pos(set, field.sub(0, d)));
                        }
                    }
                }
            }
        }
        for x in 0..q {
            for y in 0..q {
                for m in 0..q {
                    let c = field.sub(y, field.mul(m, x));
                    f(x * q + y, own + m, q * q + m * q + c, own + x);
                }
            }
        }
    }

    /// A balanced cut from [`super::balanced_cut`] (an upper bound on the minimum), `u64::MAX`
    /// above its size limit.
    pub fn bisection_channels(&self) -> u64 {
        let mut links = Vec::new();
        if self.switches() <= super::balanced_cut::MAX_SWITCHES {
            self.for_each_link(|a, _, b, _| links.push((a, b)));
        }
        super::balanced_cut::bisection_from(self.switches(), &links, self.p, 0).unwrap_or(u64::MAX)
    }

    pub(crate) fn build(&self) -> Wiring {
        let net = self.network_degree();
        let mut b = Builder::new(std::iter::repeat_n(net + self.p, self.switches()));
        self.for_each_link(|s, ps, t, pt| b.link(s, ps, t, pt));
        for s in 0..self.switches() {
            for k in 0..self.p {
                b.attach_terminal(s, net + k);
            }
        }
        let q = self.q as u32;
        let symmetry =
            Symmetry::translations((0..2 * q).map(|c| c * q).collect(), (0..2 * q * q).map(|s| s / q).collect());
        b.finish(Some(symmetry))
    }
}
