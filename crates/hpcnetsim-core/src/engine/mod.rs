//! The packet engine: event-driven and exact to the cycle, virtual cut-through at packet
//! granularity (see docs/engine.md for the timing rules).
//!
//! A grant at cycle `t` occupies the output link for `size` cycles; the packet's head
//! reaches the next queue at `t + switch_delay + link_delay`; its tail leaves the current
//! queue at `t + size`, and the freed room reaches the upstream sender `credit_delay`
//! cycles later. A packet is granted only if the whole packet fits downstream. Work is
//! done only when something happens: idle switches and NICs cost nothing.

pub mod control;
pub mod execute;
mod invariants;
pub mod measure;
mod nic_view;
mod parallel;
mod programs;
mod queue;
mod self_schedule;
mod sequential;
mod watchdog;
mod worm_buffers;
mod worm_deadlock;

use crate::config::Config;
use crate::error::Result;
use crate::event::{Event, Packet, NONE, NO_MESSAGE};
use crate::nic::{Nic, NicFlits, Nics};
pub use crate::observe::Counters;
pub use crate::observe::Observers;
use crate::perf::prefetch;
use crate::rng::{stream, Owner};
use crate::routing::{self, Routing};
use crate::switch::buffers::{Fifos, Queues};
use crate::switch::channel_state;
use crate::switch::fabric::{Fabric, Switches};
use crate::switch::reach::{Knobs, Scratch};

use crate::switch::queue_state;
use crate::switch::switch_lists::SwitchLists;
use crate::switch::{Buffers, Model, Tech};
use crate::topology::{Peer, Topology};
pub use crate::workload::exec::StreamStats;
use crate::workload::exec::{Execute, HostPath, Tasks};
use crate::workload::{kernels, placement, Pattern, Source};
pub use parallel::AUTO_MIN_CHANNELS;
use queue::EventQueue;
use std::collections::VecDeque;
pub use worm_buffers::BufferedWorm;

/// A cycle's one-byte tag in `Engine::woken`: 1 to 255, distinct for 255 consecutive cycles.
#[inline]
fn wake_stamp(cycle: u64) -> u8 {
    (cycle % 255) as u8 + 1
}

/// Marks a target's `woken` slot for `cycle`; whether it was not already (its first wake-up
/// in the cycle, the one to schedule).
#[inline]
fn first_wake(slot: &mut u8, cycle: u64) -> bool {
    let fresh = *slot != wake_stamp(cycle);
    *slot = wake_stamp(cycle);
    fresh
}

/// The simulated network: the topology and routing it runs, time and events, the packets,
/// and the component tables (switches, NICs, tasks) and observers.
pub struct Engine<'a> {
    topo: &'a Topology,
    routing: Box<dyn Routing>,
    /// The switch technology: buffers, arbitration, credit unit, latencies.
    model: Model,
    /// The switch component that model resolves to.
    tech: Tech,
    /// The fixed settings the components read (and whether the run prefetches and records).
    k: Knobs,
    /// Every switch's state.
    sw: Switches,
    /// Every NIC's state, and the traffic sources they run.
    nics: Nics,
    /// The task programs of a causal workload, if any.
    tasks: Option<Tasks>,
    packets: Vec<Packet>,
    free_packets: Vec<u32>,
    events: EventQueue<Event>,
    /// The events being handled (a spare buffer between cycles).
    batch: Vec<Event>,
    /// The NIC, delivery and task events of the round being handled, which run after its
    /// switch events in a canonical order (`Event::serial_key`).
    serial: Vec<(u128, Event)>,
    /// The wake-ups (arbitrations and injection attempts) of the current cycle.
    wake: Wakes,
    /// What the run counts and records.
    pub stats: Observers,
    /// Working buffers of routing and arbitration (the sequential engine's).
    tmp: Scratch,
    /// The partitions and threads of the parallel engine, if it is in use.
    parallel: Option<Box<parallel::Parallel>>,
    /// Draws the order of each round of events and each cycle's wake-ups, if set (see
    /// `shuffle_order`).
    shuffle: Option<crate::rng::Stream>,
}

