//! The parallel engine: one simulation on several threads, with results bit-identical to
//! the sequential engine's whatever the number of threads.
//!
//! The switches are cut into consecutive ranges (partitions) of about equal work (see
//! `partition`), several per thread, so each partition's links, output VCs, input queues,
//! waiting packets and random streams are consecutive ranges of the engine's arrays; a
//! thread borrows one partition's ranges at a time during a step, and takes the next
//! partition not yet taken when done (`self_schedule.rs`). A cycle runs as in the
//! sequential engine:
//!
//! 1. each round of the cycle's events: every partition handles, all at once, the events of
//!    its switches (a head arriving, a tail leaving, credits returning, a wake-up) from its
//!    own event wheel and those the engine's thread handed it; beside them, the other
//!    events (sources, NICs, deliveries) run as one more job in their fixed order
//!    (`Event::serial_key`, `nic_view.rs`), or after the step on the engine's thread where
//!    a causal workload's tasks take part;
//! 2. each partition arbitrates the switches it woke in the cycle, all at once, and the NICs
//!    woken try to inject beside them (after them with tasks).
//!
//! What a partition creates for its own switches goes straight into its wheel (and its
//! wake-up list); what it creates for another partition's switches goes to that
//! partition's mail, which the receiver moves into its wheel as its next step starts
//! (`Mail`); what it creates for the engine's thread goes to its outbox, which the engine's
//! thread empties after the step. No global order is restored: none is needed, since no result depends
//! on the order of a cycle's events (`InputQueued::settle`, `Event::serial_key`, and the
//! starting credits of `channel_state::Returned`). Handling a step's items on different
//! threads is safe because items of different switches, and switch items against NIC items,
//! touch disjoint state: a switch reads of other switches only the occupancy of the queues it
//! sends into, which a transmission starting in the same cycle does not change
//! (`queue_state.rs`); NICs read of switches only that occupancy too; packet records are
//! read-only during a step (those created, marked or freed in it are written after it); and
//! every random stream belongs to one switch or NIC.

use super::nic_view::{NicView, NicWork, PacketWrites};
use super::queue::EventQueue;
use super::self_schedule::run_each;
use super::{Engine, Wakes};
use crate::event::{Event, Packet};
use crate::nic::Nic;
use crate::observe::Counters;
use crate::perf::prefetch::pipelined;
use crate::rng::Stream;
use crate::routing::{Candidate, Routing};
use crate::slices::cut;
use crate::switch::buffers::QueuesMut;
use crate::switch::channel_state::{Link, OutVc, Returned};
use crate::switch::fabric::{Fabric, Interner, Misdelivery, Switches};
use crate::switch::queue_state::QueueState;
use crate::switch::reach::{borrowed_reach, Knobs, Reach, Scratch};
use crate::switch::switch_lists::SwitchLists;
use crate::switch::Model;
use crate::switch::Tech;
use crate::topology::Topology;
use std::collections::VecDeque;
use std::sync::Mutex;

/// Channels (switch ports) from which the parallel engine is used when the thread count is
/// automatic: below, a cycle holds too little work to pay for handing it to other threads
/// (docs/performance.md, "On several threads": a 64x64 torus, 20 480 channels, and an
/// 8-ary 4-tree, 32 768, run slower on two threads; a 4-ary 6-tree, 49 152 channels, gains
/// 1.4–1.6×).
pub const AUTO_MIN_CHANNELS: usize = 40_000;

/// Most threads of one simulation.
pub const MAX_THREADS: usize = 255;

/// Partitions per thread: a step's partitions are handed to the threads as they come free
/// (`self_schedule.rs`), so with several each, a thread whose partitions were lighter in a
/// step takes more of them and the threads finish together (docs/performance.md, "More
/// partitions than threads"). More cost more events between partitions.
const PARTS_PER_THREAD: usize = 4;

/// Most partitions (a partition's number is kept in the low byte of its candidate lists'
/// ids, `Interner::part_of`).
const MAX_PARTS: usize = 255;

/// The partitions of the switches and the threads that run them.
pub(super) struct Parallel {
    pool: rayon::ThreadPool,
    threads: usize,
    work: Partitions,
}

/// The partitions of the switches.
struct Partitions {
    /// Partition `i` holds switches `switches[i]..switches[i + 1]` and their channels
    /// `channels[i]..channels[i + 1]`.
    switches: Vec<usize>,
    channels: Vec<usize>,
    /// The same boundaries in input queues.
    queues: Vec<usize>,
    parts: Vec<PartData>,
    /// The packet records the NICs' share of a step created or marked (`nic_view.rs`).
    writes: PacketWrites,
    /// Events the partitions created for one another's switches.
    mail: Mail,
}

/// Events with the cycles they happen at.
type Timed = Vec<(u64, Event)>;

