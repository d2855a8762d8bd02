//! Workloads talk only to NICs. Independent sources (`patterns.rs`, `sources.rs`) generate
//! packets with a destination pattern and an injection process; causal task programs
//! (`program.rs`, kernels, collectives, traces) run as `exec/` describes.

pub mod collectives;
pub(crate) mod exec;
pub mod jobs;
pub mod kernels;
pub mod patterns;
pub mod placement;
pub mod program;
pub mod sources;
pub mod traces;

pub use patterns::Pattern;
pub use program::{Op, Programs};
pub use sources::Source;

/// Packet sizes (in phits) carrying a message of `length_bytes`: full packets of
/// `packet_phits`, the last one padded to full size too (papers 000/002). An empty
/// message still takes one packet.
pub fn message_packets(length_bytes: u64, phit_bytes: u32, packet_phits: u32) -> Vec<u32> {
    vec![packet_phits; message_packet_count(length_bytes, phit_bytes, packet_phits) as usize]
}

/// How many packets [`message_packets`] gives, without building the list (the largest
/// message allowed, 2^40 bytes, has billions of them).
pub fn message_packet_count(length_bytes: u64, phit_bytes: u32, packet_phits: u32) -> u64 {
    length_bytes.div_ceil(phit_bytes as u64 * packet_phits as u64).max(1)
}