/// The wake-ups of a cycle: whom to arbitrate or let inject, once each.
#[derive(Default)]
struct Wakes {
    /// Per switch and NIC: the stamp (`wake_stamp`) of the cycle it was last woken for, one
    /// byte instead of the cycle's eight so that a large network's flags stay in the cache.
    woken: Vec<u8>,
    /// `woken` holds stamps of cycles from `epoch · 255` only (see `renew_wake_stamps`).
    epoch: u64,
    /// Targets woken for the current cycle, in order.
    list: Vec<u32>,
    /// The wake-ups being handled (a spare buffer between cycles).
    spare: Vec<u32>,
}

impl<'a> Engine<'a> {
    /// Builds the network of `cfg` on `topo` with every queue empty.
    pub fn new(cfg: &Config, topo: &'a Topology) -> Result<Self> {
        Engine::with_model(cfg, topo, Model::new(cfg))
    }

    /// [`Engine::new`] with the switch model resolved from another config: task programs run on
    /// a config without its `[workload]` (which would build a kernel's programs), but their
    /// packet sizes (`workload.packet_cells_*`) must still size the queues.
    pub(super) fn with_model(cfg: &Config, topo: &'a Topology, model: Model) -> Result<Self> {
        let routing = crate::switch::classes::build(cfg, topo)?;
        // On a multi-plane network the traffic runs between endpoints: a plane's terminals.
        let pattern = Pattern::new(&cfg.traffic, topo.plane(), cfg.seed)?;
        let source = Source::new(&cfg.traffic);
        let vcs = cfg.switch.vcs as usize;
        let model_switching = model.switching;
        let max_packet_phits = model.max_packet_phits;
        let queue_phits = model.vc_room;
        let channels = topo.peers().len();
        let switches = topo.num_switches();
        let terminals = topo.num_terminals();
        let links = (0..switches)
            .flat_map(|s| (0..topo.num_ports(s)).map(move |p| (s, p)))
            .map(|(s, p)| channel_state::Link {
                free: 0,
                busy_phits: 0,
                peer: match topo.ports(s)[p] {
                    Peer::Switch { switch, port } => topo.channel(switch as usize, port as usize) as u32,
                    _ => NONE,
                },
                terminal: match topo.ports(s)[p] {
                    Peer::Terminal(t) => t,
                    _ => NONE,
                },
                switch: s as u32,
                next_vc: 0,
            })
            .collect();
        let credit_delay = cfg.switch.credit_delay_cycles as u64;
        let horizon =
            model.hop_delay.max(model.inject_delay).max(model.eject_delay) + credit_delay + 2 * max_packet_phits as u64;
        let voq_ports = match model.buffers {
            Buffers::Fifo => 1,
            Buffers::Voq => (0..switches).map(|s| topo.num_ports(s)).max().unwrap_or(1),
        };
        let fifo = match model.buffers {
            Buffers::Fifo => {
                Queues::Ring(Fifos::new(channels * vcs, queue_phits.div_ceil(model.min_packet_cost()) as usize))
            }
            Buffers::Voq => Queues::Grow(vec![Default::default(); channels * vcs * voq_ports], 0),
        };
        let queues = channels * vcs * voq_ports;
        let state_bytes = queues * std::mem::size_of::<queue_state::QueueState>()
            + channels
                * (std::mem::size_of::<channel_state::Link>() + vcs * std::mem::size_of::<channel_state::OutVc>());
        let tech = Tech::of(&model);
        let k = Knobs {
            vcs,
            voq_ports,
            queue_phits,
            max_packet_phits,
            hop_delay: model.hop_delay,
            inject_delay: model.inject_delay,
            eject_delay: model.eject_delay,
            input_packet_cycles: model.input_packet_cycles,
            credit_delay,
            arbitration: cfg.switch.arbitration,
            output_allocation: cfg.switch.output_allocation,
            selection: cfg.routing.selection,
            tie_break: cfg.routing.tie_break,
            prefetching: state_bytes > prefetch::above_bytes(),
            recording: false,
            observing: false,
            start_view: routing.reads_load() || voq_ports > 1,
        };
        let sw = Switches {
            fifo,
            links,
            out_vcs: vec![
                channel_state::OutVc { credits: queue_phits, reserved: NONE, packet: NONE, rr_last: u32::MAX };
                channels * vcs
            ],
            returned: match k.start_view {
                true => vec![Default::default(); channels * vcs],
                false => Vec::new(),
            },
            queue_state: vec![Default::default(); queues],
            state_bytes,
            input_free: vec![0; channels],
            grant_ptr: vec![0; channels],
            accept_ptr: vec![0; channels],
            lists: vec![SwitchLists::default(); switches],
            busy: vec![0; switches],
            misdelivered: None,
            switch_rng: (0..switches).map(|s| stream(cfg.seed, Owner::Switch, s as u64)).collect(),
            interners: vec![Default::default()],
            tech_state: tech.state(&model, channels, switches, terminals, vcs),
        };
        let nics = Nics {
            pattern,
            source,
            queue_packets: cfg.switch.injection_queue_packets as usize,
            vcs: {
                // Per traffic class: the rule applied to one class's VCs.
                let one = crate::config::SwitchConfig { vcs: cfg.switch.class_vcs(), ..cfg.switch.clone() };
                one.nic_vcs(topo.family()).min(one.vcs as usize)
            },
            queue: vec![VecDeque::new(); terminals],
            sending: vec![false; terminals],
            credits: vec![queue_phits; terminals * vcs],
            rng: (0..terminals).map(|t| stream(cfg.seed, Owner::Nic, t as u64)).collect(),
            choice: routing::Choice::default(),
            planes: (topo.planes() > 1).then(|| {
                routing::plane_selection::PlaneChoice::new(cfg.routing.plane_selection, topo.planes(), topo.endpoints())
            }),
            active_sources: 0,
            stopped: false,
        };
        let mut e = Engine {
            topo,
            routing,
            model,
            tech,
            k,
            sw,
            nics,
            tasks: None,
            packets: Vec::new(),
            free_packets: Vec::new(),
            events: EventQueue::new(horizon),
            batch: Vec::new(),
            serial: Vec::new(),
            wake: Wakes { woken: vec![0; switches + terminals], ..Default::default() },
            stats: Observers::default(),
            tmp: Default::default(),
            parallel: None,
            shuffle: None,
        };
        e.stats.collect(&cfg.stats, crate::observe::Network { channels, vcs });
        if model_switching == crate::switch::Switching::Wormhole {
            // One worm per buffer at a time.
            e.sw.fifo = Queues::Ring(Fifos::new(channels * vcs, 1));
        }
        // The destination NIC consumes a phit per cycle: its channel never runs out of room.
        for (c, peer) in topo.peers().iter().enumerate() {
            if matches!(peer, Peer::Terminal(_)) {
                e.sw.out_vcs[c * vcs..(c + 1) * vcs].iter_mut().for_each(|o| o.credits = u32::MAX);
            }
        }
        if let Some(w) = &cfg.workload {
            // Tasks run on endpoints (on a multi-plane network, each has a port on every plane).
            let (per_terminal, endpoints) = (w.tasks_per_terminal, topo.endpoints());
            let n = if w.tasks == 0 { endpoints * per_terminal } else { w.tasks };
            let programs = kernels::build(w, n)?;
            let terminal = placement::place(w.placement, &w.placement_list, n, per_terminal, endpoints, cfg.seed)?;
            e.load_programs(cfg, programs, terminal);
        } else if e.nics.source.is_active() {
            for nic in 0..terminals {
                if e.nics.pattern.is_active(topo.endpoint_of(nic)) {
                    e.nics.active_sources += 1;
                    let size = e.nics.source.size(&mut e.nics.rng[nic]);
                    let first = e.nics.source.gap(size, &mut e.nics.rng[nic]) - 1;
                    e.events.push(first, Event::Generate { nic: nic as u32 });
                }
            }
        }
        Ok(e)
    }

