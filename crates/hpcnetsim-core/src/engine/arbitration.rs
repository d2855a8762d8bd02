//! Routing, selection and output arbitration at a switch, and what a grant sets in motion:
//! the packet's head travels on, its tail leaves later, and the freed room returns
//! upstream as credits.

use super::{Engine, Event, Group, Waiter};
use crate::config::Arbitration;
use crate::routing::{Candidate, Request};
use crate::topology::Peer;
use rand::Rng;

impl Engine<'_> {
    /// Routing, selection and output arbitration at switch `s`. Packets whose candidate
    /// lists (and sizes) are identical share one evaluation of the outputs' state.
    pub(super) fn arbitrate(&mut self, s: usize, now: u64) {
        let mut requests = std::mem::take(&mut self.requests);
        let mut groups = std::mem::take(&mut self.groups);
        requests.clear();
        let mut used = 0;
        let base = self.topo.channel(s, 0);
        self.counters.arbitrations += 1;
        self.counters.heads_examined += self.waiting[s].len() as u64;
        for i in 0..self.waiting[s].len() {
            let Waiter { queue: q, class, size } = self.waiting[s][i];
            let g = match groups[..used].iter().position(|g: &Group| g.class == class && g.size == size) {
                Some(g) => g,
                None => {
                    self.counters.evaluations += 1;
                    self.available.clear();
                    for &c in &self.classes[class as usize] {
                        let out = base + c.port as usize;
                        if self.link_free[out] > now {
                            continue;
                        }
                        let room = self.credits[out * self.vcs + c.vc as usize];
                        let need = if c.bubble { size + self.max_packet_phits } else { size };
                        if room >= need {
                            self.available.push((c, room));
                        }
                    }
                    if used == groups.len() {
                        groups.push(Group::default());
                    }
                    let g = &mut groups[used];
                    (g.class, g.size) = (class, size);
                    g.choice.prepare(self.selection, &self.available);
                    used += 1;
                    used - 1
                }
            };
            if let Some(c) = groups[g].choice.pick(&mut self.switch_rng[s]) {
                requests.push(((base + c.port as usize) as u32, q, c, g as u32));
            }
        }
        // One grant per output port; requests are grouped by port, in arrival order.
        requests.sort_by_key(|r| r.0);
        let mut granted = std::mem::take(&mut self.granted_outputs);
        granted.clear();
        let mut losers_may_retry = false;
        let mut i = 0;
        while i < requests.len() {
            let out = requests[i].0;
            let mut j = i;
            while j < requests.len() && requests[j].0 == out {
                j += 1;
            }
            let winner = i + self.pick(&requests[i..j], s);
            let (_, q, c, _) = requests[winner];
            self.grant(s, q as usize, c, now);
            self.rr_last[out as usize] = q;
            granted.push(out);
            losers_may_retry |= j - i > 1;
            i = j;
        }
        // A loser that still has a free option tries it next cycle, as a cycle-driven
        // switch would; the others wait for a link or credit to come back.
        if losers_may_retry {
            let retry = requests.iter().any(|&(out, q, _, g)| {
                granted.contains(&out)
                    && self.waiting[s].iter().any(|w| w.queue == q)
                    && groups[g as usize]
                        .choice
                        .available()
                        .iter()
                        .any(|c| !granted.contains(&((base + c.port as usize) as u32)))
            });
            if retry {
                self.wake(s, now + 1);
            }
        }
        self.granted_outputs = granted;
        self.requests = requests;
        self.groups = groups;
    }

    /// Queue `q` has a new front packet: route it once and make it wait for a grant.
    pub(super) fn new_front(&mut self, q: usize, now: u64) {
        let s = self.channel_switch[q / self.vcs] as usize;
        let pk = self.packets[self.fifo.front(q).expect("a front packet") as usize];
        let base = self.topo.channel(s, 0);
        let req = Request {
            switch: s,
            in_port: q / self.vcs - base,
            in_vc: q % self.vcs,
            src: pk.src as usize,
            dst: pk.dst as usize,
            offset: pk.offset,
        };
        self.scratch.clear();
        self.routing.route(&req, &mut self.scratch);
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
    pub(super) fn pick(&mut self, reqs: &[(u32, u32, Candidate, u32)], s: usize) -> usize {
        if reqs.len() == 1 {
            return 0;
        }
        match self.arbitration {
            Arbitration::Random => self.switch_rng[s].random_range(0..reqs.len()),
            Arbitration::RoundRobin => {
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

    pub(super) fn grant(&mut self, s: usize, q: usize, c: Candidate, now: u64) {
        let p = self.fifo.front(q).expect("granted queue has a front packet");
        let size = self.packets[p as usize].size;
        let out = self.topo.channel(s, c.port as usize);
        // The link is free again when the tail leaves: the Tail event wakes this switch then.
        self.link_free[out] = now + size as u64;
        if self.recording {
            self.busy_phits[out] += size as u64;
        }
        match self.topo.peers()[out] {
            Peer::Switch { switch, port } => {
                let oq = out * self.vcs + c.vc as usize;
                self.credits[oq] -= size;
                let next = (self.topo.channel(switch as usize, port as usize) * self.vcs + c.vc as usize) as u32;
                self.events.push(now + self.hop_delay, Event::Arrive { queue: next, packet: p });
            }
            Peer::Terminal(_) => {
                self.events.push(now + self.hop_delay + size as u64 - 1, Event::Deliver { packet: p });
            }
            Peer::Unplugged => unreachable!("routing chose an unplugged port"),
        }
        let w = &mut self.waiting[s];
        let pos = w.iter().position(|x| x.queue as usize == q).expect("granted queue was waiting");
        w.swap_remove(pos);
        self.count_hop(size);
        self.events.push(now + size as u64, Event::Tail { queue: q as u32 });
    }

    /// The front packet's tail has left queue `q`: free its room upstream, let the next
    /// packet compete, and let every waiting packet try the output link it freed.
    pub(super) fn tail_left(&mut self, q: usize, now: u64) {
        let p = self.fifo.pop(q).expect("tail of a queued packet");
        let size = self.packets[p as usize].size;
        let vc = q % self.vcs;
        let back = now + self.credit_delay;
        match self.topo.peers()[q / self.vcs] {
            Peer::Switch { switch, port } => {
                let upstream = (self.topo.channel(switch as usize, port as usize) * self.vcs + vc) as u32;
                self.events.push(back, Event::Credit { queue: upstream, phits: size });
            }
            Peer::Terminal(nic) => self.events.push(back, Event::NicCredit { nic, vc: vc as u32, phits: size }),
            Peer::Unplugged => unreachable!("a packet arrived through an unplugged port"),
        }
        if self.fifo.len(q) == 0 {
            self.wake(self.channel_switch[q / self.vcs] as usize, now);
        } else {
            self.new_front(q, now);
        }
    }
}
