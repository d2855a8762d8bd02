//! The event-driven engine against the cycle-by-cycle reference simulator
//! (`common/reference.rs`): identical single-packet latencies, and under load the same
//! accepted throughput and mean latency within statistical tolerance (the two draw their
//! random numbers differently, so only distributions can agree).

use crate::common::reference::Reference;
use crate::common::{sim_config as config, topo};
use hpcnetsim_core::config::{Algorithm, Config};
use hpcnetsim_core::engine::Engine;

#[test]
fn single_packets_take_the_same_time() {
    for (spec, vcs, alg) in [
        ("torus:4x4", 2, Algorithm::Dor),
        ("tree:k=4,kp=2,n=2", 1, Algorithm::TreeAdaptive),
        ("hyperx:3x3,t=2", 2, Algorithm::HyperxAdaptive),
        ("mesh:3x4", 1, Algorithm::BubbleAdaptive),
    ] {
        let t = topo(spec);
        let c = config(spec, vcs, alg, 0.0);
        let n = t.num_terminals();
        for (a, b) in [(0, n - 1), (2, 5), (n - 1, 1)] {
            let mut r = Reference::new(&c, &t);
            r.recording = true;
            r.inject(a, b, 0);
            for cycle in 0..500 {
                r.step(cycle);
            }
            let mut e = Engine::new(&c, &t).unwrap();
            e.set_recording(true);
            e.inject(a, b, 16);
            e.run_until(500);
            assert_eq!(r.stats.latencies, vec![e.stats.network_latency.summary().max as u64], "{spec}: {a} -> {b}");
        }
    }
}

/// (accepted load, mean network latency) over `measure` cycles after `warmup`.
fn engine_run(c: &Config, warmup: u64, measure: u64) -> (f64, f64) {
    let t = topo(&c.topology);
    let mut e = Engine::new(c, &t).unwrap();
    e.run_until(warmup);
    let before = e.stats.counters.delivered_phits;
    e.set_recording(true);
    e.run_until(warmup + measure);
    let accepted = (e.stats.counters.delivered_phits - before) as f64 / (measure as f64 * t.num_terminals() as f64);
    (accepted, e.stats.network_latency.summary().mean)
}

fn reference_run(c: &Config, warmup: u64, measure: u64) -> (f64, f64) {
    let t = topo(&c.topology);
    let mut r = Reference::new(c, &t);
    for cycle in 0..warmup {
        r.step(cycle);
    }
    let before = r.stats.delivered_phits;
    r.recording = true;
    for cycle in warmup..warmup + measure {
        r.step(cycle);
    }
    let accepted = (r.stats.delivered_phits - before) as f64 / (measure as f64 * t.num_terminals() as f64);
    (accepted, r.stats.latency_sum as f64 / r.stats.latencies.len() as f64)
}

#[test]
fn same_behaviour_under_load() {
    for (spec, vcs, alg, load) in [
        ("torus:4x4", 2, Algorithm::Dor, 0.3),
        ("torus:4x4", 2, Algorithm::Dor, 1.0),
        ("torus:4x4", 3, Algorithm::BubbleAdaptive, 1.0),
        ("tree:k=4,kp=2,n=2", 2, Algorithm::TreeAdaptive, 0.3),
        ("tree:k=4,kp=2,n=2", 2, Algorithm::TreeAdaptive, 1.0),
        ("hyperx:4x4", 2, Algorithm::HyperxAdaptive, 0.9),
        // Beyond saturation on the 8x8 torus of issue-style comparisons (uniform and tornado).
        ("torus:8x8", 2, Algorithm::Dor, 1.0),
        ("torus:8x8 tornado", 2, Algorithm::Dor, 0.5),
    ] {
        let (spec, tornado) = match spec.strip_suffix(" tornado") {
            Some(s) => (s, true),
            None => (spec, false),
        };
        let mut c = config(spec, vcs, alg, load);
        if tornado {
            c.traffic.pattern = hpcnetsim_core::config::PatternKind::Tornado;
        }
        let (ea, el) = engine_run(&c, 5_000, 100_000);
        let (ra, rl) = reference_run(&c, 5_000, 100_000);
        let what = format!(
            "{spec} {:?} {alg:?} {vcs} VCs at {load}: engine {ea:.4}/{el:.1}, reference {ra:.4}/{rl:.1}",
            c.traffic.pattern
        );
        assert!((ea - ra).abs() <= 0.03 * ra + 0.002, "accepted load: {what}");
        // Beyond saturation latency is heavy-tailed: over 100 000 cycles it varies by about
        // ±10 % from seed to seed in both simulators (400 000-cycle runs agree within 3 %).
        let tolerance = if load >= 0.9 { 0.15 } else { 0.05 };
        assert!((el - rl).abs() <= tolerance * rl, "mean latency: {what}");
        eprintln!("{what}");
    }
}

#[test]
#[ignore = "investigation aid: prints engine and reference figures for several seeds"]
fn seeds_spread() {
    let measure: u64 = std::env::var("MEASURE").ok().and_then(|v| v.parse().ok()).unwrap_or(60_000);
    for seed in 1..=4 {
        for (alg, vcs) in [(Algorithm::BubbleAdaptive, 3), (Algorithm::Dor, 2)] {
            let mut c = config("torus:4x4", vcs, alg, 1.0);
            c.seed = seed;
            let (ea, el) = engine_run(&c, 5_000, measure);
            let (ra, rl) = reference_run(&c, 5_000, measure);
            eprintln!("seed {seed} {alg:?}: engine {ea:.4}/{el:.1} reference {ra:.4}/{rl:.1}");
        }
    }
}