/// Events a partition created for another partition's switches, moved into the receiver's
/// queue by the receiver itself as its next step starts, so that this merge runs on all
/// threads instead of on the engine's between the steps (docs/performance.md, "More
/// partitions than threads"). A sender gathers its events by receiver during a step and
/// hands each receiver's at the end, under that receiver's lock (taken once per sender and
/// step, so hardly ever contended).
struct Mail {
    /// Per receiver, two boxes: the events of even steps and of odd steps, so that those of
    /// one step are posted while those of the step before are taken.
    boxes: Vec<[Mutex<Timed>; 2]>,
    /// Which box the current step posts into.
    parity: usize,
    /// The earliest cycle among the events posted in the last step (`u64::MAX` if none).
    first: u64,
}

impl Mail {
    fn new(parts: usize) -> Self {
        Mail { boxes: (0..parts).map(|_| Default::default()).collect(), parity: 0, first: u64::MAX }
    }

    /// The earliest cycle among the events not yet taken, if before `limit`.
    fn first_pending(&self, limit: u64) -> Option<u64> {
        (self.first < limit).then_some(self.first)
    }

    /// Every event not yet taken.
    fn drain(&mut self) -> impl Iterator<Item = (u64, Event)> + '_ {
        self.first = u64::MAX;
        self.boxes.iter_mut().flatten().flat_map(|b| unpoisoned(b.get_mut()).drain(..))
    }
}

/// A lock's content whether or not a thread panicked holding it (a panic in a step ends the
/// run anyway; it is not to become a second panic here).
fn unpoisoned<T>(r: Result<T, std::sync::PoisonError<T>>) -> T {
    r.unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Partitions {
    /// Whether an event of a switch waits for cycle `now` in a partition's queue or mail.
    fn has_at(&self, now: u64) -> bool {
        self.mail.first == now || self.parts.iter().any(|d| d.wheel.has_at(now))
    }
}

/// What a partition keeps from one step to the next.
struct PartData {
    /// The events of the partition's switches, by cycle (it advances with the engine's).
    wheel: EventQueue<Event>,
    /// Events of the partition's switches that the engine's thread handed over for the
    /// current round.
    inbox: Vec<Event>,
    /// The partition's switches woken for the current cycle.
    wakes: Vec<u32>,
    /// The events of one round (a spare buffer between rounds).
    batch: Vec<Event>,
    /// Events for other partitions' switches created in the current step, by receiver, and
    /// the earliest cycle among them (`u64::MAX` if none).
    posted: Vec<Timed>,
    first_posted: u64,
    tmp: Scratch,
    counters: Counters,
    out: Outbox,
}

impl PartData {
    fn new(wheel: EventQueue<Event>, parts: usize) -> Self {
        PartData {
            wheel,
            inbox: Vec::new(),
            wakes: Vec::new(),
            batch: Vec::new(),
            posted: vec![Vec::new(); parts],
            first_posted: u64::MAX,
            tmp: Scratch::default(),
            counters: Counters::default(),
            out: Outbox::default(),
        }
    }
}

/// What a partition created during one step for the engine's thread: events of NICs and
/// deliveries, and the effects written after the step.
#[derive(Default)]
struct Outbox {
    events: Vec<(u64, Event)>,
    /// Packets whose heads entered a queue (`Packet::arrived`, written after the step).
    arrivals: Vec<(u32, u64)>,
    /// The first misdelivery of the step in the partition.
    misdelivered: Option<Misdelivery>,
}

/// What the threads do in a step.
#[derive(Clone, Copy)]
enum Step {
    /// Handle the round's events of each partition's switches: those handed over and those
    /// of its own queue.
    Events,
    /// Arbitrate each partition's switches woken in the cycle.
    Wakes,
}

/// One partition's state, borrowed from the engine for a step.
struct Part<'a> {
    topo: &'a Topology,
    routing: &'a dyn Routing,
    model: &'a Model,
    tech: Tech,
    packets: &'a [Packet],
    queue_state: &'a [QueueState],
    k: Knobs,
    part: u32,
    now: u64,
    /// First switch and first channel of the partition, and the first after it.
    sw0: usize,
    ch0: usize,
    sw1: usize,
    ch1: usize,
    links: &'a mut [Link],
    out_vcs: &'a mut [OutVc],
    returned: &'a mut [Returned],
    fifo: QueuesMut<'a>,
    lists: &'a mut [SwitchLists],
    switch_rng: &'a mut [Stream],
    woken: &'a mut [u8],
    busy: &'a mut [u8],
    input_free: &'a mut [u64],
    grant_ptr: &'a mut [u32],
    accept_ptr: &'a mut [u32],
    interner: &'a mut Interner,
    data: &'a mut PartData,
    /// The partitions' first switches and first channels (for the owner of an event).
    switch_cuts: &'a [usize],
    channel_cuts: &'a [usize],
    mail: &'a Mail,
}

