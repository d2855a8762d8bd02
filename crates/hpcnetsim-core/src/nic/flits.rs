//! The NICs' side of wormhole switching (see `switch/wormhole.rs`): a NIC sends its front
//! packet flit by flit on a VC of its switch's input port that no earlier worm holds, one
//! flit per cycle while it has credits; the credit of the tail frees the VC.

use super::NicSide;
use crate::event::{Event, NONE};
use crate::routing::{Candidate, Offer};
use crate::switch::fabric::Fabric;
use crate::switch::wormhole::{worms, worms_mut};

/// The NICs' flit-level steps (they read the wormhole switches' state of their links).
pub(crate) trait NicFlits: NicSide + Fabric {
    /// A flit credit returns to NIC `nic` for `vc`; the tail's also frees the VC.
    fn nic_flit_credit(&mut self, nic: usize, vc: usize, tail: bool, now: u64) {
        let i = nic * self.knobs().vcs + vc;
        self.nics().credits[i] += 1;
        debug_assert!(self.nics_ref().credits[i] <= self.knobs().queue_phits, "credits above capacity");
        let credits = self.nics_ref().credits[i];
        let w = worms_mut(self);
        let wake = if tail {
            w.nic_reserved[i] = false;
            w.nic_vc[nic] == NONE
        } else {
            credits == 1 && w.nic_vc[nic] == vc as u32
        };
        if wake {
            self.wake(self.nic_target(nic), now);
        }
    }

    /// NIC `nic` sends the next flit of its front packet, first choosing a free VC of its
    /// switch's input port for the packet's head.
    fn inject_flits(&mut self, nic: usize, now: u64) {
        let (s, port) = self.topo().terminal_attachment(nic);
        let channel = self.topo().channel(s, port);
        if worms(self).nic_vc[nic] == NONE {
            self.refill(nic, now);
            let Some(&p) = self.nics_ref().queue[nic].front() else { return };
            let pk = *self.packet(p);
            // Table routing fixes the VL of the packet's path; otherwise the NIC's injection VCs,
            // within the packet's traffic class.
            let mut vcs = match self.routing().injection_vc(nic, pk.dst as usize, pk.offset) {
                Some(v) => v..v + 1,
                None => 0..self.nics_ref().vcs,
            };
            if self.model().traffic_classes > 1 {
                let n = self.model().traffic_classes;
                let first = crate::switch::classes::packet_class(pk.salt, n) as usize * (self.knobs().vcs / n as usize);
                vcs = vcs.start + first..vcs.end + first;
            }
            let mut offers = std::mem::take(&mut self.tmp().offers);
            offers.clear();
            for vc in vcs {
                let i = nic * self.knobs().vcs + vc;
                let free = !worms(self).nic_reserved[i];
                let occupancy = if free { 0 } else { u32::MAX };
                let candidate = Candidate::new(port, vc);
                offers.push(Offer { candidate, room: self.nics_ref().credits[i], occupancy, takeable: free });
            }
            let (selection, tie) = (self.knobs().selection, self.knobs().tie_break);
            let n = self.nics();
            n.choice.prepare(selection, tie, &offers);
            let picked = n.choice.pick(&mut n.rng[nic]);
            self.tmp().offers = offers;
            // Every VC held by an earlier worm: the tail credit of one wakes the NIC.
            let Some(c) = picked else { return };
            let vc = c.vc as usize;
            let i = nic * self.knobs().vcs + vc;
            let w = worms_mut(self);
            w.nic_reserved[i] = true;
            w.nic_vc[nic] = vc as u32;
            w.nic_sent[nic] = 0;
            self.set_injected(p, now);
            let size = self.packet(p).size;
            let counters = self.counters();
            counters.injected += 1;
            counters.packet_hops += 1;
            counters.phit_hops += size as u64;
        }
        let vc = worms(self).nic_vc[nic] as usize;
        let i = nic * self.knobs().vcs + vc;
        if self.nics_ref().credits[i] == 0 {
            return;
        }
        let p = *self.nics_ref().queue[nic].front().expect("a packet being sent");
        self.nics().credits[i] -= 1;
        let w = worms_mut(self);
        w.nic_sent[nic] += 1;
        let sent = w.nic_sent[nic];
        let queue = (channel * self.knobs().vcs + vc) as u32;
        self.push_event(now + self.knobs().hop_delay, Event::Flit { queue, packet: p });
        let target = self.nic_target(nic);
        if sent == self.packet(p).size {
            self.nics().queue[nic].pop_front();
            worms_mut(self).nic_vc[nic] = NONE;
            self.wake(target, now + 1);
        } else if self.nics_ref().credits[i] > 0 {
            self.wake(target, now + 1);
        }
    }
}

impl<F: NicSide + Fabric + ?Sized> NicFlits for F {}
