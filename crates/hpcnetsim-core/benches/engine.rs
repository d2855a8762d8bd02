//! Simulator speed in phit-hops per second: the event-driven engine on the benchmark
//! configurations, and the phit-level, cycle-by-cycle reference simulator of the tests on the
//! same configurations as the cycle-driven baseline. Reports figures; never fails on time.

#[path = "../tests/suite/common/reference.rs"]
#[allow(dead_code)]
mod reference;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hpcnetsim_core::config::{Algorithm, Config};
use hpcnetsim_core::engine::Engine;
use hpcnetsim_core::Topology;
use std::hint::black_box;

/// Large blocks in huge pages, as in the Python extension (`perf::huge_pages`): the library
/// leaves the choice of allocator to the program that links it.
#[global_allocator]
static ALLOCATOR: hpcnetsim_core::perf::HugePages = hpcnetsim_core::perf::HugePages;

/// (name, spec, VCs, algorithm, load, cycles simulated per iteration)
const CASES: &[(&str, &str, u32, Algorithm, f64, u64)] = &[
    ("torus-8x8-dor-0.3", "torus:8x8", 2, Algorithm::Dor, 0.3, 20_000),
    ("torus-8x8-dor-saturated", "torus:8x8", 2, Algorithm::Dor, 0.9, 20_000),
    ("tree-8:8,4-0.3", "tree:k=8,kp=8,n=4", 1, Algorithm::TreeAdaptive, 0.3, 4_000),
    ("tree-8:4,4-0.3-4vc", "tree:k=8,kp=4,n=4", 4, Algorithm::TreeAdaptive, 0.3, 4_000),
    ("torus-32x32-dor-0.3", "torus:32x32", 2, Algorithm::Dor, 0.3, 4_000),
];

fn config(spec: &str, vcs: u32, algorithm: Algorithm, load: f64) -> Config {
    let mut c = Config::from_toml(&format!("topology = \"{spec}\"")).expect("valid config");
    c.switch.vcs = vcs;
    c.routing.method = algorithm.into();
    c.traffic.load = load;
    c
}

/// Phit hops of one engine run (the same every time: runs are deterministic).
fn engine_run(c: &Config, t: &Topology, cycles: u64) -> u64 {
    let mut e = Engine::new(c, t).expect("valid network");
    e.run_until(cycles);
    e.stats.counters.phit_hops
}

fn benches(crit: &mut Criterion) {
    for &(name, spec, vcs, algorithm, load, cycles) in CASES {
        let c = config(spec, vcs, algorithm, load);
        let t = Topology::from_spec(spec).expect("valid topology");
        let phit_hops = engine_run(&c, &t, cycles);
        let mut group = crit.benchmark_group(name);
        group.sample_size(10).throughput(Throughput::Elements(phit_hops));
        group.bench_function("engine", |b| b.iter(|| black_box(engine_run(&c, &t, cycles))));
        // The reference does the same work cycle by cycle (its phit hops match within noise).
        if t.num_terminals() <= 1024 {
            group.bench_function("cycle-driven reference", |b| {
                b.iter(|| {
                    let mut r = reference::Reference::new(&c, &t);
                    for cycle in 0..cycles {
                        r.step(cycle);
                    }
                    black_box(r.stats.delivered)
                })
            });
        }
        group.finish();
    }
}

criterion_group!(engine, benches);
criterion_main!(engine);
