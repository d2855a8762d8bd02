//! DORT and TS-DOR on nD twin tori (paper 003): every route reaches its PE, the channel
//! dependency graph of the VC assignment is acyclic (deadlock freedom, checked exhaustively
//! on small instances), the engine's zero-load latency follows the routes, and a saturated
//! 5DT torus keeps delivering.

use crate::common::{sim_config, topo};
use hpcnetsim_core::config::Algorithm;
use hpcnetsim_core::engine::Engine;
use hpcnetsim_core::routing::deadlock::{self, Verdict};
use hpcnetsim_core::routing::{self, Request, Routing};
use hpcnetsim_core::{Peer, Topology};

/// The (channel, VC) sequence a deterministic routing takes from terminal `a` to `b`,
/// injection channel excluded, ejection channel included.
fn walk(t: &Topology, r: &dyn Routing, a: usize, b: usize) -> Vec<(usize, usize)> {
    let (mut s, mut in_port) = t.terminal_attachment(a);
    let mut in_vc = 0;
    let mut path = Vec::new();
    for _ in 0..1000 {
        let mut cands = Vec::new();
        r.route(&Request { switch: s, in_port, in_vc, src: a, dst: b, salt: 0, offset: 0 }, &mut cands);
        assert!(!cands.is_empty(), "no candidate at switch {s} for {a} -> {b}");
        let c = cands[0];
        assert!(cands.iter().all(|x| x.port == c.port), "twin-torus routing is deterministic");
        path.push((t.channel(s, c.port as usize), c.vc as usize));
        match t.ports(s)[c.port as usize] {
            Peer::Terminal(d) => {
                assert_eq!(d as usize, b, "delivered to the wrong PE");
                return path;
            }
            Peer::Switch { switch, port } => (s, in_port, in_vc) = (switch as usize, port as usize, c.vc as usize),
            Peer::Unplugged => panic!("routed to an unplugged port"),
        }
    }
    panic!("{a} -> {b} does not arrive");
}

/// Whether the dependency graph (edges between consecutive channels of every route) has a
/// cycle; `collapse` merges every VC into one (the control without virtual channels).
fn has_cycle(t: &Topology, r: &dyn Routing, vcs: usize, collapse: bool) -> bool {
    match deadlock::check_routing(t, r, vcs, collapse).unwrap() {
        Verdict::Acyclic => false,
        Verdict::Cycle(c) => {
            assert!(deadlock::cycle_is_connected(t, &c), "not a cycle of the network: {c:?}");
            true
        }
    }
}

fn routing_for(spec: &str, algorithm: Algorithm) -> (Topology, Box<dyn Routing>) {
    let t = topo(spec);
    let r = routing::build(&sim_config(spec, 4, algorithm, 0.1), &t).unwrap();
    (t, r)
}

#[test]
fn routes_arrive_and_respect_the_dimension_orders() {
    for spec in ["twin-torus:3x2x4", "twin-torus:4x4x2", "twin-torus:2x2x2x2x2", "twin-torus:3x4x2x2x3"] {
        for algorithm in [Algorithm::Dort, Algorithm::TsDor] {
            let (t, r) = routing_for(spec, algorithm);
            let n = t.num_terminals();
            for a in 0..n {
                for b in 0..n {
                    if a != b {
                        walk(&t, r.as_ref(), a, b);
                    }
                }
            }
        }
    }
    // TS-DOR: a PE1-sourced packet corrects d_{n-1} first, so from PE1 to PE1 of a node that
    // differs only in dimensions held by card 1 it never crosses an internal link.
    let (t, r) = routing_for("twin-torus:4x4x4x4x4", Algorithm::TsDor);
    let node = |x: [usize; 5]| x.iter().rev().fold(0, |acc, &d| acc * 4 + d);
    let (src, dst) = (2 * node([0, 0, 0, 0, 0]) + 1, 2 * node([0, 0, 0, 2, 3]) + 1);
    let path = walk(&t, r.as_ref(), src, dst);
    // d4: offset 3 of 4 is one hop back; d3: offset 2 (a tie) two hops forward; ejection.
    assert_eq!(path.len(), 1 + 2 + 1, "{path:?}");
    for &(c, _) in &path {
        match t.peers()[c] {
            Peer::Switch { switch, .. } => assert_eq!(switch % 2, 1, "left card 1: {path:?}"),
            Peer::Terminal(d) => assert_eq!(d as usize, dst),
            Peer::Unplugged => unreachable!(),
        }
    }
}

#[test]
fn channel_dependency_graphs_are_acyclic() {
    for spec in ["twin-torus:4x3x3", "twin-torus:4x4x2", "twin-torus:3x3x2x2x3", "twin-torus:4x2x2x2x2"] {
        for algorithm in [Algorithm::Dort, Algorithm::TsDor] {
            let (t, r) = routing_for(spec, algorithm);
            assert!(!has_cycle(&t, r.as_ref(), 4, false), "{spec} {algorithm:?}: cyclic channel dependencies");
            // Control: without its VCs the same routing would deadlock.
            assert!(has_cycle(&t, r.as_ref(), 4, true), "{spec} {algorithm:?}: the control found no cycle");
        }
    }
    // The same check on the torus DOR with its dateline.
    let t = topo("torus:5x4");
    let r = routing::build(&sim_config("torus:5x4", 2, Algorithm::Dor, 0.1), &t).unwrap();
    assert!(!has_cycle(&t, r.as_ref(), 2, false));
    assert!(has_cycle(&t, r.as_ref(), 2, true));
}

#[test]
fn zero_load_latency_follows_the_routes() {
    for (spec, algorithm) in [("twin-torus:4x3x2", Algorithm::Dort), ("twin-torus:4x2x2x2x3", Algorithm::TsDor)] {
        let (t, r) = routing_for(spec, algorithm);
        let c = sim_config(spec, 4, algorithm, 0.0);
        let n = t.num_terminals();
        for (a, b) in [(0, n - 1), (1, n / 2), (n - 1, 2), (3, 2)] {
            let mut e = Engine::new(&c, &t).unwrap();
            e.set_recording(true);
            e.inject(a, b, 16);
            e.run_until(5_000);
            let links = walk(&t, r.as_ref(), a, b).len() as u64 + 1; // + the injection link
            let hop = (c.switch.switch_delay_cycles + c.switch.link_delay_cycles) as u64;
            assert_eq!(e.stats.network_latency.summary().max as u64, links * hop + 15, "{spec}: {a} -> {b}");
        }
    }
}

#[test]
fn saturated_five_dimensional_twin_torus_keeps_delivering() {
    for algorithm in [Algorithm::Dort, Algorithm::TsDor] {
        let spec = "twin-torus:4x4x2x2x2";
        let t = topo(spec);
        let mut e = Engine::new(&sim_config(spec, 4, algorithm, 1.0), &t).unwrap();
        let mut last = 0;
        for step in 1..=10 {
            e.run_until(step * 5_000);
            assert!(e.stats.counters.delivered > last + 1000, "{algorithm:?} stalled before cycle {}", step * 5_000);
            last = e.stats.counters.delivered;
        }
    }
}
