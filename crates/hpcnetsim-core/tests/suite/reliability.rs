//! Reliability under real use: deadlock evidence that can be walked, cancellation and
//! budgets of the drivers, invariant checks, bounds on cycle fields, memory refusal.

use crate::common::topo;
use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::control::{Budget, Control, Observer, Progress};
use hpcnetsim_core::engine::{measure, Engine};
use hpcnetsim_core::routing::{Candidate, Request, Routing};
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::{Error, Peer};

/// Around a 1D ring always in the + direction, on one VC: a cyclic channel dependency.
struct Clockwise {
    n: usize,
}

impl Routing for Clockwise {
    fn name(&self) -> &'static str {
        "clockwise"
    }
    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        // torus:N with one terminal per switch: ports 0 (+), 1 (-), 2 (terminal).
        let port = if req.dst % self.n == req.switch { 2 } else { 0 };
        out.push(Candidate::new(port, 0));
    }
}

/// A ring with one-packet queues; DOR with its dateline on 2 VCs (the cyclic routing of the
/// first test replaces it and uses VC 0 only).
/// Ejects every packet at the first switch, whatever its destination.
struct EjectHere;

impl Routing for EjectHere {
    fn name(&self) -> &'static str {
        "eject-here"
    }
    fn route(&self, _req: &Request, out: &mut Vec<Candidate>) {
        out.push(Candidate::new(2, 0));
    }
}

#[test]
fn a_packet_delivered_to_the_wrong_terminal_is_an_invariant_violation() {
    let t = topo("torus:6");
    let mut e = Engine::new(&ring_config(6), &t).unwrap();
    e.check_invariants().unwrap();
    e.set_routing(Box::new(EjectHere));
    e.run_until(2_000);
    let err = e.check_invariants().unwrap_err();
    assert!(err.contains("delivered to terminal") && err.contains("its destination"), "{err}");
}

/// The misdelivery reported is the same whatever the thread count and whatever the order in
/// which a cycle's events are handled: the earliest cycle's lowest terminal, named by the
/// packet's source and destination, not the first offender a thread happened to see.
#[test]
fn the_misdelivery_reported_does_not_depend_on_threads_or_event_order() {
    // Every task sends at once at the start (2M), so several packets meet the wrong
    // terminal in the same cycle.
    let t = topo("torus:24");
    let config = Config::from_toml(
        "topology = \"torus:24\"\n[switch]\nvcs = 2\n[routing]\nalgorithm = \"dor\"\n[workload]\nkernel = \"2m\"\ntasks = 24\nmesh = [6, 4]\nmessage_bytes = 64",
    )
    .unwrap();
    let report = |threads: usize, shuffle: Option<u64>| {
        let mut e = Engine::new(&config, &t).unwrap();
        e.set_routing(Box::new(EjectHere));
        assert_eq!(e.set_threads(threads), threads);
        if let Some(seed) = shuffle {
            e.shuffle_order(seed);
        }
        e.run_until(2_000);
        e.check_invariants().unwrap_err()
    };
    let one = report(1, None);
    assert!(one.contains("delivered to terminal"), "{one}");
    for threads in [2, 3] {
        assert_eq!(report(threads, None), one, "{threads} threads");
    }
    for seed in 1..=8 {
        assert_eq!(report(1, Some(seed)), one, "events shuffled with seed {seed}");
    }
}

fn ring_config(n: usize) -> Config {
    let text = format!(
        "topology = \"torus:{n}\"\n[switch]\nqueue_packets = 1\nvcs = 2\n[routing]\nalgorithm = \"dor\"\n[traffic]\nload = 1.0\npattern = \"uniform\""
    );
    Config::from_toml(&text).unwrap()
}

#[test]
fn a_cyclic_routing_deadlocks_and_the_cycle_walks_around_the_ring() {
    let n = 6;
    let t = topo(&format!("torus:{n}"));
    let c = ring_config(n);
    let mut e = Engine::new(&c, &t).unwrap();
    e.set_routing(Box::new(Clockwise { n }));
    e.run_until(20_000);
    assert!(e.stats.in_flight > 0 && e.now() - e.stats.last_delivery > 10_000, "the ring did not deadlock");
    let ev = e.deadlock_evidence(10);
    assert!(ev.cycle, "no cycle found: {:?}", ev.channels);
    let cycle = &ev.channels;
    assert_eq!(cycle.len(), n, "every ring channel takes part: {cycle:?}");
    // Walk it: the output port each entry waits on leads to the next entry's input port.
    for (i, b) in cycle.iter().enumerate() {
        let next = &cycle[(i + 1) % cycle.len()];
        let Peer::Switch { switch, port } = t.ports(b.switch as usize)[b.waits_on_port as usize] else {
            panic!("entry {i} waits on a port that leads to no switch");
        };
        assert_eq!((switch, port), (next.switch, next.port), "entry {i} does not lead to entry {}", i + 1);
        assert!(b.need_phits > b.room_phits, "entry {i} is not short of room: {b:?}");
    }
    e.check_invariants().unwrap();
}