    /// Name of the routing in use.
    pub fn routing_name(&self) -> &'static str {
        self.routing.name()
    }

    /// Whether the latencies of delivered packets and the links' busy time are recorded.
    pub fn recording(&self) -> bool {
        self.k.recording
    }

    /// Starts or stops recording latencies and link busy time.
    pub fn set_recording(&mut self, on: bool) {
        self.k.recording = on;
        self.k.observing = on && self.stats.wants_hops();
    }

    /// Name of the switch technology in use (`switch/technology.rs`).
    pub fn switch_technology(&self) -> &'static str {
        self.tech.name()
    }

    /// Uniform throughput bound under the routing's actual paths (table routing only).
    pub fn routed_throughput(&self) -> Option<f64> {
        self.routing.throughput_bound()
    }

    /// Number of terminals that generate traffic.
    pub fn active_sources(&self) -> usize {
        self.nics.active_sources
    }

    /// The current cycle.
    pub fn now(&self) -> u64 {
        self.events.now()
    }

    /// Stops every source: packets already generated still travel, no new one is made.
    pub fn stop_sources(&mut self) {
        self.nics.stopped = true;
    }

    /// Checks that the network is empty and every credit is back: all queues empty, every
    /// sender's credits equal to the downstream capacity. Returns what is wrong otherwise.
    pub fn check_idle(&self) -> std::result::Result<(), String> {
        if self.stats.in_flight != 0 {
            return Err(format!("{} packets still in flight", self.stats.in_flight));
        }
        if let Some(q) = self.sw.fifo.first_non_empty() {
            return Err(format!("input queue {q} not empty"));
        }
        if let Some(o) = self.sw.out_vcs.iter().position(|o| o.reserved != NONE) {
            return Err(format!("output VC {o} still reserved"));
        }
        if let Some(n) = self.nics.queue.iter().position(|f| !f.is_empty()) {
            return Err(format!("injection queue of NIC {n} not empty"));
        }
        for (c, peer) in self.topo.peers().iter().enumerate() {
            if let Peer::Switch { .. } = peer {
                for vc in 0..self.k.vcs {
                    let credits = self.sw.out_vcs[c * self.k.vcs + vc].credits;
                    if credits != self.k.queue_phits {
                        return Err(format!(
                            "channel {c} VC {vc} holds {credits} credits, capacity {}",
                            self.k.queue_phits
                        ));
                    }
                }
            }
        }
        if let Some(i) = self.nics.credits.iter().position(|&c| c != self.k.queue_phits) {
            return Err(format!("NIC {} VC {} holds {} credits", i / self.k.vcs, i % self.k.vcs, self.nics.credits[i]));
        }
        Ok(())
    }

    /// Places one packet from `src` to `dst` in `src`'s injection queue at the current
    /// cycle (for zero-load and hand-made experiments).
    pub fn inject(&mut self, src: usize, dst: usize, size: u32) {
        let now = self.now();
        self.enqueue(src, dst, size, now);
        // Called between cycles: the wake-up goes through the queue to be seen.
        let target = (self.topo.num_switches() + src) as u32;
        self.events.push(now, Event::Wake { target });
    }

    fn new_packet(&mut self, mut p: Packet) -> u32 {
        // PARX's rule goes by message size: a message packet counts its whole message.
        let phits = match &self.tasks {
            Some(t) if p.message != NO_MESSAGE => t.messages[p.message as usize].packets.saturating_mul(p.size),
            _ => p.size,
        };
        p.offset = self.routing.address_offset(p.src as usize, p.dst as usize, phits);
        match self.free_packets.pop() {
            Some(i) => {
                self.packets[i as usize] = p;
                i
            }
            None => {
                self.packets.push(p);
                (self.packets.len() - 1) as u32
            }
        }
    }

    /// Forgets the wake-ups of past epochs when `now` starts a new one, so that a stamp in
    /// `woken` equals `wake_stamp(now)` only if it was set for `now`: within an epoch of 255
    /// cycles no two cycles share a stamp, and 0 is no cycle's.
    fn renew_wake_stamps(&mut self, now: u64) {
        if now / 255 != self.wake.epoch {
            self.wake.epoch = now / 255;
            self.wake.woken.fill(0);
        }
    }

    /// Schedules an arbitration (or injection attempt) of `target` at `cycle`, once.
    fn wake(&mut self, target: usize, cycle: u64) {
        if cycle == self.now() {
            if first_wake(&mut self.wake.woken[target], cycle) {
                self.wake.list.push(target as u32);
            }
        } else {
            self.events.push(cycle, Event::Wake { target: target as u32 });
        }
    }

    /// From now on handles each round of a cycle's events, and its wake-ups, in an order
    /// drawn from `seed` on one thread: a check that the order of a cycle's events changes
    /// no result (switches put what the cycle brought in a canonical order before they
    /// arbitrate, `InputQueued::settle`), which lets the parallel engine handle them in
    /// another order than the sequential one.
    pub fn shuffle_order(&mut self, seed: u64) {
        self.set_threads(1);
        self.shuffle = Some(crate::rng::stream(seed, Owner::Setup, u64::MAX));
    }

    /// Runs every event before cycle `limit`.
    pub fn run_until(&mut self, limit: u64) {
        if self.parallel.is_some() {
            return self.run_until_parallel(limit);
        }
        let mut batch = std::mem::take(&mut self.batch);
        while let Some(now) = self.events.next_cycle(limit, &mut batch) {
            self.renew_wake_stamps(now);
            // Phase 1: arrivals, departures, credits, generation, deliveries, round by round
            // (events created for this same cycle while handling one form the next): the
            // switch events in creation order, then the others in a canonical order.
            while !batch.is_empty() {
                self.stats.counters.events += batch.len() as u64;
                if let Some(rng) = &mut self.shuffle {
                    rand::seq::SliceRandom::shuffle(&mut batch[..], rng);
                }
                let on = self.k.prefetching;
                prefetch::pipelined(
                    self,
                    batch.len(),
                    on,
                    |_, _| {},
                    |e, j| e.prefetch_event(&batch[j]),
                    |e, j| e.prefetch_event_switch(&batch[j]),
                    |e, i| match batch[i].serial_key() {
                        Some(key) => e.serial.push((key, batch[i])),
                        None => e.handle(batch[i], now),
                    },
                );
                self.handle_serial(now);
                batch.clear();
                self.events.take_current(&mut batch);
            }
            // Phase 2: arbitration and injection, in the order they were requested
            // (including those an injection requests for this cycle, after the others).
            let mut done = std::mem::take(&mut self.wake.spare);
            while !self.wake.list.is_empty() {
                let mut wakes = std::mem::replace(&mut self.wake.list, std::mem::take(&mut done));
                if let Some(rng) = &mut self.shuffle {
                    rand::seq::SliceRandom::shuffle(&mut wakes[..], rng);
                }
                self.arbitrate_all(&wakes, now);
                done = wakes;
                done.clear();
            }
            self.wake.spare = done;
            self.events.take_current(&mut batch);
            debug_assert!(batch.is_empty(), "arbitration may not create events for its own cycle");
            self.events.advance();
        }
        self.batch = batch;
    }

    /// Arbitrates the switches and lets the NICs inject among `wakes`, in order.
    fn arbitrate_all(&mut self, wakes: &[u32], now: u64) {
        let on = self.k.prefetching && self.tech.prefetches();
        prefetch::pipelined(
            self,
            wakes.len(),
            on,
            |e, j| e.prefetch_wake(wakes[j] as usize, 0),
            |e, j| e.prefetch_wake(wakes[j] as usize, 1),
            |e, j| e.prefetch_wake(wakes[j] as usize, 2),
            |e, i| {
                let target = wakes[i] as usize;
                if target >= e.topo.num_switches() {
                    let nic = target - e.topo.num_switches();
                    match e.tech.flits() {
                        true => e.inject_flits(nic, now),
                        false => e.try_inject(nic, now),
                    }
                } else {
                    let tech = e.tech;
                    tech.arbitrate(e, target, now);
                }
            },
        );
    }

    /// Handles the round's NIC, delivery and task events (`serial`) in their canonical order.
    fn handle_serial(&mut self, now: u64) {
        let mut serial = std::mem::take(&mut self.serial);
        canonical_order(&mut serial);
        for &(_, ev) in &serial {
            self.handle(ev, now);
        }
        serial.clear();
        self.serial = serial;
    }

    fn handle(&mut self, ev: Event, now: u64) {
        match ev {
            Event::Generate { nic } => self.generate(nic as usize, now),
            Event::NicTail { nic } => self.nic_tail_left(nic as usize, now),
            Event::Arrive { .. } | Event::Tail { .. } | Event::Credit { .. } => {
                let tech = self.tech;
                tech.event(self, ev, now)
            }
            Event::NicCredit { nic, vc, phits } => self.nic_credit(nic as usize, vc as usize, phits, now),
            Event::Deliver { packet } => self.deliver(packet, now),
            Event::Wake { target } => self.wake(target as usize, now),
            Event::Resume { task } => self.advance(task as usize, now),
            Event::HostWritten { message } => self.host_written(message, now),
            Event::LocalCopy { message } => self.local_copied(message, now),
            Event::Flit { .. } | Event::FlitCredit { .. } => {
                let tech = self.tech;
                tech.event(self, ev, now)
            }
            Event::NicFlitCredit { nic, vc, tail } => self.nic_flit_credit(nic as usize, vc as usize, tail, now),
        }
    }

    /// Stage `stage` (0, 1, 2) of the prefetch of wake-up `target`: an arbitration (see
    /// `Fabric::prefetch_switch_records`, `prefetch_switch_ports`, `prefetch_offers`) or an
    /// injection attempt, for which: the NIC's records and attachment; the front of its
    /// injection queue and its switch's input queues; the front packet's record.
    #[inline]
    fn prefetch_wake(&self, target: usize, stage: u8) {
        use prefetch::{prefetch, prefetch_range};
        let Some(nic) = target.checked_sub(self.topo.num_switches()) else {
            return match stage {
                0 => self.prefetch_switch_records(target, true),
                1 => self.prefetch_switch_ports(target),
                _ => self.prefetch_offers(target),
            };
        };
        match stage {
            0 => {
                prefetch(&self.nics.sending, nic);
                prefetch(&self.nics.queue, nic);
                prefetch_range(&self.nics.credits, nic * self.k.vcs, self.k.vcs);
                prefetch(&self.nics.rng, nic);
                self.topo.prefetch_terminal(nic);
            }
            1 => {
                if let Some(front) = self.nics.queue[nic].front() {
                    prefetch(std::slice::from_ref(front), 0);
                }
                let (s, port) = self.topo.terminal_attachment(nic);
                let channel = self.topo.channel(s, port);
                prefetch_range(&self.sw.queue_state, channel * self.k.vcs, self.k.vcs);
            }
            _ => {
                if let Some(&p) = self.nics.queue[nic].front() {
                    prefetch(&self.packets, p as usize);
                }
            }
        }
    }

    fn deliver(&mut self, packet: u32, now: u64) {
        let p = self.packets[packet as usize];
        let task = match &self.tasks {
            Some(t) if p.message != NO_MESSAGE => Some(t.messages[p.message as usize].src as usize),
            _ => None,
        };
        count_delivery(&mut self.stats, &self.model, self.k.recording, &p, task, now);
        if p.message != NO_MESSAGE {
            self.message_packet_arrived(p.message, p.size, p.dst as usize, now);
        }
        self.free_packets.push(packet);
    }

    /// The tables of the `[stats]` collectors, at the end of the run.
    pub fn collected_tables(&mut self) -> std::collections::BTreeMap<String, crate::observe::table::Table> {
        let now = self.now();
        self.stats.tables(now)
    }

    /// Phits sent through `channel` while recording.
    pub fn busy_phits(&self, channel: usize) -> u64 {
        self.sw.links[channel].busy_phits
    }

    /// Utilisation of the links over `cycles` of recording: a summary over the
    /// switch-to-switch channels, and every channel's value (indexed like the ports) if asked.
    pub fn link_utilisation(&self, cycles: u64, per_channel: bool) -> crate::stats::Utilisation {
        let u = |c: usize| (self.sw.links[c].busy_phits as f64 / cycles.max(1) as f64).min(1.0);
        let mut links: Vec<f64> =
            (0..self.sw.links.len()).filter(|&c| matches!(self.topo.peers()[c], Peer::Switch { .. })).map(u).collect();
        links.sort_by(f64::total_cmp);
        let q = |f: f64| links.get(((links.len() as f64 - 1.0) * f).round() as usize).copied().unwrap_or(0.0);
        let measured = |x: f64| (cycles > 0).then_some(x);
        crate::stats::Utilisation {
            mean: measured(links.iter().sum::<f64>() / links.len().max(1) as f64),
            p50: measured(q(0.5)),
            p99: measured(q(0.99)),
            max: measured(links.last().copied().unwrap_or(0.0)),
            per_channel: per_channel.then(|| (0..self.sw.links.len()).map(u).collect()),
        }
    }

    /// Whether no event is pending (nothing can happen any more).
    pub fn is_quiet(&self) -> bool {
        self.events.is_empty() && self.wake.list.is_empty() && self.partitions_quiet()
    }
}

