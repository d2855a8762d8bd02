//! The output-queued switch with internal speedup (`switch/output_queued.rs`): the same
//! zero-load timing as the input-queued switch, no head-of-line blocking with enough
//! speedup, finite output queues and credits that come back whole, and its refusals.

use crate::common::{accepted, topo, zero_load_latency};
use hpcnetsim_core::config::{Algorithm, Config};
use hpcnetsim_core::engine::{measure, Engine};
use hpcnetsim_core::topology::paths;

/// One packet in an empty network: hops × (switch + link delay) + size − 1 cycles, as with
/// the input-queued switch, and every credit and output-queue slot back afterwards.
#[test]
fn zero_load_latency_is_the_input_queued_switch_s() {
    for (spec, vcs, algorithm) in
        [("tree:k=4,n=3", 1, Algorithm::Auto), ("torus:4x4", 2, Algorithm::Dor), ("crossbar:8", 1, Algorithm::Auto)]
    {
        let t = topo(spec);
        for speedup in [1, 2, 8] {
            for (sd, ld, size) in [(1, 1, 16), (0, 1, 1), (2, 3, 5)] {
                let toml = format!(
                    "topology = \"{spec}\"\n[switch]\npreset = \"output-queued\"\nvcs = {vcs}\nspeedup = {speedup}\nswitch_delay_cycles = {sd}\nlink_delay_cycles = {ld}\n"
                );
                let mut c = Config::from_toml(&toml).unwrap();
                c.routing.method = algorithm.into();
                c.traffic.load = 0.0;
                let n = t.num_terminals();
                assert_eq!(Engine::new(&c, &t).unwrap().switch_technology(), "output_queued");
                for (a, b) in [(0, n - 1), (1, n / 2), (n - 1, 0)] {
                    let hops = paths::terminal_distance(&t, a, b).unwrap() as u64;
                    let want = hops * (sd + ld) as u64 + size as u64 - 1;
                    let got = zero_load_latency(&c, &t, a, b, size);
                    assert_eq!(got, want, "{spec} {a}->{b} speedup {speedup} delays {sd}+{ld} size {size}");
                }
            }
        }
    }
}

/// A 1-VC crossbar under full uniform load: input FIFOs stop near Karol's head-of-line
/// limit (about 0.6), while an output-queued switch with enough speedup accepts nearly all of it;
/// without speedup it does better than the FIFOs but not as well.
#[test]
fn speedup_removes_head_of_line_blocking() {
    let base = "topology = \"crossbar:16\"\n[traffic]\nload = 1.0\npacket_phits = 4\n";
    let fifo = accepted(&format!("{base}[switch]\nqueue_packets = 4\n"));
    let oq = |speedup: u32| {
        accepted(&format!("{base}[switch]\npreset = \"output-queued\"\nqueue_packets = 4\nspeedup = {speedup}\n"))
    };
    let (s1, s2, s4) = (oq(1), oq(2), oq(4));
    // Paper 002's perfect crossbar (a virtual output queue per output, a crossbar input per
    // queue): what is left is the sources' own limit at full load (injection queue drops).
    let perfect = accepted(&format!("{base}[switch]\nbuffers = \"voq\"\nqueue_packets = 64\n"));
    println!("input FIFOs {fifo:.3}, perfect {perfect:.3}; output-queued: speedup 1 {s1:.3}, 2 {s2:.3}, 4 {s4:.3}");
    assert!(fifo < 0.7, "input FIFOs {fifo}");
    for (speedup, got) in [(2, s2), (4, s4)] {
        assert!(got >= 0.95, "speedup {speedup}: {got}");
        assert!(got >= perfect - 0.01, "speedup {speedup}: {got} against the perfect crossbar's {perfect}");
    }
    assert!(s1 > fifo && s1 < s2, "speedup 1 {s1} against FIFOs {fifo} and speedup 2 {s2}");
}

/// Under load on a multi-hop network every packet is delivered and the network drains back
/// to empty: no slot of an output queue and no credit is lost.
#[test]
fn a_loaded_tree_drains_to_empty() {
    let t = topo("tree:k=4,n=3");
    let c = Config::from_toml(
        "topology = \"tree:k=4,n=3\"\n[switch]\npreset = \"output-queued\"\noutput_queue_packets = 2\n[traffic]\nload = 0.9\n",
    )
    .unwrap();
    let mut e = Engine::new(&c, &t).unwrap();
    e.run_until(5_000);
    assert!(e.stats.counters.delivered > 1_000, "delivered {}", e.stats.counters.delivered);
    e.stop_sources();
    e.run_until(20_000);
    e.check_idle().unwrap();
}

/// Settings an output-queued switch cannot work with are refused, naming the field.
#[test]
fn conflicting_settings_are_refused() {
    for (extra, field) in [
        ("buffers = \"voq\"", "switch.buffers"),
        ("arbitration = \"islip\"", "switch.arbitration"),
        ("output_queue_packets = 0", "switch.output_queue_packets"),
        ("speedup = 65", "switch.speedup"),
    ] {
        let toml = format!("topology = \"crossbar:4\"\n[switch]\npreset = \"output-queued\"\n{extra}\n");
        let msg = match Config::from_toml(&toml) {
            Err(e) => e.to_string(),
            Ok(c) => measure::run(&c).err().unwrap_or_else(|| panic!("{extra} accepted")).to_string(),
        };
        assert!(msg.contains(field), "{extra}: {msg}");
    }
}
