//! The sequential engine as the switches' `Fabric`: every switch's state, owned whole.

use super::Engine;
use crate::event::{Event, Packet};
use crate::nic::{NicSide, Nics};
use crate::observe::Counters;
use crate::rng::Stream;
use crate::routing::{Candidate, Routing};
use crate::switch::buffers::Queues;
use crate::switch::channel_state::{Link, OutVc, Returned};
use crate::switch::fabric::{Fabric, Interner, Misdelivery};
use crate::switch::queue_state::QueueState;
use crate::switch::reach::{Knobs, Reach, Scratch};
use crate::switch::switch_lists::SwitchLists;
use crate::switch::Model;
use crate::topology::Topology;
use crate::workload::exec::{Execute, TaskSide, Tasks};
use std::collections::VecDeque;

impl<'a> Fabric for Engine<'a> {
    #[inline]
    fn link(&self, c: usize) -> &Link {
        &self.sw.links[c]
    }
    #[inline]
    fn link_mut(&mut self, c: usize) -> &mut Link {
        &mut self.sw.links[c]
    }
    #[inline]
    fn out_vc(&self, i: usize) -> &OutVc {
        &self.sw.out_vcs[i]
    }
    #[inline]
    fn out_vc_mut(&mut self, i: usize) -> &mut OutVc {
        &mut self.sw.out_vcs[i]
    }
    #[inline]
    fn returned_mut(&mut self, i: usize) -> &mut Returned {
        &mut self.sw.returned[i]
    }
    #[inline]
    fn returned(&self, i: usize) -> Returned {
        self.sw.returned[i]
    }
    type Slots = Vec<u32>;
    type Grown = Vec<VecDeque<u32>>;
    #[inline]
    fn fifo(&self) -> &Queues {
        &self.sw.fifo
    }
    #[inline]
    fn fifo_mut(&mut self) -> &mut Queues {
        &mut self.sw.fifo
    }
    #[inline]
    fn lists(&self, s: usize) -> &SwitchLists {
        &self.sw.lists[s]
    }
    #[inline]
    fn lists_mut(&mut self, s: usize) -> &mut SwitchLists {
        &mut self.sw.lists[s]
    }
    #[inline]
    fn busy(&self, s: usize) -> bool {
        self.sw.busy[s] != 0
    }
    #[inline]
    fn set_busy(&mut self, s: usize, busy: bool) {
        self.sw.busy[s] = busy as u8;
    }
    #[inline]
    fn switch_rng(&mut self, s: usize) -> &mut Stream {
        &mut self.sw.switch_rng[s]
    }
    #[inline]
    fn tech_state(&self) -> Option<&(dyn std::any::Any + Send)> {
        self.sw.tech_state.as_deref()
    }
    #[inline]
    fn tech_state_mut(&mut self) -> Option<&mut (dyn std::any::Any + Send)> {
        self.sw.tech_state.as_deref_mut()
    }
    #[inline]
    fn input_free(&self, c: usize) -> u64 {
        self.sw.input_free[c]
    }
    #[inline]
    fn set_input_free(&mut self, c: usize, cycle: u64) {
        self.sw.input_free[c] = cycle;
    }
    fn islip_state(&mut self, base: usize, ports: usize) -> (&mut [u32], &mut [u32], &mut Scratch) {
        (&mut self.sw.grant_ptr[base..base + ports], &mut self.sw.accept_ptr[base..base + ports], &mut self.tmp)
    }
    #[inline]
    fn class(&self, id: u32) -> &[Candidate] {
        self.sw.interners[Interner::part_of(id)].get(id)
    }
    #[inline]
    fn class_span(&self, id: u32) -> (u16, u16) {
        self.sw.interners[Interner::part_of(id)].span(id)
    }
    #[inline]
    fn intern(&mut self, list: &[Candidate]) -> u32 {
        // Only the sequential engine interns here: in partition 0's table.
        self.sw.interners[0].intern(list, 0)
    }
    fn misdelivered(&mut self, p: u32, t: u32, now: u64) {
        let m = Misdelivery::of(&self.packets[p as usize], t, now);
        self.sw.misdelivered = Misdelivery::first(self.sw.misdelivered, m);
    }
    #[inline]
    fn set_arrived(&mut self, p: u32, now: u64) {
        self.packets[p as usize].arrived = now;
    }
    fn observe_hop(&mut self, out: usize, vc: usize, phits: u32, now: u64) {
        let h = crate::observe::Hop { channel: out as u32, vc: vc as u32, phits, cycle: now };
        self.stats.hop(&h);
    }
    #[inline]
    fn prefetch_queue(&self, q: usize) {
        self.sw.fifo.prefetch(q);
        self.prefetch_queue_state(q);
    }
    #[inline]
    fn prefetch_links(&self, c: usize, n: usize) {
        crate::perf::prefetch::prefetch_range(&self.sw.links, c, n);
    }
    #[inline]
    fn prefetch_out_vcs(&self, i: usize, n: usize) {
        crate::perf::prefetch::prefetch_range(&self.sw.out_vcs, i, n);
    }
    #[inline]
    fn prefetch_switch_records(&self, s: usize, arbitration: bool) {
        if arbitration && !self.busy(s) {
            return;
        }
        crate::perf::prefetch::prefetch(&self.sw.lists, s);
    }
    #[inline]
    fn prefetch_switch_rng(&self, s: usize) {
        crate::perf::prefetch::prefetch(&self.sw.switch_rng, s);
    }
}