#[test]
fn a_safe_routing_under_the_same_load_has_no_cycle() {
    let t = topo("torus:6");
    let mut c = ring_config(6);
    c.switch.queue_packets = 2;
    let mut e = Engine::new(&c, &t).unwrap();
    e.run_until(20_000);
    assert!(e.now() - e.stats.last_delivery < 1000, "DOR with its dateline stalled");
    assert!(!e.deadlock_evidence(10).cycle);
}

/// Min-hop tables on a torus with one VC deadlock under heavy load; DOR on two VCs does not.
fn short_schedule(routing: &str, vcs: u32) -> Config {
    let text = format!(
        "topology = \"torus:4x4\"\nseed = 7\n[switch]\nvcs = {vcs}\n[routing]\n{routing}\n[traffic]\nload = 0.9\n\
         [measurement]\nwarmup_cycles = 2000\nbatches = 3\nbatch_cycles = 1000"
    );
    Config::from_toml(&text).unwrap()
}

#[test]
fn a_deadlock_in_a_schedule_shorter_than_deadlock_cycles_is_reported() {
    // The whole schedule (about 9 000 cycles) is shorter than the default 20 000 cycles
    // without a delivery that declare a deadlock; it used to end "converged", accepting 0.
    let c = short_schedule("algorithm = \"table\"\nengine = \"minhop\"", 1);
    assert!(c.measurement.deadlock_cycles > 10_000);
    let r = measure::run(&c).unwrap();
    assert_eq!(r.status, Status::Deadlock, "{}", r.message);
    assert!(r.message.starts_with("deadlock: no packet moved for "), "{}", r.message);
    assert!(r.blocked_cycle && r.blocked_channels.len() >= 2, "{:?}", r.blocked_channels);
    assert_eq!(r.accepted_load, None);
    // The same load and schedule with a deadlock-free routing converges.
    let r = measure::run(&short_schedule("algorithm = \"dor\"", 2)).unwrap();
    assert_eq!(r.status, Status::Converged, "{}", r.message);
    assert!(r.accepted_load.unwrap() > 0.3);
}

/// Cancels after a given number of reports.
struct CancelAfter {
    reports: usize,
    seen: Vec<Progress>,
}

impl Observer for CancelAfter {
    fn observe(&mut self, p: &Progress) -> hpcnetsim_core::Result<()> {
        self.seen.push(p.clone());
        if self.seen.len() >= self.reports {
            return Err(Error::Interrupted);
        }
        Ok(())
    }
}

fn long_config() -> Config {
    let mut c = Config::from_toml("topology = \"torus:8x8\"\n[traffic]\nload = 0.3").unwrap();
    c.measurement.warmup_cycles = 1_000_000_000;
    c
}

#[test]
fn an_observer_cancels_a_run_promptly_and_sees_its_progress() {
    let mut obs = CancelAfter { reports: 3, seen: Vec::new() };
    let start = std::time::Instant::now();
    let r = measure::run_with(&long_config(), &mut Control::new(Some(&mut obs), Budget::default()));
    assert_eq!(r.unwrap_err(), Error::Interrupted);
    assert!(start.elapsed().as_secs_f64() < 5.0, "took {:?}", start.elapsed());
    assert!(obs.seen.iter().all(|p| p.phase == "warm-up"));
    assert!(obs.seen.windows(2).all(|w| w[0].cycle <= w[1].cycle), "cycles go back");
    assert!(obs.seen.last().unwrap().cycle > 0 && obs.seen.last().unwrap().in_flight > 0);
}

