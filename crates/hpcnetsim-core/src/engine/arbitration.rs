//! Routing, selection and output allocation at a switch, and what a transmission sets in
//! motion: the packet's head travels on, its tail leaves later, and the freed room returns
//! upstream as credits.
//!
//! Two allocation rules (`switch.output_allocation`): `link` grants a free output link to
//! one packet; `vc` (INSEE) reserves an output VC for one packet whether or not its link is
//! busy, and the link then sends the reserved VCs' packets one after another, taking the VCs
//! round-robin from the one after the last sender.

use super::channel_state::End;
use super::{Engine, Event, Group, Waiter, NONE};
use crate::config::{Arbitration, OutputAllocation, Selection};
use crate::routing::{Candidate, Offer, Request};
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
        let (granted, winners, contended) =
            self.grant_each_output(&mut requests, |e, q, c, _| e.allocate(s, q, c, now));
        missed |= contended;
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

    /// One grant per output among `requests` (output key, input queue, candidate, group):
    /// sorted by output, in arrival order within one, the arbitration picks each winner and
    /// `grant(engine, queue, candidate, key)` applies it. Returns the granted outputs, the
    /// winning queues, and whether any output had several requests.
    pub(super) fn grant_each_output(
        &mut self,
        requests: &mut [(u32, u32, Candidate, u32)],
        grant: impl Fn(&mut Self, usize, Candidate, u32),
    ) -> (Vec<u32>, Vec<u32>, bool) {
        requests.sort_by_key(|r| r.0);
        let mut granted = std::mem::take(&mut self.granted_outputs);
        granted.clear();
        let mut winners = std::mem::take(&mut self.winners);
        winners.clear();
        let mut contended = false;
        let mut i = 0;
        while i < requests.len() {
            let key = requests[i].0;
            let mut j = i;
            while j < requests.len() && requests[j].0 == key {
                j += 1;
            }
            let winner = i + self.pick(&requests[i..j]);
            let (_, q, c, _) = requests[winner];
            grant(self, q as usize, c, key);
            self.out_vcs[key as usize].rr_last = q;
            granted.push(key);
            winners.push(q);
            contended |= j - i > 1;
            i = j;
        }
        (granted, winners, contended)
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
        if compare && self.voq_ports == 1 && self.prefetching {
            // The candidates' downstream queues are far apart in memory: ask for all at once.
            for c in &self.classes[class as usize] {
                let down = self.links[base + c.port as usize].peer;
                super::prefetch::prefetch(&self.queue_state, (down as usize).wrapping_mul(self.vcs) + c.vc as usize);
            }
        }
        for k in 0..self.classes[class as usize].len() {
            let c = self.classes[class as usize][k];
            let out = base + c.port as usize;
            let oq = out * self.vcs + c.vc as usize;
            let room = self.out_vcs[oq].credits;
            let cost = self.model.credit_cost(size);
            let need = if c.bubble { cost + self.max_packet_phits } else { cost };
            let free = match self.output_allocation {
                OutputAllocation::Link => self.links[out].free <= now,
                OutputAllocation::Vc => self.out_vcs[oq].reserved == NONE,
            };
            let occupancy = match (compare, self.links[out].end()) {
                // A multi-queue buffer: what the credits say is taken.
                (true, End::Switch(_)) if self.voq_ports > 1 => self.queue_phits - room,
                (true, End::Switch(down)) => self.occupancy(down as usize * self.vcs + c.vc as usize, now),
                _ => 0,
            };
            self.offers.push(Offer { candidate: c, room, occupancy, takeable: free && room >= need });
        }
    }

    /// Phits present in input queue `q` at `now` (see `QueueState::occupancy`).
    pub(super) fn occupancy(&self, q: usize, now: u64) -> u32 {
        let total = self.queue_state[q].occupancy(now);
        #[cfg(debug_assertions)]
        assert_eq!(total, self.occupancy_by_walk(q, now), "occupancy of queue {q} at {now}: {:?}", self.queue_state[q]);
        total
    }

    /// `occupancy` by walking every queued packet (the definition; checks the O(1) form).
    /// A departing front packet's `arrived` already names the next queue: if another packet
    /// followed it, it had fully arrived; if not, it is the last arrival the fill recorded.
    #[cfg(debug_assertions)]
    fn occupancy_by_walk(&self, q: usize, now: u64) -> u32 {
        let fill = &self.queue_state[q];
        let len = self.fifo.len(q);
        let mut total = 0;
        for (i, p) in self.fifo.iter(q).enumerate() {
            let size = self.packets[p as usize].size as u64;
            let (arrived, left) = match i == 0 && fill.is_sending() {
                true if len > 1 => (0, now.saturating_sub(fill.sending_since).min(size)),
                true => (fill.back_arrived(), now.saturating_sub(fill.sending_since).min(size)),
                false => (self.packets[p as usize].arrived, 0),
            };
            total += ((now + 1 - arrived).min(size) - left) as u32;
        }
        total
    }

    /// The routing question for packet `p` in input buffer `b` (channel × vcs + vc).
    pub(super) fn request(&self, b: usize, p: u32) -> Request {
        let s = self.links[b / self.vcs].switch as usize;
        let pk = &self.packets[p as usize];
        Request {
            switch: s,
            in_port: b / self.vcs - self.topo.channel(s, 0),
            in_vc: b % self.vcs,
            src: pk.src as usize,
            dst: pk.dst as usize,
            salt: pk.salt,
            offset: pk.offset,
        }
    }

    /// Queue `q` has a new front packet: route it once and make it wait for a grant.
    pub(super) fn new_front(&mut self, q: usize, now: u64) {
        let p = self.fifo.front(q).expect("a front packet");
        let pk = self.packets[p as usize];
        let req = self.request(q / self.voq_ports, p);
        let (s, base) = (req.switch, self.topo.channel(req.switch, 0));
        self.scratch.clear();
        let (out_vcs, vcs, full) = (&self.out_vcs, self.vcs, self.queue_phits);
        // Phits committed downstream of each output port, all VCs (terminal ports: none).
        let load = |port: usize| -> u32 {
            let oq = (base + port) * vcs;
            out_vcs[oq..oq + vcs].iter().map(|o| full.saturating_sub(o.credits)).sum()
        };
        self.routing.route_loaded(&req, &load, &mut self.scratch);
        if self.voq_ports > 1 {
            // A virtual output queue: only its output port, and the escape channels (Duato:
            // a packet waiting for an adaptive port may always take its escape channel).
            let port = (q % self.voq_ports) as u16;
            self.scratch.retain(|c| c.port == port || c.escape);
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
        let s = self.links[reqs[0].1 as usize / self.voq_ports / self.vcs].switch as usize;
        match self.arbitration {
            Arbitration::Random => self.switch_rng[s].random_range(0..reqs.len()),
            Arbitration::RoundRobin | Arbitration::Islip => {
                let last = self.out_vcs[reqs[0].0 as usize].rr_last;
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
        if let End::Switch(_) = self.links[out].end() {
            self.out_vcs[oq].credits -= self.model.credit_cost(size);
        }
        let w = &mut self.waiting[s];
        let pos = w.iter().position(|x| x.queue as usize == q).expect("granted queue was waiting");
        w.swap_remove(pos);
        match self.output_allocation {
            OutputAllocation::Link => self.transmit(q, out, c.vc as usize, now),
            OutputAllocation::Vc => {
                self.out_vcs[oq].reserved = q as u32;
                self.queue_state[q].holding = oq as u32;
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
            let mut started = self.links[out].free > now;
            let mut more = false;
            for i in 0..self.vcs {
                let vc = (self.links[out].next_vc as usize + i) % self.vcs;
                let q = self.out_vcs[out * self.vcs + vc].reserved;
                if q == NONE || self.queue_state[q as usize].is_sending() {
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
        self.links[out].free = now + size as u64;
        self.queue_state[q].start(size, now);
        if self.model.matches_ports() {
            // One packet at a time through the crossbar input of this port.
            self.input_free[q / self.voq_ports / self.vcs] = now + size as u64;
        }
        if self.recording {
            self.links[out].busy_phits += size as u64;
        }
        match self.links[out].end() {
            End::Switch(down) => {
                let next = (down as usize * self.vcs + vc) as u32;
                self.events.push(now + self.hop_delay, Event::Arrive { queue: next, packet: p });
            }
            End::Terminal(t) => {
                if t != self.packets[p as usize].dst && self.misdelivered.is_none() {
                    self.misdelivered = Some((p, t));
                }
                self.events.push(now + self.hop_delay + size as u64 - 1, Event::Deliver { packet: p });
            }
            End::Unplugged => unreachable!("routing chose an unplugged port"),
        }
        self.count_hop(size);
        self.events.push(now + size as u64, Event::Tail { queue: q as u32 });
    }

    /// The front packet's tail has left queue `q`: free its room upstream and the output VC
    /// it held, let the next packet compete, and let every waiting packet try the output
    /// link it freed.
    pub(super) fn tail_left(&mut self, q: usize, now: u64) {
        let p = self.fifo.pop(q).expect("tail of a queued packet");
        self.queue_state[q].leave(self.packets[p as usize].size);
        let size = self.model.credit_cost(self.packets[p as usize].size);
        let b = q / self.voq_ports;
        let vc = b % self.vcs;
        let oq = self.queue_state[q].holding;
        if oq != NONE {
            self.out_vcs[oq as usize].reserved = NONE;
            self.queue_state[q].holding = NONE;
            let out = oq as usize / self.vcs;
            self.links[out].next_vc = ((oq as usize % self.vcs + 1) % self.vcs) as u8;
        }
        let back = now + self.credit_delay;
        match self.links[b / self.vcs].end() {
            End::Switch(up) => {
                let upstream = (up as usize * self.vcs + vc) as u32;
                self.events.push(back, Event::Credit { queue: upstream, phits: size });
            }
            End::Terminal(nic) => self.events.push(back, Event::NicCredit { nic, vc: vc as u32, phits: size }),
            End::Unplugged => unreachable!("a packet arrived through an unplugged port"),
        }
        if self.fifo.len(q) == 0 {
            self.wake(self.links[b / self.vcs].switch as usize, now);
        } else {
            self.new_front(q, now);
        }
    }
}
