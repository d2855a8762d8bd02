//! Wormhole switching at flit level (Dally and Seitz; paper 004 §2.2, the Elite switch of
//! QsNET): a packet (a worm) moves flit by flit, each flit needs one flit of room downstream,
//! so a packet longer than a buffer spans several switches. A VC buffer holds one worm at a
//! time, from its head to its tail: the output VC a head takes stays reserved until the
//! credit of the tail comes back. A link carries one flit per cycle, taken round-robin from
//! the VCs that have a flit and a credit. The NICs' side (flit injection and flit credits)
//! is in `engine/nic_flits.rs`.
//!
//! Timing (with `L` = the hop delay, `c` = the credit delay): a flit sent at `t` reaches the
//! next buffer at `t + L` and may be sent on in that same cycle; its slot is free again at
//! `t + 1` and the sender learns it at `t + 1 + c`. A head takes an output VC that no worm
//! holds; the VC stays reserved until the credit of the tail returns. An uncontended worm
//! of `size` flits crossing `h` links is delivered `h·L + size − 1` cycles after its head
//! left the NIC, as long as every buffer covers the credit loop (`L + 1 + c` flits).

use super::fabric::Fabric;
use super::reach::Group;
use super::input_queued::InputQueued;
use super::switch_lists::Waiter;
use super::technology::Technology;
use super::{Model, Switching};
use crate::event::{Event, NONE};
use crate::routing::Offer;
use crate::topology::Peer;
use std::any::Any;


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

/// The wormhole switch (`switch.switching = "wormhole"`).
pub struct Wormhole;

impl Technology for Wormhole {
    type Params = ();

    fn selects(model: &Model) -> bool {
        model.switching == Switching::Wormhole
    }

    #[inline]
    fn arbitrate<F: Fabric + ?Sized>(f: &mut F, s: usize, now: u64) {
        f.arbitrate_wormhole(s, now)
    }

    #[inline]
    fn event<F: Fabric + ?Sized>(f: &mut F, ev: Event, now: u64) {
        match ev {
            Event::Flit { queue, packet } => f.flit_arrived(queue as usize, packet, now),
            Event::FlitCredit { queue, tail } => f.flit_credit(queue as usize, tail, now),
            _ => unreachable!("not a wormhole switch event"),
        }
    }

    fn state(_: &Model, channels: usize, switches: usize, nics: usize, vcs: usize) -> Option<Box<dyn Any + Send>> {
        Some(Box::new(Worms::new(channels * vcs, channels, switches, nics, vcs)))
    }

    /// The flits of one worm cross partitions every cycle: one thread.
    fn parallel() -> bool {
        false
    }

    fn flits() -> bool {
        true
    }

    /// A flit per cycle per link touches little state: the prefetch would not pay.
    fn prefetches() -> bool {
        false
    }
}

/// The wormhole state of a network (`Fabric::tech_state`).
pub(crate) fn worms<F: Fabric + ?Sized>(f: &F) -> &Worms {
    f.tech_state().and_then(|s| s.downcast_ref()).expect("wormhole state")
}

/// The wormhole state of a network, to change.
pub(crate) fn worms_mut<F: Fabric + ?Sized>(f: &mut F) -> &mut Worms {
    f.tech_state_mut().and_then(|s| s.downcast_mut()).expect("wormhole state")
}

/// What a link did in one cycle.
pub(crate) enum LinkState {
    /// Sent a flit and may send another next cycle.
    Busy,
    /// Has worms to carry, none of which has both a flit and a credit.
    Stalled,
    /// Has no worm left to carry.
    Idle,
}

/// The wormhole switch's steps, for the network (the parallel engine does not run it).
pub(crate) trait WormSwitch: InputQueued {
    /// A flit of `packet` reaches input buffer `q`: the head of a new worm when the buffer
    /// is empty (it is routed and waits for an output VC), otherwise one more body flit.
    fn flit_arrived(&mut self, q: usize, packet: u32, now: u64) {
        let w = worms_mut(self);
        w.received[q] += 1;
        let (head, present) = (w.received[q] == 1, w.present(q));
        if head {
            let s = self.link(q / self.knobs().vcs).switch as usize;
            worms_mut(self).changed[s] = true;
            self.set_arrived(packet, now);
            self.fifo_push(q, packet);
            self.new_front(q, now);
        } else if present == 1 && self.queue_state(q).holding() != NONE {
            // The worm's link may have stalled for want of a flit.
            self.wake(self.link(q / self.knobs().vcs).switch as usize, now);
        }
    }

    /// A flit credit returns to the sender of output VC `oq`; the tail's also frees the VC.
    fn flit_credit(&mut self, oq: usize, tail: bool, now: u64) {
        self.out_vc_mut(oq).credits += 1;
        debug_assert!(self.out_vc(oq).credits <= self.knobs().queue_phits, "credits above capacity");
        if tail {
            self.out_vc_mut(oq).reserved = NONE;
            let s = self.link(oq / self.knobs().vcs).switch as usize;
            worms_mut(self).changed[s] = true;
            self.wake(s, now);
        } else if self.out_vc(oq).credits == 1 && self.out_vc(oq).reserved != NONE {
            // The worm's link may have stalled for want of a credit.
            self.wake(self.link(oq / self.knobs().vcs).switch as usize, now);
        }
    }

