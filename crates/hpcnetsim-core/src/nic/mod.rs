//! The network interface cards as a component: each NIC's injection queue, its credits for
//! its switch's input queues and its random stream, the independent sources it runs, and
//! what it does: generate a packet, send its front packet whole on a VC of its link when the
//! switch's input queue has room (or flit by flit with wormhole switching, `flits.rs`), and
//! take back credits. Written against `NicSide`, what a NIC needs of the network beyond the
//! switches' state, which the engine implements; the packets of causal workloads' messages
//! and the host model are fed to it by `crate::workload::exec`.

mod flits;

pub(crate) use flits::NicFlits;

use crate::event::{Event, Packet, NO_MESSAGE};
use crate::rng::Stream;
use crate::routing::plane_selection::PlaneChoice;
use crate::routing::{Candidate, Offer};
use crate::switch::reach::Reach;
use crate::workload::{Pattern, Source};
use std::collections::VecDeque;

/// Every NIC's state: its injection queue, whether it is sending, its credits for its
/// switch's input queues, its random stream; and the traffic sources it runs.
pub(crate) struct Nics {
    /// Destinations of independent traffic.
    pub(crate) pattern: Pattern,
    /// Sizes and gaps of independent traffic.
    pub(crate) source: Source,
    /// Room of an injection queue, in packets.
    pub(crate) queue_packets: usize,
    /// VCs the NICs inject on (the first ones of a traffic class).
    pub(crate) vcs: usize,
    /// Per NIC: its injection queue.
    pub(crate) queue: Vec<VecDeque<u32>>,
    /// Per NIC: whether its front packet is leaving.
    pub(crate) sending: Vec<bool>,
    /// Per NIC and VC: free room in its switch's input queue.
    pub(crate) credits: Vec<u32>,
    /// Per NIC: its random stream.
    pub(crate) rng: Vec<Stream>,
    /// The choice among a NIC's VCs, reused for every injection.
    pub(crate) choice: crate::routing::Choice,
    /// On a multi-plane network: the plane of each packet (NIC `p·E + e` is endpoint `e`'s
    /// port on plane `p`; every port's source sends from its endpoint on the plane chosen).
    pub(crate) planes: Option<PlaneChoice>,
    /// Sources that generate traffic.
    pub(crate) active_sources: usize,
    /// Whether the sources were stopped.
    pub(crate) stopped: bool,
}

/// What a NIC needs besides what every component reaches (`Reach`): the NICs' state, packet
/// records to create and mark, and the causal workload's messages.
pub(crate) trait NicSide: Reach {
    fn nics(&mut self) -> &mut Nics;
    fn nics_ref(&self) -> &Nics;
    /// Stores a new packet record (its LID offset chosen by the routing); its id.
    fn new_packet(&mut self, p: Packet) -> u32;
    /// Packet `p` left its NIC at `now`.
    fn set_injected(&mut self, p: u32, now: u64);
    /// One more packet in flight (generated and not yet delivered).
    fn packet_created(&mut self);
    /// Moves packets of the task programs' waiting messages into NIC `nic`'s injection
    /// queue while it has room.
    fn refill(&mut self, nic: usize, now: u64);
    /// The wake-up target of NIC `nic` (switches come first).
    #[inline]
    fn nic_target(&self, nic: usize) -> usize {
        self.topo().num_switches() + nic
    }
}

/// The NICs' steps.
pub(crate) trait Nic: NicSide {
    /// NIC `nic`'s source generates its next packet at `now` (dropped if the injection queue
    /// is full) and schedules the one after.
    fn generate(&mut self, nic: usize, now: u64) {
        let n = self.nics();
        if n.stopped {
            return;
        }
        let rng = &mut n.rng[nic];
        let size = n.source.size(rng);
        let (src, dst) = match &mut n.planes {
            None => (nic, n.pattern.destination(nic, rng)),
            Some(planes) => {
                // Endpoint e's port on plane p is NIC p·E + e; the pattern runs on endpoints.
                let endpoints = n.queue.len() / planes.planes();
                let from = nic % endpoints;
                let to = n.pattern.destination(from, rng);
                let queue = &n.queue;
                let p = planes.pick(from, to, rng, |p| queue[p * endpoints + from].len());
                (p * endpoints + from, p * endpoints + to)
            }
        };
        let rng = &mut n.rng[nic];
        let gap = n.source.gap(size, rng);
        self.push_event(now + gap, Event::Generate { nic: nic as u32 });
        self.counters().generated += 1;
        if self.nics_ref().queue[src].len() >= self.nics_ref().queue_packets {
            self.counters().dropped += 1;
            return;
        }
        self.enqueue(src, dst, size, now);
        if self.nics_ref().queue[src].len() == 1 {
            self.wake(self.nic_target(src), now);
        }
    }

