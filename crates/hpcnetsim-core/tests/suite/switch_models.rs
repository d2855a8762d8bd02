//! Switch technologies as configurations of one switch model (docs/engine.md): presets,
//! virtual output queues with iSLIP, cell-granular packets and credits, and the refusal of
//! settings that cannot work together.

use crate::common::accepted;
use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::{execute, measure};
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::switch::{Buffers, CreditUnit};

/// A preset fills in every field; fields written in the table override it.
#[test]
fn presets_fill_fields_and_explicit_fields_override() {
    let c = Config::from_toml("topology = \"crossbar:4\"\n[switch]\npreset = \"extoll\"\nvcs = 2\n").unwrap();
    assert_eq!(c.switch.buffers, Buffers::Voq);
    assert_eq!(c.switch.credit_unit, CreditUnit::Cell);
    assert_eq!(c.switch.vcs, 2);
    let d = Config::from_toml("topology = \"crossbar:4\"").unwrap();
    assert_eq!(d.switch.preset, "insee");
    assert_eq!(d.switch.buffers, Buffers::Fifo);
    // The serialised config reads back to the same config.
    let again = Config::from_json(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(again, c);
    let e = Config::from_toml("topology = \"crossbar:4\"\n[switch]\npreset = \"bogus\"\n").unwrap_err();
    assert!(e.to_string().contains("preset = 'bogus' is invalid"), "{e}");
    // Named in full: serde places the error at the [switch] header, not at the field's line.
    let e = Config::from_toml("topology = \"crossbar:4\"\nseed = 2\n\n[switch]\nvcs = 2\npreset = \"extol\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("switch.preset = 'extol' is invalid: one of insee, extoll"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

/// Settings that cannot work together are refused with one line naming the field.
#[test]
fn bad_combinations_are_refused() {
    let cases = [
        ("topology = \"crossbar:4\"\n[switch]\npreset = \"extoll\"\nislip_iterations = 0\n", "switch.islip_iterations"),
        ("topology = \"crossbar:4\"\n[switch]\nvcs = 3\ntraffic_classes = 4\n", "switch.traffic_classes"),
        (
            "topology = \"torus:4x4\"\n[switch]\nswitching = \"wormhole\"\n[routing]\nalgorithm = \"bubble-adaptive\"\n",
            "switch.switching",
        ),
        ("topology = \"crossbar:4\"\n[switch]\narbitration = \"islip\"\n", "switch.output_allocation"),
        ("topology = \"crossbar:4\"\n[switch]\ncell_bytes = 0\n", "switch.cell_bytes"),
    ];
    for (toml, field) in cases {
        let e = Config::from_toml(toml).unwrap_err().to_string();
        assert!(e.contains(field), "{toml}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// One 32-port switch under saturating uniform traffic of one-cell packets: virtual output
/// queues with iSLIP come close to 100 % throughput (McKeown 1999; log2(32) = 5 iterations
/// find a maximal matching, 4 are close), far above the head-of-line limit of a switch with
/// one FIFO per input (Karol et al.: 0.590 for 32 ports, 2 − √2 ≈ 0.586 for large ones).
/// One iteration with these finite buffers (64 cells per input, about two per virtual output
/// queue) stays lower, as the pointers desynchronise only while most queues hold a cell,
/// but is still clearly above the single FIFO.
#[test]
fn islip_with_voqs_beats_the_head_of_line_limit() {
    let base = "topology = \"crossbar:32\"\n[traffic]\nload = 1.0\npacket_phits = 1\n";
    let fifo = accepted(&format!("{base}[switch]\nqueue_packets = 64\n"));
    let extoll = format!("{base}[switch]\npreset = \"extoll\"\nvcs = 1\nqueue_packets = 64\n");
    let islip4 = accepted(&format!("{extoll}islip_iterations = 4\n"));
    let islip1 = accepted(&extoll);
    println!("single FIFO {fifo:.3}, VOQ + iSLIP-4 {islip4:.3}, iSLIP-1 {islip1:.3}");
    assert!((0.55..0.63).contains(&fifo), "single FIFO {fifo}");
    assert!(islip4 > 0.93, "VOQ + iSLIP, 4 iterations: {islip4}");
    assert!(islip1 > fifo + 0.1, "VOQ + iSLIP, 1 iteration: {islip1}");
    // Paper 002's perfect crossbar: virtual output queues, one crossbar input per queue;
    // contention is left only at the injection and consumption links.
    let perfect = accepted(&format!("{base}[switch]\nbuffers = \"voq\"\nqueue_packets = 64\n"));
    println!("perfect crossbar {perfect:.3}");
    assert!(perfect > 0.95, "perfect crossbar {perfect}");
}

fn message_time(preset: &str, bytes: u64) -> u64 {
    let toml = format!(
        "topology = \"crossbar:2\"\n[switch]\npreset = \"{preset}\"\n[workload]\nkernel = \"bt\"\ntasks = 2\nmessage_bytes = {bytes}\n"
    );
    let r = execute::execute(&Config::from_toml(&toml).unwrap()).unwrap();
    assert_eq!(r.status, Status::Completed, "{toml}");
    r.execution_time_cycles.unwrap()
}

/// With 16-byte cells a 16-byte message is one cell: its tail arrives right behind its head.
/// A 512-byte message is 32 cells (two packets of 16), sent back to back at one cell per
/// cycle: its last cell arrives 31 cycles after the one-cell message's. INSEE pads the
/// 16-byte message to a whole 16-phit packet: 15 cycles more, but crosses the crossbar
/// in one cycle where EXTOLL's pipeline takes 20 more (its NIC ports take one cycle, as
/// INSEE's links).
#[test]
fn a_one_cell_message_is_faster_than_a_32_cell_one() {
    let (small, large) = (message_time("extoll", 16), message_time("extoll", 512));
    assert_eq!(large - small, 31);
    assert_eq!(message_time("insee", 16) + 20, small + 15);
}

/// Traffic classes split the VCs: a packet that arrived on a VC of class 1 is routed on
/// class 1's VCs only, and a network whose routing needs two VCs per class runs with two
/// classes of two VCs each.
#[test]
fn traffic_classes_keep_packets_on_their_vcs() {
    use hpcnetsim_core::routing::Request;
    let toml = "topology = \"torus:4x4\"\n[switch]\nvcs = 4\ntraffic_classes = 2\n[routing]\nalgorithm = \"dor\"\n";
    let cfg = Config::from_toml(toml).unwrap();
    let t = hpcnetsim_core::Topology::from_spec("torus:4x4").unwrap();
    let r = hpcnetsim_core::switch::classes::build(&cfg, &t).unwrap();
    for in_vc in 0..4 {
        let mut out = Vec::new();
        r.route(&Request { switch: 0, in_port: 0, in_vc, src: 1, dst: 10, salt: 0, offset: 0 }, &mut out);
        assert!(!out.is_empty());
        assert!(out.iter().all(|c| c.vc as usize / 2 == in_vc / 2), "in VC {in_vc}: {out:?}");
    }
    let got = accepted(&format!("{toml}[traffic]\nload = 0.2\n"));
    assert!((got - 0.2).abs() < 0.02, "accepted {got} of 0.2");
}

/// The routings paper 003 runs on EXTOLL (3D torus DOR with a dateline or with the upper/lower
/// VC rule, adaptive with a DOR escape, DORT and TS-DOR on twin tori), on the EXTOLL switch with one and with two traffic classes: the
/// channel dependency graph of the deterministic ones is acyclic over the classes' VCs, and
/// a saturating uniform load runs without deadlock through virtual output queues and iSLIP.
#[test]
fn paper_003_routings_on_the_extoll_switch() {
    use hpcnetsim_core::routing::deadlock::{self, Verdict};
    let cases = [
        ("torus:4x4x4", "dor", 3, 1, true),
        ("torus:4x4x4", "dor", 6, 2, true),
        ("torus:4x4x4", "dor-upper-lower", 3, 1, true),
        ("torus:5x4x3", "dor-upper-lower", 2, 1, true),
        ("torus:4x4x4", "bubble-adaptive", 3, 1, false),
        ("torus:4x4x4", "duato", 6, 2, false),
        ("twin-torus:4x2x2x2x2", "dort", 4, 1, true),
        ("twin-torus:4x2x2x2x2", "ts-dor", 8, 2, true),
    ];
    for (spec, algorithm, vcs, classes, acyclic) in cases {
        let toml = format!(
            "topology = \"{spec}\"\n[switch]\npreset = \"extoll\"\nvcs = {vcs}\ntraffic_classes = {classes}\n\
             [routing]\nalgorithm = \"{algorithm}\"\n"
        );
        let cfg = Config::from_toml(&toml).unwrap();
        let t = hpcnetsim_core::Topology::from_spec(spec).unwrap();
        if acyclic {
            let r = hpcnetsim_core::switch::classes::build(&cfg, &t).unwrap();
            let verdict = deadlock::check_routing(&t, r.as_ref(), vcs as usize, false).unwrap();
            assert!(matches!(verdict, Verdict::Acyclic), "{spec} {algorithm} {classes} classes: cyclic");
            // Control: with the VCs merged the same routes close the rings.
            let merged = deadlock::check_routing(&t, r.as_ref(), vcs as usize, true).unwrap();
            assert!(matches!(merged, Verdict::Cycle(_)), "{spec} {algorithm}: the control found no cycle");
        }
        let cfg = Config::from_toml(&format!(
            "{toml}[traffic]\nload = 1.0\n[measurement]\nwarmup_cycles = 2000\nwindow_cycles = 500\n\
             batches = 2\nbatch_cycles = 1000\nmax_convergence_cycles = 20000\n"
        ))
        .unwrap();
        let r = measure::run(&cfg).unwrap();
        assert_ne!(r.status, Status::Deadlock, "{spec} {algorithm}");
        assert_eq!(r.status, Status::Converged, "{spec} {algorithm}");
        let got = r.accepted_load.unwrap();
        println!("{spec} {algorithm}, {classes} classes: accepted {got:.3}");
        assert!(got > 0.3, "{spec} {algorithm}: accepted {got}");
    }
}
