//! Paper 003 §4.1: Zipf traffic. Every source ranks the other terminals (rank r = the r-th
//! terminal index after it) and draws rank r with probability r^−s / H(N−1, s). The paper names
//! the law but not the exponent; s = 1 is Zipf's law proper, and `traffic.zipf_exponent` sets
//! others. These tests compare the drawn destinations with the law on the paper's 256-PE
//! networks: the share of every rank, a chi-square statistic over all 255 ranks, and the load
//! each terminal receives (the rotation makes it the same for every destination).

use crate::common::topo;
use hpcnetsim_core::config::{Config, PatternKind};
use hpcnetsim_core::rng::{stream, Owner};
use hpcnetsim_core::workload::Pattern;

fn zipf(spec: &str, exponent: f64) -> Pattern {
    let mut c = Config::from_toml(&format!("topology = \"{spec}\"\n[switch]\nvcs = 4\n")).unwrap();
    c.traffic.pattern = PatternKind::Zipf;
    c.traffic.zipf_exponent = exponent;
    Pattern::new(&c.traffic, &topo(spec), c.seed).unwrap()
}

/// Zipf probabilities of ranks 1..n−1 (index 0 unused).
fn law(n: usize, s: f64) -> Vec<f64> {
    let h: f64 = (1..n).map(|r| (r as f64).powf(-s)).sum();
    let mut p = vec![0.0];
    p.extend((1..n).map(|r| (r as f64).powf(-s) / h));
    p
}

/// Rank counts of `draws` packets per source from every source of `p` (n terminals).
fn rank_counts(p: &Pattern, n: usize, draws: usize) -> Vec<u64> {
    let mut rng = stream(17, Owner::Nic, 3);
    let mut counts = vec![0u64; n];
    for s in 0..n {
        for _ in 0..draws {
            let d = p.destination(s, &mut rng);
            assert_ne!(d, s, "a terminal never sends to itself");
            counts[(d + n - s) % n] += 1;
        }
    }
    counts
}

/// Pearson's chi-square of the counts against the law.
fn chi_square(counts: &[u64], p: &[f64]) -> f64 {
    let total: u64 = counts.iter().sum();
    (1..counts.len()).map(|r| (counts[r] as f64 - total as f64 * p[r]).powi(2) / (total as f64 * p[r])).sum()
}

#[test]
fn zipf_destinations_follow_the_law_on_the_256_pe_networks() {
    for spec in ["torus:8x8x4", "twin-torus:4x4x2x2x2"] {
        for s in [1.0, 0.5, 2.0] {
            let n = 256;
            let p = zipf(spec, s);
            let counts = rank_counts(&p, n, 1000);
            assert_eq!(counts[0], 0);
            let want = law(n, s);
            let total = (n * 1000) as f64;
            // The counts of the most popular ranks within 5 binomial standard deviations of the
            // law (for rank 1 at s = 1, 41 800 expected draws: within 2.3 %).
            for r in [1usize, 2, 3, 5, 10] {
                let expected = total * want[r];
                let sd = (expected * (1.0 - want[r])).sqrt();
                let got = counts[r] as f64;
                assert!(
                    (got - expected).abs() < 5.0 * sd,
                    "{spec} s={s} rank {r}: {got} draws, expected {expected:.0} ± {sd:.0}"
                );
            }
            // All 255 ranks at once: chi-square with 254 degrees of freedom has mean 254 and
            // standard deviation 22.5; 380 is beyond its 99.999th percentile.
            let chi = chi_square(&counts, &want);
            assert!(chi < 380.0, "{spec} s={s}: chi-square {chi:.1} over 254 degrees of freedom");
        }
    }
}

#[test]
fn zipf_chi_square_rejects_another_exponent() {
    // The statistic above can fail: the same draws measured against a neighbouring exponent
    // (1.1 instead of 1.0) or against uniform traffic are far outside the bound.
    let n = 256;
    let counts = rank_counts(&zipf("torus:8x8x4", 1.0), n, 1000);
    assert!(chi_square(&counts, &law(n, 1.1)) > 1000.0);
    assert!(chi_square(&counts, &law(n, 1e-9)) > 1000.0);
}

#[test]
fn zipf_loads_every_destination_equally() {
    // Ranks count from each source, so every terminal is rank r of exactly one source: the
    // expected load per destination is the same (no hot spot), unlike a global popularity list.
    let n = 256;
    let p = zipf("twin-torus:4x4x2x2x2", 1.0);
    let mut rng = stream(5, Owner::Nic, 0);
    let mut received = vec![0u64; n];
    let per_source = 2000;
    for s in 0..n {
        for _ in 0..per_source {
            received[p.destination(s, &mut rng)] += 1;
        }
    }
    let mean = per_source as f64;
    let worst = received.iter().map(|&c| (c as f64 - mean).abs() / mean).fold(0.0, f64::max);
    // Each count is a sum of 256 sources' binomials with mean 2000: sd ≈ 45, 6 sd = 14 %.
    assert!(worst < 0.14, "largest deviation of a destination's load from the mean: {worst:.3}");
}

#[test]
fn shuffled_zipf_ranks_follow_a_random_order_of_the_terminals() {
    // `zipf_ranks = "shuffled"`: rank r is the r-th terminal after the source in one random
    // order of the terminals (from the seed). The law over ranks is the same; the likeliest
    // destination of a source is no longer its index neighbour, and every terminal still
    // receives the same load.
    let n = 256;
    let mut c =
        Config::from_toml("topology = \"torus:8x8x4\"\n[traffic]\npattern = \"zipf\"\nzipf_ranks = \"shuffled\"")
            .unwrap();
    c.traffic.zipf_exponent = 2.0;
    let p = Pattern::new(&c.traffic, &topo("torus:8x8x4"), c.seed).unwrap();
    let mut rng = stream(9, Owner::Nic, 0);
    // At s = 2 rank 1 takes 61 % of the draws: each source's most frequent destination.
    let mut favourite = vec![0usize; n];
    let mut received = vec![0u64; n];
    for (s, fav) in favourite.iter_mut().enumerate() {
        let mut counts = vec![0u32; n];
        for _ in 0..400 {
            let d = p.destination(s, &mut rng);
            assert_ne!(d, s);
            counts[d] += 1;
            received[d] += 1;
        }
        *fav = (0..n).max_by_key(|&d| counts[d]).unwrap();
    }
    // The favourites form one cycle through all terminals (the random order), not s + 1.
    let mut seen = vec![false; n];
    let mut t = 0;
    for _ in 0..n {
        assert!(!seen[t], "terminal {t} is the favourite of two sources");
        seen[t] = true;
        t = favourite[t];
    }
    assert_eq!(t, 0, "the favourites close one cycle over the {n} terminals");
    let neighbours = (0..n).filter(|&s| favourite[s] == (s + 1) % n).count();
    assert!(neighbours < 8, "{neighbours} sources favour their index neighbour");
    let index = zipf("torus:8x8x4", 2.0);
    assert!((0..n).all(|s| {
        let mut counts = vec![0u32; n];
        (0..200).for_each(|_| counts[index.destination(s, &mut rng)] += 1);
        (0..n).max_by_key(|&d| counts[d]) == Some((s + 1) % n)
    }));
    let worst = received.iter().map(|&c| (c as f64 - 400.0).abs() / 400.0).fold(0.0, f64::max);
    assert!(worst < 0.35, "largest deviation of a destination's load: {worst:.3}");
}
