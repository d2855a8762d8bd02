//! Technology presets (`technology = "qsnet"`): link rate, clock, latencies, packet format and
//! NIC model of real networks, each value with its source. A preset fills the fields the
//! config leaves out; anything the config sets wins. docs/physical.md lists them. Presets
//! with packets of hundreds of phits also lengthen the measurement windows and batches
//! (20 000 cycles), so that independent-traffic runs see enough packets to converge.

use crate::error::{Error, Result};
use serde_json::Value;

/// The switch model of the QsNET preset: the Elite, a wormhole switch with 16-bit flits,
/// two VCs and flit-level credits (paper 004 §2.2; the `elite` switch preset). The one
/// place to put QsNET back on the virtual cut-through switch ("insee") for a comparison.
pub const QSNET_SWITCH_PRESET: &str = "elite";

/// The names accepted by `technology`.
pub const TECHNOLOGIES: &str = "qsnet, extoll, qdr-infiniband, ndr-infiniband";

/// The preset of `name` as a partial config (TOML), or None.
fn preset(name: &str) -> Option<String> {
    Some(match name {
        // Paper 004 (Petrini et al., QsNET): Elite links 400 MB/s per direction, 16-bit flits,
        // two VCs, 35 ns flow-through, about 50 ns per hop with wire and protocol (§2.2,
        // §5.1); Elan3 packets of at most 320 B payload with 58 B of header, CRC and routing
        // (§5.3), a 320 + 58 B packet is 189 flits; PCI burst read 200 MB/s and write 275 MB/s
        // (§5.3), over one 64-bit/66 MHz PCI bus shared by both directions (§4). Software
        // overheads: §5.1 puts at least 1 µs in the network interface
        // (send side, DMA descriptor and command port, §3.1.3); the receive side (event and
        // block copy into host memory, steps 6-10 of Fig. 5) is taken as 0.9 µs, calibrated so
        // that a 0-byte Elan-to-Elan ping costs about 2 µs: that figure is an input, the other
        // published ones are checks (docs/validation.md).
        "qsnet" => format!(
            r#"
            [switch]
            preset = "{QSNET_SWITCH_PRESET}"
            phit_bytes = 2
            vcs = 2
            queue_packets = 2
            [link]
            bandwidth = "400 MB/s"
            switch_latency = "35 ns"
            wire_latency = "15 ns"
            [traffic]
            packet_phits = 189
            [measurement]
            window_cycles = 20000
            batch_cycles = 20000
            [nic]
            enabled = true
            send_overhead = "1 us"
            receive_overhead = "0.9 us"
            host_read_bandwidth = "200 MB/s"
            host_write_bandwidth = "275 MB/s"
            shared_host_bus = true
            max_payload = "320 B"
            packet_overhead = "58 B"
            "#
        ),
        // Paper 003 (Andújar et al., EXTOLL): 128-bit cells, packets of 1 to 32 cells, host
        // bandwidth 10.4 GB/s (§2.1, §4.1 footnote); link rate taken equal to the host rate.
        // The switch is the `extoll` switch preset (VOQs, iSLIP, one-cell credits); messages
        // are cut into whole cells by the switch model, so the NIC model stays off (the two
        // ways of cutting messages are exclusive) and the host rate is the link rate. Loads are
        // also reported as percentages of the host bandwidth, the paper's normalized rates.
        "extoll" => r#"
            [switch]
            preset = "extoll"
            phit_bytes = 16
            [link]
            bandwidth = "10.4 GB/s"
            host_bandwidth = "10.4 GB/s"
            [traffic]
            packet_phits = 32
            "#
        .to_string(),
        // Paper 001 (Domke et al.): 4X QDR InfiniBand (40 Gb/s signalling, 8b/10b: 32 Gb/s =
        // 4 GB/s of data per direction) with 36-port switches; 2 KiB MTU with 26 B of LRH, BTH
        // and CRCs (InfiniBand specification); about 100 ns per switch (InfiniScale IV class).
        "qdr-infiniband" => r#"
            [switch]
            phit_bytes = 4
            vcs = 2
            [link]
            bandwidth = "4 GB/s"
            switch_latency = "100 ns"
            wire_latency = "5 ns"
            [traffic]
            packet_phits = 519
            [measurement]
            window_cycles = 20000
            batch_cycles = 20000
            [nic]
            enabled = true
            max_payload = "2048 B"
            packet_overhead = "26 B"
            send_overhead = "0.5 us"
            receive_overhead = "0.5 us"
            host_read_bandwidth = "4 GB/s"
            host_write_bandwidth = "4 GB/s"
            rendezvous_threshold = "12 KiB"
            "#
        .to_string(),
        // NDR InfiniBand (NVIDIA Quantum-2, 2021): 64 ports of 400 Gb/s (4 lanes of 100 Gb/s
        // PAM4, 50 GB/s per direction), 4 KiB MTU, port-to-port latency quoted between 130
        // and 330 ns (150 ns used); PCIe Gen5 x16 hosts (about 50 GB/s usable).
        "ndr-infiniband" => r#"
            [switch]
            phit_bytes = 16
            vcs = 2
            [link]
            bandwidth = "50 GB/s"
            switch_latency = "150 ns"
            wire_latency = "5 ns"
            [traffic]
            packet_phits = 258
            [measurement]
            window_cycles = 20000
            batch_cycles = 20000
            [nic]
            enabled = true
            max_payload = "4096 B"
            packet_overhead = "26 B"
            send_overhead = "0.3 us"
            receive_overhead = "0.3 us"
            host_read_bandwidth = "50 GB/s"
            host_write_bandwidth = "50 GB/s"
            rendezvous_threshold = "16 KiB"
            "#
        .to_string(),
        _ => return None,
    })
}

/// `user` with the values of its `technology` preset in every field it leaves out (the
/// user's values win); unchanged without a technology.
pub fn apply(mut user: Value) -> Result<Value> {
    let name = match user.get("technology") {
        None => return Ok(user),
        Some(Value::String(s)) if s.is_empty() => return Ok(user),
        Some(Value::String(s)) => s.clone(),
        Some(v) => return Err(Error::invalid("config", "technology", v, TECHNOLOGIES)),
    };
    let text =
        preset(&name).ok_or_else(|| Error::invalid("config", "technology", format!("'{name}'"), TECHNOLOGIES))?;
    let table: toml::Table = toml::from_str(&text).expect("presets are valid TOML");
    let preset = serde_json::to_value(table).expect("TOML values are JSON values");
    fill(&mut user, preset);
    Ok(user)
}

/// Sets every leaf of `preset` that `user` lacks, table by table.
fn fill(user: &mut Value, preset: Value) {
    let (Value::Object(u), Value::Object(p)) = (user, preset) else { return };
    for (k, v) in p {
        match u.get_mut(&k) {
            Some(existing) => fill(existing, v),
            None => {
                u.insert(k, v);
            }
        }
    }
}