/// One job of a step: a partition's share, or the NICs'.
enum Job<'v, 'p, 'n, 'w> {
    Nics(&'v mut NicView<'n>, NicWork<'w>),
    Part(&'v mut Part<'p>),
}

/// Runs `step` on every partition of `views`, and the NICs' `work` on `nics`, on the pool's
/// threads (`self_schedule.rs`). The NICs' work, as large as two or three partitions', is
/// handed out first, so that the partitions fill in around it.
fn run_all(views: &mut [Part], step: Step, nics: &mut NicView, work: NicWork) {
    let mut jobs = Vec::with_capacity(views.len() + 1);
    if !matches!(work, NicWork::Idle) {
        jobs.push(Job::Nics(nics, work));
    }
    jobs.extend(views.iter_mut().map(Job::Part));
    run_each(jobs, |job| match job {
        Job::Nics(nics, work) => nics.run(work),
        Job::Part(part) => part.run(step),
    });
}

/// The partition of the switch event `ev` belongs to, if it is a switch event, among the
/// partitions starting at `switch_cuts` and `channel_cuts`, in a network of `switches`
/// switches; `channel` is the event's channel (`Fabric::event_channel`).
#[inline]
fn owner(
    switch_cuts: &[usize],
    channel_cuts: &[usize],
    switches: usize,
    ev: &Event,
    channel: Option<usize>,
) -> Option<usize> {
    if let Event::Wake { target } = *ev {
        let target = target as usize;
        return (target < switches).then(|| switch_cuts.partition_point(|&s| s <= target) - 1);
    }
    let channel = channel?;
    Some(channel_cuts.partition_point(|&c| c <= channel) - 1)
}

/// Weight of a terminal against a switch port when the partitions are balanced: a port
/// attached to a terminal carries the injection and delivery work besides its switch's.
const TERMINAL_WEIGHT: usize = 2;

/// The work a partition is balanced by at switch `s`: its ports plus `TERMINAL_WEIGHT` per
/// terminal attached.
fn work(topo: &Topology, s: usize) -> usize {
    topo.num_ports(s) + TERMINAL_WEIGHT * topo.terminals_at()[s] as usize
}

/// The partition boundaries of `topo`'s switches for `parts` partitions: consecutive
/// ranges with about equal `work`. Returns (switch cuts, channel cuts).
fn partition(topo: &Topology, parts: usize) -> (Vec<usize>, Vec<usize>) {
    let switches = topo.num_switches();
    let weight = |s: usize| work(topo, s);
    let total: usize = (0..switches).map(weight).sum();
    let (mut sw, mut ch) = (vec![0], vec![0]);
    let mut before = 0;
    for s in 0..switches {
        let next = sw.len();
        // Cut before `s` once its middle lies past the share: each cut within half a switch of it.
        if next < parts && (2 * before + weight(s)) * parts > 2 * total * next && s > *sw.last().unwrap() {
            sw.push(s);
            ch.push(topo.channel(s, 0));
        }
        before += weight(s);
    }
    sw.push(switches);
    ch.push(topo.peers().len());
    (sw, ch)
}

impl Engine<'_> {
    /// Channels of the network (each direction of a link counts once).
    pub fn channels(&self) -> usize {
        self.topo.peers().len()
    }

    /// Threads the automatic choice starts from: every core of the machine (at most `cores`
    /// when given) for a network of at least `AUTO_MIN_CHANNELS` channels, one below.
    pub fn auto_threads(&self, cores: Option<usize>) -> usize {
        match self.topo.peers().len() >= AUTO_MIN_CHANNELS {
            true => {
                let all = std::thread::available_parallelism().map_or(1, |n| n.get());
                cores.map_or(all, |c| c.clamp(1, all))
            }
            false => 1,
        }
    }

    /// Runs this simulation on `threads` threads from now on (0: `auto_threads`), before
    /// the run or between two `run_until`s. Results do not depend on the choice. Wormhole
    /// switching and routings with a global view (`Routing::global_view`) always run on one
    /// thread. Returns the number of threads used.
    pub fn set_threads(&mut self, threads: usize) -> usize {
        let wanted = match threads {
            0 => self.auto_threads(None),
            n => n,
        };
        // Each thread needs at least one switch; wormhole switching is sequential, and so is
        // a routing that reads other switches' ports (a partition holds only its own).
        let threads = wanted.min(self.topo.num_switches()).min(MAX_THREADS);
        if threads <= 1 || !self.tech.parallel() || self.stats.wants_hops() || self.routing.global_view() {
            if self.leave_parallel() {
                self.reintern(&[0, self.topo.num_switches()]);
            }
            return 1;
        }
        if self.threads() == threads {
            return threads;
        }
        let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(threads).build() else {
            return self.set_threads(1);
        };
        let parts = (threads * PARTS_PER_THREAD).min(MAX_PARTS);
        let (switches, channels) = partition(self.topo, parts);
        let parts = switches.len() - 1;
        self.leave_parallel();
        self.reintern(&switches);
        self.parallel = Some(Box::new(Parallel {
            pool,
            threads,
            work: Partitions {
                queues: channels.iter().map(|&c| c * self.k.vcs * self.k.voq_ports).collect(),
                switches,
                channels,
                parts: (0..parts).map(|_| PartData::new(self.events.sibling(), parts)).collect(),
                writes: PacketWrites::default(),
                mail: Mail::new(parts),
            },
        }));
        threads
    }

