//! Dragonfly routings (minimal, Valiant, UGAL-L, UGAL-G, PAR): each VC scheme passes the
//! deadlock analysis and too few VCs do not, routes are as long as they should be, and the
//! literature's shapes on the 72-node dragonfly (Kim et al. 2008; Jiang, Kim and Dally
//! 2009): under worst-case group traffic minimal routing saturates near 1/(a·p) and Valiant
//! near 1/2, the adaptive routings follow Valiant there (UGAL-G and PAR at least as well as
//! UGAL-L) and minimal routing under uniform traffic.

use crate::common::{backlog_throughput, mean_network_hops, saturation, sim_config, topo};
use hpcnetsim_core::config::{Algorithm, Config, PatternKind};
use hpcnetsim_core::engine::{measure, Engine};
use hpcnetsim_core::routing::dragonfly::{DragonflyRouting, Mode};
use hpcnetsim_core::routing::{self, deadlock, deadlock_check};
use hpcnetsim_core::topology::Family;

const ROUTINGS: [(Algorithm, u32); 5] = [
    (Algorithm::DragonflyMinimal, 2),
    (Algorithm::DragonflyValiant, 3),
    (Algorithm::DragonflyUgal, 3),
    (Algorithm::DragonflyUgalG, 3),
    (Algorithm::DragonflyPar, 4),
];

#[test]
fn every_vc_scheme_is_deadlock_free_and_too_few_vcs_are_not() {
    for spec in [
        "dragonfly:a=4,p=2,h=2",
        "dragonfly:a=4,p=1,h=2,arrangement=relative",
        "dragonfly:a=3,p=1,h=2,arrangement=circulant",
        "dragonfly:a=2,p=1,h=2,g=3",
    ] {
        let t = topo(spec);
        for (a, min_vcs) in ROUTINGS {
            for vcs in [min_vcs, 2 * min_vcs] {
                let r = routing::build(&sim_config(spec, vcs, a, 0.1), &t).unwrap();
                let cdg = deadlock::routing_cdg(&t, r.as_ref(), vcs as usize, false, false).unwrap();
                assert!(cdg.verdict().is_acyclic(), "{spec} {} with {vcs} VCs", r.name());
            }
            // The control: the same routes with the VCs merged into one channel close a cycle.
            let r = routing::build(&sim_config(spec, min_vcs, a, 0.1), &t).unwrap();
            let merged = deadlock::check_routing(&t, r.as_ref(), min_vcs as usize, true).unwrap();
            assert!(!merged.is_acyclic(), "{spec} {} merged", r.name());
            // And with fewer VCs than the scheme needs the routing is refused in one line.
            let e = routing::build(&sim_config(spec, min_vcs - 1, a, 0.1), &t).err().expect("too few VCs");
            assert!(e.to_string().contains("switch.vcs") && !e.to_string().contains('\n'), "{e}");
        }
    }
    // `route --check-deadlock` reaches the same verdicts.
    let mut c = Config::from_toml("topology = \"dragonfly:a=4,p=2,h=2\"\n[switch]\nvcs = 8\n").unwrap();
    c.routing.method = Algorithm::DragonflyUgal.into();
    let check = deadlock_check::check(&c, None).unwrap();
    assert!(check.deadlock_free && check.vcs == 3, "{check:?}");
    assert!(!deadlock_check::check(&c, Some(1)).unwrap().deadlock_free);
    c.routing.method = Algorithm::DragonflyPar.into();
    let check = deadlock_check::check(&c, None).unwrap();
    assert!(check.deadlock_free && check.vcs == 4, "{check:?}");
}

