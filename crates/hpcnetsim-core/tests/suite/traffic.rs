//! Synthetic traffic: every destination pattern maps where it should, injection processes
//! offer the configured load, messages split into padded packets.

use crate::common::topo;
use hpcnetsim_core::config::{Config, Injection, PatternKind};
use hpcnetsim_core::rng::{stream, Owner};
use hpcnetsim_core::workload::{message_packets, Pattern, Source};

fn pattern(spec: &str, kind: PatternKind, edit: impl Fn(&mut Config)) -> Pattern {
    let mut c = Config::from_toml(&format!("topology = \"{spec}\"")).unwrap();
    c.traffic.pattern = kind;
    edit(&mut c);
    Pattern::new(&c.traffic, &topo(spec), c.seed).unwrap()
}

#[test]
fn bit_permutations() {
    let mut rng = stream(1, Owner::Nic, 0);
    let n = 64;
    type Mapping = fn(usize) -> usize;
    let cases: [(PatternKind, Mapping); 5] = [
        (PatternKind::BitComplement, |s| 63 - s),
        (PatternKind::BitReversal, |s| (0..6).fold(0, |a, i| a | ((s >> i) & 1) << (5 - i))),
        (PatternKind::Transpose, |s| ((s & 7) << 3) | (s >> 3)),
        (PatternKind::PerfectShuffle, |s| ((s << 1) & 63) | (s >> 5)),
        (PatternKind::Butterfly, |s| (s & 0b011110) | ((s & 1) << 5) | (s >> 5)),
    ];
    for (kind, f) in cases {
        let p = pattern("torus:8x8", kind, |_| {});
        for s in 0..n {
            if f(s) == s {
                assert!(!p.is_active(s), "{kind:?}: {s} maps to itself and must stay silent");
            } else {
                assert_eq!(p.destination(s, &mut rng), f(s), "{kind:?} from {s}");
            }
        }
    }
}

#[test]
fn uniform_never_sends_to_itself_and_covers_everyone() {
    let p = pattern("tree:k=4,n=2", PatternKind::Uniform, |_| {});
    let mut rng = stream(3, Owner::Nic, 5);
    let mut seen = [0u32; 16];
    for _ in 0..16_000 {
        let d = p.destination(5, &mut rng);
        assert_ne!(d, 5);
        seen[d] += 1;
    }
    for (d, &c) in seen.iter().enumerate() {
        if d != 5 {
            assert!((900..1250).contains(&c), "destination {d} drawn {c} times of ~1067");
        }
    }
}

#[test]
fn grid_patterns_follow_the_coordinates() {
    let mut rng = stream(1, Owner::Nic, 0);
    // Tornado on an 8x8 torus: 3 steps along both dimensions.
    let p = pattern("torus:8x8", PatternKind::Tornado, |_| {});
    assert_eq!(p.destination(0, &mut rng), 3 + 3 * 8);
    assert_eq!(p.destination(7 + 7 * 8, &mut rng), 2 + 2 * 8);
    // Nearest neighbour: one link away on the torus.
    let t = topo("torus:8x8");
    let p = pattern("torus:8x8", PatternKind::NearestNeighbour, |_| {});
    for s in [0, 9, 63] {
        for _ in 0..20 {
            let d = p.destination(s, &mut rng);
            assert_eq!(hpcnetsim_core::topology::paths::terminal_distance(&t, s, d).unwrap(), 3, "{s} -> {d}");
        }
    }
}

#[test]
fn random_permutation_has_no_fixed_point() {
    let p = pattern("tree:k=4,n=3", PatternKind::RandomPermutation, |_| {});
    let mut rng = stream(1, Owner::Nic, 0);
    let mut dst: Vec<usize> = (0..64).map(|s| p.destination(s, &mut rng)).collect();
    assert!(dst.iter().enumerate().all(|(s, &d)| s != d));
    dst.sort();
    assert_eq!(dst, (0..64).collect::<Vec<_>>());
}

#[test]
fn hot_spot_region_and_zipf_distributions() {
    let mut rng = stream(9, Owner::Nic, 1);
    let draws = 20_000;
    let p = pattern("torus:8x8", PatternKind::HotSpot, |c| {
        c.traffic.hot_nodes = vec![10, 20];
        c.traffic.hot_fraction = 0.3;
    });
    let hot = (0..draws).filter(|_| [10, 20].contains(&p.destination(0, &mut rng))).count() as f64 / draws as f64;
    // 30 % directly, plus the uniform share of the remaining 70 % (2 of 63).
    let want = 0.3 + 0.7 * 2.0 / 63.0;
    assert!((hot - want).abs() < 0.015, "hot-spot share {hot}, expected {want}");
    let p = pattern("torus:8x8", PatternKind::HotRegion, |c| {
        c.traffic.hot_fraction = 0.5;
        c.traffic.hot_region_fraction = 0.25;
    });
    let region = (0..draws).filter(|_| p.destination(40, &mut rng) < 16).count() as f64 / draws as f64;
    let want = 0.5 + 0.5 * 16.0 / 63.0;
    assert!((region - want).abs() < 0.015, "hot-region share {region}, expected {want}");
    let p = pattern("torus:8x8", PatternKind::Zipf, |c| c.traffic.zipf_exponent = 1.0);
    let mut by_rank = [0u32; 64];
    for _ in 0..draws {
        let d = p.destination(60, &mut rng);
        by_rank[(d + 64 - 60) % 64] += 1;
    }
    let harmonic: f64 = (1..64).map(|r| 1.0 / r as f64).sum();
    for rank in [1usize, 2, 4] {
        let share = by_rank[rank] as f64 / draws as f64;
        let want = 1.0 / (rank as f64 * harmonic);
        assert!((share - want).abs() < 0.2 * want, "Zipf rank {rank}: {share} vs {want}");
    }
    assert_eq!(by_rank[0], 0);
}

