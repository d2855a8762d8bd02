//! The engine's side of wormhole switching (`switch.switching = "wormhole"`, see
//! `switch/wormhole.rs` and docs/engine.md): flits, flit credits, VC allocation per worm
//! and links that multiplex the flits of their VCs. Only wormhole networks come here: the
//! cut-through path does not pay for flits.
//!
//! Timing (with `L` = the hop delay, `c` = the credit delay): a flit sent at `t` reaches the
//! next buffer at `t + L` and may be sent on in that same cycle; its slot is free again at
//! `t + 1` and the sender learns it at `t + 1 + c`. A head takes an output VC that no worm
//! holds; the VC stays reserved until the credit of the tail returns. An uncontended worm
//! of `size` flits crossing `h` links is delivered `h·L + size − 1` cycles after its head
//! left the NIC, as long as every buffer covers the credit loop (`L + 1 + c` flits).

use super::arbitration::Switching;
use super::fabric::Fabric;
use super::{Engine, Event, Group, Waiter, NONE};
use crate::routing::{Candidate, Offer};
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

/// What a link did in one cycle.
enum LinkState {
    /// Sent a flit and may send another next cycle.
    Busy,
    /// Has worms to carry, none of which has both a flit and a credit.
    Stalled,
    /// Has no worm left to carry.
    Idle,
}

