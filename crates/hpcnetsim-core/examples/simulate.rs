//! Runs a TOML config file and prints the result as JSON (development aid; the environment
//! variable HPCNETSIM_THREADS sets the threads, 0 or unset: automatic, and HPCNETSIM_PREFETCH
//! pins the prefetching, 0 or 1, unset: measured).
/// Large blocks in huge pages, as in the Python extension (`perf::huge_pages`): the library
/// leaves the choice of allocator to the program that links it.
#[global_allocator]
static ALLOCATOR: hpcnetsim_core::perf::HugePages = hpcnetsim_core::perf::HugePages;

fn main() {
    let path = std::env::args().nth(1).expect("usage: simulate CONFIG.toml");
    let text = std::fs::read_to_string(&path).expect("readable config");
    if std::env::var("HPCNETSIM_COUNTERS").is_ok() {
        let cfg = hpcnetsim_core::Config::from_toml(&text).expect("valid config");
        let topo = hpcnetsim_core::Topology::from_spec(&cfg.topology).expect("valid topology");
        let mut e = hpcnetsim_core::engine::Engine::new(&cfg, &topo).expect("valid network");
        let threads = std::env::var("HPCNETSIM_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1);
        e.set_threads(threads);
        e.run_until(cfg.measurement.warmup_cycles);
        println!("{:?}", e.stats.counters);
        return;
    }
    let mut ctl = hpcnetsim_core::engine::control::Control::default();
    ctl.threads = std::env::var("HPCNETSIM_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(0);
    ctl.prefetch = std::env::var("HPCNETSIM_PREFETCH").ok().map(|p| p == "1");
    match hpcnetsim_core::Config::from_toml(&text).and_then(|c| hpcnetsim_core::engine::measure::run_with(&c, &mut ctl))
    {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).unwrap()),
        Err(e) => eprintln!("error: {e}"),
    }
}
