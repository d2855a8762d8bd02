//! Physical units, the NIC and host model and the technology presets (paper 004): unit
//! errors, hop delays, ping bandwidth with and without host limits, the total-exchange bound.

use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::execute::execute_programs;
use hpcnetsim_core::workload::Programs;

/// A config on `topology` with the given extra TOML (tables after the top-level keys).
fn config(top: &str, tables: &str) -> Config {
    let text = format!(
        "topology = \"tree:k=4,n=2\"\n{top}\n[workload]\nplacement = \"list\"\nplacement_list = [0, 1, 15]\n{tables}"
    );
    Config::from_toml(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Cycles for `rounds` messages of `bytes` from task 0 to task `to`, each sent when the
/// previous one has arrived (a ping-pong with empty replies is not needed: one-way chain).
fn one_way(cfg: &Config, to: usize, bytes: u64, rounds: usize) -> u64 {
    let mut p = Programs::new(3);
    for _ in 0..rounds {
        p.message(Some(0), Some(to), bytes);
        p.message(Some(to), Some(0), 0);
    }
    let r = execute_programs(cfg, p, "ping").unwrap();
    r.execution_time_cycles.unwrap()
}

#[test]
fn bad_units_name_the_field_in_one_line() {
    for (table, field) in [
        ("[link]\nbandwidth = \"400 MB\"", "link.bandwidth"),
        ("[link]\nswitch_latency = \"35 parsecs\"", "link.switch_latency"),
        ("[nic]\nenabled = true\nsend_overhead = \"1 KiB\"", "nic.send_overhead"),
        ("[nic]\nenabled = true\nmax_payload = \"lots\"", "nic.max_payload"),
        ("[nic]\nhost_read_bandwidth = \"0 MB/s\"", "nic.host_read_bandwidth"),
    ] {
        let text = format!("topology = \"tree:k=4,n=2\"\n{table}");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains(field) && !e.contains('\n'), "{e}");
    }
    let e = Config::from_toml("topology = \"tree:k=4,n=2\"\ntechnology = \"myrinet\"").unwrap_err().to_string();
    assert!(e.contains("technology") && e.contains("qsnet"), "{e}");
}

#[test]
fn a_link_time_that_rounds_to_no_cycle_is_named() {
    // 0.9 ns of wire on a 2 ns clock is 0.45 cycles: rounded to 0 it leaves a hop of no
    // cycle. The error names the time the user wrote, not switch.link_delay_cycles, which
    // the user did not write.
    for (link, field, value) in [
        ("wire_latency = \"0.9 ns\"", "link.wire_latency", "'0.9 ns'"),
        ("switch_latency = \"0.4 ns\"\nwire_latency = \"0.5 ns\"", "link.wire_latency", "'0.5 ns'"),
    ] {
        let text = format!("topology = \"torus:4x4\"\n[link]\ncycle = \"2 ns\"\n{link}\n");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains(&format!("{field} = {value} is invalid")) && !e.contains('\n'), "{e}");
        assert!(!e.contains("link_delay_cycles"), "{e}");
    }
    let text = "topology = \"torus:4x4\"\n[switch]\nlink_delay_cycles = 0\n[link]\ncycle = \"2 ns\"\nswitch_latency = \"0.9 ns\"\n";
    let e = Config::from_toml(text).unwrap_err().to_string();
    assert!(e.contains("link.switch_latency = '0.9 ns' is invalid"), "{e}");
    // Half a cycle or more rounds up to one: 1 ns on a 2 ns clock is a one-cycle wire.
    let ok = "topology = \"torus:4x4\"\n[link]\ncycle = \"2 ns\"\nwire_latency = \"1 ns\"\n";
    let c = Config::from_toml(ok).unwrap();
    assert_eq!((c.switch.switch_delay_cycles, c.switch.link_delay_cycles), (0, 1));
    // A delay the config writes as 0 is still its own error when no [link] time is involved.
    let e = Config::from_toml("topology = \"torus:4x4\"\n[switch]\nlink_delay_cycles = 0\n").unwrap_err().to_string();
    assert!(e.contains("switch.link_delay_cycles = 0 is invalid"), "{e}");
}

