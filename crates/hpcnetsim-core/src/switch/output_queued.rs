//! The output-queued switch with internal speedup (`switch.speedup` ≥ 1; preset
//! `output-queued`), the router BookSim2 and SuperSim offer beside input-queued ones.
//!
//! A packet's head enters its input FIFO as in the input-queued switch and is routed there;
//! the front packet then crosses the crossbar into the queue of the output port and VC it
//! chooses, as soon as that queue has room for it and the output's crossbar port is free.
//! The crossbar runs `speedup` times faster than a link: a packet of `size` phits crosses it
//! in ⌈size / speedup⌉ cycles, after which its room in the input FIFO returns upstream; an
//! output accepts one packet at a time, so up to `speedup` packets per packet time. Each
//! output link then sends the packets of its queues, one at a time, taking its VCs
//! round-robin, whenever the downstream buffer has room for the whole packet (virtual cut-
//! through, the same credits as the input-queued switch). A packet's room in its output
//! queue returns when its tail has left on the link.
//!
//! Inputs block only on full output queues: with enough speedup and room there is no
//! head-of-line blocking, and a crossbar accepts nearly all of a full uniform load
//! (`tests/suite/output_queued.rs`). Head timing is the input-queued switch's: a head
//! that finds everything free crosses the crossbar and leaves on the link in the cycle it
//! is routed, so zero-load latencies are identical.

use super::channel_state::End;
use super::fabric::Fabric;
use super::input_queued::InputQueued;
use super::switch_lists::Waiter;
use super::technology::{Parameters, Technology};
use super::Model;
use crate::config::switch::{Buffers, Switching};
use crate::config::{Arbitration, Config, TechnologyFields};
use crate::event::Event;
use crate::routing::{Choice, Offer};
use std::any::Any;
use std::collections::VecDeque;

/// The output-queued switch (`switch.speedup` ≥ 1).
pub struct OutputQueued;

/// Its `[switch]` fields.
#[derive(Clone, Debug, Default)]
pub struct Params {
    /// `switch.speedup`: internal speedup of the crossbar (0: the switch is input-queued;
    /// n ≥ 1: packets cross the crossbar n times faster than a link into output queues).
    pub speedup: u32,
    /// `switch.output_queue_packets`: room of every output queue (one per output port and
    /// VC), in packets of the largest size.
    pub output_queue_packets: u32,
}

/// `switch.speedup` allowed.
const SPEEDUP: &str = "0 (input-queued) or an output-queued crossbar's speedup from 1 to 64";
/// `switch.output_queue_packets` allowed.
const QUEUE_PACKETS: &str = "packets per output queue from 1 to 4096";

impl Parameters for Params {
    const FIELDS: &'static [&'static str] = &["speedup", "output_queue_packets"];

    fn read(fields: &TechnologyFields) -> Self {
        let get = |name| fields.get(name).and_then(|v| v.as_u64()).and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
        Params { speedup: get("speedup"), output_queue_packets: get("output_queue_packets") }
    }

    fn check(cfg: &Config) -> crate::Result<()> {
        let s = &cfg.switch;
        let bad = |field: &str, value: &dyn std::fmt::Display, allowed: &str| {
            crate::Error::invalid("config", field, value, allowed)
        };
        // Whole numbers of the field's range, else the value as written.
        let number = |name: &str, max: u64, allowed: &str| match s.technology_fields.get(name) {
            None => Ok(0),
            Some(v) => match v.as_u64() {
                Some(n) if n <= max => Ok(n as u32),
                _ => Err(bad(&format!("switch.{name}"), v, allowed)),
            },
        };
        let speedup = number("speedup", 64, SPEEDUP)?;
        let queue_packets = number("output_queue_packets", 4096, QUEUE_PACKETS)?;
        if speedup == 0 {
            return Ok(());
        }
        let conflict = if s.switching == Switching::Wormhole {
            Some(("switch.switching", "\"wormhole\"", "\"cut-through\" with an output-queued switch (switch.speedup > 0)"))
        } else if s.buffers == Buffers::Voq {
            Some(("switch.buffers", "\"voq\"", "\"fifo\" with an output-queued switch (switch.speedup > 0)"))
        } else if s.arbitration == Arbitration::Islip {
            Some(("switch.arbitration", "\"islip\"", "random, round-robin or oldest-first with an output-queued switch"))
        } else if queue_packets == 0 {
            Some(("switch.output_queue_packets", "0", "packets per output queue from 1 to 4096 with switch.speedup > 0"))
        } else {
            None
        };
        match conflict {
            Some((field, value, allowed)) => Err(bad(field, &value, allowed)),
            None => Ok(()),
        }
    }
}