#[test]
fn par_needs_its_fourth_class() {
    // PAR on UGAL's three classes: the re-decision's second local hop in the source group
    // shares a class with the first, and those hops close a cycle among a group's switches.
    for spec in ["dragonfly:a=4,p=2,h=2", "dragonfly:a=3,p=1,h=2,arrangement=circulant"] {
        let t = topo(spec);
        let Family::Dragonfly(d) = t.family() else { panic!("{spec} is a dragonfly") };
        let a = d.a;
        for (vcs, acyclic) in [(3, false), (4, true), (5, true)] {
            let r = DragonflyRouting::new(d, &t, vcs, Mode::Par, 4);
            let verdict = deadlock::check_routing(&t, &r, vcs, false).unwrap();
            assert_eq!(verdict.is_acyclic(), acyclic, "{spec} PAR with {vcs} VCs: {verdict:?}");
            if let deadlock::Verdict::Cycle(hops) = verdict {
                assert!(deadlock::cycle_is_connected(&t, &hops), "{hops:?}");
                // Local channels of one group on the shared VC, as the module comment argues.
                let group = hops[0].switch as usize / a;
                assert!(hops.iter().all(|h| h.switch as usize / a == group && h.vc == 0), "{hops:?}");
            }
        }
        // UGAL-L, whose minimal packets never take a second local hop, is acyclic on three.
        let r = DragonflyRouting::new(d, &t, 3, Mode::Ugal, 4);
        assert!(deadlock::check_routing(&t, &r, 3, false).unwrap().is_acyclic(), "{spec} UGAL-L");
    }
}

#[test]
fn route_lengths_follow_the_hierarchy() {
    let spec = "dragonfly:a=4,p=2,h=2";
    let (a, p, g) = (4.0, 2.0, 9.0);
    // Minimal: from a terminal, the other terminals of its switch take 0 hops, the rest of its
    // group 1, the other groups local + global + local, the local hops taken unless the
    // switch holds the global link (1/a of the time at each end).
    let n = a * p * g;
    let other_groups = n - a * p;
    let same_group = a * p - p;
    let expected = (same_group + other_groups * (1.0 + 2.0 * (a - 1.0) / a)) / (n - 1.0);
    let minimal = mean_network_hops(spec, Algorithm::DragonflyMinimal, 2, 4000, 99);
    assert!((minimal - expected).abs() < 0.05, "minimal {minimal:.3}, expected {expected:.3}");
    let valiant = mean_network_hops(spec, Algorithm::DragonflyValiant, 3, 4000, 99);
    eprintln!("mean switch hops: minimal {minimal:.3} (closed form {expected:.3}), valiant {valiant:.3}");
    // Two group-to-group legs for most packets: well above minimal, at most 5 hops each.
    assert!(valiant > minimal + 1.0 && valiant < 5.0, "valiant {valiant:.3} minimal {minimal:.3}");
}