    /// Ends the parallel engine, if in use: the events of the partitions' queues return to
    /// the engine's. Returns whether it was in use.
    fn leave_parallel(&mut self) -> bool {
        let Some(mut par) = self.parallel.take() else {
            return false;
        };
        for d in &mut par.work.parts {
            d.wheel.drain_into(&mut self.events);
        }
        for (cycle, ev) in par.work.mail.drain() {
            self.events.push(cycle, ev);
        }
        true
    }

    /// Whether no event waits in a partition's queue or mail.
    pub(super) fn partitions_quiet(&self) -> bool {
        self.parallel
            .as_ref()
            .is_none_or(|p| p.work.mail.first == u64::MAX && p.work.parts.iter().all(|d| d.wheel.is_empty()))
    }

    /// Gives each partition of the switch cuts `cuts` a fresh table of candidate lists and
    /// moves into it the lists its waiting packets name. An id is only compared with the
    /// ids of the other packets waiting at its switch, which then all come from one table,
    /// so packets with the same options still share one id (and one group) at every switch.
    fn reintern(&mut self, cuts: &[usize]) {
        let old = std::mem::take(&mut self.sw.interners);
        self.sw.interners = (1..cuts.len()).map(|_| Interner::default()).collect();
        for (p, table) in self.sw.interners.iter_mut().enumerate() {
            for lists in &mut self.sw.lists[cuts[p]..cuts[p + 1]] {
                for w in lists.waiting_mut() {
                    w.class = table.intern(old[Interner::part_of(w.class)].get(w.class), p as u32);
                }
            }
        }
    }

    /// Lets the sequential engine prefetch (or not) whatever the size of the state (see
    /// `prefetch::above_bytes`; the parallel engine always does); results do not depend on
    /// it.
    pub fn set_prefetching(&mut self, on: bool) {
        self.k.prefetching = on;
    }

    /// Whether the sequential engine prefetches now.
    pub fn prefetching(&self) -> bool {
        self.k.prefetching
    }

    /// The modes a [`Control`](super::control::Control) may choose among for a run asked to
    /// use `threads` (0: automatic) and to prefetch as `prefetch` says (`None`: either), the
    /// engine's current mode first: one thread or all cores where the count is automatic and
    /// the network large enough for several (`auto_threads`), and on one thread with and
    /// without prefetching, or only without where the state fits in a core's level-2 cache
    /// (`prefetch::worth_trying_above_bytes`). Wormhole switching has one mode.
    /// `cores` caps the automatic thread count (`None`: every core).
    pub fn modes(&self, threads: usize, prefetch: Option<bool>, cores: Option<usize>) -> Vec<super::control::Mode> {
        use super::control::Mode;
        let now = Mode { threads: self.threads(), prefetch: self.threads() > 1 || self.k.prefetching };
        if self.tech.flits() {
            return vec![now];
        }
        let counts = match (threads, self.auto_threads(cores)) {
            (0, many) if many > 1 => vec![1, many],
            _ => vec![self.threads()],
        };
        let mut modes = vec![now];
        for t in counts {
            let options: &[bool] = match (t, prefetch) {
                (1, None) if self.sw.state_bytes > crate::perf::prefetch::worth_trying_above_bytes() => &[false, true],
                (1, None) => &[false],
                (1, Some(true)) => &[true],
                (1, Some(false)) => &[false],
                _ => &[true],
            };
            modes.extend(options.iter().map(|&prefetch| Mode { threads: t, prefetch }).filter(|m| *m != now));
        }
        modes
    }

    /// Runs from now on in `mode` (see [`Engine::set_threads`]; the parallel engine always
    /// prefetches). Results do not depend on it.
    pub fn set_mode(&mut self, mode: super::control::Mode) {
        if mode.threads != self.threads() {
            self.set_threads(mode.threads);
        }
        self.k.prefetching = mode.prefetch;
    }

    /// Packets waiting for a grant at the switches now.
    pub fn waiting_packets(&self) -> usize {
        self.sw.lists.iter().map(|l| l.waiting().len()).sum()
    }

    /// Threads this simulation runs on.
    pub fn threads(&self) -> usize {
        self.parallel.as_ref().map_or(1, |p| p.threads)
    }

    /// The partition of the switch an event belongs to, if it is a switch event.
    #[inline]
    fn owner(&self, par: &Partitions, ev: &Event) -> Option<usize> {
        owner(&par.switches, &par.channels, self.topo.num_switches(), ev, self.event_channel(ev))
    }

    /// `run_until` on several threads (see the module's documentation).
    pub(super) fn run_until_parallel(&mut self, limit: u64) {
        let mut par = self.parallel.take().expect("the parallel engine");
        // The whole loop runs on one of the pool's threads, which takes its share of each
        // step's jobs beside the others (`self_schedule.rs`).
        let Parallel { pool, work, .. } = &mut *par;
        pool.install(|| self.cycles(work, limit));
        self.parallel = Some(par);
    }