impl Reach for Engine<'_> {
    #[inline]
    fn topo(&self) -> &Topology {
        self.topo
    }
    #[inline]
    fn routing(&self) -> &dyn Routing {
        &*self.routing
    }
    #[inline]
    fn model(&self) -> &Model {
        &self.model
    }
    #[inline]
    fn knobs(&self) -> Knobs {
        self.k
    }
    #[inline]
    fn packets(&self) -> &[Packet] {
        &self.packets
    }
    #[inline]
    fn queue_states(&self) -> &[QueueState] {
        &self.sw.queue_state
    }
    #[inline]
    fn tmp(&mut self) -> &mut Scratch {
        &mut self.tmp
    }
    #[inline]
    fn counters(&mut self) -> &mut Counters {
        &mut self.stats.counters
    }
    #[inline]
    fn push_event(&mut self, cycle: u64, ev: Event) {
        self.events.push(cycle, ev);
    }
    #[inline]
    fn wake(&mut self, target: usize, cycle: u64) {
        Engine::wake(self, target, cycle)
    }
}

impl<'a> NicSide for Engine<'a> {
    #[inline]
    fn nics(&mut self) -> &mut Nics {
        &mut self.nics
    }
    #[inline]
    fn nics_ref(&self) -> &Nics {
        &self.nics
    }
    #[inline]
    fn new_packet(&mut self, p: Packet) -> u32 {
        Engine::new_packet(self, p)
    }
    #[inline]
    fn set_injected(&mut self, p: u32, now: u64) {
        self.packets[p as usize].injected = now;
    }
    #[inline]
    fn packet_created(&mut self) {
        self.stats.in_flight += 1;
    }
    #[inline]
    fn refill(&mut self, nic: usize, now: u64) {
        self.feed_nic(nic, now)
    }
}

impl<'a> TaskSide for Engine<'a> {
    #[inline]
    fn tasks(&mut self) -> Option<&mut Tasks> {
        self.tasks.as_mut()
    }
    #[inline]
    fn schedule(&mut self, at: u64, ev: Event) {
        self.events.push(at, ev);
    }
    #[inline]
    fn wake_nic(&mut self, nic: usize, at: u64) {
        Engine::wake(self, self.topo.num_switches() + nic, at)
    }
    #[inline]
    fn tasks_at_nic(&mut self, nic: usize) -> Option<(&mut Tasks, &mut Stream, usize)> {
        let tasks = self.tasks.as_mut()?;
        let room = self.nics.queue_packets.saturating_sub(self.nics.queue[nic].len());
        Some((tasks, &mut self.nics.rng[nic], room))
    }
    #[inline]
    fn enqueue_packet(&mut self, nic: usize, p: Packet) {
        let id = Engine::new_packet(self, p);
        self.stats.in_flight += 1;
        self.nics.queue[nic].push_back(id);
    }
}