/// A packet in an output queue and the downstream room it needs before it may leave.
#[derive(Clone, Copy, Debug)]
struct Queued {
    packet: u32,
    need: u32,
}

/// The output queues of every switch.
struct OutputQueues {
    /// Per output VC (channel × vcs + vc): its packets, in the order they crossed.
    queues: Vec<VecDeque<Queued>>,
    /// Per output VC: free room, in phits.
    room: Vec<u32>,
    /// Room of one output queue, in phits.
    capacity: u32,
    /// Per output channel: the cycle from which its crossbar port may receive again.
    write_free: Vec<u64>,
    /// Per output channel: the output VC and room of the packet leaving on its link.
    leaving: Vec<Option<(u32, u32)>>,
    /// Internal speedup of the crossbar.
    speedup: u32,
    /// The choice among one packet's candidates, reused.
    choice: Choice,
    offers: Vec<Offer>,
}

impl Technology for OutputQueued {
    type Params = Params;

    fn selects(model: &Model) -> bool {
        model.params.output_queued.speedup > 0
    }

    fn arbitrate<F: Fabric + ?Sized>(f: &mut F, s: usize, now: u64) {
        f.settle(s);
        f.counters().arbitrations += 1;
        let base = f.topo().channel(s, 0);
        let ports = f.topo().num_ports(s);
        reclaim(f, base, ports, now);
        cross(f, s, base, now);
        for out in base..base + ports {
            send(f, s, out, now);
        }
    }

    #[inline]
    fn event<F: Fabric + ?Sized>(f: &mut F, ev: Event, now: u64) {
        // Arrivals, tails leaving the input FIFOs and credits are the input-queued switch's.
        f.switch_event(ev, now)
    }

    fn state(model: &Model, channels: usize, _: usize, _: usize, vcs: usize) -> Option<Box<dyn Any + Send>> {
        let p = &model.params.output_queued;
        let capacity = p.output_queue_packets.max(1) * model.max_packet_phits;
        Some(Box::new(OutputQueues {
            queues: vec![VecDeque::new(); channels * vcs],
            room: vec![capacity; channels * vcs],
            capacity,
            write_free: vec![0; channels],
            leaving: vec![None; channels],
            speedup: p.speedup,
            choice: Choice::default(),
            offers: Vec::new(),
        }))
    }

    /// The output queues are not split among partitions: one thread.
    fn parallel() -> bool {
        false
    }
}

fn queues<F: Fabric + ?Sized>(f: &mut F) -> &mut OutputQueues {
    f.tech_state_mut().and_then(|s| s.downcast_mut()).expect("output queues")
}

/// Returns the room of every packet whose tail has left on a link of the switch.
fn reclaim<F: Fabric + ?Sized>(f: &mut F, base: usize, ports: usize, now: u64) {
    for out in base..base + ports {
        let free = f.link(out).free;
        let oq = queues(f);
        if free <= now {
            if let Some((i, cost)) = oq.leaving[out].take() {
                oq.room[i as usize] += cost;
            }
        }
    }
}

