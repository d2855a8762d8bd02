//! What every input-queued switch does, whichever its arbitration: route a queue's front
//! packet, weigh its candidates, grant it an output, and what a transmission sets in motion:
//! the packet's head travels on, its tail leaves later, and the freed room returns upstream
//! as credits. The technologies (`cut_through.rs`, `voq_islip.rs`, `output_queued.rs`)
//! differ in how they match waiting packets to outputs.
//!
//! Two allocation rules (`switch.output_allocation`): `link` grants a free output link to
//! one packet; `vc` (INSEE) reserves an output VC for one packet whether or not its link is
//! busy, and the link then sends the reserved VCs' packets one after another, taking the VCs
//! round-robin from the one after the last sender.

use super::channel_state::{End, OutVc};
use super::fabric::Fabric;
use super::switch_lists::Waiter;
use crate::config::{Arbitration, OutputAllocation, Selection};
use crate::event::{Event, NONE};
use crate::routing::{Candidate, Offer, Request};
use rand::Rng;

/// The input-queued switch's steps, for the whole network or one partition.
pub(crate) trait InputQueued: Fabric {
    /// One grant per output among `requests` (output key, input queue, candidate, group):
    /// sorted by output, in arrival order within one, the arbitration picks each winner and
    /// `grant(engine, queue, candidate, key)` applies it. The keys are output VCs if
    /// `vc_keys`, links otherwise. Returns the granted outputs, the winning queues, and
    /// whether any output had several requests.
    fn grant_each_output(
        &mut self,
        requests: &mut [(u32, u32, Candidate, u32)],
        vc_keys: bool,
        grant: impl Fn(&mut Self, usize, Candidate, u32),
    ) -> (Vec<u32>, Vec<u32>, bool) {
        requests.sort_by_key(|r| r.0);
        let mut granted = std::mem::take(&mut self.tmp().granted_outputs);
        granted.clear();
        let mut winners = std::mem::take(&mut self.tmp().winners);
        winners.clear();
        let mut contended = false;
        let mut i = 0;
        while i < requests.len() {
            let key = requests[i].0;
            let mut j = i;
            while j < requests.len() && requests[j].0 == key {
                j += 1;
            }
            // The output VC record whose round-robin pointer serves this output: the VC
            // itself, or a link's first VC (which has no pointer of its own then).
            let rr = if vc_keys { key as usize } else { key as usize * self.knobs().vcs };
            let winner = i + self.pick(&requests[i..j], rr);
            let (_, q, c, _) = requests[winner];
            grant(self, q as usize, c, key);
            self.out_vc_mut(rr).rr_last = q;
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
        let k = self.knobs();
        match k.output_allocation {
            OutputAllocation::Link => out as u32,
            OutputAllocation::Vc => (out * k.vcs + c.vc as usize) as u32,
        }
    }

    /// Fills `offers` with the candidates of `class` for a packet of `size` phits at switch
    /// port range `base`: room, downstream occupancy and whether it can be taken now.
    fn offer(&mut self, base: usize, class: u32, size: u32, now: u64) {
        self.tmp().offers.clear();
        let k = self.knobs();
        // With one candidate there is nothing to compare: its occupancy is not needed.
        let n = self.class(class).len();
        let compare = k.selection == Selection::LeastOccupied && n > 1;
        let cost = self.model().credit_cost(size);
        for i in 0..n {
            let c = self.class(class)[i];
            let out = base + c.port as usize;
            let oq = out * k.vcs + c.vc as usize;
            let room = self.out_vc(oq).credits;
            let need = if c.bubble { cost + k.max_packet_phits } else { cost };
            let free = match k.output_allocation {
                OutputAllocation::Link => self.link(out).free <= now,
                OutputAllocation::Vc => self.out_vc(oq).reserved == NONE,
            };
            let occupancy = match compare {
                false => 0,
                true => match self.link(out).end() {
                    // A multi-queue buffer: what the credits say is taken.
                    End::Switch(_) if k.voq_ports > 1 => k.queue_phits - room,
                    End::Switch(down) => self.occupancy(down as usize * k.vcs + c.vc as usize, now),
                    _ => 0,
                },
            };
            self.tmp().offers.push(Offer { candidate: c, room, occupancy, takeable: free && room >= need });
        }
    }

    /// Phits present in input queue `q` at `now` (see `QueueState::occupancy`).
    fn occupancy(&self, q: usize, now: u64) -> u32 {
        let total = self.queue_state(q).occupancy(now);
        #[cfg(debug_assertions)]
        if let Some(walk) = self.occupancy_by_walk(q, now) {
            assert_eq!(total, walk, "occupancy of queue {q} at {now}: {:?}", self.queue_state(q));
        }
        total
    }

    /// `occupancy` by walking every queued packet (the definition; checks the O(1) form),
    /// if this side holds queue `q`. A departing front packet's `arrived` already names the
    /// next queue: if another packet followed it, it had fully arrived; if not, it is the
    /// last arrival the fill recorded.
    #[cfg(debug_assertions)]
    fn occupancy_by_walk(&self, q: usize, now: u64) -> Option<u32> {
        let fill = self.queue_state(q);
        let len = self.fifo_iter(q)?.count();
        let mut total = 0;
        for (i, p) in self.fifo_iter(q)?.enumerate() {
            let size = self.packet(p).size as u64;
            let (arrived, left) = match i == 0 && fill.is_sending() {
                true if len > 1 => (0, now.saturating_sub(fill.sending_since()).min(size)),
                true => (fill.back_arrived(), now.saturating_sub(fill.sending_since()).min(size)),
                false => (self.packet(p).arrived, 0),
            };
            total += ((now + 1 - arrived).min(size) - left) as u32;
        }
        Some(total)
    }

    /// The routing question for packet `p` in input buffer `b` (channel × vcs + vc).
    fn request(&self, b: usize, p: u32) -> Request {
        let vcs = self.knobs().vcs;
        let s = self.switch_of(b / vcs);
        let pk = self.packet(p);
        Request {
            switch: s,
            in_port: b / vcs - self.topo().channel(s, 0),
            in_vc: b % vcs,
            src: pk.src as usize,
            dst: pk.dst as usize,
            salt: pk.salt,
            offset: pk.offset,
        }
    }

    /// The routing's candidates for packet `p` in input buffer `b`, in `tmp().candidates`,
    /// seeing the load (phits committed downstream, all VCs) of every output port, and for a
    /// routing with a global view the output queue of any switch's port: that load and the
    /// phits of the packets waiting there that may take it (the engine runs such a routing
    /// on one thread, so every switch's state is at hand). Returns the switch of `b`.
    fn route(&mut self, b: usize, p: u32, now: u64) -> usize {
        let req = self.request(b, p);
        let base = self.topo().channel(req.switch, 0);
        let mut out = std::mem::take(&mut self.tmp().candidates);
        out.clear();
        let k = self.knobs();
        // As the cycle began (`Returned`): the answer does not depend on the order of its events.
        let committed = |channel: usize| -> u32 {
            let oq = channel * k.vcs;
            (oq..oq + k.vcs).map(|i| k.queue_phits.saturating_sub(self.credits_at_start(i, now))).sum()
        };
        let load = |port: usize| committed(base + port);
        // Another switch's output queue: what is committed downstream and what waits there
        // for the port (its routed front packets that may take it).
        let remote = |switch: usize, port: usize| {
            let waiting =
                self.waiting(switch).iter().filter(|w| self.class(w.class).iter().any(|c| c.port as usize == port));
            committed(self.topo().channel(switch, port)) + waiting.map(|w| w.size).sum::<u32>()
        };
        self.routing().route_global(&req, &load, &remote, &mut out);
        self.tmp().candidates = out;
        req.switch
    }

    /// The virtual output queue of input buffer `b` that packet `p` joins: the output port
    /// its routing chooses on arrival (the legal port whose downstream buffer has most room,
    /// the first such in the routing's order).
    fn voq_of(&mut self, b: usize, p: u32, now: u64) -> usize {
        let req = self.request(b, p);
        let base = self.topo().channel(req.switch, 0);
        let mut out = std::mem::take(&mut self.tmp().candidates);
        out.clear();
        self.routing().route(&req, &mut out);
        let k = self.knobs();
        let mut best: Option<(u32, usize)> = None;
        for c in &out {
            let room = self.credits_at_start((base + c.port as usize) * k.vcs + c.vc as usize, now);
            if best.is_none_or(|(r, _)| room > r) {
                best = Some((room, c.port as usize));
            }
        }
        self.tmp().candidates = out;
        b * k.voq_ports + best.expect("the routing gives a candidate").1
    }

    /// Credits of output VC `i` as they stood when cycle `now` began: those returned during
    /// it are not counted (`Returned`), for the decisions taken while its events are handled.
    #[inline]
    fn credits_at_start(&self, i: usize, now: u64) -> u32 {
        let credits = self.out_vc(i).credits;
        if !self.knobs().start_view {
            return credits;
        }
        match self.returned(i) {
            r if r.cycle == now => credits - r.phits,
            _ => credits,
        }
    }

    /// Queue `q` has a new front packet: route it once and make it wait for a grant.
    fn new_front(&mut self, q: usize, now: u64) {
        let p = self.fifo_front(q).expect("a front packet");
        let size = self.packet(p).size;
        let k = self.knobs();
        let s = self.route(q / k.voq_ports, p, now);
        let mut list = std::mem::take(&mut self.tmp().candidates);
        if k.voq_ports > 1 {
            // A virtual output queue: only its output port, and the escape channels (Duato:
            // a packet waiting for an adaptive port may always take its escape channel).
            let port = (q % k.voq_ports) as u16;
            list.retain(|c| c.port == port || c.escape);
        }
        let class = self.intern(&list);
        self.tmp().candidates = list;
        self.lists_mut(s).push_fresh(Waiter { queue: q as u32, class, size, packet: p });
        self.set_busy(s, true);
        self.wake(s, now);
    }

    /// Before switch `s` arbitrates: puts the packets that joined its waiting list in this
    /// cycle in a canonical order, oldest first (by injection cycle, as packets that waited
    /// behind another usually are), then by queue, instead of the order of the events that
    /// made them fronts. With the decisions taken during the events seeing the cycle's
    /// starting credits (`credits_at_start`), what the switch holds when it arbitrates does
    /// not depend on the order in which the cycle's events were handled, so any partitioning
    /// of the switches among threads gives the same results.
    #[inline]
    fn settle(&mut self, s: usize) {
        if self.lists(s).has_fresh() {
            self.settle_fresh(s);
        }
    }

    /// `settle` when packets joined the waiting list in this cycle.
    #[inline(never)]
    fn settle_fresh(&mut self, s: usize) {
        if self.lists_mut(s).fresh_mut().len() > 1 {
            let mut fresh = std::mem::take(&mut self.tmp().fresh);
            fresh.clear();
            fresh.extend_from_slice(self.lists_mut(s).fresh_mut());
            fresh.sort_unstable_by_key(|w| (self.packet(w.packet).injected, w.queue));
            self.lists_mut(s).fresh_mut().copy_from_slice(&fresh);
            self.tmp().fresh = fresh;
        }
        self.lists_mut(s).clear_fresh();
    }

    /// Index of the winning request among those for one output (whose round-robin pointer
    /// is in output VC record `rr`).
    fn pick(&mut self, reqs: &[(u32, u32, Candidate, u32)], rr: usize) -> usize {
        if reqs.len() == 1 {
            return 0;
        }
        let k = self.knobs();
        let s = self.switch_of(k.queue_channel(reqs[0].1 as usize));
        match k.arbitration {
            Arbitration::Random => self.switch_rng(s).random_range(0..reqs.len()),
            Arbitration::RoundRobin | Arbitration::Islip => {
                let last = self.out_vc(rr).rr_last;
                // The first input queue after the last winner, cyclically.
                let key = |q: u32| q.wrapping_sub(last.wrapping_add(1));
                (0..reqs.len()).min_by_key(|&k| key(reqs[k].1)).unwrap_or(0)
            }
            Arbitration::OldestFirst => (0..reqs.len())
                .min_by_key(|&k| {
                    let p = self.packet(self.fifo_front(reqs[k].1 as usize).expect("a front packet"));
                    (p.injected, p.generated, reqs[k].1)
                })
                .unwrap_or(0),
        }
    }

    /// The front packet of queue `q` at switch `s` wins candidate `c`: the room downstream
    /// is taken, and the packet is sent (`link`) or holds the output VC until it is (`vc`).
    fn allocate(&mut self, s: usize, q: usize, c: Candidate, now: u64) {
        let Waiter { packet: p, size, .. } =
            self.lists_mut(s).take_waiting(q as u32).expect("granted queue was waiting");
        debug_assert_eq!(self.fifo_front(q), Some(p), "a waiting packet is its queue's front");
        let k = self.knobs();
        let out = self.topo().channel(s, c.port as usize);
        let oq = out * k.vcs + c.vc as usize;
        if let End::Switch(_) = self.link(out).end() {
            let cost = self.model().credit_cost(size);
            self.out_vc_mut(oq).credits -= cost;
        }
        match k.output_allocation {
            OutputAllocation::Link => self.transmit(q, p, size, out, c.vc as usize, now),
            OutputAllocation::Vc => {
                let o = self.out_vc_mut(oq);
                (o.reserved, o.packet) = (q as u32, p);
                self.queue_state(q).reserve(oq as u32, size);
                self.lists_mut(s).add_pending(out as u32);
            }
        }
        self.lists_changed(s);
    }

    /// Starts the next packet on every free output link of switch `s` that has reserved
    /// VCs waiting: the first such VC from the link's round-robin pointer.
    fn start_pending(&mut self, s: usize, now: u64) {
        let vcs = self.knobs().vcs;
        let mut k = 0;
        while k < self.pending(s).len() {
            let out = self.pending(s)[k] as usize;
            let mut started = self.link(out).free > now;
            let mut more = false;
            for i in 0..vcs {
                let vc = (self.link(out).next_vc as usize + i) % vcs;
                let OutVc { reserved: q, packet: p, .. } = *self.out_vc(out * vcs + vc);
                // A reservation whose packet has started names none (see below).
                debug_assert_eq!(q != NONE && p == NONE, q != NONE && self.queue_state(q as usize).is_sending());
                if q == NONE || p == NONE {
                    continue;
                }
                if started {
                    more = true;
                    break;
                }
                debug_assert_eq!(self.fifo_front(q as usize), Some(p), "the reserving packet is its queue's front");
                let size = self.queue_state(q as usize).front_size();
                self.transmit(q as usize, p, size, out, vc, now);
                // Started: the reservation holds until its tail leaves, its packet is done.
                self.out_vc_mut(out * vcs + vc).packet = NONE;
                started = true;
            }
            if more {
                k += 1;
            } else {
                self.lists_mut(s).swap_remove_pending(k);
            }
        }
        self.lists_changed(s);
    }

    /// The front packet of queue `q`, `p` of `size` phits, starts crossing output channel
    /// `out` on VC `vc`.
    fn transmit(&mut self, q: usize, p: u32, size: u32, out: usize, vc: usize, now: u64) {
        let k = self.knobs();
        // The link is free again when the tail leaves: the Tail event wakes this switch then.
        self.link_mut(out).free = now + size as u64;
        self.queue_state(q).start(size, now);
        if self.model().matches_ports() {
            // One packet at a time through the crossbar input of this port, for at least
            // `input_packet_cycles`; past its tail nothing else wakes the switch then.
            let input = k.queue_channel(q);
            let busy = (size as u64).max(k.input_packet_cycles);
            self.set_input_free(input, now + busy);
            if busy > size as u64 {
                let s = self.link(input).switch as usize;
                self.wake(s, now + busy);
            }
        }
        if k.recording {
            self.link_mut(out).busy_phits += size as u64;
        }
        if k.observing {
            self.observe_hop(out, vc, size, now);
        }
        match self.link(out).end() {
            End::Switch(down) => {
                let next = (down as usize * k.vcs + vc) as u32;
                self.push_event(now + k.hop_delay, Event::Arrive { queue: next, packet: p });
            }
            End::Terminal(t) => {
                if t != self.packet(p).dst {
                    self.misdelivered(p, t, now);
                }
                self.push_event(now + k.eject_delay + size as u64 - 1, Event::Deliver { packet: p });
            }
            End::Unplugged => unreachable!("routing chose an unplugged port"),
        }
        let counters = self.counters();
        counters.packet_hops += 1;
        counters.phit_hops += size as u64;
        self.tail_leaves(q, size, now + size as u64);
    }

    /// The front packet of queue `q`, of `size` phits, has started leaving: its tail leaves at
    /// cycle `tail` (`tail_left`), and the room it frees returns upstream `credit_delay`
    /// cycles later. The credit is created now, a packet's length ahead of the tail: since no
    /// result depends on the order of a cycle's events, when it is created changes nothing,
    /// and every event a switch makes for another then lies at least a cycle ahead.
    fn tail_leaves(&mut self, q: usize, size: u32, tail: u64) {
        let k = self.knobs();
        self.push_event(tail, Event::Tail { queue: q as u32 });
        let cost = self.model().credit_cost(size);
        let b = q / k.voq_ports;
        let vc = b % k.vcs;
        let back = tail + k.credit_delay;
        match self.link(b / k.vcs).end() {
            End::Switch(up) => {
                let upstream = (up as usize * k.vcs + vc) as u32;
                self.push_event(back, Event::Credit { queue: upstream, phits: cost });
            }
            End::Terminal(nic) => self.push_event(back, Event::NicCredit { nic, vc: vc as u32, phits: cost }),
            End::Unplugged => unreachable!("a packet arrived through an unplugged port"),
        }
    }

    /// The front packet's tail has left queue `q`: free the output VC it held (its room
    /// upstream returns by the credit `tail_leaves` made), let the next packet compete, and
    /// let every waiting packet try the output link it freed.
    fn tail_left(&mut self, q: usize, now: u64) {
        self.fifo_pop(q).expect("tail of a queued packet");
        let k = self.knobs();
        // The size recorded when it started leaving: the packet's record is not read.
        let psize = self.queue_state(q).front_size();
        self.queue_state(q).leave(psize);
        let b = q / k.voq_ports;
        let oq = self.queue_state(q).holding();
        if oq != NONE {
            self.out_vc_mut(oq as usize).reserved = NONE;
            self.queue_state(q).set_holding(NONE);
            // With one VC the pointer stays 0: not writing it spares a large network a line
            // per hop (the link record, evicted since the head left, and its prefetch).
            if k.vcs > 1 {
                let out = oq as usize / k.vcs;
                self.link_mut(out).next_vc = ((oq as usize % k.vcs + 1) % k.vcs) as u8;
            }
        }
        if self.fifo_len(q) == 0 {
            let s = self.switch_of(b / k.vcs);
            self.wake(s, now);
        } else {
            self.new_front(q, now);
        }
    }

    /// Room (phits) taken by the packets of input buffer `b` (all its virtual output queues).
    fn buffer_held(&self, b: usize) -> u32 {
        let voq = self.knobs().voq_ports;
        (b * voq..(b + 1) * voq)
            .flat_map(|q| self.fifo_iter(q).into_iter().flatten())
            .map(|p| self.model().credit_cost(self.packet(p).size))
            .sum()
    }

    /// A packet head enters input buffer `queue` (its virtual output queue, if any).
    fn arrive(&mut self, queue: usize, packet: u32, now: u64) {
        let k = self.knobs();
        debug_assert!(
            self.buffer_held(queue) + self.model().credit_cost(self.packet(packet).size) <= k.queue_phits,
            "input queue overflow"
        );
        let q = if k.voq_ports == 1 { queue } else { self.voq_of(queue, packet, now) };
        // Only the debug build's occupancy check reads it: a release build spares the parallel
        // engine a deferred write per hop to a packet record on its single-threaded part.
        if cfg!(debug_assertions) {
            self.set_arrived(packet, now);
        }
        self.fifo_push(q, packet);
        let size = self.packet(packet).size;
        self.queue_state(q).arrive(size, now);
        if self.fifo_len(q) == 1 {
            self.new_front(q, now);
        }
    }

    /// Room returns to output VC `q`: its switch may grant again.
    fn credit(&mut self, q: usize, phits: u32, now: u64) {
        let k = self.knobs();
        self.out_vc_mut(q).credits += phits;
        if k.start_view {
            let r = self.returned_mut(q);
            if r.cycle != now {
                *r = super::channel_state::Returned { cycle: now, phits: 0 };
            }
            r.phits += phits;
        }
        debug_assert!(self.out_vc(q).credits <= k.queue_phits, "credits above capacity");
        let s = self.switch_of(q / k.vcs);
        self.wake(s, now);
    }

    /// Handles an event of a switch (an arrival, a tail leaving or credits returning).
    #[inline]
    fn switch_event(&mut self, ev: Event, now: u64) {
        match ev {
            Event::Arrive { queue, packet } => self.arrive(queue as usize, packet, now),
            Event::Tail { queue } => self.tail_left(queue as usize, now),
            Event::Credit { queue, phits } => self.credit(queue as usize, phits, now),
            _ => unreachable!("not a switch event"),
        }
    }
}

impl<F: Fabric + ?Sized> InputQueued for F {}