    /// The cycles before `limit` (see `run_until_parallel`).
    fn cycles(&mut self, par: &mut Partitions, limit: u64) {
        let mut batch = std::mem::take(&mut self.batch);
        let switches = self.topo.num_switches();
        loop {
            // The next cycle with an event in the engine's queue, a partition's, or the mail.
            let mut next = self.events.first_pending(limit);
            for d in &par.parts {
                if let Some(c) = d.wheel.first_pending(next.unwrap_or(limit)) {
                    next = Some(c);
                }
            }
            if let Some(c) = par.mail.first_pending(next.unwrap_or(limit)) {
                next = Some(c);
            }
            let Some(now) = next else {
                // Nothing before the limit: every queue moves there.
                let to = limit.max(self.events.now());
                self.events.move_to(to);
                for d in &mut par.parts {
                    d.wheel.move_to(to);
                }
                break;
            };
            batch.clear();
            self.events.take_at(now, &mut batch);
            for d in &mut par.parts {
                d.wheel.move_to(now);
            }
            self.renew_wake_stamps(now);
            // Phase 1: the cycle's events, round by round. The engine's thread hands the
            // switch events of its queue to their partitions and keeps the others.
            loop {
                self.stats.counters.events += batch.len() as u64;
                for &ev in &batch {
                    match (self.owner(par, &ev), ev.serial_key()) {
                        (Some(p), _) => par.parts[p].inbox.push(ev),
                        (None, Some(key)) => self.serial.push((key, ev)),
                        (None, None) => self.handle(ev, now),
                    }
                }
                batch.clear();
                if par.parts.iter().any(|d| !d.inbox.is_empty()) || par.has_at(now) {
                    // The round's NIC and delivery events run beside the partitions' where
                    // the NICs need nothing else (`nic_view.rs`); otherwise after them.
                    let mut serial = std::mem::take(&mut self.serial);
                    let beside = self.tasks.is_none() && !serial.is_empty();
                    let work = match beside {
                        true => {
                            super::canonical_order(&mut serial);
                            NicWork::Events(&serial)
                        }
                        false => NicWork::Idle,
                    };
                    self.step(par, now, Step::Events, work);
                    if beside {
                        serial.clear();
                    }
                    self.serial = serial;
                    self.collect(par);
                }
                self.handle_serial(now);
                self.finish_step(par);
                self.events.take_current(&mut batch);
                if batch.is_empty() && !par.has_at(now) {
                    break;
                }
            }
            // Phase 2: the partitions arbitrate their woken switches and, beside them, the
            // NICs woken try to inject where they need nothing else (`nic_view.rs`); then
            // the wake-ups left (all of them otherwise) on this thread.
            let mut nics = std::mem::replace(&mut self.wake.list, std::mem::take(&mut self.wake.spare));
            let beside = self.tasks.is_none()
                && !nics.is_empty()
                && nics.iter().all(|&t| t as usize >= switches)
                && par.parts.iter().any(|d| !d.wakes.is_empty());
            if !beside {
                std::mem::swap(&mut self.wake.list, &mut nics);
            }
            let mut work = match beside {
                true => NicWork::Inject(&nics),
                false => NicWork::Idle,
            };
            while par.parts.iter().any(|d| !d.wakes.is_empty()) {
                self.step(par, now, Step::Wakes, work);
                work = NicWork::Idle;
                self.collect(par);
            }
            nics.clear();
            self.wake.spare = nics;
            let mut i = 0;
            while i < self.wake.list.len() {
                let target = self.wake.list[i] as usize;
                if target >= switches {
                    self.try_inject(target - switches, now);
                } else {
                    let tech = self.tech;
                    tech.arbitrate(self, target, now);
                }
                i += 1;
            }
            self.wake.list.clear();
            self.finish_step(par);
            self.events.take_current(&mut batch);
            debug_assert!(batch.is_empty(), "arbitration may not create events for its own cycle");
            debug_assert!(!par.has_at(now), "arbitration may not create events for its own cycle");
            self.events.advance();
            for d in &mut par.parts {
                d.wheel.advance();
            }
        }
        for d in &mut par.parts {
            let c = std::mem::take(&mut d.counters);
            self.stats.counters.events += c.events;
            self.stats.counters.arbitrations += c.arbitrations;
            self.stats.counters.heads_examined += c.heads_examined;
            self.stats.counters.evaluations += c.evaluations;
            self.stats.counters.packet_hops += c.packet_hops;
            self.stats.counters.phit_hops += c.phit_hops;
        }
        self.batch = batch;
    }

    /// Moves the events the partitions created for the engine's thread (NICs, deliveries)
    /// into its queue.
    fn collect(&mut self, par: &mut Partitions) {
        for d in &mut par.parts {
            for (cycle, ev) in d.out.events.drain(..) {
                self.events.push(cycle, ev);
            }
        }
    }