    /// Switch `s` is awake: heads waiting for an output VC compete for one, then every link
    /// with worms sends a flit.
    fn arbitrate_wormhole(&mut self, s: usize, now: u64) {
        self.settle(s);
        if !self.waiting(s).is_empty() && std::mem::take(&mut worms_mut(self).changed[s]) {
            self.allocate_vcs(s, now);
        }
        let mut links = std::mem::take(&mut worms_mut(self).links[s]);
        let mut again = false;
        let mut k = 0;
        while k < links.len() {
            match self.send_on(links[k] as usize, now) {
                LinkState::Busy => {
                    again = true;
                    k += 1;
                }
                LinkState::Stalled => k += 1,
                LinkState::Idle => {
                    worms_mut(self).active[links[k] as usize] = false;
                    links.swap_remove(k);
                }
            }
        }
        worms_mut(self).links[s] = links;
        if again {
            self.wake(s, now + 1);
        }
    }

    /// VC allocation: every waiting head picks a free output VC among its candidates; one
    /// head wins each VC. Heads with identical candidate lists share one evaluation.
    fn allocate_vcs(&mut self, s: usize, now: u64) {
        let mut requests = std::mem::take(&mut self.tmp().requests);
        let mut groups = std::mem::take(&mut self.tmp().groups);
        let mut choices = std::mem::take(&mut self.tmp().choices);
        requests.clear();
        choices.clear();
        let mut used = 0;
        let base = self.topo().channel(s, 0);
        self.counters().arbitrations += 1;
        self.counters().heads_examined += self.waiting(s).len() as u64;
        let mut missed = false;
        for i in 0..self.waiting(s).len() {
            let Waiter { queue: q, class, .. } = self.waiting(s)[i];
            let g = match groups[..used].iter().position(|g: &Group| g.class == class) {
                Some(g) => g,
                None => {
                    self.counters().evaluations += 1;
                    self.worm_offer(base, class);
                    if used == groups.len() {
                        groups.push(Group::default());
                    }
                    let g = &mut groups[used];
                    (g.class, g.size) = (class, 0);
                    g.choice.prepare(self.knobs().selection, self.knobs().tie_break, &self.tmp().offers);
                    used += 1;
                    used - 1
                }
            };
            choices.push((q, g as u32));
            match groups[g].choice.pick(self.switch_rng(s)) {
                Some(c) => {
                    let oq = (base + c.port as usize) * self.knobs().vcs + c.vc as usize;
                    requests.push((oq as u32, q, c, g as u32));
                }
                None => missed |= !groups[g].choice.available().is_empty(),
            }
        }
        let (granted, winners, contended) = self
            .grant_each_output(&mut requests, true, |e, q, c, oq| e.take_vc(s, q, base + c.port as usize, oq as usize));
        missed |= contended;
        // A head that lost, or whose choice was taken, while another of its candidates is
        // still free tries again next cycle; the others wait for a tail credit.
        if missed {
            let vcs = self.knobs().vcs;
            let retry = choices.iter().any(|&(q, g)| {
                !winners.contains(&q)
                    && groups[g as usize].choice.available().iter().any(|&c| {
                        let oq = (base + c.port as usize) * vcs + c.vc as usize;
                        !granted.contains(&(oq as u32))
                    })
            });
            if retry {
                worms_mut(self).changed[s] = true;
                self.wake(s, now + 1);
            }
        }
        self.tmp().granted_outputs = granted;
        self.tmp().winners = winners;
        self.tmp().requests = requests;
        self.tmp().groups = groups;
        self.tmp().choices = choices;
    }

    /// Fills `offers` with the candidates of `class`: a free output VC can be taken; the
    /// least-occupied selection prefers the output link with fewest worms, then fewest
    /// flits committed downstream (the Elite's adaptive choice of a free link in a group).
    fn worm_offer(&mut self, base: usize, class: u32) {
        self.tmp().offers.clear();
        for k in 0..self.class(class).len() {
            let c = self.class(class)[k];
            let out = base + c.port as usize;
            let oq = out * self.knobs().vcs + c.vc as usize;
            let free = self.out_vc(oq).reserved == NONE;
            let occupancy = match self.topo().peers()[out] {
                _ if !free => u32::MAX,
                Peer::Switch { .. } => (out * self.knobs().vcs..(out + 1) * self.knobs().vcs)
                    .map(|v| {
                        let worm = if self.out_vc(v).reserved == NONE { 0 } else { self.knobs().queue_phits };
                        worm + self.knobs().queue_phits - self.out_vc(v).credits
                    })
                    .sum(),
                _ => 0,
            };
            let room = self.out_vc(oq).credits;
            self.tmp().offers.push(Offer { candidate: c, room, occupancy, takeable: free });
        }
    }

