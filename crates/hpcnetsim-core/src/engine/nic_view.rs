//! The NICs' share of a parallel step: the NICs' state, the engine's event queue and
//! wake-ups, the free packet records and the observers, borrowed for one step, so that the
//! NIC and delivery events of a round (or the NICs' injection attempts of a cycle) run on
//! one thread while the partitions handle their switches' on the others, instead of after
//! them with the other threads idle (docs/performance.md, "The NICs beside the partitions").
//!
//! Sound because the two sides touch disjoint state: switches never touch a NIC's queue,
//! credits or random stream (they send them events), NICs read of the switches only the
//! occupancy of their links' input queues, which a transmission starting in the same cycle
//! does not change (`queue_state.rs`), and the partitions count in their own counters. The
//! packet records are the one thing both sides use: the partitions read them during the
//! step, so the records this view creates or marks are written after it
//! (`PacketWrites::apply`). Ids are taken as the sequential engine takes them, the last
//! freed record first and then the next new index, in the events' canonical order
//! (`Event::serial_key`), so they do not depend on the number of threads.
//!
//! Used only where the NICs need nothing else: a causal workload's NICs move its tasks'
//! messages, and wormhole switching (sequential anyway) shares the switches' state with
//! them; those runs keep their NIC events on the engine's thread.

use super::queue::EventQueue;
use super::{count_delivery, first_wake};
use crate::event::{Event, Packet, NO_MESSAGE};
use crate::nic::{Nic, NicSide, Nics};
use crate::observe::{Counters, Observers};
use crate::perf::prefetch::{pipelined, prefetch};
use crate::routing::Routing;
use crate::switch::queue_state::QueueState;
use crate::switch::reach::{borrowed_reach, Knobs, Reach, Scratch};
use crate::switch::Model;
use crate::topology::Topology;

/// What the NICs do in a step.
#[derive(Clone, Copy)]
pub(super) enum NicWork<'w> {
    /// Nothing: the step is the partitions' only.
    Idle,
    /// Handle a round's NIC and delivery events, sorted by `Event::serial_key`.
    Events(&'w [(u128, Event)]),
    /// Let the NICs among these wake-up targets try to inject (every target a NIC).
    Inject(&'w [u32]),
}

/// Packet records created or marked during a step, written after it.
#[derive(Default)]
pub(super) struct PacketWrites {
    /// New records by id, in the order their ids were taken.
    created: Vec<(u32, Packet)>,
    /// Packets injected in the step, and when.
    injected: Vec<(u32, u64)>,
    /// How many of `created` are past the records' end.
    fresh: u32,
}

impl PacketWrites {
    /// Writes the step's records into `packets` (an id past the end is the next new one).
    pub(super) fn apply(&mut self, packets: &mut Vec<Packet>) {
        // The ids are scattered over the records (the last freed first), and this runs on
        // one thread between two steps: ask for the records a few writes ahead, so that
        // their misses overlap (on the 256x256 torus at 40 %, two threads, these writes
        // took 4 % of the run without; docs/performance.md, "More partitions than threads").
        let (created, injected) = (&self.created, &self.injected);
        let none = |_: &Vec<Packet>, _: usize| {};
        pipelined(
            packets,
            created.len(),
            true,
            none,
            none,
            |packets, j| prefetch(packets, created[j].0 as usize),
            |packets, i| {
                let (id, p) = created[i];
                match packets.get_mut(id as usize) {
                    Some(slot) => *slot = p,
                    None => {
                        debug_assert_eq!(id as usize, packets.len(), "new packet ids are consecutive");
                        packets.push(p);
                    }
                }
            },
        );
        pipelined(
            packets,
            injected.len(),
            true,
            none,
            none,
            |packets, j| prefetch(packets, injected[j].0 as usize),
            |packets, i| packets[injected[i].0 as usize].injected = injected[i].1,
        );
        self.created.clear();
        self.injected.clear();
        self.fresh = 0;
    }
}

/// The NICs' state and the engine's services, borrowed for one step.
pub(super) struct NicView<'a> {
    pub(super) topo: &'a Topology,
    pub(super) routing: &'a dyn Routing,
    pub(super) model: &'a Model,
    pub(super) k: Knobs,
    pub(super) now: u64,
    pub(super) packets: &'a [Packet],
    pub(super) queue_state: &'a [QueueState],
    pub(super) nics: &'a mut Nics,
    pub(super) events: &'a mut EventQueue<Event>,
    /// The engine's wake-ups for the current cycle, and the NICs' stamps (`Engine::wake`).
    pub(super) wakes: &'a mut Vec<u32>,
    pub(super) woken: &'a mut [u8],
    pub(super) tmp: &'a mut Scratch,
    pub(super) stats: &'a mut Observers,
    pub(super) free_packets: &'a mut Vec<u32>,
    pub(super) writes: &'a mut PacketWrites,
}