impl Engine<'_> {
    fn worms(&self) -> &crate::switch::wormhole::Worms {
        self.worm.as_deref().expect("wormhole state")
    }

    fn worms_mut(&mut self) -> &mut crate::switch::wormhole::Worms {
        self.worm.as_deref_mut().expect("wormhole state")
    }

    /// A flit of `packet` reaches input buffer `q`: the head of a new worm when the buffer
    /// is empty (it is routed and waits for an output VC), otherwise one more body flit.
    pub(super) fn flit_arrived(&mut self, q: usize, packet: u32, now: u64) {
        let w = self.worms_mut();
        w.received[q] += 1;
        let (head, present) = (w.received[q] == 1, w.present(q));
        if head {
            let s = self.links[q / self.vcs].switch as usize;
            self.worms_mut().changed[s] = true;
            self.packets[packet as usize].arrived = now;
            self.fifo.push(q, packet);
            self.new_front(q, now);
        } else if present == 1 && self.queue_state[q].holding() != NONE {
            // The worm's link may have stalled for want of a flit.
            self.wake(self.links[q / self.vcs].switch as usize, now);
        }
    }

    /// A flit credit returns to the sender of output VC `oq`; the tail's also frees the VC.
    pub(super) fn flit_credit(&mut self, oq: usize, tail: bool, now: u64) {
        self.out_vcs[oq].credits += 1;
        debug_assert!(self.out_vcs[oq].credits <= self.queue_phits, "credits above capacity");
        if tail {
            self.out_vcs[oq].reserved = NONE;
            let s = self.links[oq / self.vcs].switch as usize;
            self.worms_mut().changed[s] = true;
            self.wake(s, now);
        } else if self.out_vcs[oq].credits == 1 && self.out_vcs[oq].reserved != NONE {
            // The worm's link may have stalled for want of a credit.
            self.wake(self.links[oq / self.vcs].switch as usize, now);
        }
    }

    /// A flit credit returns to NIC `nic` for `vc`; the tail's also frees the VC.
    pub(super) fn nic_flit_credit(&mut self, nic: usize, vc: usize, tail: bool, now: u64) {
        let i = nic * self.vcs + vc;
        self.nic_credits[i] += 1;
        debug_assert!(self.nic_credits[i] <= self.queue_phits, "credits above capacity");
        let credits = self.nic_credits[i];
        let w = self.worms_mut();
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
        if self.worms().nic_vc[nic] == NONE {
            self.refill(nic, now);
            let Some(&p) = self.nic_queue[nic].front() else { return };
            let pk = &self.packets[p as usize];
            // Table routing fixes the VL of the packet's path; otherwise the NIC's injection VCs,
            // within the packet's traffic class.
            let mut vcs = match self.routing.injection_vc(nic, pk.dst as usize, pk.offset) {
                Some(v) => v..v + 1,
                None => 0..self.injection_vcs,
            };
            if self.model.traffic_classes > 1 {
                let n = self.model.traffic_classes;
                let first = crate::switch::classes::packet_class(pk.salt, n) as usize * (self.vcs / n as usize);
                vcs = vcs.start + first..vcs.end + first;
            }
            self.tmp.offers.clear();
            for vc in vcs {
                let i = nic * self.vcs + vc;
                let free = !self.worms().nic_reserved[i];
                let occupancy = if free { 0 } else { u32::MAX };
                let candidate = Candidate::new(port, vc);
                self.tmp.offers.push(Offer { candidate, room: self.nic_credits[i], occupancy, takeable: free });
            }
            self.nic_choice.prepare(self.selection, &self.tmp.offers);
            // Every VC held by an earlier worm: the tail credit of one wakes the NIC.
            let Some(c) = self.nic_choice.pick(&mut self.nic_rng[nic]) else { return };
            let vc = c.vc as usize;
            let i = nic * self.vcs + vc;
            let w = self.worms_mut();
            w.nic_reserved[i] = true;
            w.nic_vc[nic] = vc as u32;
            w.nic_sent[nic] = 0;
            self.packets[p as usize].injected = now;
            self.counters.injected += 1;
            self.count_hop(self.packets[p as usize].size);
        }
        let vc = self.worms().nic_vc[nic] as usize;
        let i = nic * self.vcs + vc;
        if self.nic_credits[i] == 0 {
            return;
        }
        let p = *self.nic_queue[nic].front().expect("a packet being sent");
        self.nic_credits[i] -= 1;
        let w = self.worms_mut();
        w.nic_sent[nic] += 1;
        let sent = w.nic_sent[nic];
        let queue = (channel * self.vcs + vc) as u32;
        self.events.push(now + self.hop_delay, Event::Flit { queue, packet: p });
        let target = self.topo.num_switches() + nic;
        if sent == self.packets[p as usize].size {
            self.nic_queue[nic].pop_front();
            self.worms_mut().nic_vc[nic] = NONE;
            self.wake(target, now + 1);
        } else if self.nic_credits[i] > 0 {
            self.wake(target, now + 1);
        }
    }

    /// Switch `s` is awake: heads waiting for an output VC compete for one, then every link
    /// with worms sends a flit.
    pub(super) fn arbitrate_wormhole(&mut self, s: usize, now: u64) {
        if !self.lists[s].waiting().is_empty() && std::mem::take(&mut self.worms_mut().changed[s]) {
            self.allocate_vcs(s, now);
        }
        let mut links = std::mem::take(&mut self.worms_mut().links[s]);
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
                    self.worms_mut().active[links[k] as usize] = false;
                    links.swap_remove(k);
                }
            }
        }
        self.worms_mut().links[s] = links;
        if again {
            self.wake(s, now + 1);
        }
    }

    /// VC allocation: every waiting head picks a free output VC among its candidates; one
    /// head wins each VC. Heads with identical candidate lists share one evaluation.
    fn allocate_vcs(&mut self, s: usize, now: u64) {
        let mut requests = std::mem::take(&mut self.tmp.requests);
        let mut groups = std::mem::take(&mut self.tmp.groups);
        let mut choices = std::mem::take(&mut self.tmp.choices);
        requests.clear();
        choices.clear();
        let mut used = 0;
        let base = self.topo.channel(s, 0);
        self.counters.arbitrations += 1;
        self.counters.heads_examined += self.lists[s].waiting().len() as u64;
        let mut missed = false;
        for i in 0..self.lists[s].waiting().len() {
            let Waiter { queue: q, class, .. } = self.lists[s].waiting()[i];
            let g = match groups[..used].iter().position(|g: &Group| g.class == class) {
                Some(g) => g,
                None => {
                    self.counters.evaluations += 1;
                    self.worm_offer(base, class);
                    if used == groups.len() {
                        groups.push(Group::default());
                    }
                    let g = &mut groups[used];
                    (g.class, g.size) = (class, 0);
                    g.choice.prepare(self.selection, &self.tmp.offers);
                    used += 1;
                    used - 1
                }
            };
            choices.push((q, g as u32));
            match groups[g].choice.pick(&mut self.switch_rng[s]) {
                Some(c) => {
                    let oq = (base + c.port as usize) * self.vcs + c.vc as usize;
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
            let vcs = self.vcs;
            let retry = choices.iter().any(|&(q, g)| {
                !winners.contains(&q)
                    && groups[g as usize].choice.available().iter().any(|&c| {
                        let oq = (base + c.port as usize) * vcs + c.vc as usize;
                        !granted.contains(&(oq as u32))
                    })
            });
            if retry {
                self.worms_mut().changed[s] = true;
                self.wake(s, now + 1);
            }
        }
        self.tmp.granted_outputs = granted;
        self.tmp.winners = winners;
        self.tmp.requests = requests;
        self.tmp.groups = groups;
        self.tmp.choices = choices;
    }

    /// Fills `offers` with the candidates of `class`: a free output VC can be taken; the
    /// least-occupied selection prefers the output link with fewest worms, then fewest
    /// flits committed downstream (the Elite's adaptive choice of a free link in a group).
    fn worm_offer(&mut self, base: usize, class: u32) {
        self.tmp.offers.clear();
        for k in 0..self.class(class).len() {
            let c = self.class(class)[k];
            let out = base + c.port as usize;
            let oq = out * self.vcs + c.vc as usize;
            let free = self.out_vcs[oq].reserved == NONE;
            let occupancy = match self.topo.peers()[out] {
                _ if !free => u32::MAX,
                Peer::Switch { .. } => (out * self.vcs..(out + 1) * self.vcs)
                    .map(|v| {
                        let worm = if self.out_vcs[v].reserved == NONE { 0 } else { self.queue_phits };
                        worm + self.queue_phits - self.out_vcs[v].credits
                    })
                    .sum(),
                _ => 0,
            };
            self.tmp.offers.push(Offer { candidate: c, room: self.out_vcs[oq].credits, occupancy, takeable: free });
        }
    }

    /// The head in input buffer `q` of switch `s` takes output VC `oq` of channel `out`.
    fn take_vc(&mut self, s: usize, q: usize, out: usize, oq: usize) {
        self.out_vcs[oq].reserved = q as u32;
        self.queue_state[q].set_holding(oq as u32);
        self.lists[s].take_waiting(q as u32).expect("granted head was waiting");
        let size = self.packets[self.fifo.front(q).expect("a head") as usize].size;
        self.count_hop(size);
        let w = self.worms_mut();
        if !w.active[out] {
            w.active[out] = true;
            w.links[s].push(out as u32);
        }
    }

    /// Output channel `out` sends one flit: from the first of its VCs, round-robin after the
    /// last sender, whose worm has a flit here and a credit downstream.
    fn send_on(&mut self, out: usize, now: u64) -> LinkState {
        let vcs = self.vcs;
        let first = self.links[out].next_vc as usize;
        let mut worms = false;
        let mut chosen = None;
        for i in 0..vcs {
            let vc = (first + i) % vcs;
            let oq = out * vcs + vc;
            let q = self.out_vcs[oq].reserved;
            if q == NONE || self.queue_state[q as usize].holding() != oq as u32 {
                continue;
            }
            worms = true;
            if self.worms().present(q as usize) > 0 && self.out_vcs[oq].credits > 0 {
                chosen = Some((vc, q as usize));
                break;
            }
        }
        let Some((vc, q)) = chosen else {
            return if worms { LinkState::Stalled } else { LinkState::Idle };
        };
        self.send_flit(q, out, vc, now);
        self.links[out].next_vc = ((vc + 1) % vcs) as u8;
        // Whether some VC can send next cycle with what is here now.
        let mut worms = false;
        for v in 0..vcs {
            let oq = out * vcs + v;
            let q = self.out_vcs[oq].reserved;
            if q == NONE || self.queue_state[q as usize].holding() != oq as u32 {
                continue;
            }
            worms = true;
            if self.worms().present(q as usize) > 0 && self.out_vcs[oq].credits > 0 {
                return LinkState::Busy;
            }
        }
        if worms {
            LinkState::Stalled
        } else {
            LinkState::Idle
        }
    }

    /// The next flit of the worm in input buffer `q` crosses output channel `out` on `vc`.
    fn send_flit(&mut self, q: usize, out: usize, vc: usize, now: u64) {
        let p = self.fifo.front(q).expect("a worm to send");
        let size = self.packets[p as usize].size;
        let w = self.worms_mut();
        w.sent[q] += 1;
        let sent = w.sent[q];
        let (head, tail) = (sent == 1, sent == size);
        let oq = out * self.vcs + vc;
        match self.topo.peers()[out] {
            Peer::Switch { switch, port } => {
                self.out_vcs[oq].credits -= 1;
                let queue = (self.topo.channel(switch as usize, port as usize) * self.vcs + vc) as u32;
                self.events.push(now + self.hop_delay, Event::Flit { queue, packet: p });
            }
            Peer::Terminal(t) => {
                if head && t != self.packets[p as usize].dst && self.misdelivered.is_none() {
                    self.misdelivered = Some((p, t));
                }
                if tail {
                    // The NIC consumes a flit per cycle: its VC is free once the tail is sent.
                    self.events.push(now + self.hop_delay, Event::Deliver { packet: p });
                    self.out_vcs[oq].reserved = NONE;
                    let s = self.links[out].switch as usize;
                    self.worms_mut().changed[s] = true;
                    if !self.lists[s].waiting().is_empty() {
                        self.wake(s, now + 1);
                    }
                }
            }
            Peer::Unplugged => unreachable!("routing chose an unplugged port"),
        }
        if self.recording {
            self.links[out].busy_phits += 1;
        }
        // The flit's slot in `q` is free from the next cycle; its sender learns it then.
        let back = now + 1 + self.credit_delay;
        let in_vc = q % self.vcs;
        match self.topo.peers()[q / self.vcs] {
            Peer::Switch { switch, port } => {
                let upstream = (self.topo.channel(switch as usize, port as usize) * self.vcs + in_vc) as u32;
                self.events.push(back, Event::FlitCredit { queue: upstream, tail });
            }
            Peer::Terminal(nic) => self.events.push(back, Event::NicFlitCredit { nic, vc: in_vc as u32, tail }),
            Peer::Unplugged => unreachable!("a flit arrived through an unplugged port"),
        }
        if tail {
            self.fifo.pop(q);
            let w = self.worms_mut();
            (w.received[q], w.sent[q]) = (0, 0);
            self.queue_state[q].set_holding(NONE);
        }
    }

    /// Every input buffer holding flits of a worm, with how many: a packet longer than a
    /// buffer shows up in several switches at once.
    pub fn worm_buffers(&self) -> Vec<BufferedWorm> {
        let Some(w) = self.worm.as_deref() else { return Vec::new() };
        (0..w.received.len())
            .filter_map(|q| {
                let packet = self.fifo.front(q)?;
                let channel = q / self.vcs;
                let s = self.links[channel].switch as usize;
                Some(BufferedWorm {
                    switch: s as u32,
                    port: (channel - self.topo.channel(s, 0)) as u32,
                    vc: (q % self.vcs) as u32,
                    packet,
                    flits: w.present(q),
                })
            })
            .collect()
    }

    /// Flit-level invariants: a buffer holds at most one worm and no more flits than its
    /// room, and its sender's credits plus its flits never exceed that room.
    pub(super) fn check_worm_buffers(&self, freed: &[bool]) -> std::result::Result<(), String> {
        let w = self.worms();
        for (c, peer) in self.topo.peers().iter().enumerate() {
            for vc in 0..self.vcs {
                let q = c * self.vcs + vc;
                if self.fifo.len(q) > 1 {
                    return Err(format!("input buffer {q} holds {} worms", self.fifo.len(q)));
                }
                if let Some(p) = self.fifo.front(q).filter(|&p| freed[p as usize]) {
                    return Err(format!("delivered packet {p} still in input buffer {q}"));
                }
                let held = w.present(q);
                if held > self.queue_phits || (held > 0 && self.fifo.len(q) == 0) {
                    return Err(format!("input buffer {q} holds {held} flits, capacity {}", self.queue_phits));
                }
                let upstream = match *peer {
                    Peer::Switch { switch, port } => {
                        self.out_vcs[self.topo.channel(switch as usize, port as usize) * self.vcs + vc].credits
                    }
                    Peer::Terminal(nic) => self.nic_credits[nic as usize * self.vcs + vc],
                    Peer::Unplugged => continue,
                };
                if upstream as u64 + held as u64 > self.queue_phits as u64 {
                    return Err(format!(
                        "credits above capacity: sender of input buffer {q} holds {upstream} credits while the buffer holds {held} flits, capacity {}",
                        self.queue_phits
                    ));
                }
            }
        }
        Ok(())
    }
}
