//! The static deadlock check of every algorithmic routing on a small instance with its
//! VCs: deadlock-free, on the basis the routing needs (the whole channel dependency graph,
//! Duato's escape sub-network, the bubble condition); and the controls with too few VCs
//! (the routing's VCs merged into one), whose cycle is a real walk around the network.

use hpcnetsim_core::config::Config;
use hpcnetsim_core::routing::deadlock::{cycle_is_connected, Verdict};
use hpcnetsim_core::routing::deadlock_check::{check, Basis, Check};
use hpcnetsim_core::Topology;

fn run(spec: &str, routing: &str, vcs: Option<usize>, queue: u32) -> Check {
    let text = format!(
        "topology = \"{spec}\"\n[switch]\nvcs = 8\nqueue_packets = {queue}\n[routing]\nalgorithm = \"{routing}\"\n"
    );
    let cfg = Config::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    check(&cfg, vcs).unwrap_or_else(|e| panic!("{spec} {routing}: {e}"))
}

fn cycle(c: &Check) -> Vec<hpcnetsim_core::routing::deadlock::Hop> {
    match &c.verdict {
        Verdict::Cycle(h) => h.clone(),
        Verdict::Acyclic => panic!("{} {}: expected a cycle", c.topology, c.routing),
    }
}

#[test]
fn every_routing_with_its_vcs_is_deadlock_free() {
    for (spec, routing, vcs, basis) in [
        ("torus:4x4", "dor", 2, Basis::ChannelDependencyGraph),
        ("torus:4x3", "dor-upper-lower", 2, Basis::ChannelDependencyGraph),
        ("torus:4x4", "duato", 3, Basis::EscapeSubNetwork),
        ("torus:4x4", "bubble-adaptive", 1, Basis::BubbleCondition),
        ("torus:4x4", "bubble-adaptive", 2, Basis::BubbleCondition),
        ("tree:k=2,n=3", "tree-adaptive", 1, Basis::ChannelDependencyGraph),
        ("tree:k=2,n=3", "tree-deterministic", 1, Basis::ChannelDependencyGraph),
        ("hyperx:3x3", "hyperx-dor", 1, Basis::ChannelDependencyGraph),
        ("hyperx:3x3", "hyperx-adaptive", 2, Basis::EscapeSubNetwork),
        ("hyperx:3x3", "hyperx-valiant", 2, Basis::ChannelDependencyGraph),
        ("hyperx:3x3", "hyperx-ugal", 2, Basis::ChannelDependencyGraph),
        ("hyperx:3x3", "hyperx-dal", 2, Basis::EscapeSubNetwork),
        ("twin-torus:3x2x2", "dort", 4, Basis::ChannelDependencyGraph),
        ("twin-torus:3x2x2", "ts-dor", 4, Basis::ChannelDependencyGraph),
        ("crossbar:4", "direct", 1, Basis::ChannelDependencyGraph),
    ] {
        let c = run(spec, routing, Some(vcs), 4);
        assert!(c.deadlock_free, "{spec} {routing}: {c:?}");
        assert_eq!((c.vcs, c.basis, c.merged), (vcs, basis, false), "{spec} {routing}");
        assert!(c.verdict.is_acyclic(), "{spec} {routing}");
        // Escape and bubble verdicts rest on a sub-graph: the whole graph is cyclic by design.
        if basis != Basis::ChannelDependencyGraph {
            let full = c.full_graph.clone().expect("the whole graph");
            assert!(!full.is_acyclic(), "{spec} {routing}: the whole graph of an escape routing has cycles");
        }
    }
    // Without a VC count: the fewest the routing accepts.
    assert_eq!(run("torus:4x4", "dor", None, 4).vcs, 2);
    assert_eq!(run("torus:4x4", "duato", None, 4).vcs, 3);
}

#[test]
fn too_few_vcs_give_a_cycle_around_the_network() {
    let t = Topology::from_spec("torus:4x4").unwrap();
    for routing in ["dor", "dor-upper-lower", "duato"] {
        let c = run("torus:4x4", routing, Some(1), 4);
        assert!(!c.deadlock_free && c.merged, "{routing}: {c:?}");
        let hops = cycle(&c);
        assert!(cycle_is_connected(&t, &hops), "{routing}: {hops:?}");
    }
    let h = Topology::from_spec("hyperx:3x3").unwrap();
    let c = run("hyperx:3x3", "hyperx-valiant", Some(1), 4);
    assert!(!c.deadlock_free && c.merged);
    assert!(cycle_is_connected(&h, &cycle(&c)));
    // A mesh needs no second VC: dimension order on one VC is acyclic.
    let c = run("mesh:4x4", "dor", Some(1), 4);
    assert!(c.deadlock_free && !c.merged, "{c:?}");
}

#[test]
fn bubble_flow_control_needs_two_packets_of_room() {
    // One-packet queues leave no bubble: the same cyclic graph is not deadlock-free then.
    let text = "topology = \"torus:4x4\"\n[routing]\nalgorithm = \"bubble-adaptive\"\n";
    let mut cfg = Config::from_toml(text).unwrap();
    cfg.switch.queue_packets = 1;
    let c = check(&cfg, None).unwrap();
    assert!(!c.deadlock_free && c.basis == Basis::BubbleCondition, "{c:?}");
    assert!(c.reason.contains("at least 2 packets"), "{}", c.reason);
}

#[test]
fn table_routing_and_bad_vc_counts_are_refused_in_one_line() {
    let cfg = Config::from_toml("topology = \"torus:4x4\"\n[routing]\nalgorithm = \"table\"\n").unwrap();
    let e = check(&cfg, None).unwrap_err().to_string();
    assert!(e.contains("'table'") && !e.contains('\n'), "{e}");
    let cfg =
        Config::from_toml("topology = \"torus:4x4\"\n[switch]\nvcs = 2\n[routing]\nalgorithm = \"dor\"\n").unwrap();
    let e = check(&cfg, Some(9)).unwrap_err().to_string();
    assert!(e.contains("vcs = 9"), "{e}");
    let cfg =
        Config::from_toml("topology = \"torus:4x4\"\n[switch]\nvcs = 3\n[routing]\nalgorithm = \"duato\"\n").unwrap();
    let e = check(&cfg, Some(2)).unwrap_err().to_string();
    assert!(e.contains("switch.vcs = 2") && e.contains("at least 3"), "{e}");
    // A network whose every route would take hours to walk is refused at once.
    let start = std::time::Instant::now();
    let cfg =
        Config::from_toml("topology = \"torus:64x64\"\n[switch]\nvcs = 2\n[routing]\nalgorithm = \"dor\"\n").unwrap();
    let e = check(&cfg, None).unwrap_err().to_string();
    assert!(e.contains("torus:64x64: size = 4096 terminals") && e.contains("smaller network"), "{e}");
    let cfg =
        Config::from_toml("topology = \"torus:32x32\"\n[switch]\nvcs = 3\n[routing]\nalgorithm = \"duato\"\n").unwrap();
    assert!(check(&cfg, None).is_err());
    assert!(start.elapsed().as_secs_f64() < 2.0);
}
