//! Arbitration of a switch whose arbitration is iSLIP: every input port (all its queues and
//! VCs together) sends one packet at a time, and a matching of input ports to free output
//! links is computed with `crate::switch::islip` whenever the switch is woken.

use super::{Engine, Waiter};
use crate::switch::islip;

impl Engine<'_> {
    /// One iSLIP matching at switch `s`: requests from the front packets of free input ports
    /// whose output link is free and has room downstream, then the grants it matches start.
    pub(super) fn arbitrate_islip(&mut self, s: usize, now: u64) {
        self.counters.arbitrations += 1;
        self.counters.heads_examined += self.waiting[s].len() as u64;
        let base = self.topo.channel(s, 0);
        let ports = self.topo.num_ports(s);
        if self.islip_pairs.len() < ports * ports {
            self.islip_pairs.resize(ports * ports, false);
        }
        let mut reqs = std::mem::take(&mut self.islip_requests);
        let mut payload = std::mem::take(&mut self.islip_payload);
        let mut matched = std::mem::take(&mut self.islip_matched);
        reqs.clear();
        payload.clear();
        matched.clear();
        // The outputs' state is evaluated once per distinct (candidate list, size).
        let mut seen = std::mem::take(&mut self.islip_seen);
        seen.clear();
        for i in 0..self.waiting[s].len() {
            let Waiter { queue: q, class, size } = self.waiting[s][i];
            let input = q as usize / self.voq_ports / self.vcs;
            if self.input_free[input] > now {
                continue; // the input's current tail wakes the switch when it is free
            }
            if let Some(&(_, _, c)) = seen.iter().find(|x| x.0 == class && x.1 == size) {
                if let Some(c) = c {
                    self.islip_request(ports, (input - base) as u32, q, c, &mut reqs, &mut payload);
                }
                continue;
            }
            self.counters.evaluations += 1;
            self.offer(base, class, size, now);
            // The VC: an adaptive one if any can be taken (escape channels last), the one
            // with most room, the first in the routing's order among equals.
            let best = self
                .offers
                .iter()
                .filter(|o| o.takeable)
                .fold(None, |b: Option<&crate::routing::Offer>, o| match b {
                    Some(b) if (!b.candidate.escape, b.room) >= (!o.candidate.escape, o.room) => Some(b),
                    _ => Some(o),
                })
                .map(|o| o.candidate);
            seen.push((class, size, best));
            let Some(c) = best else { continue };
            self.islip_request(ports, (input - base) as u32, q, c, &mut reqs, &mut payload);
        }
        for &(i, o) in &reqs {
            self.islip_pairs[i as usize * ports + o as usize] = false;
        }
        let (g, a) = (&mut self.grant_ptr[base..base + ports], &mut self.accept_ptr[base..base + ports]);
        islip::matching(&reqs, ports, self.model.islip_iterations, g, a, &mut self.islip, &mut matched);
        for &k in &matched {
            let (q, c) = payload[k];
            self.allocate(s, q as usize, c, now);
        }
        // A request left unmatched whose input and output are both still free (too few
        // iterations) is tried again next cycle, as a cycle-driven switch would.
        let retry = reqs
            .iter()
            .any(|&(i, o)| self.input_free[base + i as usize] <= now && self.links[base + o as usize].free <= now);
        if retry {
            self.wake(s, now + 1);
        }
        self.islip_seen = seen;
        self.islip_requests = reqs;
        self.islip_payload = payload;
        self.islip_matched = matched;
    }

    /// Adds the request of queue `q` (input port `input`, candidate `c`), one per (input,
    /// output) pair: the first queue in waiting order.
    fn islip_request(
        &mut self,
        ports: usize,
        input: u32,
        q: u32,
        c: crate::routing::Candidate,
        reqs: &mut Vec<(u32, u32)>,
        payload: &mut Vec<(u32, crate::routing::Candidate)>,
    ) {
        let k = input as usize * ports + c.port as usize;
        if !self.islip_pairs[k] {
            self.islip_pairs[k] = true;
            reqs.push((input, c.port as u32));
            payload.push((q, c));
        }
    }
}