    /// Applies the deferred effects of a step.
    fn finish_step(&mut self, par: &mut Partitions) {
        par.writes.apply(&mut self.packets);
        for d in &mut par.parts {
            for &(p, at) in &d.out.arrivals {
                self.packets[p as usize].arrived = at;
            }
            d.out.arrivals.clear();
            if let Some(m) = d.out.misdelivered.take() {
                self.sw.misdelivered = Misdelivery::first(self.sw.misdelivered, m);
            }
        }
    }

    /// Runs `step` on every partition, one thread each, and the NICs' `work` beside them.
    fn step(&mut self, par: &mut Partitions, now: u64, step: Step, work: NicWork) {
        let mut k = self.knobs();
        // Whatever the network's size: a partition reads lines that the other threads wrote,
        // which miss in its core's caches (on a 4-ary 6-tree, two threads without the
        // prefetch took 1.3–1.9 times as long as one).
        k.prefetching = true;
        let parts = par.parts.len();
        let tech = self.tech;
        let Engine { topo, routing, model, packets, sw, wake, nics, events, tmp, stats, free_packets, .. } = self;
        let Switches {
            queue_state,
            links,
            out_vcs,
            returned,
            fifo,
            lists,
            switch_rng,
            busy,
            input_free,
            grant_ptr,
            accept_ptr,
            interners,
            ..
        } = sw;
        let Wakes { woken, list, .. } = wake;
        let (sw, ch) = (&par.switches, &par.channels);
        let mut fifo = fifo.split(&par.queues).into_iter();
        let (mut links, mut out_vcs, mut lists) = (&mut links[..], &mut out_vcs[..], &mut lists[..]);
        let mut returned = &mut returned[..];
        let (mut switch_rng, mut woken, mut busy) = (&mut switch_rng[..], &mut woken[..], &mut busy[..]);
        let (mut input_free, mut grant_ptr, mut accept_ptr) =
            (&mut input_free[..], &mut grant_ptr[..], &mut accept_ptr[..]);
        let mut views = Vec::with_capacity(parts);
        for (i, (interner, data)) in interners.iter_mut().zip(par.parts.iter_mut()).enumerate() {
            let (switches, channels) = (sw[i + 1] - sw[i], ch[i + 1] - ch[i]);
            views.push(Part {
                topo,
                routing: &**routing,
                model,
                tech,
                packets,
                queue_state,
                k,
                part: i as u32,
                now,
                sw0: sw[i],
                ch0: ch[i],
                sw1: sw[i + 1],
                ch1: ch[i + 1],
                links: cut(&mut links, channels),
                out_vcs: cut(&mut out_vcs, channels * k.vcs),
                returned: cut(&mut returned, if k.start_view { channels * k.vcs } else { 0 }),
                fifo: fifo.next().expect("one range per partition"),
                lists: cut(&mut lists, switches),
                switch_rng: cut(&mut switch_rng, switches),
                woken: cut(&mut woken, switches),
                busy: cut(&mut busy, switches),
                input_free: cut(&mut input_free, channels),
                grant_ptr: cut(&mut grant_ptr, channels),
                accept_ptr: cut(&mut accept_ptr, channels),
                interner,
                data,
                switch_cuts: sw,
                channel_cuts: ch,
                mail: &par.mail,
            });
        }
        // What the partitions leave of the wake-up stamps is the NICs'.
        debug_assert_eq!(woken.len(), topo.num_terminals(), "the partitions hold every switch's stamp");
        let mut nics = NicView {
            topo,
            routing: &**routing,
            model,
            k,
            now,
            packets,
            queue_state,
            nics,
            events,
            wakes: list,
            woken,
            tmp,
            stats,
            free_packets,
            writes: &mut par.writes,
        };
        run_all(&mut views, step, &mut nics, work);
        // Every partition took the mail of the step before; what they posted now waits.
        debug_assert!(
            par.mail.boxes.iter_mut().all(|b| unpoisoned(b[1 - par.mail.parity].get_mut()).is_empty()),
            "every partition takes its mail"
        );
        par.mail.parity = 1 - par.mail.parity;
        par.mail.first =
            par.parts.iter_mut().map(|d| std::mem::replace(&mut d.first_posted, u64::MAX)).min().unwrap_or(u64::MAX);
    }
}

