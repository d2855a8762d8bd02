//! Routings of networks without coordinates (Slim Fly, Jellyfish; `routing/hop_class.rs`):
//! hop classes are deadlock-free with as many VCs as the scheme needs and refused with
//! fewer, minimal routes are shortest paths, Valiant's about twice as long, and under uniform
//! traffic UGAL-L stays near minimal routing while Valiant falls well below it (Slim Fly
//! q = 5: 0.591, 0.591 and 0.374 of the injection bandwidth).

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
