//! The packet engine: zero-load latency against the cut-through formula on every family,
//! conservation and credit accounting, determinism, saturation of thin-trees near their
//! ideal throughput, absence of deadlock under saturation, and bad configs.

use crate::common::{sim_config, topo, zero_load_latency};
use hpcnetsim_core::config::{Algorithm, Config};
use hpcnetsim_core::engine::{measure, Engine};
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::topology::paths;

fn config(spec: &str, vcs: u32, load: f64) -> Config {
    sim_config(spec, vcs, Algorithm::Auto, load)
}

/// Short schedule for tests on small networks.
fn quick(mut c: Config) -> Config {
    c.measurement.warmup_cycles = 3_000;
    c.measurement.window_cycles = 500;
    c.measurement.batches = 4;
    c.measurement.batch_cycles = 2_000;
    c
}

/// One packet in an empty network arrives after hops × (switch + link delay) + size − 1
/// cycles, on every family with a routing, for several delays and sizes.
#[test]
fn zero_load_latency_is_the_cut_through_formula() {
    let specs = [
        ("tree:k=4,n=3", 1),
        ("tree:k=4,kp=2,n=3", 2),
        ("xgft:h=3;m=3,2,4;w=1,2,3", 1),
        ("torus:5x4", 2),
        ("torus:4x3x2", 4),
        ("mesh:4x3,t=2", 1),
        ("hyperx:4x3,t=2", 1),
        ("hyperx:3x3,t=1,k=2", 2),
        ("crossbar:8", 1),
    ];
    for (spec, vcs) in specs {
        let t = topo(spec);
        for (sd, ld, size) in [(1, 1, 16), (2, 3, 5), (0, 1, 1)] {
            let mut c = config(spec, vcs, 0.0);
            (c.switch.switch_delay_cycles, c.switch.link_delay_cycles) = (sd, ld);
            let n = t.num_terminals();
            for (a, b) in [(0, n - 1), (1, n / 2), (n - 1, 0)] {
                let hops = paths::terminal_distance(&t, a, b).unwrap() as u64;
                let want = hops * (sd + ld) as u64 + size as u64 - 1;
                let got = zero_load_latency(&c, &t, a, b, size);
                assert_eq!(got, want, "{spec} {a}->{b} delays {sd}+{ld} size {size}: {hops} hops");
            }
        }
    }
}

/// After the sources stop and the network drains, every generated packet that was not
/// dropped has been delivered exactly once and every credit is back. (Credits going
/// negative or above capacity fail debug assertions inside the engine.)
#[test]
fn packets_are_conserved_and_credits_return() {
    for (spec, vcs, algorithm, load) in [
        ("torus:6x6", 2, Algorithm::Dor, 0.9),
        ("torus:6x6", 3, Algorithm::BubbleAdaptive, 0.9),
        ("tree:k=4,kp=2,n=3", 2, Algorithm::TreeAdaptive, 0.8),
        ("tree:k=4,n=3", 1, Algorithm::TreeDeterministic, 0.5),
        ("hyperx:4x4,t=2", 2, Algorithm::HyperxAdaptive, 0.8),
        ("mesh:5x4", 1, Algorithm::Dor, 0.6),
    ] {
        let t = topo(spec);
        let mut c = config(spec, vcs, load);
        c.routing.method = algorithm.into();
        c.traffic.packet_phits = 4;
        c.traffic.packet_phits_max = 12;
        let mut e = Engine::new(&c, &t).unwrap();
        e.run_until(20_000);
        e.stop_sources();
        e.run_until(1_000_000);
        let k = &e.stats.counters;
        assert!(k.generated > 1000, "{spec}: too little traffic");
        assert_eq!(k.generated - k.dropped, k.delivered, "{spec}: generated {} dropped {}", k.generated, k.dropped);
        assert_eq!(k.injected, k.delivered, "{spec}");
        e.check_idle().unwrap_or_else(|msg| panic!("{spec}: {msg}"));
    }
}

#[test]
fn same_seed_same_result_different_seed_different_samples() {
    let c = quick(config("tree:k=4,kp=2,n=3", 2, 0.2));
    let mut a = measure::run(&c).unwrap();
    let mut b = measure::run(&c).unwrap();
    (a.wall_seconds, b.wall_seconds) = (0.0, 0.0);
    assert_eq!(a, b);
    let mut c2 = c.clone();
    c2.seed = 2;
    let d = measure::run(&c2).unwrap();
    assert_ne!(a.batch_accepted_loads, d.batch_accepted_loads);
    assert_ne!(a.latency, d.latency);
}

