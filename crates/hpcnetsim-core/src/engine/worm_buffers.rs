//! What the worms hold (`Engine::worm_buffers`) and the flit-level invariants of wormhole
//! switching (`switch/wormhole.rs`; the NICs' side is `nic/flits.rs`).

use super::Engine;
use crate::switch::wormhole::{worms, Worms};
use crate::topology::Peer;

/// Flits of one packet in one input buffer (see [`Engine::worm_buffers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferedWorm {
    /// Switch of the buffer.
    pub switch: u32,
    /// Input port of the buffer.
    pub port: u32,
    /// VC of the buffer.
    pub vc: u32,
    /// The packet (worm) it holds.
    pub packet: u32,
    /// Its flits present in the buffer now.
    pub flits: u32,
}

impl Engine<'_> {
    /// Every input buffer holding flits of a worm, with how many: a packet longer than a
    /// buffer shows up in several switches at once.
    pub fn worm_buffers(&self) -> Vec<BufferedWorm> {
        let Some(w) = self.sw.tech_state.as_deref().and_then(|s| s.downcast_ref::<Worms>()) else { return Vec::new() };
        (0..w.received.len())
            .filter_map(|q| {
                let packet = self.sw.fifo.front(q)?;
                let channel = q / self.k.vcs;
                let s = self.sw.links[channel].switch as usize;
                Some(BufferedWorm {
                    switch: s as u32,
                    port: (channel - self.topo.channel(s, 0)) as u32,
                    vc: (q % self.k.vcs) as u32,
                    packet,
                    flits: w.present(q),
                })
            })
            .collect()
    }

    /// Flit-level invariants: a buffer holds at most one worm and no more flits than its
    /// room, and its sender's credits plus its flits never exceed that room.
    pub(super) fn check_worm_buffers(&self, freed: &[bool]) -> std::result::Result<(), String> {
        let w = worms(self);
        for (c, peer) in self.topo.peers().iter().enumerate() {
            for vc in 0..self.k.vcs {
                let q = c * self.k.vcs + vc;
                if self.sw.fifo.len(q) > 1 {
                    return Err(format!("input buffer {q} holds {} worms", self.sw.fifo.len(q)));
                }
                if let Some(p) = self.sw.fifo.front(q).filter(|&p| freed[p as usize]) {
                    return Err(format!("delivered packet {p} still in input buffer {q}"));
                }
                let held = w.present(q);
                if held > self.k.queue_phits || (held > 0 && self.sw.fifo.len(q) == 0) {
                    return Err(format!("input buffer {q} holds {held} flits, capacity {}", self.k.queue_phits));
                }
                let upstream = match *peer {
                    Peer::Switch { switch, port } => {
                        self.sw.out_vcs[self.topo.channel(switch as usize, port as usize) * self.k.vcs + vc].credits
                    }
                    Peer::Terminal(nic) => self.nics.credits[nic as usize * self.k.vcs + vc],
                    Peer::Unplugged => continue,
                };
                if upstream as u64 + held as u64 > self.k.queue_phits as u64 {
                    return Err(format!(
                        "credits above capacity: sender of input buffer {q} holds {upstream} credits while the buffer holds {held} flits, capacity {}",
                        self.k.queue_phits
                    ));
                }
            }
        }
        Ok(())
    }
}
