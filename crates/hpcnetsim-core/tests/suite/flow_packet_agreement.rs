//! Cross-fidelity check: a permutation of large messages simulated by the packet engine
//! and by the flow model gives the same per-flow bandwidths. The packet engine's rate of a
//! flow is measured on its destination's terminal channel over a window in which every
//! message is still being sent; the flow model's is the max-min fair rate over the same
//! paths (the routing walked with its first candidate: d-mod-k, dimension order).

use hpcnetsim_core::engine::Engine;
use hpcnetsim_core::flow::{self, Flow, Links};
use hpcnetsim_core::workload::Programs;
use hpcnetsim_core::{Config, Peer, Topology};
use rand::seq::SliceRandom;
use rand::SeedableRng;

const WARMUP: u64 = 3_000;
const WINDOW: u64 = 30_000;

/// A random permutation without fixed points.
fn derangement(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    loop {
        let mut p: Vec<usize> = (0..n).collect();
        p.shuffle(&mut rng);
        if p.iter().enumerate().all(|(i, &d)| i != d) {
            return p;
        }
    }
}

/// Per-flow rates (phits per cycle) of the packet engine and of the flow model.
fn rates(toml: &str, perm: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let cfg = Config::from_toml(toml).unwrap();
    let topo = Topology::from_spec(&cfg.topology).unwrap();
    let n = topo.num_terminals();
    // Large enough that no message ends inside the window even at full link rate.
    let bytes = (WARMUP + WINDOW + 10_000) * cfg.switch.phit_bytes as u64;
    let mut programs = Programs::new(n);
    for (i, &d) in perm.iter().enumerate() {
        programs.send(i, Some(d), bytes);
    }
    for (i, &d) in perm.iter().enumerate() {
        programs.recv(d, Some(i), bytes);
    }
    let terminal: Vec<u32> = (0..n as u32).collect();
    let mut e = Engine::with_programs(&cfg, &topo, programs, terminal).unwrap();
    let eject: Vec<usize> = (0..n)
        .map(|t| {
            let (s, p) = topo.terminal_attachment(t);
            let c = topo.channel(s, p);
            assert_eq!(topo.peers()[c], Peer::Terminal(t as u32));
            c
        })
        .collect();
    e.set_recording(true);
    e.run_until(WARMUP);
    let before: Vec<u64> = eject.iter().map(|&c| e.busy_phits(c)).collect();
    e.run_until(WARMUP + WINDOW);
    let packet: Vec<f64> = perm.iter().map(|&d| (e.busy_phits(eject[d]) - before[d]) as f64 / WINDOW as f64).collect();
    let links = Links::from_config(&topo, &cfg);
    let paths = flow::run::provider(&cfg, &topo).unwrap();
    let flows: Vec<Flow> =
        perm.iter().enumerate().map(|(i, &d)| Flow { src: i, dst: d, bytes: bytes as f64 }).collect();
    let shares = flow::flow_shares(&topo, &links, paths.as_ref(), &flows).unwrap();
    (packet, flow::max_min(&links.capacity, &shares))
}

/// Worst per-flow difference and relative difference of the means.
fn compare(name: &str, packet: &[f64], model: &[f64]) -> (f64, f64) {
    let worst = packet.iter().zip(model).map(|(p, m)| (p - m).abs()).fold(0.0, f64::max);
    let mp = packet.iter().sum::<f64>() / packet.len() as f64;
    let mm = model.iter().sum::<f64>() / model.len() as f64;
    eprintln!("{name}: mean packet {mp:.4} flow {mm:.4}, worst per-flow difference {worst:.4}");
    (worst, (mp - mm).abs() / mm)
}

/// Tolerances (fractions of the link bandwidth). The flow model shares a bottleneck
/// equally among its flows (max-min, global); the packet switches share an output among
/// their *input queues* (random arbitration, local), so flows that reach a bottleneck
/// through different numbers of inputs and hops get unequal shares (measured: up to 0.22
/// of the link bandwidth apart on these cases). Flows alone on their path agree closely;
/// the means agree within 10 % (measured: at most 8 %).
const ALONE: f64 = 0.03;
const PER_FLOW: f64 = 0.25;
const MEAN: f64 = 0.10;

#[test]
fn permutations_agree_between_packet_and_flow_models() {
    let cases = [
        ("hyperx", "topology = \"hyperx:4x4,t=2\"\n[routing]\nalgorithm = \"hyperx-dor\""),
        ("tree", "topology = \"xgft:h=2;m=4,4;w=1,2\"\n[routing]\nalgorithm = \"tree-deterministic\""),
    ];
    for (name, toml) in cases {
        let cfg = Config::from_toml(toml).unwrap();
        let n = Topology::from_spec(&cfg.topology).unwrap().num_terminals();
        for seed in 1..=3 {
            let (packet, model) = rates(toml, &derangement(n, seed));
            let (worst, mean) = compare(&format!("{name} seed {seed}"), &packet, &model);
            assert!(worst <= PER_FLOW, "{name} seed {seed}: per-flow difference {worst}");
            assert!(mean <= MEAN, "{name} seed {seed}: means differ by {:.1} %", 100.0 * mean);
            for (p, m) in packet.iter().zip(&model) {
                if *m == 1.0 {
                    assert!((p - m).abs() <= ALONE, "{name} seed {seed}: unshared flow at {p} in the packet engine");
                }
            }
        }
    }
}

#[test]
fn a_crossbar_permutation_runs_at_link_rate_in_both_models() {
    let toml = "topology = \"crossbar:8\"";
    let (packet, model) = rates(toml, &derangement(8, 5));
    assert!(model.iter().all(|&m| m == 1.0));
    assert!(packet.iter().all(|&p| (p - 1.0).abs() <= ALONE), "{packet:?}");
}
