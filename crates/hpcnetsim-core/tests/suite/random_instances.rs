//! Property tests: random small instances of every family satisfy the same cross-checks
//! as the hand-picked ones (enumerated channel loads, exhaustive bisection for even
//! sizes, closed-form distances against BFS, symmetry shortcut against all sources).

use crate::common::{brute_force_bisection, brute_force_channel_loads, topo};
use hpcnetsim_core::topology::paths;
use proptest::prelude::*;

fn dims(max_dims: usize, min: usize, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(min..=max, 1..=max_dims)
        .prop_map(|d| d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x"))
}

/// Random specs of every family, small enough for path enumeration.
fn small_spec() -> impl Strategy<Value = String> {
    prop_oneof![
        (2usize..=4, 1usize..=4, 1usize..=3).prop_map(|(k, kp, n)| format!("tree:k={k},kp={},n={n}", kp.min(k))),
        (prop::collection::vec((1usize..=3, 1usize..=3), 1..=3)).prop_map(|lv| {
            let m: Vec<String> = lv.iter().map(|x| (x.0 + 1).to_string()).collect();
            let w: Vec<String> =
                lv.iter().enumerate().map(|(i, x)| if i == 0 { "1".into() } else { x.1.to_string() }).collect();
            format!("xgft:m={};w={}", m.join(","), w.join(","))
        }),
        (dims(3, 2, 4), 1usize..=2).prop_map(|(d, t)| format!("torus:{d},t={t}")),
        (dims(3, 1, 4), 1usize..=2)
            .prop_filter("at least 2 terminals", |(d, t)| t * d
                .split('x')
                .map(|x| x.parse::<usize>().unwrap())
                .product::<usize>()
                >= 2)
            .prop_map(|(d, t)| format!("mesh:{d},t={t}")),
        (2usize..=3, 2usize..=3, 2usize..=3).prop_map(|(a, b, c)| format!("twin-torus:{a}x{b}x{c}")),
        (dims(2, 2, 4), 1usize..=3, 1usize..=2).prop_map(|(d, t, k)| format!("hyperx:{d},t={t},k={k}")),
        (2usize..=9).prop_map(|n| format!("crossbar:{n}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn channel_loads_match_enumeration(spec in small_spec()) {
        let t = topo(&spec);
        let brute = brute_force_channel_loads(&t);
        let fast = paths::channel_loads(&t);
        for (b, f) in brute.iter().zip(&fast) {
            prop_assert!((b - f).abs() < 1e-9, "{}: {} vs {}", spec, b, f);
        }
        let brute_max = brute.iter().copied().fold(1.0, f64::max);
        prop_assert!((t.max_channel_load() - brute_max).abs() < 1e-9, "{}", spec);
    }

    #[test]
    fn distances_agree(spec in small_spec()) {
        let t = topo(&spec);
        let (d, avg) = t.distances().unwrap();
        let (d_bfs, avg_bfs) = paths::distances_with(&t, None).unwrap();
        prop_assert_eq!(d, d_bfs, "{}", spec);
        prop_assert!((avg - avg_bfs).abs() < 1e-9, "{}: {} vs {}", spec, avg, avg_bfs);
    }

    #[test]
    fn bisection_is_optimal_when_balanced(spec in small_spec()) {
        let t = topo(&spec);
        // The closed forms are exact when a balanced cut of the chosen kind exists; with
        // odd sizes the reported cut is a valid upper bound, never below the optimum.
        let best = if t.num_switches() <= 18 { brute_force_bisection(&t) } else { return Ok(()) };
        let ours = t.family().bisection_channels();
        prop_assert!(ours >= best, "{}: {} below the optimum {}", spec, ours, best);
        let even = spec_is_even(&spec);
        if even {
            prop_assert_eq!(ours, best, "{}", spec);
        }
    }
}

/// Whether every size parameter of the spec is even (a balanced cut then exists).
fn spec_is_even(spec: &str) -> bool {
    let (family, body) = spec.split_once(':').unwrap();
    match family {
        "torus" | "mesh" | "hyperx" | "twin-torus" => {
            let dims = body.split(',').next().unwrap();
            dims.split('x').all(|d| d.parse::<usize>().unwrap() % 2 == 0)
        }
        "crossbar" => body.parse::<usize>().unwrap() % 2 == 0,
        _ => body.split([',', ';', '=']).filter_map(|x| x.parse::<usize>().ok()).all(|v| v % 2 == 0 || v == 1),
    }
}
