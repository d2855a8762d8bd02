//! The NICs' side of wormhole switching (see `switch/wormhole.rs`): a NIC sends its front
//! packet flit by flit on a VC of its switch's input port that no earlier worm holds, one
//! flit per cycle while it has credits; the credit of the tail frees the VC.

use super::Engine;
use crate::event::{Event, NONE};
use crate::routing::{Candidate, Offer};
use crate::switch::wormhole::{worms, worms_mut, Worms};
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
    /// A flit credit returns to NIC `nic` for `vc`; the tail's also frees the VC.
    pub(super) fn nic_flit_credit(&mut self, nic: usize, vc: usize, tail: bool, now: u64) {
        let i = nic * self.k.vcs + vc;
        self.nics.credits[i] += 1;
        debug_assert!(self.nics.credits[i] <= self.k.queue_phits, "credits above capacity");
        let credits = self.nics.credits[i];
        let w = worms_mut(self);
        let wake = if tail {
            w.nic_reserved[i] = false;
            w.nic_vc[nic] == NONE
        } else {
            credits == 1 && w.nic_vc[nic] == vc as u32
        };
        if wake {
            self.wake(self.topo.num_switches() + nic, now);
        }
    }

    /// NIC `nic` sends the next flit of its front packet, first choosing a free VC of its
    /// switch's input port for the packet's head.
    pub(super) fn inject_flits(&mut self, nic: usize, now: u64) {
        let (s, port) = self.topo.terminal_attachment(nic);
        let channel = self.topo.channel(s, port);
        if worms(self).nic_vc[nic] == NONE {
            self.refill(nic, now);
            let Some(&p) = self.nics.queue[nic].front() else { return };
            let pk = &self.packets[p as usize];
            // Table routing fixes the VL of the packet's path; otherwise the NIC's injection VCs,
            // within the packet's traffic class.
            let mut vcs = match self.routing.injection_vc(nic, pk.dst as usize, pk.offset) {
                Some(v) => v..v + 1,
                None => 0..self.nics.vcs,
            };
            if self.model.traffic_classes > 1 {
                let n = self.model.traffic_classes;
                let first = crate::switch::classes::packet_class(pk.salt, n) as usize * (self.k.vcs / n as usize);
                vcs = vcs.start + first..vcs.end + first;
            }
            self.tmp.offers.clear();
            for vc in vcs {
                let i = nic * self.k.vcs + vc;
                let free = !worms(self).nic_reserved[i];
                let occupancy = if free { 0 } else { u32::MAX };
                let candidate = Candidate::new(port, vc);
                self.tmp.offers.push(Offer { candidate, room: self.nics.credits[i], occupancy, takeable: free });
            }
            self.nics.choice.prepare(self.k.selection, &self.tmp.offers);
            // Every VC held by an earlier worm: the tail credit of one wakes the NIC.
            let Some(c) = self.nics.choice.pick(&mut self.nics.rng[nic]) else { return };
            let vc = c.vc as usize;
            let i = nic * self.k.vcs + vc;
            let w = worms_mut(self);
            w.nic_reserved[i] = true;
            w.nic_vc[nic] = vc as u32;
            w.nic_sent[nic] = 0;
            self.packets[p as usize].injected = now;
            self.stats.counters.injected += 1;
            self.count_hop(self.packets[p as usize].size);
        }
        let vc = worms(self).nic_vc[nic] as usize;
        let i = nic * self.k.vcs + vc;
        if self.nics.credits[i] == 0 {
            return;
        }
        let p = *self.nics.queue[nic].front().expect("a packet being sent");
        self.nics.credits[i] -= 1;
        let w = worms_mut(self);
        w.nic_sent[nic] += 1;
        let sent = w.nic_sent[nic];
        let queue = (channel * self.k.vcs + vc) as u32;
        self.events.push(now + self.k.hop_delay, Event::Flit { queue, packet: p });
        let target = self.topo.num_switches() + nic;
        if sent == self.packets[p as usize].size {
            self.nics.queue[nic].pop_front();
            worms_mut(self).nic_vc[nic] = NONE;
            self.wake(target, now + 1);
        } else if self.nics.credits[i] > 0 {
            self.wake(target, now + 1);
        }
    }

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
