//! PARX (paper 001 §3.2.4) picks a packet's LID offset by the size of its message, not of the
//! packet: large messages of a causal workload detour, small ones stay minimal.

use hpcnetsim_core::engine::execute::execute;
use hpcnetsim_core::Config;

/// Mean links per packet of an all-to-all among the 8 terminals of one HyperX row.
fn hops_per_packet(bytes: u64) -> f64 {
    let c = Config::from_toml(&format!(
        "topology = \"hyperx:4x4,t=2\"\n[switch]\nvcs = 8\n[routing]\nalgorithm = \"table\"\nengine = \"parx\"\nlmc = 2\naddress = \"parx\"\n[workload]\nkernel = \"alltoall\"\nalgorithm = \"pairwise\"\ntasks = 8\nmessage_bytes = {bytes}\n"
    ))
    .unwrap();
    let r = execute(&c).unwrap();
    let packet_bytes = (c.traffic.packet_phits * c.switch.phit_bytes) as u64;
    let packets = r.messages as u64 * bytes.div_ceil(packet_bytes);
    r.packet_hops as f64 / packets as f64
}

#[test]
fn large_messages_detour_small_ones_do_not() {
    // Both sizes travel in 256-byte packets; only the message size differs.
    let small = hops_per_packet(256);
    let large = hops_per_packet(4096);
    assert!(large > small + 0.5, "small {small:.2} large {large:.2} links per packet");
}
