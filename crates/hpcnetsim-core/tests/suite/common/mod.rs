//! Deliberately naive reference computations for small networks: they enumerate what the
//! library computes cleverly (every minimal path, every bisection).

#![allow(dead_code)]

pub mod reference;

use hpcnetsim_core::config::{Algorithm, Config, PatternKind};
use hpcnetsim_core::engine::{measure, Engine};
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::topology::paths::bfs;
use hpcnetsim_core::{Peer, Topology};

/// Builds a spec that the tests know to be valid.
pub fn topo(spec: &str) -> Topology {
    Topology::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// A simulation config with the defaults but for the given network, VCs, routing and load.
pub fn sim_config(spec: &str, vcs: u32, algorithm: Algorithm, load: f64) -> Config {
    // Read with 8 VCs and table routing, which every network accepts (a faulty one too), then
    // given the VCs and routing of the test (for the tests of the refusals at build, wrong ones).
    let toml = format!("topology = \"{spec}\"\n[switch]\nvcs = 8\n[routing]\nalgorithm = \"table\"\n");
    let mut c = Config::from_toml(&toml).unwrap();
    c.switch.vcs = vcs;
    c.routing.method = algorithm.into();
    c.traffic.load = load;
    c
}

/// A short throughput schedule for tests (a TOML table to append to a config).
pub const QUICK: &str = "[measurement]\nwarmup_cycles = 2000\nwindow_cycles = 500\nbatches = 2\nbatch_cycles = 2000\n";

/// The accepted load of the config `toml` under the `QUICK` schedule (it must converge).
pub fn accepted(toml: &str) -> f64 {
    let cfg = Config::from_toml(&format!("{toml}\n{QUICK}")).unwrap();
    let r = measure::run(&cfg).unwrap();
    assert_eq!(r.status, Status::Converged, "{toml}");
    r.accepted_load.unwrap()
}

/// The latency of one packet of `size` phits from terminal `a` to `b` in the empty network
/// of `c` on `t`, checking that it is delivered and that the network drains back to empty.
pub fn zero_load_latency(c: &Config, t: &Topology, a: usize, b: usize, size: u32) -> u64 {
    let mut e = Engine::new(c, t).unwrap();
    e.set_recording(true);
    e.inject(a, b, size);
    e.run_until(10_000);
    let got = e.stats.network_latency.summary();
    assert_eq!(got.count, 1, "{}: {a} -> {b} not delivered", c.topology);
    e.check_idle().unwrap();
    got.max as u64
}

/// Mean switch-to-switch hops (NIC links excluded) of `packets` random packets between
/// distinct terminals, injected into the empty network of `spec` with `vcs` VCs and
/// `algorithm` and drained; the pairs come from a fixed generator seeded with `seed`, so every
/// routing sees the same ones. Checks that all are delivered and the network drains empty.
pub fn mean_network_hops(spec: &str, algorithm: Algorithm, vcs: u32, packets: usize, seed: u64) -> f64 {
    let t = topo(spec);
    let mut c = sim_config(spec, vcs, algorithm, 0.0);
    c.traffic.packet_phits = 4;
    let mut e = Engine::new(&c, &t).unwrap();
    let n = t.num_terminals();
    let mut x = seed;
    for _ in 0..packets {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let src = (x >> 33) as usize % n;
        let dst = (src + 1 + (x >> 13) as usize % (n - 1)) % n;
        e.inject(src, dst, 4);
    }
    e.stop_sources();
    e.run_until(10_000_000);
    let k = &e.stats.counters;
    assert_eq!(k.delivered, packets as u64, "{spec} {algorithm:?}: not all delivered");
    e.check_idle().unwrap();
    (k.packet_hops - 2 * k.delivered) as f64 / k.delivered as f64
}

/// Every minimal switch path from `src` to `dst`, each as the list of channels it uses.
pub fn all_minimal_paths(t: &Topology, src: usize, dst: usize) -> Vec<Vec<usize>> {
    let dist_to_dst = bfs(t, dst);
    let mut out = Vec::new();
    let mut path = Vec::new();
    fn walk(t: &Topology, u: usize, dst: usize, d: &[u32], path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if u == dst {
            out.push(path.clone());
            return;
        }
        for (p, peer) in t.ports(u).iter().enumerate() {
            if let Peer::Switch { switch, .. } = *peer {
                if d[switch as usize] + 1 == d[u] {
                    path.push(t.channel(u, p));
                    walk(t, switch as usize, dst, d, path, out);
                    path.pop();
                }
            }
        }
    }
    walk(t, src, dst, &dist_to_dst, &mut path, &mut out);
    out
}

/// Channel loads of uniform traffic by enumerating every minimal path of every pair of
/// terminals (terminal channels carry 1, as in the library).
pub fn brute_force_channel_loads(t: &Topology) -> Vec<f64> {
    let n = t.num_terminals() as f64;
    let mut load: Vec<f64> = t.peers().iter().map(|p| if matches!(p, Peer::Terminal(_)) { 1.0 } else { 0.0 }).collect();
    for a in 0..t.num_terminals() {
        for b in 0..t.num_terminals() {
            let (sa, sb) = (t.terminal_attachment(a).0, t.terminal_attachment(b).0);
            if a == b || sa == sb {
                continue;
            }
            let paths = all_minimal_paths(t, sa, sb);
            let share = 1.0 / (n - 1.0) / paths.len() as f64;
            for p in &paths {
                for &c in p {
                    load[c] += share;
                }
            }
        }
    }
    load
}

/// Minimum balanced bisection by trying every side assignment of the switches; terminals
/// may sit on the other side of their switch, each such terminal cutting its link.
pub fn brute_force_bisection(t: &Topology) -> u64 {
    let s = t.num_switches();
    assert!(s <= 25, "too many switches for brute force");
    let links = t.link_list();
    let term = t.terminals_at();
    // With N odd, either side may hold the extra terminal.
    let n = t.num_terminals() as i64;
    let (low, high) = (n / 2, (n + 1) / 2);
    let mut best = u64::MAX;
    // Switch 0 stays on side 0: the other half of the assignments are mirror images.
    for mask in 0u32..(1 << (s - 1)) {
        let side = |i: u32| if i == 0 { 0 } else { (mask >> (i - 1)) & 1 };
        let cut = links.iter().filter(|&&(a, _, b, _)| side(a) != side(b)).count() as u64;
        let on_zero: i64 = (0..s as u32).filter(|&i| side(i) == 0).map(|i| term[i as usize] as i64).sum();
        best = best.min(cut + (on_zero - low).unsigned_abs().min((on_zero - high).unsigned_abs()));
    }
    best
}

/// Accepted phits per terminal per cycle when every terminal `t` always has packets for
/// `dest(t)` waiting: the saturation throughput of that permutation.
pub fn backlog_throughput(spec: &str, algorithm: Algorithm, vcs: u32, dest: impl Fn(usize) -> usize) -> f64 {
    let t = topo(spec);
    let (warmup, window, size) = (3_000u64, 6_000u64, 4u32);
    let mut c = sim_config(spec, vcs, algorithm, 0.0);
    c.traffic.packet_phits = size;
    let mut e = Engine::new(&c, &t).unwrap();
    let n = t.num_terminals();
    for _ in 0..(warmup + window) / size as u64 + 8 {
        for src in 0..n {
            e.inject(src, dest(src), size);
        }
    }
    e.run_until(warmup);
    let before = e.stats.counters.delivered_phits;
    e.run_until(warmup + window);
    (e.stats.counters.delivered_phits - before) as f64 / (n as f64 * window as f64)
}

/// Mean accepted load of the batches at full offered load of `pattern`: the saturation
/// throughput (a short schedule for tests).
pub fn saturation(spec: &str, algorithm: Algorithm, vcs: u32, pattern: PatternKind) -> f64 {
    saturation_with(spec, vcs, algorithm, pattern, |_| {})
}

/// [`saturation`] of the config that `modify` completes (table routing's engine, ...).
pub fn saturation_with(
    spec: &str,
    vcs: u32,
    algorithm: Algorithm,
    pattern: PatternKind,
    modify: impl FnOnce(&mut Config),
) -> f64 {
    let mut c = sim_config(spec, vcs, algorithm, 1.0);
    c.measurement.warmup_cycles = 3_000;
    c.measurement.window_cycles = 500;
    c.measurement.batches = 3;
    c.measurement.batch_cycles = 2_000;
    c.traffic.pattern = pattern;
    modify(&mut c);
    let r = measure::run(&c).unwrap();
    r.batch_accepted_loads.iter().sum::<f64>() / r.batch_accepted_loads.len() as f64
}

/// Asserts two floats agree to a relative tolerance.
pub fn assert_close(what: &str, got: f64, want: f64, rel: f64) {
    let tol = rel * want.abs().max(1e-12);
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want} (relative tolerance {rel})");
}