/// At a low load with short batches the sources themselves generate a few per cent more or
/// less than the nominal load; a network that delivers what they generate is not saturated.
#[test]
fn a_low_load_short_of_its_nominal_value_is_not_saturation() {
    let (mut short_of_nominal, mut converged) = (0, 0);
    for seed in 1..=10 {
        let mut c = quick(config("torus:4x4", 2, 0.05));
        c.seed = seed;
        c.measurement.batches = 3;
        c.measurement.batch_cycles = 1_000;
        let r = measure::run(&c).unwrap();
        // So few packets per window may not settle within the tolerance: such runs report
        // no throughput, and no saturation either.
        if r.status != Status::Converged {
            assert!(!r.saturated && r.accepted_load.is_none(), "seed {seed}: {}", r.message);
            continue;
        }
        converged += 1;
        if r.accepted_load.unwrap() < 0.95 * r.offered_load {
            short_of_nominal += 1;
        }
        assert!(!r.saturated, "seed {seed}: {}", r.message);
        assert!(r.packets_delivered as f64 >= 0.95 * r.packets_generated as f64);
    }
    // The old criterion (accepted below 95 % of the nominal load) called these saturated.
    assert!(converged >= 5, "only {converged} of 10 seeds converged");
    assert!(short_of_nominal >= 2, "only {short_of_nominal} of {converged} runs fell short of the nominal load");
}

/// With tens of packets per measurement a packet or two still in flight at its end is 5 % of
/// them: `crossbar:8` at 10 % over two batches of 200 cycles was called saturated on 2 of 10
/// seeds (seed 1: 18 packets generated, 17 delivered). A shortfall within three standard
/// deviations of the generated count is noise; an overloaded network is still saturated.
#[test]
fn a_packet_or_two_in_flight_at_the_end_is_not_saturation() {
    for seed in 1..=10 {
        let mut c = config("crossbar:8", 1, 0.1);
        c.seed = seed;
        (c.measurement.warmup_cycles, c.measurement.window_cycles) = (100, 100);
        (c.measurement.batches, c.measurement.batch_cycles) = (2, 200);
        let r = measure::run(&c).unwrap();
        assert_eq!(r.status, Status::Converged, "seed {seed}: {}", r.message);
        assert!(
            !r.saturated,
            "seed {seed}: {} ({} generated, {} delivered)",
            r.message, r.packets_generated, r.packets_delivered
        );
    }
    // Offered twice what a 2:1 thin-tree takes, over the same short batches: saturated.
    let mut c = config("tree:k=4,kp=2,n=2", 1, 1.0);
    (c.measurement.warmup_cycles, c.measurement.window_cycles) = (100, 100);
    (c.measurement.batches, c.measurement.batch_cycles) = (2, 200);
    let r = measure::run(&c).unwrap();
    assert!(r.saturated, "{}", r.message);
}

/// Paper 000 §5.1: with a few VCs thin-trees reach their ideal throughput, the complete
/// tree does not reach 1. (CI-sized 64-node trees; the 4096-node ones run as a study.)
#[test]
fn thin_trees_saturate_near_their_ideal_throughput() {
    for spec in ["tree:k=4,kp=2,n=3", "tree:k=4,kp=1,n=3"] {
        let ideal = topo(spec).describe().unwrap().ideal_throughput.unwrap();
        let r = measure::run(&quick(config(spec, 4, 1.0))).unwrap();
        assert_eq!(r.status, Status::Converged, "{spec}: {}", r.message);
        let accepted = r.accepted_load.unwrap();
        assert!(r.saturated);
        assert!(accepted > 0.85 * ideal && accepted <= ideal * 1.02, "{spec}: accepted {accepted}, ideal {ideal}");
    }
    let r = measure::run(&quick(config("tree:k=4,n=3", 4, 1.0))).unwrap();
    let accepted = r.accepted_load.unwrap();
    assert!(accepted < 0.97 && accepted > 0.5, "complete tree accepted {accepted}");
}