/// Moves the waiting front packets of the switch's input FIFOs, in arrival order, into
/// the output queues they choose among those with room and a free crossbar port.
fn cross<F: Fabric + ?Sized>(f: &mut F, s: usize, base: usize, now: u64) {
    let k = f.knobs();
    let mut i = 0;
    let mut retry = false;
    f.counters().heads_examined += f.waiting(s).len() as u64;
    while i < f.waiting(s).len() {
        let Waiter { queue: q, class, size, packet } = f.waiting(s)[i];
        let cost = f.model().credit_cost(size);
        let mut offers = std::mem::take(&mut queues(f).offers);
        offers.clear();
        for j in 0..f.class(class).len() {
            let c = f.class(class)[j];
            let out = base + c.port as usize;
            let oqi = out * k.vcs + c.vc as usize;
            let committed = k.queue_phits.saturating_sub(f.out_vc(oqi).credits);
            let oq = queues(f);
            let room = oq.room[oqi];
            let takeable = room >= cost && oq.write_free[out] <= now;
            // Fewest phits queued at the output and committed downstream.
            let occupancy = oq.capacity - room + committed;
            offers.push(Offer { candidate: c, room, occupancy, takeable });
        }
        f.counters().evaluations += 1;
        let oq = queues(f);
        oq.choice.prepare(k.selection, k.tie_break, &offers);
        let choice = std::mem::take(&mut oq.choice);
        let picked = choice.pick(f.switch_rng(s));
        // A packet that only waits for a crossbar port tries again next cycle; one that
        // waits for room is woken when a packet leaves.
        retry |= picked.is_none() && !choice.available().is_empty();
        retry |= picked.is_none() && offers.iter().any(|o| o.room >= cost && !o.takeable);
        let oq = queues(f);
        oq.choice = choice;
        oq.offers = offers;
        let Some(c) = picked else {
            i += 1;
            continue;
        };
        f.lists_mut(s).take_waiting(q).expect("a waiting packet");
        let out = base + c.port as usize;
        let oqi = out * k.vcs + c.vc as usize;
        let need = if c.bubble { cost + k.max_packet_phits } else { cost };
        let oq = queues(f);
        let crossing = size.div_ceil(oq.speedup) as u64;
        oq.room[oqi] -= cost;
        oq.write_free[out] = now + crossing;
        oq.queues[oqi].push_back(Queued { packet, need });
        // Its tail leaves the input FIFO once it has crossed: the FIFO's next packet is
        // routed then, and the room returns upstream (`InputQueued::tail_leaves` makes the credit now).
        f.queue_state(q as usize).start(size, now);
        f.tail_leaves(q as usize, size, now + crossing);
    }
    f.lists_changed(s);
    if retry {
        f.wake(s, now + 1);
    }
}

/// Output channel `out` of switch `s` starts its next packet if it is free: the first of its
/// VCs, round-robin after the last sender, whose front packet has room downstream.
fn send<F: Fabric + ?Sized>(f: &mut F, s: usize, out: usize, now: u64) {
    if f.link(out).free > now {
        return;
    }
    let k = f.knobs();
    let first = f.link(out).next_vc as usize;
    for i in 0..k.vcs {
        let vc = (first + i) % k.vcs;
        let oqi = out * k.vcs + vc;
        let Some(&Queued { packet, need }) = queues(f).queues[oqi].front() else { continue };
        let end = f.link(out).end();
        if matches!(end, End::Switch(_)) && f.out_vc(oqi).credits < need {
            continue; // credits coming back wake the switch
        }
        queues(f).queues[oqi].pop_front();
        let size = f.packet(packet).size;
        let cost = f.model().credit_cost(size);
        if let End::Switch(_) = end {
            f.out_vc_mut(oqi).credits -= cost;
        }
        let link = f.link_mut(out);
        link.free = now + size as u64;
        link.next_vc = ((vc + 1) % k.vcs) as u8;
        if k.recording {
            link.busy_phits += size as u64;
        }
        if k.observing {
            f.observe_hop(out, vc, size, now);
        }
        queues(f).leaving[out] = Some((oqi as u32, cost));
        match end {
            End::Switch(down) => {
                let next = (down as usize * k.vcs + vc) as u32;
                f.push_event(now + k.hop_delay, Event::Arrive { queue: next, packet });
            }
            End::Terminal(t) => {
                if t != f.packet(packet).dst {
                    f.misdelivered(packet, t, now);
                }
                f.push_event(now + k.eject_delay + size as u64 - 1, Event::Deliver { packet });
            }
            End::Unplugged => unreachable!("routing chose an unplugged port"),
        }
        let counters = f.counters();
        counters.packet_hops += 1;
        counters.phit_hops += size as u64;
        // Its room in the output queue returns, and the link sends again, when the tail has left.
        f.wake(s, now + size as u64);
        return;
    }
}
