//! Workloads talk only to NICs. Independent sources (this module) generate packets with a
//! destination pattern and an injection process; causal task programs come later.

pub mod collectives;
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
    let per_packet = phit_bytes as u64 * packet_phits as u64;
    let packets = length_bytes.div_ceil(per_packet).max(1);
    vec![packet_phits; packets as usize]
}