impl Part<'_> {
    /// Handles this partition's share of a step.
    fn run(&mut self, step: Step) {
        // Large networks: ask for the state of the items ahead, as the sequential engine
        // does, so their cache misses overlap.
        let on = self.k.prefetching;
        let now = self.now;
        self.take_mail();
        match step {
            Step::Events => {
                let mut batch = std::mem::take(&mut self.data.batch);
                batch.clear();
                batch.append(&mut self.data.inbox);
                let handed = batch.len();
                self.data.wheel.take_at(now, &mut batch);
                self.data.counters.events += (batch.len() - handed) as u64;
                pipelined(
                    self,
                    batch.len(),
                    on,
                    |_, _| {},
                    |p, j| p.prefetch_event(&batch[j]),
                    |p, j| p.prefetch_event_switch(&batch[j]),
                    |p, n| match batch[n] {
                        Event::Wake { target } => Reach::wake(p, target as usize, now),
                        ev => p.tech.event(p, ev, now),
                    },
                );
                self.data.batch = batch;
            }
            Step::Wakes => {
                let mut wakes = std::mem::take(&mut self.data.wakes);
                pipelined(
                    self,
                    wakes.len(),
                    on,
                    |p, j| p.prefetch_switch_records(wakes[j] as usize, true),
                    |p, j| p.prefetch_switch_ports(wakes[j] as usize),
                    |p, j| p.prefetch_offers(wakes[j] as usize),
                    |p, n| p.tech.arbitrate(p, wakes[n] as usize, now),
                );
                wakes.clear();
                // Arbitrations wake no switch for their own cycle; kept for the next step if
                // one did.
                wakes.append(&mut self.data.wakes);
                self.data.wakes = wakes;
            }
        }
        self.post_mail();
    }

    /// Moves into the partition's queue the events other partitions created for its
    /// switches in the step before.
    fn take_mail(&mut self) {
        let mut mail = unpoisoned(self.mail.boxes[self.part as usize][1 - self.mail.parity].lock());
        for (cycle, ev) in mail.drain(..) {
            self.data.wheel.push(cycle, ev);
        }
    }

    /// Hands each partition the events this step created for its switches.
    fn post_mail(&mut self) {
        for (to, events) in self.data.posted.iter_mut().enumerate().filter(|(_, e)| !e.is_empty()) {
            unpoisoned(self.mail.boxes[to][self.mail.parity].lock()).append(events);
        }
    }

    /// Whether `ev`, of channel `channel` (`Fabric::event_channel`), is an event of one of
    /// the partition's switches.
    #[inline]
    fn owns(&self, ev: &Event, channel: Option<usize>) -> bool {
        match *ev {
            Event::Wake { target } => (self.sw0..self.sw1).contains(&(target as usize)),
            _ => channel.is_some_and(|c| (self.ch0..self.ch1).contains(&c)),
        }
    }
}

impl<'a> Fabric for Part<'a> {
    #[inline]
    fn link(&self, c: usize) -> &Link {
        &self.links[c - self.ch0]
    }
    #[inline]
    fn link_mut(&mut self, c: usize) -> &mut Link {
        &mut self.links[c - self.ch0]
    }
    #[inline]
    fn out_vc(&self, i: usize) -> &OutVc {
        &self.out_vcs[i - self.ch0 * self.k.vcs]
    }
    #[inline]
    fn out_vc_mut(&mut self, i: usize) -> &mut OutVc {
        &mut self.out_vcs[i - self.ch0 * self.k.vcs]
    }
    #[inline]
    fn returned_mut(&mut self, i: usize) -> &mut Returned {
        &mut self.returned[i - self.ch0 * self.k.vcs]
    }
    #[inline]
    fn returned(&self, i: usize) -> Returned {
        self.returned[i - self.ch0 * self.k.vcs]
    }
    type Slots = &'a mut [u32];
    type Grown = &'a mut [VecDeque<u32>];
    #[inline]
    fn fifo(&self) -> &QueuesMut<'a> {
        &self.fifo
    }
    #[inline]
    fn fifo_mut(&mut self) -> &mut QueuesMut<'a> {
        &mut self.fifo
    }
    #[inline]
    fn lists(&self, s: usize) -> &SwitchLists {
        &self.lists[s - self.sw0]
    }
    #[inline]
    fn lists_mut(&mut self, s: usize) -> &mut SwitchLists {
        &mut self.lists[s - self.sw0]
    }
    #[inline]
    fn busy(&self, s: usize) -> bool {
        self.busy[s - self.sw0] != 0
    }
    #[inline]
    fn set_busy(&mut self, s: usize, busy: bool) {
        self.busy[s - self.sw0] = busy as u8;
    }
    #[inline]
    fn switch_rng(&mut self, s: usize) -> &mut Stream {
        &mut self.switch_rng[s - self.sw0]
    }
    /// Collectors of hops run on one thread (`Engine::set_threads`).
    fn observe_hop(&mut self, _: usize, _: usize, _: u32, _: u64) {
        unreachable!("a run whose collectors observe hops is sequential")
    }
    /// Technologies with state of their own run on one thread (`Technology::parallel`).
    fn tech_state(&self) -> Option<&(dyn std::any::Any + Send)> {
        None
    }
    fn tech_state_mut(&mut self) -> Option<&mut (dyn std::any::Any + Send)> {
        None
    }
    #[inline]
    fn input_free(&self, c: usize) -> u64 {
        self.input_free[c - self.ch0]
    }
    #[inline]
    fn set_input_free(&mut self, c: usize, cycle: u64) {
        self.input_free[c - self.ch0] = cycle;
    }
    fn islip_state(&mut self, base: usize, ports: usize) -> (&mut [u32], &mut [u32], &mut Scratch) {
        let b = base - self.ch0;
        (&mut self.grant_ptr[b..b + ports], &mut self.accept_ptr[b..b + ports], &mut self.data.tmp)
    }
    #[inline]
    fn class(&self, id: u32) -> &[Candidate] {
        self.interner.get(id)
    }
    #[inline]
    fn class_span(&self, id: u32) -> (u16, u16) {
        self.interner.span(id)
    }
    #[inline]
    fn intern(&mut self, list: &[Candidate]) -> u32 {
        self.interner.intern(list, self.part)
    }
    fn misdelivered(&mut self, p: u32, t: u32, now: u64) {
        let m = Misdelivery::of(&self.packets[p as usize], t, now);
        self.data.out.misdelivered = Misdelivery::first(self.data.out.misdelivered, m);
    }
    #[inline]
    fn set_arrived(&mut self, p: u32, now: u64) {
        self.data.out.arrivals.push((p, now));
    }
    #[inline]
    fn prefetch_queue(&self, q: usize) {
        if self.fifo.holds(q) {
            self.fifo.prefetch(q);
        }
        self.prefetch_queue_state(q);
    }
    #[inline]
    fn prefetch_links(&self, c: usize, n: usize) {
        crate::perf::prefetch::prefetch_range(self.links, c.wrapping_sub(self.ch0), n);
    }
    #[inline]
    fn prefetch_out_vcs(&self, i: usize, n: usize) {
        crate::perf::prefetch::prefetch_range(self.out_vcs, i.wrapping_sub(self.ch0 * self.k.vcs), n);
    }
    #[inline]
    fn prefetch_switch_records(&self, s: usize, arbitration: bool) {
        let s = s.wrapping_sub(self.sw0);
        if arbitration && self.busy.get(s) == Some(&0) {
            return;
        }
        crate::perf::prefetch::prefetch(self.lists, s);
    }
    #[inline]
    fn prefetch_switch_rng(&self, s: usize) {
        crate::perf::prefetch::prefetch(self.switch_rng, s.wrapping_sub(self.sw0));
    }
}