    /// The head in input buffer `q` of switch `s` takes output VC `oq` of channel `out`.
    fn take_vc(&mut self, s: usize, q: usize, out: usize, oq: usize) {
        self.out_vc_mut(oq).reserved = q as u32;
        self.queue_state(q).set_holding(oq as u32);
        self.lists_mut(s).take_waiting(q as u32).expect("granted head was waiting");
        let size = self.packet(self.fifo_front(q).expect("a head")).size;
        let counters = self.counters();
        counters.packet_hops += 1;
        counters.phit_hops += size as u64;
        let w = worms_mut(self);
        if !w.active[out] {
            w.active[out] = true;
            w.links[s].push(out as u32);
        }
    }

    /// Output channel `out` sends one flit: from the first of its VCs, round-robin after the
    /// last sender, whose worm has a flit here and a credit downstream.
    fn send_on(&mut self, out: usize, now: u64) -> LinkState {
        let vcs = self.knobs().vcs;
        let first = self.link(out).next_vc as usize;
        let mut held = false;
        let mut chosen = None;
        for i in 0..vcs {
            let vc = (first + i) % vcs;
            let oq = out * vcs + vc;
            let q = self.out_vc(oq).reserved;
            if q == NONE || self.queue_state(q as usize).holding() != oq as u32 {
                continue;
            }
            held = true;
            if worms(self).present(q as usize) > 0 && self.out_vc(oq).credits > 0 {
                chosen = Some((vc, q as usize));
                break;
            }
        }
        let Some((vc, q)) = chosen else {
            return if held { LinkState::Stalled } else { LinkState::Idle };
        };
        self.send_flit(q, out, vc, now);
        self.link_mut(out).next_vc = ((vc + 1) % vcs) as u8;
        // Whether some VC can send next cycle with what is here now.
        let mut held = false;
        for v in 0..vcs {
            let oq = out * vcs + v;
            let q = self.out_vc(oq).reserved;
            if q == NONE || self.queue_state(q as usize).holding() != oq as u32 {
                continue;
            }
            held = true;
            if worms(self).present(q as usize) > 0 && self.out_vc(oq).credits > 0 {
                return LinkState::Busy;
            }
        }
        if held {
            LinkState::Stalled
        } else {
            LinkState::Idle
        }
    }

    /// The next flit of the worm in input buffer `q` crosses output channel `out` on `vc`.
    fn send_flit(&mut self, q: usize, out: usize, vc: usize, now: u64) {
        let p = self.fifo_front(q).expect("a worm to send");
        let size = self.packet(p).size;
        let w = worms_mut(self);
        w.sent[q] += 1;
        let sent = w.sent[q];
        let (head, tail) = (sent == 1, sent == size);
        let oq = out * self.knobs().vcs + vc;
        match self.topo().peers()[out] {
            Peer::Switch { switch, port } => {
                self.out_vc_mut(oq).credits -= 1;
                let queue = (self.topo().channel(switch as usize, port as usize) * self.knobs().vcs + vc) as u32;
                self.push_event(now + self.knobs().hop_delay, Event::Flit { queue, packet: p });
            }
            Peer::Terminal(t) => {
                if head && t != self.packet(p).dst {
                    self.misdelivered(p, t, now);
                }
                if tail {
                    // The NIC consumes a flit per cycle: its VC is free once the tail is sent.
                    self.push_event(now + self.knobs().hop_delay, Event::Deliver { packet: p });
                    self.out_vc_mut(oq).reserved = NONE;
                    let s = self.link(out).switch as usize;
                    worms_mut(self).changed[s] = true;
                    if !self.waiting(s).is_empty() {
                        self.wake(s, now + 1);
                    }
                }
            }
            Peer::Unplugged => unreachable!("routing chose an unplugged port"),
        }
        if self.knobs().recording {
            self.link_mut(out).busy_phits += 1;
        }
        if self.knobs().observing {
            self.observe_hop(out, vc, 1, now);
        }
        // The flit's slot in `q` is free from the next cycle; its sender learns it then.
        let back = now + 1 + self.knobs().credit_delay;
        let in_vc = q % self.knobs().vcs;
        match self.topo().peers()[q / self.knobs().vcs] {
            Peer::Switch { switch, port } => {
                let upstream = (self.topo().channel(switch as usize, port as usize) * self.knobs().vcs + in_vc) as u32;
                self.push_event(back, Event::FlitCredit { queue: upstream, tail });
            }
            Peer::Terminal(nic) => self.push_event(back, Event::NicFlitCredit { nic, vc: in_vc as u32, tail }),
            Peer::Unplugged => unreachable!("a flit arrived through an unplugged port"),
        }
        if tail {
            self.fifo_pop(q);
            let w = worms_mut(self);
            (w.received[q], w.sent[q]) = (0, 0);
            self.queue_state(q).set_holding(NONE);
        }
    }
}

impl<F: InputQueued + ?Sized> WormSwitch for F {}
