//! The input-queued virtual cut-through switch of papers 000 and 002 (INSEE's): one FIFO per
//! input port and VC (or virtual output queues, `switch.buffers = "voq"`), a separable
//! allocator that lets every waiting front packet choose among its candidates and grants
//! each output to one of them (round-robin, random or oldest first), and a crossbar input per
//! queue.

use super::fabric::Fabric;
use super::reach::Group;
use super::input_queued::InputQueued;
use super::switch_lists::Waiter;
use super::technology::Technology;
use super::Model;
use crate::config::OutputAllocation;
use crate::event::Event;

/// The input-queued cut-through switch with a separable allocator.
pub struct CutThrough;

impl Technology for CutThrough {
    type Params = ();

    fn selects(_: &Model) -> bool {
        true
    }

    /// Routing, selection and output allocation at switch `s`. Packets whose candidate lists (and sizes)
    /// are identical share one evaluation of the outputs' state.
    fn arbitrate<F: Fabric + ?Sized>(f: &mut F, s: usize, now: u64) {
        debug_assert_eq!(f.busy(s), !f.waiting(s).is_empty() || !f.pending(s).is_empty(), "flag of {s}");
        if !f.busy(s) {
            // Nothing to grant or start: the lists are not read.
            f.counters().arbitrations += 1;
            return;
        }
        f.settle(s);
        let k = f.knobs();
        let mut requests = std::mem::take(&mut f.tmp().requests);
        let mut groups = std::mem::take(&mut f.tmp().groups);
        let mut choices = std::mem::take(&mut f.tmp().choices);
        requests.clear();
        choices.clear();
        let mut used = 0;
        let base = f.topo().channel(s, 0);
        f.counters().arbitrations += 1;
        let waiting = f.waiting(s).len();
        f.counters().heads_examined += waiting as u64;
        // Whether a packet could have taken a candidate it did not request.
        let mut missed = false;
        for i in 0..waiting {
            let Waiter { queue: q, class, size, .. } = f.waiting(s)[i];
            let g = match groups[..used].iter().position(|g: &Group| g.class == class && g.size == size) {
                Some(g) => g,
                None => {
                    f.counters().evaluations += 1;
                    f.offer(base, class, size, now);
                    if used == groups.len() {
                        groups.push(Group::default());
                    }
                    let g = &mut groups[used];
                    (g.class, g.size) = (class, size);
                    g.choice.prepare(k.selection, k.tie_break, &f.tmp().offers);
                    used += 1;
                    used - 1
                }
            };
            choices.push((q, g as u32));
            match groups[g].choice.pick(f.switch_rng(s)) {
                Some(c) => requests.push((f.output_key(base, c), q, c, g as u32)),
                None => missed |= !groups[g].choice.available().is_empty(),
            }
        }
        // One grant per output (link or VC); requests are grouped by output, in arrival order.
        let (granted, winners, contended) =
            f.grant_each_output(&mut requests, k.output_allocation == OutputAllocation::Vc, |e, q, c, _| e.allocate(s, q, c, now));
        missed |= contended;
        if k.output_allocation == OutputAllocation::Vc {
            f.start_pending(s, now);
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
                        .any(|&c| !granted.contains(&f.output_key(base, c)))
            });
            if retry {
                f.wake(s, now + 1);
            }
        }
        let tmp = f.tmp();
        tmp.granted_outputs = granted;
        tmp.winners = winners;
        tmp.requests = requests;
        tmp.groups = groups;
        tmp.choices = choices;
    }

    #[inline]
    fn event<F: Fabric + ?Sized>(f: &mut F, ev: Event, now: u64) {
        f.switch_event(ev, now)
    }
}
