//! What a family builder produces: switches with numbered ports and what each port is
//! plugged into, checked as it is wired. It sits below the families and the [`Topology`]
//! they end up in (`graph.rs`), so that a builder needs neither.
//!
//! [`Topology`]: super::graph::Topology

use super::symmetry::Symmetry;
use crate::error::{Error, Result};

/// What sits at the other end of a switch port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// Nothing is plugged in (top-level up-ports of trees, faulty links).
    Unplugged,
    /// A full-duplex link to `port` of `switch`.
    Switch {
        /// Neighbour switch index.
        switch: u32,
        /// Port number on the neighbour.
        port: u32,
    },
    /// A terminal (compute node NIC) with this index.
    Terminal(u32),
}

/// The ports and links of a network as a family wires them, before it becomes a
/// [`Topology`](super::graph::Topology) with its spec and family.
#[derive(Clone, Debug)]
pub(crate) struct Wiring {
    /// `port_offset[s]..port_offset[s + 1]` are the global port indices of switch `s`.
    pub(crate) port_offset: Vec<u32>,
    /// The peer of every port, indexed by global port.
    pub(crate) peers: Vec<Peer>,
    /// For every terminal, the switch and port it is attached to.
    pub(crate) terminal_attachment: Vec<(u32, u32)>,
    /// The translation symmetry declared by the family builder, if any.
    pub(crate) symmetry: Option<Symmetry>,
}

/// Incremental construction of a [`Wiring`] with consistency checks.
pub(crate) struct Builder {
    port_offset: Vec<u32>,
    peers: Vec<Peer>,
    terminal_attachment: Vec<(u32, u32)>,
}

impl Builder {
    /// A builder for switches with the given numbers of ports, all unplugged.
    pub(crate) fn new(ports_per_switch: impl IntoIterator<Item = usize>) -> Self {
        let mut port_offset = vec![0u32];
        let mut total = 0usize;
        for n in ports_per_switch {
            total += n;
            port_offset.push(total as u32);
        }
        Builder { port_offset, peers: vec![Peer::Unplugged; total], terminal_attachment: Vec::new() }
    }

    fn slot(&self, s: usize, p: usize) -> usize {
        debug_assert!(p < (self.port_offset[s + 1] - self.port_offset[s]) as usize, "port out of range");
        self.port_offset[s] as usize + p
    }

    /// Links port `pa` of switch `a` with port `pb` of switch `b` (full duplex).
    pub(crate) fn link(&mut self, a: usize, pa: usize, b: usize, pb: usize) {
        let (ia, ib) = (self.slot(a, pa), self.slot(b, pb));
        debug_assert_eq!(self.peers[ia], Peer::Unplugged, "port {pa} of switch {a} used twice");
        debug_assert_eq!(self.peers[ib], Peer::Unplugged, "port {pb} of switch {b} used twice");
        self.peers[ia] = Peer::Switch { switch: b as u32, port: pb as u32 };
        self.peers[ib] = Peer::Switch { switch: a as u32, port: pa as u32 };
    }

    /// Attaches the next terminal to port `p` of switch `s`; terminals are numbered in
    /// the order they are attached.
    pub(crate) fn attach_terminal(&mut self, s: usize, p: usize) {
        let i = self.slot(s, p);
        debug_assert_eq!(self.peers[i], Peer::Unplugged, "port {p} of switch {s} used twice");
        self.peers[i] = Peer::Terminal(self.terminal_attachment.len() as u32);
        self.terminal_attachment.push((s as u32, p as u32));
    }

    /// Finishes the wiring, with the translation symmetry the family declares, if any.
    pub(crate) fn finish(self, symmetry: Option<Symmetry>) -> Wiring {
        Wiring {
            port_offset: self.port_offset,
            peers: self.peers,
            terminal_attachment: self.terminal_attachment,
            symmetry,
        }
    }
}

/// Largest number of ports (summed over switches) a spec may ask for; beyond it the
/// graph alone would need gigabytes.
pub const MAX_PORTS: u64 = 200_000_000;

/// The product of a spec's sizes, saturating at `u128::MAX` instead of wrapping around
/// (65 536 in each of nine dimensions would otherwise multiply to 0 and pass the check).
pub(crate) fn wide_product(values: impl IntoIterator<Item = usize>) -> u128 {
    values.into_iter().fold(1u128, |n, v| n.saturating_mul(v as u128))
}

/// A size for a message: sizes are computed saturating, so the largest stands for any
/// larger one.
fn count(n: u128) -> String {
    if n == u128::MAX {
        "more than 10^38".to_string()
    } else {
        n.to_string()
    }
}

/// Rejects sizes that would exhaust memory before anything is allocated.
pub(crate) fn check_size(spec: &str, switches: u128, ports: u128) -> Result<()> {
    if ports > MAX_PORTS as u128 || switches > u32::MAX as u128 {
        return Err(Error::invalid(
            spec,
            "size",
            format!("{} switches with {} ports", count(switches), count(ports)),
            format!("a network may have at most {MAX_PORTS} switch ports in total"),
        ));
    }
    Ok(())
}
