//! Wormhole switching at flit level (Dally and Seitz; paper 004 §2.2, the Elite switch of
//! QsNET): a packet (a worm) moves flit by flit, each flit needs one flit of room downstream,
//! so a packet longer than a buffer spans several switches. A VC buffer holds one worm at a
//! time, from its head to its tail: the output VC a head takes stays reserved until the
//! credit of the tail comes back. A link carries one flit per cycle, taken round-robin from
//! the VCs that have a flit and a credit. The engine's side is `engine/wormhole.rs`.

use super::{Buffers, CreditUnit};
use crate::config::{Arbitration, Config};

/// Largest VC buffer, in flits.
pub const MAX_BUFFER_FLITS: u32 = 1 << 16;

/// Flit-level state of every input buffer and NIC (only wormhole networks allocate it).
#[derive(Clone, Debug)]
pub(crate) struct Worms {
    /// Per input buffer (channel × vcs + vc): flits of its worm that have arrived.
    pub(crate) received: Vec<u32>,
    /// Per input buffer: flits of its worm that have left.
    pub(crate) sent: Vec<u32>,
    /// Per switch: output channels with a reserved VC whose worm still has flits to send.
    pub(crate) links: Vec<Vec<u32>>,
    /// Per output channel: whether it is in its switch's `links`.
    pub(crate) active: Vec<bool>,
    /// Per switch: whether a head arrived, a VC came free or a head lost since its last VC
    /// allocation (otherwise waiting heads have nothing new to try).
    pub(crate) changed: Vec<bool>,
    /// Per NIC: the VC its front packet is being sent on, or `u32::MAX`.
    pub(crate) nic_vc: Vec<u32>,
    /// Per NIC: flits of its front packet sent.
    pub(crate) nic_sent: Vec<u32>,
    /// Per NIC and VC: whether a worm of this NIC holds the switch's input buffer (until
    /// its tail's credit comes back).
    pub(crate) nic_reserved: Vec<bool>,
}

impl Worms {
    /// Empty state for `buffers` input buffers, `channels` channels, `switches` switches,
    /// `nics` NICs with `vcs` VCs each.
    pub(crate) fn new(buffers: usize, channels: usize, switches: usize, nics: usize, vcs: usize) -> Self {
        Worms {
            received: vec![0; buffers],
            sent: vec![0; buffers],
            links: vec![Vec::new(); switches],
            active: vec![false; channels],
            changed: vec![false; switches],
            nic_vc: vec![u32::MAX; nics],
            nic_sent: vec![0; nics],
            nic_reserved: vec![false; nics * vcs],
        }
    }

    /// Flits present in input buffer `q`.
    #[inline]
    pub(crate) fn present(&self, q: usize) -> u32 {
        self.received[q] - self.sent[q]
    }
}

/// Refuses wormhole settings that cannot work, naming the field (bubble flow control is
/// refused by the caller, which knows the topology).
pub fn validate(cfg: &Config) -> crate::Result<()> {
    let s = &cfg.switch;
    let bad = |field: &str, value: &dyn std::fmt::Display, allowed: &str| {
        Err(crate::Error::invalid("config", field, value, allowed))
    };
    if s.buffers == Buffers::Voq {
        return bad("switch.buffers", &"\"voq\"", "\"fifo\" with switching = \"wormhole\"");
    }
    if s.arbitration == Arbitration::Islip {
        return bad(
            "switch.arbitration",
            &"\"islip\"",
            "\"random\", \"round-robin\" or \"oldest-first\" with switching = \"wormhole\" (iSLIP matches whole packets)",
        );
    }
    if s.credit_unit != CreditUnit::Phit {
        return bad(
            "switch.credit_unit",
            &format!("\"{}\"", crate::config::config_name(&s.credit_unit)),
            "\"phit\" with switching = \"wormhole\" (one credit per flit)",
        );
    }
    if s.buffer_flits > MAX_BUFFER_FLITS {
        return bad(
            "switch.buffer_flits",
            &s.buffer_flits,
            &format!("0 (switch.queue_packets packets) or between 1 and {MAX_BUFFER_FLITS} flits"),
        );
    }
    if s.buffer_flits == 0 && s.queue_packets as u64 * cfg.traffic.max_packet_phits() as u64 > MAX_BUFFER_FLITS as u64 {
        return bad(
            "switch.buffer_flits",
            &0,
            &format!("between 1 and {MAX_BUFFER_FLITS} flits (queue_packets × packet size is larger)"),
        );
    }
    Ok(())
}