    /// A new packet of independent traffic at the back of NIC `src`'s injection queue.
    fn enqueue(&mut self, src: usize, dst: usize, size: u32, now: u64) {
        let salt = rand::RngCore::next_u32(&mut self.nics().rng[src]);
        let packet = Packet {
            src: src as u32,
            dst: dst as u32,
            size,
            generated: now,
            injected: 0,
            message: NO_MESSAGE,
            arrived: 0,
            salt,
            offset: 0,
        };
        let p = self.new_packet(packet);
        self.packet_created();
        self.nics().queue[src].push_back(p);
    }

    /// The NIC sends its front packet if the link is free and a VC has room for it (with
    /// switches that take packets whole; `NicFlits::inject_flits` with wormhole switching).
    fn try_inject(&mut self, nic: usize, now: u64) {
        if self.nics_ref().sending[nic] {
            return;
        }
        self.refill(nic, now);
        let Some(&p) = self.nics_ref().queue[nic].front() else { return };
        let k = self.knobs();
        let pk = *self.packet(p);
        let size = pk.size;
        let (s, port) = self.topo().terminal_attachment(nic);
        let channel = self.topo().channel(s, port);
        let mut offers = std::mem::take(&mut self.tmp().offers);
        offers.clear();
        // Table routing fixes the VL of the packet's path; otherwise the NIC's injection VCs.
        let vcs = match self.routing().injection_vc(nic, pk.dst as usize, pk.offset) {
            Some(v) => v..v + 1,
            None => 0..self.nics_ref().vcs,
        };
        // The VCs of the packet's traffic class.
        let vcs = match self.model().traffic_classes {
            1 => vcs,
            n => {
                let first = crate::switch::classes::packet_class(pk.salt, n) as usize * (k.vcs / n as usize);
                vcs.start + first..vcs.end + first
            }
        };
        let compare = vcs.len() > 1;
        let cost = self.model().credit_cost(size);
        for vc in vcs {
            let room = self.nics_ref().credits[nic * k.vcs + vc];
            let occupancy = match compare {
                false => 0,
                true if k.voq_ports == 1 => self.queue_state(channel * k.vcs + vc).occupancy(now),
                // A multi-queue buffer: what the NIC's credits say is taken.
                true => k.queue_phits - room,
            };
            let candidate = Candidate::new(port, vc);
            offers.push(Offer { candidate, room, occupancy, takeable: room >= cost });
        }
        let n = self.nics();
        n.choice.prepare(k.selection, k.tie_break, &offers);
        let picked = n.choice.pick(&mut n.rng[nic]);
        let retry = !n.choice.available().is_empty();
        self.tmp().offers = offers;
        let Some(c) = picked else {
            // A least-occupied choice that cannot be taken is made again next cycle.
            if retry {
                self.wake(self.nic_target(nic), now + 1);
            }
            return;
        };
        let vc = c.vc as usize;
        let n = self.nics();
        n.credits[nic * k.vcs + vc] -= cost;
        n.sending[nic] = true;
        self.set_injected(p, now);
        let counters = self.counters();
        counters.injected += 1;
        counters.packet_hops += 1;
        counters.phit_hops += size as u64;
        let queue = (channel * k.vcs + vc) as u32;
        self.push_event(now + k.inject_delay, Event::Arrive { queue, packet: p });
        self.push_event(now + size as u64, Event::NicTail { nic: nic as u32 });
    }

    /// The tail of the packet NIC `nic` was sending has left it.
    fn nic_tail_left(&mut self, nic: usize, now: u64) {
        let n = self.nics();
        n.queue[nic].pop_front();
        n.sending[nic] = false;
        self.wake(self.nic_target(nic), now);
    }

    /// Room returns to NIC `nic` for VC `vc` of its switch's input queue.
    fn nic_credit(&mut self, nic: usize, vc: usize, phits: u32, now: u64) {
        let k = self.knobs();
        let i = nic * k.vcs + vc;
        self.nics().credits[i] += phits;
        debug_assert!(self.nics_ref().credits[i] <= k.queue_phits, "credits above capacity");
        self.wake(self.nic_target(nic), now);
    }
}

impl<F: NicSide + ?Sized> Nic for F {}
