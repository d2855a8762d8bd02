//! Duato's fully adaptive routing on tori with a dimension-order escape (`duato`, paper 003
//! §3): deadlock freedom by the escape sub-network's channel dependency graphs, a
//! saturated EXTOLL torus that drains once its sources stop, adaptivity paying off under
//! an adversarial pattern, and configs it refuses.

use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::{measure, Engine};
use hpcnetsim_core::routing::deadlock::{self, Verdict};
use hpcnetsim_core::routing::duato;
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::Topology;

/// An EXTOLL-switch config (`switch.preset = "extoll"`) on `spec`.
fn extoll(spec: &str, algorithm: &str, vcs: u32, classes: u32, extra: &str) -> Config {
    let text = format!(
        "topology = \"{spec}\"\n[switch]\npreset = \"extoll\"\nvcs = {vcs}\ntraffic_classes = {classes}\n\
         [routing]\nalgorithm = \"{algorithm}\"\n{extra}"
    );
    Config::from_toml(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// The escape sub-network (two dimension-order VCs per class, upper/lower rule) is acyclic,
/// with the indirect dependencies through adaptive hops too (Duato's condition), alone and
/// inside traffic classes. Controls: the whole routing's graph (adaptive VCs included) has
/// cycles, and so has the escape sub-network with its two VCs merged.
#[test]
fn escape_sub_network_is_acyclic() {
    for (spec, vcs, classes) in
        [("torus:4x4x4", 3, 1), ("torus:4x4x4", 6, 2), ("torus:5x4x3", 4, 1), ("mesh:4x3", 3, 1)]
    {
        let cfg = extoll(spec, "duato", vcs, classes, "");
        let t = Topology::from_spec(spec).unwrap();
        let r = hpcnetsim_core::switch::classes::build(&cfg, &t).unwrap();
        assert_eq!(r.name(), "duato");
        let vcs = vcs as usize;
        let escape = deadlock::routing_cdg(&t, r.as_ref(), vcs, false, true).unwrap();
        assert!(escape.edges() > 0, "{spec}: empty escape graph");
        assert_eq!(escape.verdict(), Verdict::Acyclic, "{spec} {classes} classes: escape graph");
        let extended = duato::extended_escape_cdg(&t, r.as_ref(), vcs).unwrap();
        assert!(extended.edges() > escape.edges(), "{spec}: no indirect dependency found");
        assert_eq!(extended.verdict(), Verdict::Acyclic, "{spec} {classes} classes: extended escape graph");
        if spec.starts_with("torus") {
            let all = deadlock::check_routing(&t, r.as_ref(), vcs, false).unwrap();
            assert!(matches!(all, Verdict::Cycle(_)), "{spec}: the adaptive VCs alone closed no cycle");
            let merged = deadlock::routing_cdg(&t, r.as_ref(), vcs, true, true).unwrap().verdict();
            assert!(matches!(merged, Verdict::Cycle(_)), "{spec}: merged escape VCs closed no ring");
        }
    }
}

/// Saturation on EXTOLL switches: a 4x4x4 torus (one class of 3 VCs, and four classes of 3)
/// and paper 003's 512-PE 8x8x8 torus. Deliveries keep progressing (on virtual output queues
/// a packet waiting for an adaptive port must still be able to take its escape channel,
/// or part of the 8x8x8 torus locks up within 40 000 cycles), and once the sources stop
/// every packet arrives and every credit returns.
#[test]
fn saturated_extoll_torus_drains() {
    saturate_and_drain("torus:4x4x4", &[(3, 1), (12, 4)], 10_000);
    saturate_and_drain("torus:8x8x8", &[(3, 1)], 10_000);
}

/// Four classes on the 8x8x8 torus too (half a minute: run with `--ignored`).
#[test]
#[ignore]
fn saturated_extoll_torus_8x8x8_four_classes_drains() {
    saturate_and_drain("torus:8x8x8", &[(12, 4)], 10_000);
}

fn saturate_and_drain(spec: &str, cases: &[(u32, u32)], step_cycles: u64) {
    let t = Topology::from_spec(spec).unwrap();
    let nodes = t.num_terminals() as f64;
    for &(vcs, classes) in cases {
        let cfg =
            extoll(spec, "duato", vcs, classes, "[traffic]\nload = 1.0\npacket_phits = 1\npacket_phits_max = 32\n");
        let mut e = Engine::new(&cfg, &t).unwrap();
        assert_eq!(e.routing_name(), "duato");
        let mut last = 0;
        for step in 1..=4 {
            let now = step * step_cycles;
            e.run_until(now);
            e.check_invariants().unwrap_or_else(|m| panic!("{spec}, {classes} classes, cycle {now}: {m}"));
            let delivered = e.stats.counters.delivered;
            assert!(delivered > last + 1_000, "{spec}, {classes} classes: stalled before cycle {now}");
            last = delivered;
        }
        let per_node = e.stats.counters.delivered_phits as f64 / nodes / (4 * step_cycles) as f64;
        assert!(per_node > 0.3, "{classes} classes: accepted {per_node} phits per node and cycle");
        e.stop_sources();
        e.run_until(4 * step_cycles + 400_000);
        let k = &e.stats.counters;
        assert_eq!(k.generated - k.dropped, k.delivered, "{classes} classes");
        e.check_idle().unwrap_or_else(|m| panic!("{classes} classes: {m}"));
    }
}

/// Transpose on an 8x8 torus sends every packet of a row into one column: dimension order
/// piles them onto few links, the adaptive VC spreads them over every minimal path. Both
/// on the EXTOLL switch with 3 VCs (DOR uses the third as a second class-0 VC).
#[test]
fn adaptive_beats_dimension_order_under_transpose() {
    let schedule = "[traffic]\nload = 1.0\npattern = \"transpose\"\npacket_phits = 1\npacket_phits_max = 32\n\
                    [measurement]\nwarmup_cycles = 4000\nwindow_cycles = 500\nbatches = 2\nbatch_cycles = 2000\n";
    let accepted = |algorithm: &str| {
        let r = measure::run(&extoll("torus:8x8", algorithm, 3, 1, schedule)).unwrap();
        assert_eq!(r.status, Status::Converged, "{algorithm}");
        r.accepted_load.unwrap()
    };
    let (dor, adaptive) = (accepted("dor-upper-lower"), accepted("duato"));
    println!("transpose on torus:8x8: dor-upper-lower {dor:.3}, duato {adaptive:.3}");
    assert!(adaptive > 1.15 * dor, "duato {adaptive} vs dor-upper-lower {dor}");
}

/// Too few VCs for an escape pair and an adaptive VC, and families without coordinates, are
/// refused with one line naming the field.
#[test]
fn bad_duato_configs_are_refused() {
    let too_few = Config::from_toml(
        "topology = \"torus:4x4\"\n[switch]\npreset = \"extoll\"\nvcs = 2\n[routing]\nalgorithm = \"duato\"\n",
    )
    .and_then(|c| {
        let t = Topology::from_spec("torus:4x4").unwrap();
        hpcnetsim_core::switch::classes::build(&c, &t).map(|_| ())
    })
    .unwrap_err()
    .to_string();
    assert!(too_few.contains("switch.vcs") && too_few.contains("at least 3"), "{too_few}");
    let tree = Config::from_toml("topology = \"tree:k=4,n=2\"\n[switch]\nvcs = 3\n[routing]\nalgorithm = \"duato\"\n")
        .and_then(|c| {
            let t = Topology::from_spec("tree:k=4,n=2").unwrap();
            hpcnetsim_core::switch::classes::build(&c, &t).map(|_| ())
        })
        .unwrap_err()
        .to_string();
    assert!(tree.contains("routing.algorithm") && tree.contains("duato"), "{tree}");
    assert!(!tree.contains('\n'), "{tree}");
}