#[test]
fn worst_case_and_uniform_shapes_on_the_72_node_dragonfly() {
    let spec = "dragonfly:a=4,p=2,h=2";
    let (a, p, n) = (4, 2, 72);
    // Every terminal of group i sends to the same terminal of group i + 1: with one global
    // link per group pair, the a·p terminals of a group share one channel under minimal routing.
    let next_group = |t: usize| (t + a * p) % n;
    let min = backlog_throughput(spec, Algorithm::DragonflyMinimal, 6, next_group);
    let val = backlog_throughput(spec, Algorithm::DragonflyValiant, 6, next_group);
    let ugal = backlog_throughput(spec, Algorithm::DragonflyUgal, 6, next_group);
    let ugal_g = backlog_throughput(spec, Algorithm::DragonflyUgalG, 6, next_group);
    let par = backlog_throughput(spec, Algorithm::DragonflyPar, 8, next_group);
    eprintln!("worst case: minimal {min:.3} valiant {val:.3} ugal {ugal:.3} ugal-g {ugal_g:.3} par {par:.3}");
    let bound = 1.0 / (a * p) as f64;
    assert!((min - bound).abs() < 0.02, "minimal {min:.3}, 1/(a·p) = {bound:.3}");
    assert!((0.38..=0.55).contains(&val), "valiant {val:.3}");
    assert!(ugal > 0.3 && ugal > min + 0.15, "ugal {ugal:.3}");
    // Global information, or a second look from the switch holding the congested link, sees
    // the hot global link itself: at least UGAL-L's throughput.
    assert!(ugal_g > min + 0.15 && ugal_g >= ugal - 0.01, "ugal-g {ugal_g:.3}, ugal-l {ugal:.3}");
    assert!(par > min + 0.15 && par >= ugal - 0.01, "par {par:.3}, ugal-l {ugal:.3}");
    // The same permutation as the `group-shift` traffic pattern, from Bernoulli sources at
    // full load.
    let pattern = saturation(spec, Algorithm::DragonflyMinimal, 6, PatternKind::GroupShift);
    assert!((pattern - bound).abs() < 0.02, "group-shift pattern, minimal: {pattern:.3}");
    let shift = |a, vcs| saturation(spec, a, vcs, PatternKind::GroupShift);
    let (sval, sugal) = (shift(Algorithm::DragonflyValiant, 6), shift(Algorithm::DragonflyUgal, 6));
    let (sugal_g, spar) = (shift(Algorithm::DragonflyUgalG, 6), shift(Algorithm::DragonflyPar, 8));
    eprintln!("group-shift: minimal {pattern:.3} valiant {sval:.3} ugal {sugal:.3} ugal-g {sugal_g:.3} par {spar:.3}");
    assert!(sugal_g > pattern + 0.15 && sugal_g >= sugal - 0.01, "ugal-g {sugal_g:.3}, ugal-l {sugal:.3}");
    assert!(spar > pattern + 0.15 && spar >= sugal - 0.01, "par {spar:.3}, ugal-l {sugal:.3}");
    let umin = saturation(spec, Algorithm::DragonflyMinimal, 6, PatternKind::Uniform);
    let uval = saturation(spec, Algorithm::DragonflyValiant, 6, PatternKind::Uniform);
    let uugal = saturation(spec, Algorithm::DragonflyUgal, 6, PatternKind::Uniform);
    let uugal_g = saturation(spec, Algorithm::DragonflyUgalG, 6, PatternKind::Uniform);
    let upar = saturation(spec, Algorithm::DragonflyPar, 8, PatternKind::Uniform);
    eprintln!("uniform: minimal {umin:.3} valiant {uval:.3} ugal {uugal:.3} ugal-g {uugal_g:.3} par {upar:.3}");
    assert!(uval < umin, "valiant {uval:.3} minimal {umin:.3}");
    assert!(uugal > umin - 0.05, "ugal {uugal:.3} minimal {umin:.3}");
    assert!((uugal_g - umin).abs() < 0.05 * umin, "ugal-g {uugal_g:.3} minimal {umin:.3}");
    assert!((upar - umin).abs() < 0.05 * umin, "par {upar:.3} minimal {umin:.3}");
}

#[test]
fn other_families_refuse_dragonfly_routing() {
    let e = routing::build(&sim_config("torus:4x4", 3, Algorithm::DragonflyUgal, 0.1), &topo("torus:4x4"))
        .err()
        .expect("torus");
    assert!(e.to_string().contains("routing.algorithm"), "{e}");
    let t = topo("dragonfly:a=2,p=1,h=1");
    let e = routing::build(&sim_config("dragonfly:a=2,p=1,h=1", 2, Algorithm::HyperxDor, 0.1), &t).err().expect("hx");
    assert!(e.to_string().contains("dragonfly-ugal"), "{e}");
    // The group-shift pattern needs groups.
    let mut c = sim_config("torus:4x4", 2, Algorithm::Dor, 0.5);
    c.traffic.pattern = PatternKind::GroupShift;
    let e = measure::run(&c).expect_err("torus").to_string();
    assert!(e.contains("group-shift") && e.contains("dragonflies") && !e.contains('\n'), "{e}");
}

#[test]
fn ugal_g_runs_on_one_thread_with_the_same_results() {
    // UGAL-G reads other switches' queues, which a partition of the parallel engine does
    // not hold: asked for two threads it keeps one (UGAL-L, the control, takes two), and a
    // run asked for two threads gives the sequential run's results.
    let spec = "dragonfly:a=4,p=2,h=2";
    let t = topo(spec);
    let run = |algorithm, threads| {
        let mut e = Engine::new(&sim_config(spec, 6, algorithm, 0.6), &t).unwrap();
        let used = e.set_threads(threads);
        e.run_until(3_000);
        (used, e.stats.counters.delivered_phits, e.stats.counters.delivered)
    };
    let (one, two) = (run(Algorithm::DragonflyUgalG, 1), run(Algorithm::DragonflyUgalG, 2));
    assert_eq!(two.0, 1, "ugal-g on {} threads", two.0);
    assert_eq!(one, two);
    assert!(one.1 > 0);
    assert_eq!(run(Algorithm::DragonflyUgal, 2).0, 2, "ugal-l runs on two threads");
}