#[test]
fn budgets_stop_a_run_with_a_partial_result() {
    let budget = Budget { max_wall_seconds: None, max_cycles: Some(5_000) };
    let r = measure::run_with(&long_config(), &mut Control::new(None, budget)).unwrap();
    assert_eq!(r.status, Status::Partial);
    assert_eq!(r.cycles, 5_000);
    assert!(r.message.contains("cycle budget"), "{}", r.message);
    assert!(r.accepted_load.is_none(), "no batch was measured");
    let budget = Budget { max_wall_seconds: Some(0.3), max_cycles: None };
    let start = std::time::Instant::now();
    let r = measure::run_with(&long_config(), &mut Control::new(None, budget)).unwrap();
    assert_eq!(r.status, Status::Partial);
    assert!(start.elapsed().as_secs_f64() < 3.0);
    // A budget within the batches keeps the measured ones.
    let mut c = Config::from_toml("topology = \"torus:4x4\"\n[traffic]\nload = 0.1").unwrap();
    c.measurement.warmup_cycles = 1000;
    c.measurement.batches = 4;
    c.measurement.batch_cycles = 1000;
    let full = measure::run(&c).unwrap();
    let stop = full.cycles - 1500;
    let budget = Budget { max_wall_seconds: None, max_cycles: Some(stop) };
    let r = measure::run_with(&c, &mut Control::new(None, budget)).unwrap();
    assert_eq!(r.status, Status::Partial);
    assert_eq!(r.batch_accepted_loads, full.batch_accepted_loads[..2], "same seed, same batches");
    assert!(r.accepted_load.is_some());
}

#[test]
fn checked_runs_give_the_same_result() {
    let mut c = Config::from_toml("topology = \"tree:k=4,n=2\"\n[traffic]\nload = 0.5").unwrap();
    c.measurement.warmup_cycles = 2000;
    c.measurement.batches = 2;
    c.measurement.batch_cycles = 1000;
    let plain = measure::run_with(&c, &mut Control::default()).unwrap();
    let mut ctl = Control::default();
    ctl.check = true;
    let checked = measure::run_with(&c, &mut ctl).unwrap();
    assert_eq!(plain.batch_accepted_loads, checked.batch_accepted_loads);
    assert_eq!(plain.packet_hops, checked.packet_hops);
}

#[test]
fn cycle_and_count_fields_are_bounded() {
    for (field, value) in [
        ("warmup_cycles", "18446744073709551615"),
        ("batch_cycles", "2000000000000"),
        ("batches", "4000000000"),
        ("deadlock_cycles", "10000000000000"),
    ] {
        let text = format!("topology = \"torus:4x4\"\n[measurement]\n{field} = {value}");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains(&format!("measurement.{field}")) && !e.contains('\n'), "{field}: {e}");
    }
}

#[test]
fn measurement_fields_out_of_range_name_themselves_and_their_range() {
    // Every field's error names it, its value and its own range (docs/config.md): a zero
    // count used to name the whole [measurement] table, and fields that allow 0 were told
    // "between 1 and ...".
    for (field, value, range) in [
        ("window_cycles", "0", "between 1 and 1000000000000"),
        ("convergence_windows", "0", "between 1 and 1000000"),
        ("batches", "0", "between 1 and 1000000"),
        ("batch_cycles", "0", "between 1 and 1000000000000"),
        ("warmup_cycles", "1000000000001", "between 0 and 1000000000000"),
    ] {
        let text = format!("topology = \"torus:4x4\"\n[measurement]\n{field} = {value}");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains(&format!("measurement.{field} = {value} is invalid")) && e.contains(range), "{field}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    assert!(Config::from_toml("topology = \"torus:4x4\"\n[measurement]\nwarmup_cycles = 0").is_ok());
}

#[test]
fn errors_name_no_rust_types() {
    for text in [
        "topology = \"torus:4x4\"\n[switch]\nvcs = \"two\"",
        "topology = \"torus:4x4\"\n[switch]\nvcs = -1",
        "topology = \"torus:4x4\"\nswitch = 3",
        "topology = \"torus:4x4\"\n[measurement]\nbatches = 1.5",
    ] {
        let e = Config::from_toml(text).unwrap_err().to_string();
        for word in ["u32", "u64", "usize", "struct", "f64", "i64"] {
            assert!(!e.split(|c: char| !c.is_alphanumeric()).any(|w| w == word), "{text:?}: {e}");
        }
    }
}

#[test]
fn a_network_larger_than_memory_is_refused_before_it_is_built() {
    use hpcnetsim_core::resources::{check_against, simulation_bytes};
    let big = Config::from_toml("topology = \"torus:8000x5000\"").unwrap();
    let need = simulation_bytes(&big).unwrap();
    assert!(need > 8 << 30, "200 million ports need gigabytes, estimated {need}");
    let e = check_against("config", "topology", &big.topology, need, 1 << 30, "the cgroup memory limit")
        .unwrap_err()
        .to_string();
    assert!(e.contains("memory") && e.contains("--no-memory-check") && e.contains("1.0 GB"), "{e}");
    let small = simulation_bytes(&Config::from_toml("topology = \"torus:4x4\"").unwrap()).unwrap();
    assert!(small < 10 << 20, "a 4x4 torus estimated at {small} bytes");
    assert!(check_against("config", "topology", "torus:4x4", small, 1 << 30, "x").is_ok());
}