/// Saturated 8x8 torus for 200 000 cycles: packets keep being delivered in every
/// 10 000-cycle interval with DOR + dateline and with bubble + adaptive.
#[test]
fn no_deadlock_under_saturation() {
    for (algorithm, vcs) in [(Algorithm::Dor, 2), (Algorithm::BubbleAdaptive, 2), (Algorithm::BubbleAdaptive, 1)] {
        let t = topo("torus:8x8");
        let mut c = config("torus:8x8", vcs, 1.0);
        c.routing.method = algorithm.into();
        let mut e = Engine::new(&c, &t).unwrap();
        let mut last = 0;
        for step in 1..=20 {
            e.run_until(step * 10_000);
            let delivered = e.stats.counters.delivered;
            assert!(delivered > last + 1000, "{algorithm:?}/{vcs} VCs: stalled before cycle {}", step * 10_000);
            last = delivered;
        }
    }
}

#[test]
fn bad_configs_name_the_field() {
    let cases: &[(&str, &str)] = &[
        ("topology = \"tree:k=4,n=2\"\n[routing]\nalgorithm = \"dor\"", "routing.algorithm = 'dor'"),
        ("topology = \"torus:4x4\"\n[switch]\nqueue_packets = 0", "switch.queue_packets = 0"),
        ("topology = \"torus:4x4\"\n[traffic]\nload = 1.5", "traffic.load = 1.5"),
        ("topology = \"torus:4x4\"\n[traffic]\nload = -0.1", "traffic.load = -0.1"),
        ("topology = \"torus:4x4\"\n[switch]\nvcs = 9", "switch.vcs = 9"),
        ("topology = \"torus:4x4\"\n[routing]\nalgorithm = \"dor\"", "switch.vcs = 1"),
        ("topology = \"hyperx:4x4\"\n[routing]\nalgorithm = \"hyperx-adaptive\"", "switch.vcs = 1"),
        ("topology = \"torus:4x4\"\n[routing]\nalgorithm = \"zigzag\"", "zigzag"),
        ("topology = \"torus:4x4\"\n[switch]\nfoo = 1", "line 3 (in [switch]): unknown field `foo`"),
        ("topology = \"torus:4x4x0\"", "dimension 2 = 0"),
        ("topology = \"twin-torus:4x4x2\"", "twin-torus"),
        ("topology = \"torus:6x6\"\n[traffic]\npattern = \"bit-reversal\"", "not a power of two"),
        ("topology = \"torus:4x4\"\n[traffic]\npattern = \"hot-spot\"\nhot_nodes = [99]", "traffic.hot_nodes = 99"),
        ("[traffic]\nload = 0.5", "missing field `topology`"),
        // Configs that could never give a result.
        ("topology = \"torus:4x4\"\n[switch]\nqueue_packets = 1", "switch.queue_packets = 1"),
        (
            "topology = \"torus:4x4\"\n[switch]\nvcs = 3\nqueue_packets = 1\n[routing]\nalgorithm = \"bubble-adaptive\"",
            "room for two",
        ),
        ("topology = \"torus:4x4\"\n[measurement]\nmax_convergence_cycles = 3999", "at least window_cycles"),
        ("topology = \"torus:8x8\"\n[measurement]\ndeadlock_cycles = 20", "deadlock_cycles = 20"),
        ("topology = \"torus:4x4\"\n[switch]\nvcs = 2\ninjection_vcs = 3", "switch.injection_vcs = 3"),
    ];
    for (text, needle) in cases {
        let err = Config::from_toml(text).and_then(|c| measure::run(&c)).unwrap_err().to_string();
        assert!(err.contains(needle), "{text:?}: {err}");
        assert!(!err.contains('\n'), "{err}");
    }
}

/// A table given as a list was read field by field in order: `traffic = ["tornado", 0.9]` ran
/// as pattern and load, `workload = ["bu"]` as a kernel. A list is refused where a table
/// belongs, from TOML and from JSON (Python dicts) alike.
#[test]
fn a_table_given_as_a_list_is_refused() {
    let cases: &[(&str, &str)] = &[
        ("traffic = [\"tornado\", 0.9]", "config: traffic = [\"tornado\", 0.9] is invalid: a table"),
        ("workload = [\"bu\"]", "config: workload = [\"bu\"] is invalid: a table"),
        ("routing = []", "config: routing = [] is invalid: a table"),
        ("switch = [4]", "config: switch = [4] is invalid: a table"),
    ];
    for table in ["measurement", "flow", "link", "nic", "stats"] {
        let text = format!("topology = \"torus:4x4\"\n{table} = []");
        let err = Config::from_toml(&text).unwrap_err().to_string();
        assert_eq!(err, format!("config: {table} = [] is invalid: a table ([{table}] with named fields)"));
    }
    for (line, needle) in cases {
        let err = Config::from_toml(&format!("topology = \"torus:4x4\"\n{line}")).unwrap_err().to_string();
        assert!(err.starts_with(needle), "{line}: {err}");
        let (key, value) = line.split_once(" = ").unwrap();
        let json = format!("{{\"topology\": \"torus:4x4\", \"{key}\": {value}}}");
        let err = Config::from_json(&json).unwrap_err().to_string();
        assert!(err.starts_with(needle), "{json}: {err}");
    }
    // A job of [[workload.jobs]] is a table too.
    let json = r#"{"topology": "torus:4x4", "workload": {"jobs": [{"kernel": "bu", "tasks": 8}, ["bu", 8]]}}"#;
    let err = Config::from_json(json).unwrap_err().to_string();
    assert!(err.starts_with("config: workload.jobs[1] = [\"bu\", 8] is invalid: a table"), "{err}");
    // Tables stay tables, and an empty jobs list is no job given as a list.
    Config::from_toml("topology = \"torus:4x4\"\n[traffic]\npattern = \"tornado\"").unwrap();
}

