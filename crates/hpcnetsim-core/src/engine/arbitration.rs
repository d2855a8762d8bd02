//! Routing, selection and output allocation at a switch, and what a transmission sets in
//! motion: the packet's head travels on, its tail leaves later, and the freed room returns
//! upstream as credits.
//!
//! Two allocation rules (`switch.output_allocation`): `link` grants a free output link to
//! one packet; `vc` (INSEE) reserves an output VC for one packet whether or not its link is
//! busy, and the link then sends the reserved VCs' packets one after another, taking the VCs
//! round-robin from the one after the last sender.

use super::{Engine, Event, Group, Waiter, NONE};
use crate::config::{Arbitration, OutputAllocation, Selection};
use crate::routing::{Candidate, Offer, Request};
use crate::topology::Peer;
use rand::Rng;

impl Engine<'_> {
    /// Routing, selection and output allocation at switch `s`. Packets whose candidate
    /// lists (and sizes) are identical share one evaluation of the outputs' state.
    pub(super) fn arbitrate(&mut self, s: usize, now: u64) {
        if self.model.matches_ports() {
            return self.arbitrate_islip(s, now);
        }
        if self.worm.is_some() {
            return self.arbitrate_wormhole(s, now);
        }
        let mut requests = std::mem::take(&mut self.requests);
        let mut groups = std::mem::take(&mut self.groups);
        let mut choices = std::mem::take(&mut self.choices);
        requests.clear();
        choices.clear();
        let mut used = 0;
        let base = self.topo.channel(s, 0);
        self.counters.arbitrations += 1;
        self.counters.heads_examined += self.waiting[s].len() as u64;
        // Whether a packet could have taken a candidate it did not request.
        let mut missed = false;
        for i in 0..self.waiting[s].len() {
            let Waiter { queue: q, class, size } = self.waiting[s][i];
            let g = match groups[..used].iter().position(|g: &Group| g.class == class && g.size == size) {
                Some(g) => g,
                None => {
                    self.counters.evaluations += 1;
                    self.offer(base, class, size, now);
                    if used == groups.len() {
                        groups.push(Group::default());
                    }
                    let g = &mut groups[used];
                    (g.class, g.size) = (class, size);
                    g.choice.prepare(self.selection, &self.offers);
                    used += 1;
                    used - 1
                }
            };
            choices.push((q, g as u32));
            match groups[g].choice.pick(&mut self.switch_rng[s]) {
                Some(c) => requests.push((self.output_key(base, c), q, c, g as u32)),
                None => missed |= !groups[g].choice.available().is_empty(),
            }
        }
        // One grant per output (link or VC); requests are grouped by output, in arrival order.
        requests.sort_by_key(|r| r.0);
        let mut granted = std::mem::take(&mut self.granted_outputs);
        granted.clear();
        let mut winners = std::mem::take(&mut self.winners);
        winners.clear();
        let mut i = 0;
        while i < requests.len() {
            let key = requests[i].0;
            let mut j = i;
            while j < requests.len() && requests[j].0 == key {
                j += 1;
            }
            let winner = i + self.pick(&requests[i..j]);
            let (_, q, c, _) = requests[winner];
            self.allocate(s, q as usize, c, now);
            self.rr_last[key as usize] = q;
            granted.push(key);
            winners.push(q);
            missed |= j - i > 1;
            i = j;
        }
        if self.output_allocation == OutputAllocation::Vc {
            self.start_pending(s, now);
        }
        // A packet that lost, or whose choice could not be taken, while another of its
        // candidates is still takeable chooses again next cycle, as a cycle-driven switch
        // would; the others wait for an output or credits to come back.
        if missed {
            let retry = choices.iter().any(|&(q, g)| {
                !winners.contains(&q)
                    && groups[g as usize]
                        .choice
                        .available()
                        .iter()
                        .any(|&c| !granted.contains(&self.output_key(base, c)))
            });
            if retry {
                self.wake(s, now + 1);
            }
        }
        self.granted_outputs = granted;
        self.winners = winners;
        self.requests = requests;
        self.groups = groups;
        self.choices = choices;
    }

    /// The output a request competes for: the link, or the output VC under `vc` allocation.
    fn output_key(&self, base: usize, c: Candidate) -> u32 {
        let out = base + c.port as usize;
        match self.output_allocation {
            OutputAllocation::Link => out as u32,
            OutputAllocation::Vc => (out * self.vcs + c.vc as usize) as u32,
        }
    }

    /// Fills `offers` with the candidates of `class` for a packet of `size` phits at switch
    /// port range `base`: room, downstream occupancy and whether it can be taken now.
    pub(super) fn offer(&mut self, base: usize, class: u32, size: u32, now: u64) {
        self.offers.clear();
        // With one candidate there is nothing to compare: its occupancy is not needed.
        let compare = self.selection == Selection::LeastOccupied && self.classes[class as usize].len() > 1;
        for k in 0..self.classes[class as usize].len() {
            let c = self.classes[class as usize][k];
            let out = base + c.port as usize;
            let oq = out * self.vcs + c.vc as usize;
            let room = self.credits[oq];
            let cost = self.model.credit_cost(size);
            let need = if c.bubble { cost + self.max_packet_phits } else { cost };
            let free = match self.output_allocation {
                OutputAllocation::Link => self.link_free[out] <= now,
                OutputAllocation::Vc => self.reserved[oq] == NONE,
            };
            let occupancy = match (compare, self.topo.peers()[out]) {
                // A multi-queue buffer: what the credits say is taken.
                (true, Peer::Switch { .. }) if self.voq_ports > 1 => self.queue_phits - room,
                (true, Peer::Switch { switch, port }) => {
                    self.occupancy(self.topo.channel(switch as usize, port as usize) * self.vcs + c.vc as usize, now)
                }
                _ => 0,
            };
            self.offers.push(Offer { candidate: c, room, occupancy, takeable: free && room >= need });
        }
    }

    /// Phits present in input queue `q` at `now`: a packet's phits arrive one per cycle
    /// from its head's arrival and leave one per cycle from the start of its transmission.
    /// O(1): packets reach a queue one after another over one link, so only the last one
    /// may still be arriving, and only the front one may be leaving.
    pub(super) fn occupancy(&self, q: usize, now: u64) -> u32 {
        let Some(back) = self.fifo.back(q) else { return 0 };
        let (departing, (arrived_front, d)) = (self.departing[q].1 != u64::MAX, self.departing[q]);
        let size = self.packets[back as usize].size as u64;
        // A departing packet's `arrived` already names the next queue: its arrival here is
        // kept in `departing`.
        let one = self.fifo.len(q) == 1;
        let arrived = if departing && one { arrived_front } else { self.packets[back as usize].arrived };
        let missing = size - (now + 1 - arrived).min(size);
        let left = if departing {
            let front = if one { back } else { self.fifo.front(q).expect("a departing front packet") };
            now.saturating_sub(d).min(self.packets[front as usize].size as u64)
        } else {
            0
        };
        let total = self.queued_phits[q] - (missing + left) as u32;
        debug_assert_eq!(
            total,
            self.occupancy_by_walk(q, now),
            "occupancy of queue {q} at {now}: queued {} departing {:?} packets {:?}",
            self.queued_phits[q],
            self.departing[q],
            self.fifo
                .iter(q)
                .map(|p| (self.packets[p as usize].size, self.packets[p as usize].arrived))
                .collect::<Vec<_>>()
        );
        total
    }

    /// `occupancy` by walking every queued packet (the definition; checks the O(1) form).
    fn occupancy_by_walk(&self, q: usize, now: u64) -> u32 {
        let mut total = 0;
        for (i, p) in self.fifo.iter(q).enumerate() {
            let size = self.packets[p as usize].size as u64;
            let (arrived, left) = match self.departing[q] {
                (a, d) if i == 0 && d != u64::MAX => (a, now.saturating_sub(d).min(size)),
                _ => (self.packets[p as usize].arrived, 0),
            };
            total += ((now + 1 - arrived).min(size) - left) as u32;
        }
        total
    }

    /// Queue `q` has a new front packet: route it once and make it wait for a grant.
    pub(super) fn new_front(&mut self, q: usize, now: u64) {
        let b = q / self.voq_ports;
        let s = self.channel_switch[b / self.vcs] as usize;
        let pk = self.packets[self.fifo.front(q).expect("a front packet") as usize];
        let base = self.topo.channel(s, 0);
        let req = Request {
            switch: s,
            in_port: b / self.vcs - base,
            in_vc: b % self.vcs,
            src: pk.src as usize,
            dst: pk.dst as usize,
            salt: pk.salt,
            offset: pk.offset,
        };
        self.scratch.clear();
        let (credits, vcs, full) = (&self.credits, self.vcs, self.queue_phits);
        // Phits committed downstream of each output port, all VCs (terminal ports: none).
        let load = |port: usize| -> u32 {
            let oq = (base + port) * vcs;
            credits[oq..oq + vcs].iter().map(|&c| full.saturating_sub(c)).sum()
        };
        self.routing.route_loaded(&req, &load, &mut self.scratch);
        if self.voq_ports > 1 {
            // A virtual output queue: only its output port.
            let port = (q % self.voq_ports) as u16;
            self.scratch.retain(|c| c.port == port);
        }
        let class = match self.class_ids.get(&self.scratch) {
            Some(&id) => id,
            None => {
                let id = self.classes.len() as u32;
                self.classes.push(self.scratch.clone());
                self.class_ids.insert(self.scratch.clone(), id);
                id
            }
        };
        self.waiting[s].push(Waiter { queue: q as u32, class, size: pk.size });
        self.wake(s, now);
    }

    /// Index of the winning request among those for one output.
    pub(super) fn pick(&mut self, reqs: &[(u32, u32, Candidate, u32)]) -> usize {
        if reqs.len() == 1 {
            return 0;
        }
        let s = self.channel_switch[reqs[0].1 as usize / self.voq_ports / self.vcs] as usize;
        match self.arbitration {
            Arbitration::Random => self.switch_rng[s].random_range(0..reqs.len()),
            Arbitration::RoundRobin | Arbitration::Islip => {
                let last = self.rr_last[reqs[0].0 as usize];
                // The first input queue after the last winner, cyclically.
                let key = |q: u32| q.wrapping_sub(last.wrapping_add(1));
                (0..reqs.len()).min_by_key(|&k| key(reqs[k].1)).unwrap_or(0)
            }
            Arbitration::OldestFirst => (0..reqs.len())
                .min_by_key(|&k| {
                    let p = &self.packets[self.fifo.front(reqs[k].1 as usize).expect("a front packet") as usize];
                    (p.injected, p.generated, reqs[k].1)
                })
                .unwrap_or(0),
        }
    }

    /// The front packet of queue `q` at switch `s` wins candidate `c`: the room downstream
    /// is taken, and the packet is sent (`link`) or holds the output VC until it is (`vc`).
    pub(super) fn allocate(&mut self, s: usize, q: usize, c: Candidate, now: u64) {
        let p = self.fifo.front(q).expect("granted queue has a front packet");
        let size = self.packets[p as usize].size;
        let out = self.topo.channel(s, c.port as usize);
        let oq = out * self.vcs + c.vc as usize;
        if let Peer::Switch { .. } = self.topo.peers()[out] {
            self.credits[oq] -= self.model.credit_cost(size);
        }
        let w = &mut self.waiting[s];
        let pos = w.iter().position(|x| x.queue as usize == q).expect("granted queue was waiting");
        w.swap_remove(pos);
        match self.output_allocation {
            OutputAllocation::Link => self.transmit(q, out, c.vc as usize, now),
            OutputAllocation::Vc => {
                self.reserved[oq] = q as u32;
                self.holding[q] = oq as u32;
                if !self.pending[s].contains(&(out as u32)) {
                    self.pending[s].push(out as u32);
                }
            }
        }
    }

    /// Starts the next packet on every free output link of switch `s` that has reserved
    /// VCs waiting: the first such VC from the link's round-robin pointer.
    fn start_pending(&mut self, s: usize, now: u64) {
        let mut k = 0;
        while k < self.pending[s].len() {
            let out = self.pending[s][k] as usize;
            let mut started = self.link_free[out] > now;
            let mut more = false;
            for i in 0..self.vcs {
                let vc = (self.next_vc[out] as usize + i) % self.vcs;
                let q = self.reserved[out * self.vcs + vc];
                if q == NONE || self.departing[q as usize].1 != u64::MAX {
                    continue;
                }
                if started {
                    more = true;
                    break;
                }
                self.transmit(q as usize, out, vc, now);
                started = true;
            }
            if more {
                k += 1;
            } else {
                self.pending[s].swap_remove(k);
            }
        }
    }

    /// The front packet of queue `q` starts crossing output channel `out` on VC `vc`.
    fn transmit(&mut self, q: usize, out: usize, vc: usize, now: u64) {
        let p = self.fifo.front(q).expect("a packet to send");
        let size = self.packets[p as usize].size;
        // The link is free again when the tail leaves: the Tail event wakes this switch then.
        self.link_free[out] = now + size as u64;
        self.departing[q] = (self.packets[p as usize].arrived, now);
        if self.model.matches_ports() {
            // One packet at a time through the crossbar input of this port.
            self.input_free[q / self.voq_ports / self.vcs] = now + size as u64;
        }
        if self.recording {
            self.busy_phits[out] += size as u64;
        }
        match self.topo.peers()[out] {
            Peer::Switch { switch, port } => {
                let next = (self.topo.channel(switch as usize, port as usize) * self.vcs + vc) as u32;
                self.events.push(now + self.hop_delay, Event::Arrive { queue: next, packet: p });
            }
            Peer::Terminal(t) => {
                if t != self.packets[p as usize].dst && self.misdelivered.is_none() {
                    self.misdelivered = Some((p, t));
                }
                self.events.push(now + self.hop_delay + size as u64 - 1, Event::Deliver { packet: p });
            }
            Peer::Unplugged => unreachable!("routing chose an unplugged port"),
        }
        self.count_hop(size);
        self.events.push(now + size as u64, Event::Tail { queue: q as u32 });
    }

    /// The front packet's tail has left queue `q`: free its room upstream and the output VC
    /// it held, let the next packet compete, and let every waiting packet try the output
    /// link it freed.
    pub(super) fn tail_left(&mut self, q: usize, now: u64) {
        let p = self.fifo.pop(q).expect("tail of a queued packet");
        self.queued_phits[q] -= self.packets[p as usize].size;
        let size = self.model.credit_cost(self.packets[p as usize].size);
        let b = q / self.voq_ports;
        let vc = b % self.vcs;
        self.departing[q] = (0, u64::MAX);
        let oq = self.holding[q];
        if oq != NONE {
            self.reserved[oq as usize] = NONE;
            self.holding[q] = NONE;
            let out = oq as usize / self.vcs;
            self.next_vc[out] = ((oq as usize % self.vcs + 1) % self.vcs) as u8;
        }
        let back = now + self.credit_delay;
        match self.topo.peers()[b / self.vcs] {
            Peer::Switch { switch, port } => {
                let upstream = (self.topo.channel(switch as usize, port as usize) * self.vcs + vc) as u32;
                self.events.push(back, Event::Credit { queue: upstream, phits: size });
            }
            Peer::Terminal(nic) => self.events.push(back, Event::NicCredit { nic, vc: vc as u32, phits: size }),
            Peer::Unplugged => unreachable!("a packet arrived through an unplugged port"),
        }
        if self.fifo.len(q) == 0 {
            self.wake(self.channel_switch[b / self.vcs] as usize, now);
        } else {
            self.new_front(q, now);
        }
    }
}
