//! Slim Fly (Besta and Hoefler, SC 2014) by the McKay–Miller–Širáň construction: for a
//! prime `q = 4w + δ` (δ = ±1), switches `(0, x, y)` and `(1, m, c)` with `x, y, m, c` in
//! the field F_q, and a primitive element ξ of F_q:
//!
//! - `(0, x, y) ~ (0, x, y')` when `y − y' ∈ X`, `(1, m, c) ~ (1, m, c')` when `c − c' ∈ X'`;
//! - `(0, x, y) ~ (1, m, c)` when `y = m·x + c`;
//!
//! with X = {ξ^0, ξ^2, …, ξ^(q−3)} and X' = {ξ^1, ξ^3, …, ξ^(q−2)} for δ = 1, and for δ = −1
//! X = {ξ^0, ξ^2, …, ξ^(2w−2)} ∪ {ξ^(2w−1), ξ^(2w+1), …, ξ^(4w−3)},
//! X' = {ξ^1, ξ^3, …, ξ^(2w−1)} ∪ {ξ^(2w), ξ^(2w+2), …, ξ^(4w−2)}.
//! 2q² switches of network degree k' = (3q − δ)/2 and diameter 2; `p` terminals per switch,
//! ⌈k'/2⌉ by default (the paper's full global bandwidth). Prime powers (δ = 0 included)
//! need F_q arithmetic beyond integers mod q and are refused.
//!
//! Switch `x·q + y` is `(0, x, y)`, switch `q² + m·q + c` is `(1, m, c)`. Ports: first the
//! |X| = |X'| = (q − δ)/2 ports of the own subgraph (port i to `y + X[i]`, resp. `c + X'[i]`,
//! X in increasing order), then q ports to the other subgraph (port `|X| + m` of `(0, x, y)`
//! leads to `(1, m, y − m·x)`, port `|X| + x` of `(1, m, c)` to `(0, x, m·x + c)`), then
//! the terminals. The shift `y → y + t`, `c → c + t` keeps every port: it is declared as
//! the symmetry (one source per `(0, x, ·)` and `(1, m, ·)` column).

use super::graph::{check_size, Builder};
use super::symmetry::Symmetry;
use super::{Family, Topology};
use crate::error::{Error, Result};

/// A Slim Fly MMS graph of prime `q` with `p` terminals per switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlimFly {
    /// The prime q.
    pub q: usize,
    /// Terminals per switch.
    pub p: usize,
}

/// Whether `n` is prime.
fn is_prime(n: usize) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
}

/// `b^e mod q`.
fn pow_mod(b: usize, mut e: usize, q: usize) -> usize {
    let (mut r, mut b) = (1 % q, b % q);
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % q;
        }
        b = b * b % q;
        e >>= 1;
    }
    r
}

/// The smallest primitive element of F_q (q prime): its order is q − 1, i.e. no
/// ξ^((q−1)/f) is 1 for a prime factor f of q − 1.
fn primitive_element(q: usize) -> usize {
    let factors: Vec<usize> = (2..q).filter(|&f| (q - 1).is_multiple_of(f) && is_prime(f)).collect();
    (2..q).find(|&x| factors.iter().all(|&f| pow_mod(x, (q - 1) / f, q) != 1)).unwrap_or(1)
}

impl SlimFly {
    /// Validates `q` (an odd prime) and the size; `p` defaults to ⌈k'/2⌉.
    pub fn new(spec: &str, q: usize, p: Option<usize>) -> Result<Self> {
        if q < 3 || !is_prime(q) {
            return Err(Error::invalid(
                spec,
                "q",
                q,
                "an odd prime (3, 5, 7, 11, 13, ...); prime powers need F_q arithmetic that is not implemented",
            ));
        }
        let k = (3 * q as isize - Self::delta_of(q)) as usize / 2;
        let p = p.unwrap_or(k.div_ceil(2));
        let switches = 2 * (q as u128) * (q as u128);
        check_size(spec, switches, switches * (k + p) as u128)?;
        Ok(SlimFly { q, p })
    }

    fn delta_of(q: usize) -> isize {
        if q % 4 == 1 {
            1
        } else {
            -1
        }
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
        let xi = primitive_element(q);
        let (even, odd): (Vec<usize>, Vec<usize>) = if self.delta() == 1 {
            ((0..q - 1).step_by(2).collect(), (1..q - 1).step_by(2).collect())
        } else {
            let w = (q + 1) / 4;
            (
                (0..=2 * w - 2).step_by(2).chain((2 * w - 1..=4 * w - 3).step_by(2)).collect(),
                (1..=2 * w - 1).step_by(2).chain((2 * w..=4 * w - 2).step_by(2)).collect(),
            )
        };
        let set = |exps: Vec<usize>| {
            let mut v: Vec<usize> = exps.into_iter().map(|e| pow_mod(xi, e, q)).collect();
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
        let (x_set, xp_set) = self.generator_sets();
        let own = x_set.len();
        let pos = |set: &[usize], v: usize| set.binary_search(&v).expect("generator sets are closed under negation");
        for (half, set) in [(0, &x_set), (1, &xp_set)] {
            for col in 0..q {
                for y in 0..q {
                    let s = half * q * q + col * q + y;
                    for (i, &d) in set.iter().enumerate() {
                        let t = half * q * q + col * q + (y + d) % q;
                        if s < t {
                            f(s, i, t, pos(set, (q - d) % q));
                        }
                    }
                }
            }
        }
        for x in 0..q {
            for y in 0..q {
                for m in 0..q {
                    let c = (y + q * q - m * x % q) % q;
                    f(x * q + y, own + m, q * q + m * q + c, own + x);
                }
            }
        }
    }

    pub(crate) fn build(&self, spec: &str, family: Family) -> Topology {
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
        b.finish(spec.to_string(), family, Some(symmetry))
    }
}