/// A run whose accepted load never settles reports `not-converged` and no throughput
/// (saturated: below saturation the network keeping up with its sources is steady enough).
#[test]
fn unsettled_runs_report_no_throughput() {
    let mut c = quick(config("torus:4x4", 2, 1.0));
    c.measurement.convergence_tolerance = 1e-9;
    c.measurement.max_convergence_cycles = 5_000;
    let r = measure::run(&c).unwrap();
    assert_eq!(r.status, Status::NotConverged);
    assert_eq!(r.accepted_load, None);
    assert!(r.batch_accepted_loads.is_empty());
    assert!(r.message.contains("did not settle within 5000 cycles"), "{}", r.message);
}

/// Windows of few packets scatter by more than 5 % from the sources' randomness alone: a 64-
/// terminal torus at 1 % (about 40 packets a window) reported `not-converged` and nothing at
/// two seeds of three. Once the convergence cycles are spent, a network that delivered what its
/// sources generated, or whose whole convergence phase cut into four parts agrees, is in its
/// steady state; runs that settle by the paper's test are unchanged.
#[test]
fn windows_of_few_packets_are_judged_by_what_the_network_kept_up_with() {
    let mut unsettled = 0;
    for seed in 1..=3 {
        let mut c = config("torus:8x8", 2, 0.01);
        c.seed = seed;
        c.measurement.max_convergence_cycles = 20_000;
        let r = measure::run(&c).unwrap();
        assert_eq!(r.status, Status::Converged, "{}", r.message);
        let accepted = r.accepted_load.unwrap();
        assert!((accepted - 0.01).abs() < 0.003, "{accepted}");
        if r.message.contains("kept up with its sources") {
            unsettled += 1;
            assert!(r.message.contains("after 30000 + 20000 cycles"), "{}", r.message);
        }
    }
    assert!(unsettled > 0, "at least one seed needs the second look");
    // Saturated, with drops, and asked to agree to 10^-9: not steady by either measure.
    let mut c = quick(config("torus:4x4", 2, 1.0));
    c.measurement.convergence_tolerance = 1e-9;
    c.measurement.max_convergence_cycles = 5_000;
    assert_eq!(measure::run(&c).unwrap().status, Status::NotConverged);
}

/// Link utilisation conserves the traffic: on a torus the switch channels carry, on
/// average, accepted load × N × mean switch hops / number of switch channels.
#[test]
fn link_utilisation_matches_the_carried_traffic() {
    let t = topo("torus:8x8");
    let mut c = quick(config("torus:8x8", 2, 0.3));
    c.measurement.per_link_utilisation = true;
    let r = measure::run(&c).unwrap();
    let p = t.describe().unwrap();
    let hops = p.avg_distance - 2.0;
    let channels = 2.0 * p.switch_links as f64;
    let want = r.accepted_load.unwrap() * p.terminals as f64 * hops / channels;
    let u = &r.link_utilisation;
    let (mean, p50, p99, max) = (u.mean.unwrap(), u.p50.unwrap(), u.p99.unwrap(), u.max.unwrap());
    assert!((mean - want).abs() < 0.03 * want, "mean utilisation {mean} vs {want}");
    assert!(max <= 1.0 && max >= p99 && p99 >= p50);
    let per = u.per_channel.as_ref().unwrap();
    assert_eq!(per.len(), t.peers().len());
    // Without the flag only the summary is reported.
    c.measurement.per_link_utilisation = false;
    assert!(measure::run(&c).unwrap().link_utilisation.per_channel.is_none());
}