impl Reach for Part<'_> {
    borrowed_reach!();
    #[inline]
    fn tmp(&mut self) -> &mut Scratch {
        &mut self.data.tmp
    }
    #[inline]
    fn counters(&mut self) -> &mut Counters {
        &mut self.data.counters
    }
    #[inline]
    fn push_event(&mut self, cycle: u64, ev: Event) {
        // Most events stay within the partition: into its own queue, handled by this
        // thread; those of other partitions' switches go to their mail, the rest to the
        // engine's thread after the step.
        let channel = self.event_channel(&ev);
        if self.owns(&ev, channel) {
            return self.data.wheel.push(cycle, ev);
        }
        match owner(self.switch_cuts, self.channel_cuts, self.topo.num_switches(), &ev, channel) {
            Some(p) => {
                self.data.posted[p].push((cycle, ev));
                self.data.first_posted = self.data.first_posted.min(cycle);
            }
            None => self.data.out.events.push((cycle, ev)),
        }
    }
    #[inline]
    fn wake(&mut self, target: usize, cycle: u64) {
        debug_assert!((self.sw0..self.sw1).contains(&target), "a partition wakes only its own switches");
        if cycle == self.now {
            if super::first_wake(&mut self.woken[target - self.sw0], cycle) {
                self.data.wakes.push(target as u32);
            }
        } else {
            self.push_event(cycle, Event::Wake { target: target as u32 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{partition, work};
    use crate::topology::Topology;

    /// The partitions' work differs by at most one switch's, and their channel cuts are
    /// their first switches' first channels.
    #[test]
    fn partitions_balance_ports_and_terminals() {
        for spec in ["tree:k=4,kp=4,n=4", "torus:8x6", "tree:k=4,kp=2,n=3"] {
            let topo = Topology::from_spec(spec).unwrap();
            let weight = |s: usize| work(&topo, s);
            let heaviest = (0..topo.num_switches()).map(weight).max().unwrap();
            for parts in 2..=3 {
                let (sw, ch) = partition(&topo, parts);
                assert_eq!(sw.len(), parts + 1, "{spec}: {parts} partitions");
                let work: Vec<usize> = sw.windows(2).map(|w| (w[0]..w[1]).map(weight).sum()).collect();
                let (lo, hi) = (*work.iter().min().unwrap(), *work.iter().max().unwrap());
                assert!(hi - lo <= heaviest, "{spec}, {parts} partitions: work {work:?}");
                for i in 0..parts {
                    assert_eq!(ch[i], topo.channel(sw[i], 0), "{spec}: channel cut {i}");
                }
                assert_eq!(ch[parts], topo.peers().len());
            }
        }
        // The leaves of a 4-ary 4-tree carry its terminals: the half holding them has fewer ports.
        let topo = Topology::from_spec("tree:k=4,kp=4,n=4").unwrap();
        let (_, ch) = partition(&topo, 2);
        assert!(ch[1] < topo.peers().len() / 2, "first cut at channel {} of {}", ch[1], topo.peers().len());
    }
}