/// Puts a round's NIC, delivery and task events in their canonical order (`Event::serial_key`),
/// the order both engines handle them in.
#[inline]
fn canonical_order(serial: &mut [(u128, Event)]) {
    if serial.len() > 1 {
        serial.sort_unstable_by_key(|x| x.0);
    }
}

/// Counts the delivery of packet `p` at `now`, records its latencies if the run is
/// `recording`, and tells the collectors (with the job of `task`, the task that sent it, if
/// any).
fn count_delivery(stats: &mut Observers, model: &Model, recording: bool, p: &Packet, task: Option<usize>, now: u64) {
    stats.counters.delivered += 1;
    stats.counters.delivered_phits += p.size as u64;
    stats.in_flight -= 1;
    stats.last_delivery = now;
    if recording {
        stats.network_latency.record(now - p.injected);
        stats.end_to_end_latency.record(now - p.generated);
        if stats.collecting() {
            let class = match model.traffic_classes {
                1 => 0,
                n => crate::switch::classes::packet_class(p.salt, n),
            };
            let d = crate::observe::Delivery {
                src: p.src,
                dst: p.dst,
                size: p.size,
                generated: p.generated,
                injected: p.injected,
                delivered: now,
                class,
                job: task.map_or(0, |t| stats.job_of(t)),
            };
            stats.delivered(&d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::wake_stamp;

    /// Within an epoch of 255 cycles (see `Engine::renew_wake_stamps`) every cycle has its
    /// own stamp, and none is 0, the stamp of a target never woken since the epoch began.
    #[test]
    fn wake_stamps_are_distinct_within_an_epoch_and_never_zero() {
        for epoch in [0u64, 1, 7, u64::MAX / 255 - 1] {
            let mut seen = [false; 256];
            for cycle in epoch * 255..(epoch + 1) * 255 {
                let s = wake_stamp(cycle) as usize;
                assert!(s != 0 && !seen[s], "cycle {cycle}: stamp {s} repeats or is 0");
                seen[s] = true;
            }
        }
    }
}
