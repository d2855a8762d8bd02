//! The finite field F_q, q = p^m, for the Slim Fly construction: elements are the integers
//! 0..q, element `Σ d_i·p^i` standing for the polynomial `Σ d_i·x^i` over F_p. For m = 1
//! that is arithmetic mod p with ξ the smallest primitive root; for m > 1 the field is
//! F_p[x]/(f) with f the first monic primitive polynomial of degree m (its constant term
//! and then its other coefficients counted up in base p), so that ξ = x generates the
//! multiplicative group.

/// F_q with power and logarithm tables of its primitive element ξ.
#[derive(Clone, Debug)]
pub struct FiniteField {
    /// The characteristic.
    pub p: usize,
    /// The degree over F_p.
    pub m: usize,
    /// q = p^m.
    pub q: usize,
    /// `exp[i]` = ξ^i for i in 0..q−1.
    exp: Vec<usize>,
    /// `log[a]` = i with ξ^i = a, for a ≠ 0.
    log: Vec<usize>,
}

/// The smallest prime factor of `n` ≥ 2.
fn smallest_factor(n: usize) -> usize {
    (2..).take_while(|d| d * d <= n).find(|&d| n.is_multiple_of(d)).unwrap_or(n)
}

/// `(p, m)` with `q = p^m`, if `q` is a prime power.
pub fn prime_power(q: usize) -> Option<(usize, usize)> {
    if q < 2 {
        return None;
    }
    let p = smallest_factor(q);
    let (mut rest, mut m) = (q, 0);
    while rest.is_multiple_of(p) {
        rest /= p;
        m += 1;
    }
    (rest == 1).then_some((p, m))
}

impl FiniteField {
    /// F_q for a prime power q (`None` otherwise).
    pub fn new(q: usize) -> Option<Self> {
        let (p, m) = prime_power(q)?;
        let exp = if m == 1 {
            (2..q.max(3)).find_map(|g| powers(q, |a| a * g % q)).unwrap_or_else(|| vec![1])
        } else {
            (0..q)
                .filter(|c| !c.is_multiple_of(p))
                .find_map(|c| powers(q, |a| times_x(a, c, p, m)))
                .expect("a primitive polynomial of every degree exists")
        };
        let mut log = vec![0; q];
        for (i, &a) in exp.iter().enumerate() {
            log[a] = i;
        }
        Some(FiniteField { p, m, q, exp, log })
    }

    /// a + b.
    pub fn add(&self, a: usize, b: usize) -> usize {
        self.digitwise(a, b, |x, y| (x + y) % self.p)
    }

    /// a − b.
    pub fn sub(&self, a: usize, b: usize) -> usize {
        self.digitwise(a, b, |x, y| (x + self.p - y) % self.p)
    }

    /// a·b.
    pub fn mul(&self, a: usize, b: usize) -> usize {
        if a == 0 || b == 0 {
            return 0;
        }
        self.exp[(self.log[a] + self.log[b]) % (self.q - 1)]
    }

    /// ξ^e.
    pub fn xi_pow(&self, e: usize) -> usize {
        self.exp[e % (self.q - 1)]
    }

    fn digitwise(&self, mut a: usize, mut b: usize, op: impl Fn(usize, usize) -> usize) -> usize {
        let (mut out, mut unit) = (0, 1);
        for _ in 0..self.m {
            out += op(a % self.p, b % self.p) * unit;
            a /= self.p;
            b /= self.p;
            unit *= self.p;
        }
        out
    }
}

/// The powers 1, ξ, ξ², … of the element that `step` multiplies by, if it has order q − 1.
fn powers(q: usize, step: impl Fn(usize) -> usize) -> Option<Vec<usize>> {
    let mut out = Vec::with_capacity(q - 1);
    let mut a = 1;
    for _ in 0..q - 1 {
        if !out.is_empty() && a == 1 {
            return None;
        }
        out.push(a);
        a = step(a);
    }
    (a == 1).then_some(out)
}

/// `a·x` in F_p[x]/(f) for the monic f = x^m + Σ c_i x^i, with `c` = Σ c_i p^i.
fn times_x(a: usize, c: usize, p: usize, m: usize) -> usize {
    let top = a / p.pow(m as u32 - 1);
    let shifted = (a % p.pow(m as u32 - 1)) * p;
    // x^m = −Σ c_i x^i: subtract top·c digit by digit.
    let (mut out, mut unit, mut s, mut cc) = (0, 1, shifted, c);
    for _ in 0..m {
        out += ((s % p) + p * p - top * (cc % p) % p) % p * unit;
        s /= p;
        cc /= p;
        unit *= p;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The field axioms that the Slim Fly construction relies on, by brute force.
    #[test]
    fn small_fields_are_fields() {
        for q in [2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 49] {
            let f = FiniteField::new(q).unwrap();
            let mut seen = vec![false; q];
            for i in 0..q - 1 {
                assert!(!seen[f.xi_pow(i)], "q = {q}: ξ^{i} repeats");
                seen[f.xi_pow(i)] = true;
            }
            for a in 0..q {
                assert_eq!(f.sub(f.add(a, 3 % q), 3 % q), a, "q = {q}");
                for b in 0..q {
                    assert_eq!(f.add(a, b), f.add(b, a));
                    assert_eq!(f.mul(a, b), f.mul(b, a));
                    for c in [1 % q, q - 1] {
                        assert_eq!(f.mul(a, f.add(b, c)), f.add(f.mul(a, b), f.mul(a, c)), "q = {q}: {a}·({b}+{c})");
                    }
                }
            }
        }
        assert!(FiniteField::new(6).is_none() && FiniteField::new(12).is_none());
    }
}
