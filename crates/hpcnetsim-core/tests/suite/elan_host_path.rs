//! The Elan3 host path of the qsnet preset (paper 004 §5.3, §5.4): PCI reads that hold the
//! shared bus only for their transfer, the PCI read latency before a message's first packet,
//! and the one-line errors of their fields.

use crate::common::assert_close;
use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::execute::execute_programs;
use hpcnetsim_core::workload::Programs;

/// The qsnet preset on a 4-ary 2-tree, tasks 0 and 1 on terminals 0 and 1, with `nic` (TOML
/// lines of the `[nic]` table) on top.
fn qsnet(nic: &str) -> Config {
    let text = format!(
        "topology = \"tree:k=4,n=2\"\ntechnology = \"qsnet\"\n[workload]\nplacement = \"list\"\nplacement_list = [0, 1]\n[nic]\n{nic}"
    );
    Config::from_toml(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Cycles of a one-way message of `bytes` from task 0 to task 1.
fn one_way(c: &Config, bytes: u64) -> u64 {
    let mut p = Programs::new(2);
    p.send(0, Some(1), bytes);
    p.recv(1, Some(0), bytes);
    execute_programs(c, p, "one-way").unwrap().execution_time_cycles.unwrap()
}

/// MB/s each way when both tasks send `bytes` to each other at once (5 ns cycles).
fn both_ways(c: &Config, bytes: u64) -> f64 {
    let mut p = Programs::new(2);
    p.send(0, Some(1), bytes);
    p.send(1, Some(0), bytes);
    p.recv(0, Some(1), bytes);
    p.recv(1, Some(0), bytes);
    let t = execute_programs(c, p, "bidirectional").unwrap().execution_time_cycles.unwrap();
    bytes as f64 / (t as f64 * 5e-9) / 1e6
}

/// With `host_bus_bandwidth` a read holds the PCI bus only for its data at that rate, so a
/// node sending and receiving at once shares the bus at its own rate (half each way), and a
/// read alone still goes at the read bandwidth (it waits for memory, not for the bus).
#[test]
fn pci_reads_hold_the_bus_only_for_their_transfer() {
    let bytes = 1 << 20;
    let preset = qsnet("");
    assert_close("both ways, bus at 275 MB/s", both_ways(&preset, bytes), 275.0 / 2.0, 0.02);
    let bus = |rate: &str| qsnet(&format!("host_bus_bandwidth = \"{rate}\""));
    // A bus at the read rate is strict alternation, as without the field.
    let strict = 1.0 / (1.0 / 200.0 + 1.0 / 275.0);
    // A faster bus: what it carries, a read's data at 400 MB/s and a write at 275 MB/s per
    // byte each way (the reads' own 200 MB/s is not the limit: 163 MB/s each way).
    assert_close(
        "both ways, bus at 400 MB/s",
        both_ways(&bus("400 MB/s"), bytes),
        1.0 / (1.0 / 400.0 + 1.0 / 275.0),
        0.02,
    );
    // A bus so fast that it carries both directions above the reads' own rate: the reads'
    // 200 MB/s each way (their memory wait, not the bus, is the limit).
    assert_close("both ways, bus at 4 GB/s", both_ways(&bus("4 GB/s"), bytes), 200.0, 0.02);
    assert_close("both ways, bus at 200 MB/s", both_ways(&bus("200 MB/s"), bytes), strict, 0.02);
    assert_close("both ways, no bus rate", both_ways(&bus(""), bytes), strict, 0.02);
    // One way: the 200 MB/s reads, whatever the bus rate.
    for c in [preset, bus("400 MB/s"), bus("")] {
        let mb_s = bytes as f64 / ((one_way(&c, bytes) - one_way(&c, 0)) as f64 * 5e-9) / 1e6;
        assert_close("one way", mb_s, 200.0, 0.01);
    }
}

/// The PCI read latency delays a message from host memory by exactly that much, once: reads
/// are pipelined, so a long message loses no bandwidth; a header-only message reads nothing
/// and NIC-memory buffers do not cross the bus.
#[test]
fn a_pci_read_latency_delays_the_first_packet_only() {
    let without = qsnet("host_read_latency = \"0 ns\"");
    let with = qsnet("host_read_latency = \"1 us\"");
    assert_eq!(one_way(&with, 64) - one_way(&without, 64), 200, "1 µs is 200 cycles of 5 ns");
    assert_eq!(one_way(&with, 0), one_way(&without, 0), "an empty message reads nothing");
    let long = 1 << 20;
    assert_eq!(one_way(&with, long) - one_way(&without, long), 200, "pipelined reads");
    let nic = |latency: &str| qsnet(&format!("host_read_latency = \"{latency}\"\nsource_buffer = \"nic\""));
    assert_eq!(one_way(&nic("1 us"), 64), one_way(&nic("0 ns"), 64), "NIC memory is not read over PCI");
    // Without a host read bandwidth there are no DMA reads to delay (docs/physical.md).
    let unpaced = |latency: &str| qsnet(&format!("host_read_latency = \"{latency}\"\nhost_read_bandwidth = \"\""));
    assert_eq!(one_way(&unpaced("1 us"), 64), one_way(&unpaced("0 ns"), 64), "no reads, no read latency");
}

/// The preset's figures in one place: the 64-byte main-to-main latency minus Elan-to-Elan is
/// the read latency plus 64 bytes read at 200 MB/s and written at 275 MB/s.
#[test]
fn main_memory_costs_the_read_latency_and_both_transfers() {
    let main = qsnet("");
    let elan = qsnet("source_buffer = \"nic\"\ndestination_buffer = \"nic\"");
    let extra_ns = (one_way(&main, 64) - one_way(&elan, 64)) as f64 * 5.0;
    assert_close("main minus Elan, 64 B", extra_ns, 750.0 + 64.0 / 0.2 + 64.0 / 0.275, 0.01);
}

#[test]
fn bad_host_path_fields_name_the_field_in_one_line() {
    for (nic, field) in [
        ("host_bus_bandwidth = \"100 MB/s\"", "nic.host_bus_bandwidth"),
        ("host_bus_bandwidth = \"fast\"", "nic.host_bus_bandwidth"),
        ("host_read_latency = \"3 KiB\"", "nic.host_read_latency"),
        ("thread_overhead = \"-1 us\"", "nic.thread_overhead"),
    ] {
        let text = format!("topology = \"tree:k=4,n=2\"\ntechnology = \"qsnet\"\n[nic]\n{nic}");
        let e = match Config::from_toml(&text).and_then(|c| c.nic_model()) {
            Ok(_) => panic!("{nic} was accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(field) && !e.contains('\n'), "{nic}: {e}");
    }
}