#[test]
fn injection_processes_offer_the_configured_load() {
    for (injection, sizes) in
        [(Injection::Bernoulli, (16, 0)), (Injection::Bursty, (16, 0)), (Injection::Bernoulli, (4, 28))]
    {
        let mut c = Config::from_toml("topology = \"torus:4x4\"").unwrap();
        c.traffic.load = 0.3;
        c.traffic.injection = injection;
        (c.traffic.packet_phits, c.traffic.packet_phits_max) = sizes;
        let src = Source::new(&c.traffic);
        let mut rng = stream(1, Owner::Nic, 0);
        let (mut t, mut phits) = (0u64, 0u64);
        while t < 2_000_000 {
            let size = src.size(&mut rng);
            phits += size as u64;
            t += src.gap(size, &mut rng);
        }
        let load = phits as f64 / t as f64;
        assert!((load - 0.3).abs() < 0.01, "{injection:?} {sizes:?}: offered {load}");
    }
}

#[test]
fn messages_split_into_padded_packets() {
    // 16-byte phits, 16-phit packets: 256 bytes per packet.
    assert_eq!(message_packets(40 * 1024, 16, 16).len(), 160);
    assert_eq!(message_packets(257, 16, 16), vec![16, 16]);
    assert_eq!(message_packets(0, 4, 16), vec![16]);
    assert_eq!(message_packets(64, 4, 16), vec![16]);
}

#[test]
fn a_pattern_that_leaves_every_terminal_silent_is_refused() {
    // Every terminal its own destination: tornado takes ⌈2/2⌉ − 1 = 0 steps on a 2-ary
    // torus and N/2 − 1 = 0 terminals on a 2-port crossbar, and reversing or shuffling one
    // address bit changes nothing. Run, such a config measured nothing and reported a
    // converged run that accepted 0 of its offered load.
    for (spec, kind) in [
        ("torus:2x2", PatternKind::Tornado),
        ("crossbar:2", PatternKind::Tornado),
        ("crossbar:2", PatternKind::BitReversal),
        ("crossbar:2", PatternKind::PerfectShuffle),
        ("crossbar:2", PatternKind::Butterfly),
    ] {
        let mut c = Config::from_toml(&format!("topology = \"{spec}\"\n[switch]\nvcs = 2\n")).unwrap();
        c.traffic.pattern = kind;
        let e = Pattern::new(&c.traffic, &topo(spec), c.seed).err().unwrap_or_else(|| panic!("{spec} {kind:?}"));
        let e = e.to_string();
        assert!(e.contains("traffic.pattern") && e.contains("no terminal sends"), "{spec} {kind:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        let run = hpcnetsim_core::engine::measure::run(&c).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(run.contains("traffic.pattern"), "{spec} {kind:?}: the run is refused, got '{run}'");
    }
    // Where some terminals send, the others stay silent as before: tornado on a 2x4 torus
    // moves along the dimension of 4 only.
    let p = pattern("torus:2x4", PatternKind::Tornado, |_| {});
    let mut rng = stream(1, Owner::Nic, 0);
    assert!((0..8).all(|s| p.is_active(s)));
    assert_eq!(p.destination(0, &mut rng), 2);
    assert_eq!(pattern("crossbar:2", PatternKind::BitComplement, |_| {}).destination(0, &mut rng), 1);
}

/// A pattern's or an injection process's own field set beside another was left unread:
/// `zipf_exponent = 2` beside `pattern = "uniform"` ran uniform traffic. It is refused in one
/// line naming the field, its value and the pattern (or injection) that reads it; beside its
/// own pattern, and at its default beside any, it is accepted.
#[test]
fn a_pattern_field_beside_a_pattern_that_does_not_read_it_is_refused() {
    let refused = [
        ("pattern = \"uniform\"\nzipf_exponent = 2.0", "traffic.zipf_exponent = 2", "zipf"),
        ("pattern = \"tornado\"\nzipf_ranks = \"shuffled\"", "traffic.zipf_ranks = shuffled", "zipf"),
        ("pattern = \"zipf\"\nhot_fraction = 0.5", "traffic.hot_fraction = 0.5", "hot-spot, hot-region"),
        ("pattern = \"hot-spot\"\nhot_region_fraction = 0.5", "traffic.hot_region_fraction = 0.5", "hot-region"),
        ("injection = \"bernoulli\"\nburst_packets = 4.0", "traffic.burst_packets = 4", "bursty"),
    ];
    for (traffic, needle, reader) in refused {
        let text = format!("topology = \"torus:4x4\"\n[traffic]\n{traffic}");
        let err = Config::from_toml(&text).unwrap_err().to_string();
        assert!(err.contains(needle) && err.contains(reader), "{traffic:?}: {err}");
        assert!(!err.contains('\n'), "{err}");
    }
    let accepted = [
        "pattern = \"zipf\"\nzipf_exponent = 2.0\nzipf_ranks = \"shuffled\"",
        "pattern = \"hot-spot\"\nhot_fraction = 0.5",
        "pattern = \"hot-region\"\nhot_fraction = 0.5\nhot_region_fraction = 0.5",
        "injection = \"bursty\"\nburst_packets = 4.0",
        "pattern = \"uniform\"\nzipf_exponent = 1.0\nhot_fraction = 0.1\nburst_packets = 8.0",
    ];
    for traffic in accepted {
        let text = format!("topology = \"torus:4x4\"\n[traffic]\n{traffic}");
        assert!(Config::from_toml(&text).is_ok(), "{traffic:?}");
    }
}
