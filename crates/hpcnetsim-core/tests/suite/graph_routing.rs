//! Routings of networks without coordinates (Slim Fly, Jellyfish; `routing/hop_class.rs`):
//! hop classes are deadlock-free with as many VCs as the scheme needs and refused with
//! fewer, minimal routes are shortest paths, Valiant's about twice as long, and under uniform
//! traffic UGAL-L stays near minimal routing while Valiant falls well below it (Slim Fly
//! q = 5, 4 VCs: 0.610, 0.593 and 0.368 of the injection bandwidth), and VCs beyond the
//! classes are shared among them.

use crate::common::{mean_network_hops, sim_config, topo};
use hpcnetsim_core::config::{Algorithm, PatternKind};
use hpcnetsim_core::engine::measure;
use hpcnetsim_core::routing::{self, deadlock};
use hpcnetsim_core::topology::paths;

const NETS: [&str; 2] = ["slimfly:q=5", "jellyfish:n=24,k=4,p=2,seed=3"];

/// The diameter of `spec`'s switch graph: the largest terminal distance less the two
/// terminal links.
fn diameter(spec: &str) -> u32 {
    let t = topo(spec);
    let (d, _) = paths::distances(&t).unwrap();
    d as u32 - 2
}

#[test]
fn hop_classes_are_deadlock_free_and_too_few_vcs_are_refused() {
    for spec in NETS {
        let t = topo(spec);
        let d = diameter(spec);
        for (a, need) in [(Algorithm::GraphMinimal, d), (Algorithm::GraphValiant, 2 * d), (Algorithm::GraphUgal, 2 * d)]
        {
            let r = routing::build(&sim_config(spec, need, a, 0.1), &t).unwrap();
            let cdg = deadlock::routing_cdg(&t, r.as_ref(), need as usize, false, false).unwrap();
            assert!(cdg.verdict().is_acyclic(), "{spec} {} with {need} VCs", r.name());
            let merged = deadlock::check_routing(&t, r.as_ref(), need as usize, true).unwrap();
            assert!(!merged.is_acyclic(), "{spec} {}: the routes merged onto one VC close a cycle", r.name());
            let e = routing::build(&sim_config(spec, need - 1, a, 0.1), &t).err().expect("too few VCs");
            assert!(e.to_string().contains("switch.vcs") && !e.to_string().contains('\n'), "{e}");
        }
    }
    // Slim Fly's diameter is 2 (Besta and Hoefler): 2 VCs for minimal, 4 for Valiant.
    assert_eq!(diameter("slimfly:q=5"), 2);
}

#[test]
fn minimal_routes_are_shortest_and_valiant_ones_about_twice_as_long() {
    for spec in NETS {
        let t = topo(spec);
        let d = diameter(spec);
        let (_, avg) = paths::distances(&t).unwrap();
        // Terminal pairs on one switch take 0 switch hops: the average over pairs of distinct
        // terminals, less the two terminal links.
        let expected = avg - 2.0;
        let minimal = mean_network_hops(spec, Algorithm::GraphMinimal, d, 3000, 7);
        assert!((minimal - expected).abs() < 0.08, "{spec}: minimal {minimal:.3}, average distance {expected:.3}");
        let valiant = mean_network_hops(spec, Algorithm::GraphValiant, 2 * d, 3000, 7);
        assert!(
            valiant > 1.6 * minimal && valiant <= 2.0 * d as f64,
            "{spec}: valiant {valiant:.3}, minimal {minimal:.3}"
        );
    }
}

#[test]
fn under_uniform_traffic_ugal_follows_minimal_and_valiant_falls_below() {
    let spec = "slimfly:q=5";
    let accepted = |a: Algorithm| {
        let mut c = sim_config(spec, 4, a, 1.0);
        c.traffic.pattern = PatternKind::Uniform;
        c.measurement.warmup_cycles = 3_000;
        c.measurement.window_cycles = 500;
        c.measurement.batches = 2;
        c.measurement.batch_cycles = 2_000;
        c.measurement.max_convergence_cycles = 10_000;
        measure::run(&c).unwrap().accepted_load.unwrap_or(0.0)
    };
    let (minimal, valiant, ugal) =
        (accepted(Algorithm::GraphMinimal), accepted(Algorithm::GraphValiant), accepted(Algorithm::GraphUgal));
    eprintln!("slimfly:q=5 uniform saturation: minimal {minimal:.3}, valiant {valiant:.3}, ugal {ugal:.3}");
    assert!(ugal > 0.9 * minimal, "ugal {ugal:.3} minimal {minimal:.3}");
    assert!(valiant < 0.8 * minimal, "valiant {valiant:.3} minimal {minimal:.3}");
}

/// The VCs of the switch-to-switch channels the routing offers on any route of `spec` with
/// `vcs` VCs, following every candidate from every source to every destination.
fn offered_vcs(spec: &str, a: Algorithm, vcs: u32) -> std::collections::BTreeSet<u8> {
    use hpcnetsim_core::routing::Request;
    use hpcnetsim_core::topology::Peer;
    let t = topo(spec);
    let r = routing::build(&sim_config(spec, vcs, a, 0.1), &t).unwrap();
    let mut used = std::collections::BTreeSet::new();
    let mut cands = Vec::new();
    for src in 0..t.num_terminals() {
        for dst in 0..t.num_terminals() {
            if src == dst {
                continue;
            }
            for salt in 0..r.salts() {
                let (s0, p0) = t.terminal_attachment(src);
                let mut todo = vec![(s0, p0, 0usize)];
                let mut seen = std::collections::HashSet::new();
                while let Some((s, in_port, in_vc)) = todo.pop() {
                    cands.clear();
                    r.route(&Request { switch: s, in_port, in_vc, src, dst, salt, offset: 0 }, &mut cands);
                    assert!(!cands.is_empty(), "{spec} {}: no candidate at switch {s}", r.name());
                    for c in &cands {
                        if let Peer::Switch { switch, port } = t.ports(s)[c.port as usize] {
                            used.insert(c.vc);
                            if seen.insert((switch, port, c.vc)) {
                                todo.push((switch as usize, port as usize, c.vc as usize));
                            }
                        }
                    }
                }
            }
        }
    }
    used
}

#[test]
fn vcs_beyond_the_hop_classes_are_shared_among_them() {
    // Slim Fly q = 5 (diameter 2) with 8 VCs: minimal routing's two classes get 4 VCs each,
    // Valiant's and UGAL's four classes 2 each; every VC carries packets, and the routes
    // stay acyclic on them.
    let spec = "slimfly:q=5";
    let t = topo(spec);
    for a in [Algorithm::GraphMinimal, Algorithm::GraphValiant, Algorithm::GraphUgal] {
        let used = offered_vcs(spec, a, 8);
        assert_eq!(used, (0..8).collect(), "{spec} {a:?} with 8 VCs offers VCs {used:?}");
        let r = routing::build(&sim_config(spec, 8, a, 0.1), &t).unwrap();
        assert!(deadlock::check_routing(&t, r.as_ref(), 8, false).unwrap().is_acyclic(), "{spec} {a:?}");
    }
    // With as many VCs as classes, one VC per class, as before.
    assert_eq!(offered_vcs(spec, Algorithm::GraphMinimal, 2), (0..2).collect());
}