#[test]
fn link_times_become_cycles_and_presets_fill_defaults() {
    let c = config("technology = \"qsnet\"", "");
    let clock = c.clock().unwrap();
    assert!((clock.cycle_ns - 5.0).abs() < 1e-9, "400 MB/s with 2-byte flits: 5 ns cycles");
    assert_eq!((c.switch.switch_delay_cycles, c.switch.link_delay_cycles), (7, 3));
    assert_eq!(c.switch.phit_bytes, 2);
    assert!(c.nic.enabled);
    assert_eq!(c.workload.as_ref().unwrap().cycle_ns, 5.0, "traces follow the network's clock");
    // A value the config sets wins over the preset.
    let c = config("technology = \"qsnet\"", "[switch]\nvcs = 1");
    assert_eq!(c.switch.vcs, 1);
    // The completed config reads back to itself.
    let again = Config::from_json(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(again, c);
}

/// Paper 004 §4.1: a 0-byte message to a node on the same switch and to one behind three
/// switches differ by exactly two hops (switch + wire) each way of the one-way chain.
#[test]
fn one_and_three_switches_differ_by_two_hops() {
    let c = config("technology = \"qsnet\"", "");
    let hop = (c.switch.switch_delay_cycles + c.switch.link_delay_cycles) as u64;
    let near = one_way(&c, 1, 0, 1);
    let far = one_way(&c, 2, 0, 1);
    // Two messages (there and back), each crossing two more links.
    assert_eq!(far - near, 2 * 2 * hop, "near {near} far {far}");
}

/// Bandwidth of a long ping in bytes per cycle.
fn bandwidth(cfg: &Config, bytes: u64) -> f64 {
    let once = one_way(cfg, 2, bytes, 1) - one_way(cfg, 2, 0, 1);
    bytes as f64 / once as f64
}

#[test]
fn ping_bandwidth_is_the_link_minus_headers_or_the_host_bus() {
    let off = "[nic]\nhost_read_bandwidth = \"\"\nhost_write_bandwidth = \"\"";
    let c = config("technology = \"qsnet\"", off);
    // Host limits left unset: the link's payload share, 320 of every 378 bytes, 2 bytes a cycle.
    let expected = 2.0 * 320.0 / 378.0;
    let got = bandwidth(&c, 1 << 20);
    assert!((got - expected).abs() / expected < 0.01, "got {got} expected {expected} B/cycle");
    // With the PCI bus of paper 004: reads at 200 MB/s (1 B/cycle at 5 ns) limit the sender.
    let c = config("technology = \"qsnet\"", "");
    let got = bandwidth(&c, 1 << 20);
    assert!((got - 1.0).abs() < 0.01, "got {got} B/cycle, expected the 200 MB/s read limit");
    // Buffers in NIC memory on the sending side: the 275 MB/s write limit at the receiver.
    let c = config("technology = \"qsnet\"", "[nic]\nsource_buffer = \"nic\"");
    let got = bandwidth(&c, 1 << 20);
    assert!((got - 1.375).abs() < 0.01, "got {got} B/cycle, expected the 275 MB/s write limit");
}

#[test]
fn empty_messages_cost_a_header_not_a_full_packet() {
    let c = config("technology = \"qsnet\"", "");
    let m = c.nic_model().unwrap().unwrap();
    assert_eq!(m.packet_phits(0), 29, "58 bytes of header in 2-byte flits");
    assert_eq!(m.packet_phits(320), 189);
    let sizes: Vec<u64> = m.payloads(1000).collect();
    assert_eq!(sizes, vec![320, 320, 320, 40]);
}

#[test]
fn rendezvous_adds_a_round_trip_of_control_packets() {
    let eager = config("technology = \"qsnet\"", "[nic]\nsource_buffer = \"nic\"\ndestination_buffer = \"nic\"");
    let rdv = config(
        "technology = \"qsnet\"",
        "[nic]\nsource_buffer = \"nic\"\ndestination_buffer = \"nic\"\nrendezvous_threshold = \"1 KiB\"",
    );
    let (e, r) = (one_way(&eager, 2, 4096, 1), one_way(&rdv, 2, 4096, 1));
    // Request and clear-to-send: two header-only packets over four links each.
    let hop = (eager.switch.switch_delay_cycles + eager.switch.link_delay_cycles) as u64;
    assert_eq!(r - e, 2 * (4 * hop + 29 - 1), "eager {e} rendezvous {r}");
}

/// Paper 004 eq. 1: a total exchange of S bytes per pair among N nodes takes at least
/// S(N − 1)/B, B the NIC's bandwidth.
#[test]
fn total_exchange_is_never_below_eq_1() {
    for tech in ["", "technology = \"qsnet\""] {
        for bytes in [0u64, 64, 1000, 8192] {
            let text = format!(
                "topology = \"tree:k=4,n=2\"\n{tech}\n[workload]\nkernel = \"alltoall\"\nmessage_bytes = {bytes}\n[nic]\nenabled = true"
            );
            let c = Config::from_toml(&text).unwrap();
            let r = hpcnetsim_core::engine::execute::execute(&c).unwrap();
            let b = c.nic_model().unwrap().unwrap().bytes_per_cycle();
            let bound = bytes as f64 * 15.0 / b;
            let t = r.execution_time_cycles.unwrap() as f64;
            assert!(t >= bound, "{tech} {bytes} B: {t} cycles below the bound {bound}");
        }
    }
}

/// A receiver pays the receive overhead once per message it consumes, with untagged
/// receives and with tagged ones (isend/irecv/wait), whether or not it was already waiting.
#[test]
fn every_received_message_costs_the_receive_overhead() {
    use hpcnetsim_core::workload::program::NO_REQUEST;
    let c = config("technology = \"qsnet\"", "");
    let m = c.nic_model().unwrap().unwrap();
    for tagged in [false, true] {
        let mut p = Programs::new(3);
        if tagged {
            p.isend(1, 0, 0, 0, 0, NO_REQUEST);
            p.isend(2, 0, 0, 0, 0, NO_REQUEST);
            p.irecv(0, 1, 0, 0, 0, 0);
            p.irecv(0, 2, 0, 0, 0, 1);
            p.wait(0, 0);
            p.wait(0, 1);
        } else {
            p.message(Some(1), Some(0), 0);
            p.message(Some(2), Some(0), 0);
        }
        let t = execute_programs(&c, p, "gather").unwrap().execution_time_cycles.unwrap();
        assert!(t >= m.send_overhead + 2 * m.receive_overhead, "tagged {tagged}: {t} cycles");
        assert!(t < m.send_overhead + 3 * m.receive_overhead, "tagged {tagged}: {t} cycles");
    }
}

#[test]
fn message_sizes_take_units_and_bad_ones_name_the_field() {
    let c = Config::from_toml("topology = \"tree:k=4,n=2\"\n[workload]\nmessage_bytes = \"16 KiB\"").unwrap();
    assert_eq!(c.workload.unwrap().message_bytes, 16384);
    let c = Config::from_json(r#"{"topology": "tree:k=4,n=2", "workload": {"segment_bytes": "1 MB"}}"#).unwrap();
    assert_eq!(c.workload.unwrap().segment_bytes, 1_000_000);
    let e = Config::from_json(r#"{"topology": "tree:k=4,n=2", "workload": {"message_bytes": "16 KiB/s"}}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("workload.message_bytes") && e.contains("16 KiB/s") && !e.contains('\n'), "{e}");
    let e = Config::from_toml("topology = \"tree:k=4,n=2\"\n[workload]\nmessage_bytes = \"lots\"").unwrap_err();
    assert!(e.to_string().contains("message_bytes") || e.to_string().contains("line 3"), "{e}");
}

/// A shared host bus (QsNET's PCI) on which a read holds the bus for its whole time (no
/// `host_bus_bandwidth`): a node sending and receiving at once divides the bus between its
/// reads (200 MB/s) and writes (275 MB/s), 1 / (1/200 + 1/275) MB/s each way.
#[test]
fn a_shared_host_bus_splits_between_directions() {
    let bytes = 1u64 << 20;
    let run = |shared: bool| {
        let nic = format!("[nic]\nshared_host_bus = {shared}\nhost_bus_bandwidth = \"\"");
        let c = config("technology = \"qsnet\"", &nic);
        let mut p = Programs::new(3);
        p.send(0, Some(2), bytes);
        p.send(2, Some(0), bytes);
        p.recv(0, Some(2), bytes);
        p.recv(2, Some(0), bytes);
        let t = execute_programs(&c, p, "bidirectional").unwrap().execution_time_cycles.unwrap();
        bytes as f64 / (t as f64 * 5e-9) / 1e6
    };
    let shared = run(true);
    let expected = 1.0 / (1.0 / 200.0 + 1.0 / 275.0);
    assert!((shared - expected).abs() / expected < 0.02, "shared bus: {shared} MB/s, expected {expected}");
    let separate = run(false);
    assert!((separate - 200.0).abs() / 200.0 < 0.02, "separate paths: {separate} MB/s");
}

/// Every preset is a valid config on a tree, and its clock matches its link bandwidth.
#[test]
fn every_preset_reads_and_has_a_clock() {
    for name in hpcnetsim_core::config::technology::names().split(", ") {
        let c = Config::from_toml(&format!("topology = \"tree:k=4,n=2\"\ntechnology = \"{name}\"")).unwrap();
        let clock = c.clock().unwrap();
        assert!(clock.cycle_ns > 0.0 && clock.link_bytes_per_second() > 1e8, "{name}: {clock:?}");
        // Messages are cut by the NIC model, or (extoll) into whole cells by the switch.
        match c.nic_model().unwrap() {
            Some(nic) => assert!(nic.packet_phits(nic.max_payload) <= c.traffic.max_packet_phits(), "{name}"),
            None => assert_eq!(c.switch.credit_unit, hpcnetsim_core::switch::CreditUnit::Cell, "{name}"),
        }
    }
}
