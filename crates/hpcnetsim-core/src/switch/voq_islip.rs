//! The EXTOLL-like switch of paper 003: virtual output queues in multi-queue buffers, and an
//! iSLIP matching of input ports to free output links (`crate::switch::islip`) whenever the
//! switch is woken; every input port (all its queues and VCs together) sends one packet at
//! a time.

use super::fabric::Fabric;
use super::input_queued::InputQueued;
use super::switch_lists::Waiter;
use super::technology::Technology;
use super::{islip, Model};
use crate::config::Arbitration;
use crate::event::Event;

/// The VOQ switch with iSLIP matching (`switch.arbitration = "islip"`).
pub struct VoqIslip;

impl Technology for VoqIslip {
    type Params = ();

    fn selects(model: &Model) -> bool {
        model.arbitration == Arbitration::Islip
    }

    #[inline]
    fn arbitrate<F: Fabric + ?Sized>(f: &mut F, s: usize, now: u64) {
        f.arbitrate_islip(s, now)
    }

    #[inline]
    fn event<F: Fabric + ?Sized>(f: &mut F, ev: Event, now: u64) {
        f.switch_event(ev, now)
    }
}

/// iSLIP arbitration, for the whole network or one partition.
pub(crate) trait Islip: InputQueued {
    /// One iSLIP matching at switch `s`: requests from the front packets of free input ports
    /// whose output link is free and has room downstream, then the grants it matches start.
    fn arbitrate_islip(&mut self, s: usize, now: u64) {
        self.settle(s);
        let k = self.knobs();
        let waiting = self.waiting(s).len();
        self.counters().arbitrations += 1;
        self.counters().heads_examined += waiting as u64;
        let base = self.topo().channel(s, 0);
        let ports = self.topo().num_ports(s);
        let tmp = self.tmp();
        if tmp.islip_pairs.len() < ports * ports {
            tmp.islip_pairs.resize(ports * ports, false);
        }
        let mut reqs = std::mem::take(&mut tmp.islip_requests);
        let mut payload = std::mem::take(&mut tmp.islip_payload);
        let mut matched = std::mem::take(&mut tmp.islip_matched);
        reqs.clear();
        payload.clear();
        matched.clear();
        // The outputs' state is evaluated once per distinct (candidate list, size).
        let mut seen = std::mem::take(&mut tmp.islip_seen);
        seen.clear();
        for i in 0..waiting {
            let Waiter { queue: q, class, size, .. } = self.waiting(s)[i];
            let input = k.queue_channel(q as usize);
            if self.input_free(input) > now {
                continue; // the input's current tail wakes the switch when it is free
            }
            if let Some(&(_, _, c)) = seen.iter().find(|x| x.0 == class && x.1 == size) {
                if let Some(c) = c {
                    self.islip_request(ports, (input - base) as u32, q, c, &mut reqs, &mut payload);
                }
                continue;
            }
            self.counters().evaluations += 1;
            self.offer(base, class, size, now);
            // The VC: an adaptive one if any can be taken (escape channels last), the one
            // with most room, the first in the routing's order among equals.
            let best = self
                .tmp()
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
            self.tmp().islip_pairs[i as usize * ports + o as usize] = false;
        }
        let iterations = self.model().islip_iterations;
        let (g, a, tmp) = self.islip_state(base, ports);
        islip::matching(&reqs, ports, iterations, g, a, &mut tmp.islip, &mut matched);
        for &k in &matched {
            let (q, c) = payload[k];
            self.allocate(s, q as usize, c, now);
        }
        // A request left unmatched whose input and output are both still free (too few
        // iterations) is tried again next cycle, as a cycle-driven switch would.
        let retry = reqs
            .iter()
            .any(|&(i, o)| self.input_free(base + i as usize) <= now && self.link(base + o as usize).free <= now);
        if retry {
            self.wake(s, now + 1);
        }
        let tmp = self.tmp();
        tmp.islip_seen = seen;
        tmp.islip_requests = reqs;
        tmp.islip_payload = payload;
        tmp.islip_matched = matched;
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
        let pairs = &mut self.tmp().islip_pairs;
        if !pairs[k] {
            pairs[k] = true;
            reqs.push((input, c.port as u32));
            payload.push((q, c));
        }
    }
}

impl<F: InputQueued + ?Sized> Islip for F {}