impl NicView<'_> {
    /// Does `work`.
    pub(super) fn run(&mut self, work: NicWork) {
        let now = self.now;
        match work {
            NicWork::Idle => {}
            NicWork::Events(events) => {
                for &(_, ev) in events {
                    match ev {
                        Event::Generate { nic } => self.generate(nic as usize, now),
                        Event::NicTail { nic } => self.nic_tail_left(nic as usize, now),
                        Event::NicCredit { nic, vc, phits } => self.nic_credit(nic as usize, vc as usize, phits, now),
                        Event::Deliver { packet } => self.deliver(packet),
                        other => unreachable!("{other:?} is not an event of a NIC of independent traffic"),
                    }
                }
            }
            NicWork::Inject(targets) => {
                let switches = self.topo.num_switches();
                for &target in targets {
                    self.try_inject(target as usize - switches, now);
                }
            }
        }
    }

    /// Packet `packet` reached its destination (`Engine::deliver` without tasks).
    fn deliver(&mut self, packet: u32) {
        let p = self.packets[packet as usize];
        debug_assert_eq!(p.message, NO_MESSAGE, "a message's packet on a run without tasks");
        count_delivery(self.stats, self.model, self.k.recording, &p, None, self.now);
        self.free_packets.push(packet);
    }
}

impl Reach for NicView<'_> {
    borrowed_reach!();
    #[inline]
    fn packet(&self, p: u32) -> &Packet {
        debug_assert!(!self.writes.created.iter().any(|&(id, _)| id == p), "packet {p} is written after the step");
        &self.packets[p as usize]
    }
    #[inline]
    fn tmp(&mut self) -> &mut Scratch {
        self.tmp
    }
    #[inline]
    fn counters(&mut self) -> &mut Counters {
        &mut self.stats.counters
    }
    #[inline]
    fn push_event(&mut self, cycle: u64, ev: Event) {
        self.events.push(cycle, ev);
    }
    /// As `Engine::wake`, for NIC targets.
    #[inline]
    fn wake(&mut self, target: usize, cycle: u64) {
        if cycle == self.now {
            if first_wake(&mut self.woken[target - self.topo.num_switches()], cycle) {
                self.wakes.push(target as u32);
            }
        } else {
            self.events.push(cycle, Event::Wake { target: target as u32 });
        }
    }
}

impl NicSide for NicView<'_> {
    #[inline]
    fn nics(&mut self) -> &mut Nics {
        self.nics
    }
    #[inline]
    fn nics_ref(&self) -> &Nics {
        self.nics
    }
    /// `Engine::new_packet` without tasks: the id the sequential engine would take, the
    /// record written after the step.
    fn new_packet(&mut self, mut p: Packet) -> u32 {
        p.offset = self.routing.address_offset(p.src as usize, p.dst as usize, p.size);
        let id = match self.free_packets.pop() {
            Some(id) => id,
            None => {
                self.writes.fresh += 1;
                (self.packets.len() + self.writes.fresh as usize - 1) as u32
            }
        };
        self.writes.created.push((id, p));
        id
    }
    #[inline]
    fn set_injected(&mut self, p: u32, now: u64) {
        self.writes.injected.push((p, now));
    }
    #[inline]
    fn packet_created(&mut self) {
        self.stats.in_flight += 1;
    }
    /// Without tasks no message waits for a NIC's queue.
    #[inline]
    fn refill(&mut self, _: usize, _: u64) {}
}
