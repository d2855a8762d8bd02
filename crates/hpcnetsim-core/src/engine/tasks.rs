//! Causal workloads inside the engine: task programs advance when their compute ends or
//! their awaited message completes; sends queue packets at the task's NIC, which feeds its
//! injection queue as room appears (no packet is ever dropped).

use super::matching::{Envelope, Matching, Posted, Req};
use super::{Engine, Event, Packet};
use crate::config::Config;
use crate::error::Result;
pub(crate) use crate::event::{Kind, Message};
use crate::nic::HostState;
use crate::topology::Topology;
use crate::workload::program::NO_REQUEST;
use crate::workload::{message_packets, Op, Programs};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// The state of every task of a causal workload.
pub(crate) struct Tasks {
    pub(crate) ops: Vec<Vec<Op>>,
    pub(crate) pc: Vec<usize>,
    /// Terminal each task runs on.
    pub(crate) terminal: Vec<u32>,
    /// What a blocked task waits for: (source task, message sequence number on that pair).
    pub(crate) waiting: Vec<Option<(u32, u64)>>,
    /// Next sequence number per (source, destination) pair, on each side.
    pub(crate) next_sent: FxHashMap<(u32, u32), u64>,
    pub(crate) next_received: FxHashMap<(u32, u32), u64>,
    /// Messages fully arrived but not yet received by their task.
    pub(crate) complete: FxHashSet<(u32, u32, u64)>,
    pub(crate) messages: Vec<Message>,
    /// Per NIC: messages whose packets are still to enter the injection queue.
    pub(crate) backlog: Vec<VecDeque<(u32, u32)>>,
    /// Packets sent by the programs and not yet delivered.
    pub(crate) undelivered: u64,
    pub(crate) finished: usize,
    /// Cycle at which every program had finished and the network was empty.
    pub(crate) done_at: Option<u64>,
    /// Last cycle a task advanced or a message packet was delivered.
    pub(crate) last_progress: u64,
    pub(crate) packet_phits: u32,
    pub(crate) phit_bytes: u32,
    /// Cell-granular messages (`switch.credit_unit = "cell"` or `workload.packet_cells_*`):
    /// (phits per cell, bytes per cell, smallest and largest packet in phits). Messages are
    /// then counted in phits, packet sizes are drawn per packet, and the last packet of a
    /// message carries only the cells it needs.
    pub(crate) cells: Option<(u32, u32, u32, u32)>,
    /// Time from the send to the last packet's arrival, per message.
    pub(crate) message_latency: crate::stats::LatencyHistogram,
    /// Phits delivered per time bin (temporal evolution of the consumed load).
    pub(crate) bin_cycles: u64,
    pub(crate) bins: Vec<u64>,
    /// Matching of the tagged operations (`Isend`, `Irecv`, `Wait`, `WaitAny`).
    pub(crate) mpi: Matching,
    /// Per task: cycle since which it is blocked in a receive or wait, if it is.
    pub(crate) blocked_since: Vec<Option<u64>>,
    /// Per task: cycles spent blocked in receives and waits.
    pub(crate) wait_cycles: Vec<u64>,
    /// Per task: cycles of compute.
    pub(crate) compute_cycles: Vec<u64>,
    /// Per task: cycle its program ended.
    pub(crate) finish_cycle: Vec<u64>,
    /// Messages per power-of-two latency bin.
    pub(crate) latency_log2: Vec<u64>,
    /// The NIC and host model, when `nic.enabled`.
    pub(crate) host: Option<HostState>,
    /// Rendezvous control messages sent.
    pub(crate) controls: usize,
    /// Message slots, windows and the trace source of a streamed replay (engine/window.rs).
    pub(crate) stream: super::window::StreamState,
}

impl Tasks {
    /// Programs placed on terminals (`terminal[i]` for task `i`).
    pub(crate) fn new(
        ops: Vec<Vec<Op>>,
        sets: Vec<Vec<u32>>,
        terminal: Vec<u32>,
        nics: usize,
        packet_phits: u32,
        phit_bytes: u32,
        bin_cycles: u64,
    ) -> Self {
        let n = ops.len();
        Tasks {
            ops,
            pc: vec![0; n],
            terminal,
            waiting: vec![None; n],
            next_sent: FxHashMap::default(),
            next_received: FxHashMap::default(),
            complete: FxHashSet::default(),
            messages: Vec::new(),
            backlog: vec![VecDeque::new(); nics],
            undelivered: 0,
            finished: 0,
            done_at: None,
            last_progress: 0,
            packet_phits,
            phit_bytes,
            message_latency: Default::default(),
            bin_cycles,
            bins: Vec::new(),
            mpi: Matching::new(n, sets),
            blocked_since: vec![None; n],
            wait_cycles: vec![0; n],
            compute_cycles: vec![0; n],
            finish_cycle: vec![0; n],
            latency_log2: Vec::new(),
            host: None,
            cells: None,
            controls: 0,
            stream: Default::default(),
        }
    }

    /// What a message of `bytes` counts for until it has arrived: its packets, or its phits
    /// (whole cells, at least one) when messages are cell-granular.
    pub(crate) fn units(&self, bytes: u64) -> u32 {
        match self.cells {
            None => message_packets(bytes, self.phit_bytes, self.packet_phits).len() as u32,
            Some((cell_phits, cell_bytes, _, _)) => bytes.div_ceil(cell_bytes as u64).max(1) as u32 * cell_phits,
        }
    }

    /// Whether every program has finished and every message packet arrived.
    pub(crate) fn all_done(&self) -> bool {
        self.finished == self.ops.len() && self.undelivered == 0 && self.host.as_ref().is_none_or(|h| h.writing == 0)
    }

    /// One line per blocked task (at most `limit`), saying what it waits for.
    pub(crate) fn blocked(&self, limit: usize) -> Vec<String> {
        let mut out: Vec<String> = self
            .waiting
            .iter()
            .enumerate()
            .filter_map(|(t, w)| w.map(|(src, seq)| format!("task {t} waits for message #{seq} from task {src}")))
            .take(limit)
            .collect();
        out.extend(self.mpi.unmatched(limit.saturating_sub(out.len())));
        out
    }

    /// With the NIC model, a send first pays its software overhead: returns true (and
    /// schedules the task's return) the first time it is called for this operation.
    fn send_overhead(&mut self, task: usize, now: u64, events: &mut super::queue::EventQueue<Event>) -> bool {
        let Some(h) = self.host.as_mut() else { return false };
        if h.model.send_overhead == 0 || std::mem::take(&mut h.paid[task]) {
            return false;
        }
        h.paid[task] = true;
        events.push(now + h.model.send_overhead, Event::Resume { task: task as u32 });
        true
    }

    /// Hands data message `m` to its sender's NIC (after a rendezvous request when it is
    /// long); returns that NIC and the message's id.
    fn post(&mut self, mut m: Message) -> (usize, u32) {
        let nic = self.terminal[m.src as usize] as usize;
        m.packets = match &self.host {
            Some(h) => h.packets(m.bytes),
            None => self.units(m.bytes),
        };
        self.undelivered += m.packets as u64;
        let id = self.alloc(m);
        self.stream.data_messages += 1;
        let threshold = self.host.as_ref().map_or(0, |h| h.model.rendezvous_threshold);
        if threshold > 0 && m.bytes > threshold {
            // Request and clear-to-send: two header-only packets before the data.
            let rts = self.alloc(Message { packets: 1, bytes: 0, kind: Kind::Rts { data: id }, ..m });
            self.controls += 2;
            self.undelivered += 2;
            self.backlog[nic].push_back((rts, 1));
        } else {
            self.backlog[nic].push_back((id, m.packets));
        }
        (nic, id)
    }

    /// With the NIC model, freeing completed receive request `req` of `task` costs the
    /// receive overhead: the cycle the task goes on, if it has to wait for it.
    fn consumed(&mut self, task: u32, req: u32, now: u64) -> Option<u64> {
        let h = self.host.as_mut()?;
        (h.receives.remove(&(task, req)) && h.model.receive_overhead > 0).then(|| now + h.model.receive_overhead)
    }

    /// Records `phits` delivered at `now` in the temporal-evolution bins.
    pub(crate) fn record_delivery(&mut self, now: u64, phits: u32) {
        let bin = (now / self.bin_cycles) as usize;
        if bin >= self.bins.len() {
            self.bins.resize(bin + 1, 0);
        }
        self.bins[bin] += phits as u64;
        self.last_progress = self.last_progress.max(now);
    }
}

impl<'a> Engine<'a> {
    /// A network running the given task programs, task `i` on terminal `terminal[i]`
    /// (hand-made workloads and traces; kernels come from the config's `[workload]`).
    pub fn with_programs(cfg: &Config, topo: &'a Topology, programs: Programs, terminal: Vec<u32>) -> Result<Self> {
        programs.check()?;
        let n = topo.num_terminals();
        if terminal.len() != programs.len() || terminal.iter().any(|&t| t as usize >= n) {
            return Err(crate::Error::invalid(
                "workload",
                "placement",
                format!("{} terminals for {} tasks", terminal.len(), programs.len()),
                format!("one terminal in 0..{n} per task"),
            ));
        }
        let mut plain = cfg.clone();
        plain.workload = None;
        plain.traffic.load = 0.0;
        let mut e = Engine::new(&plain, topo)?;
        e.load_programs(cfg, programs, terminal);
        Ok(e)
    }

    /// Installs task programs and starts every task at the current cycle; independent
    /// sources stay silent.
    pub(super) fn load_programs(&mut self, cfg: &Config, programs: crate::workload::Programs, terminal: Vec<u32>) {
        let n = programs.len();
        let bin = cfg.measurement.window_cycles;
        let nics = self.topo.num_terminals();
        self.tasks = Some(Tasks::new(
            programs.tasks,
            programs.sets,
            terminal,
            nics,
            cfg.traffic.packet_phits,
            cfg.switch.phit_bytes,
            bin,
        ));
        // The config was validated when it was read: a NIC model that fails here is off.
        if let Ok(Some(model)) = cfg.nic_model() {
            self.tasks.as_mut().expect("just set").host = Some(HostState::new(model, nics, n));
        }
        let w = cfg.workload.as_ref();
        // Cells and the NIC model's payloads are exclusive (the config refuses both at once).
        let host = self.tasks.as_ref().is_some_and(|t| t.host.is_some());
        if !host && (self.model.trim_last_packet || w.is_some_and(|w| w.packet_cells_max > 0)) {
            let cell_phits = self.model.cell_phits;
            let (lo, hi) = match w {
                Some(w) => w.packet_phits(cfg.traffic.packet_phits.next_multiple_of(cell_phits), cell_phits),
                None => (cfg.traffic.packet_phits, cfg.traffic.packet_phits),
            };
            let cell_bytes = cell_phits * cfg.switch.phit_bytes;
            self.tasks.as_mut().expect("tasks").cells = Some((cell_phits, cell_bytes, lo, hi));
        }
        let now = self.now();
        for task in 0..n {
            self.events.push(now, Event::Resume { task: task as u32 });
        }
    }

    /// Runs task `task` from its current operation until it blocks, computes or ends.
    pub(super) fn advance(&mut self, task: usize, now: u64) {
        let t = task as u32;
        loop {
            let Some(tasks) = self.tasks.as_mut() else { return };
            tasks.last_progress = tasks.last_progress.max(now);
            if let Some(since) = tasks.blocked_since[task].take() {
                tasks.wait_cycles[task] += now - since;
            }
            let Some(&op) = tasks.ops[task].get(tasks.pc[task]) else {
                if tasks.refill_window(task) {
                    continue;
                }
                tasks.finish_cycle[task] = now;
                tasks.finished += 1;
                if tasks.all_done() {
                    tasks.done_at = Some(now);
                }
                return;
            };
            match op {
                Op::Send { to, bytes } => {
                    if tasks.send_overhead(task, now, &mut self.events) {
                        return;
                    }
                    let seq = tasks.next_sent.entry((t, to)).or_insert(0);
                    let m = Message::data(t, to, *seq, bytes, now);
                    *seq += 1;
                    let (nic, _) = tasks.post(m);
                    tasks.pc[task] += 1;
                    self.wake(self.topo.num_switches() + nic, now);
                }
                Op::Recv { from, .. } => {
                    let seq = *tasks.next_received.get(&(from, t)).unwrap_or(&0);
                    if !tasks.complete.remove(&(from, t, seq)) {
                        tasks.waiting[task] = Some((from, seq));
                        tasks.blocked_since[task] = Some(now);
                        return;
                    }
                    tasks.next_received.insert((from, t), seq + 1);
                    tasks.pc[task] += 1;
                    let overhead = tasks.host.as_ref().map_or(0, |h| h.model.receive_overhead);
                    if overhead > 0 {
                        self.events.push(now + overhead, Event::Resume { task: t });
                        return;
                    }
                }
                Op::Compute { cycles } => {
                    tasks.pc[task] += 1;
                    tasks.compute_cycles[task] += cycles;
                    // A task computing is progress until its interval ends (traced compute
                    // can be far longer than `stall_cycles`).
                    tasks.last_progress = tasks.last_progress.max(now + cycles);
                    self.events.push(now + cycles, Event::Resume { task: t });
                    return;
                }
                Op::Isend { to, bytes, tag, comm, req } => {
                    if tasks.send_overhead(task, now, &mut self.events) {
                        return;
                    }
                    tasks.mpi.open(task, req);
                    let env = Envelope { tag, comm, send_req: req, recv_req: NO_REQUEST, delivered: false };
                    let (nic, id) = tasks.post(Message::data(t, to, 0, bytes, now));
                    tasks.mpi.send(id, t, to, env);
                    tasks.pc[task] += 1;
                    self.wake(self.topo.num_switches() + nic, now);
                }
                Op::Irecv { from, tag, comm, req, .. } => {
                    if let Some(id) = tasks.mpi.post(task, Posted { from, tag, comm, req }) {
                        // Its message had arrived: matched now, its slot is free.
                        tasks.release(id);
                    }
                    if let Some(h) = tasks.host.as_mut() {
                        h.receives.insert((t, req));
                    }
                    tasks.pc[task] += 1;
                }
                Op::Wait { req } => {
                    if tasks.mpi.state(task, req) == Req::Pending {
                        tasks.mpi.in_wait[task] = true;
                        tasks.blocked_since[task] = Some(now);
                        return;
                    }
                    // A completed request is freed; waiting on a free one returns at once
                    // (MPI_REQUEST_NULL).
                    if let Some(r) = tasks.mpi.reqs[task].get_mut(req as usize) {
                        *r = Req::Free;
                    }
                    tasks.pc[task] += 1;
                    if let Some(at) = tasks.consumed(t, req, now) {
                        self.events.push(at, Event::Resume { task: t });
                        return;
                    }
                }
                Op::WaitAny { set } => {
                    let m = &mut tasks.mpi;
                    // A streamed replay numbers the sets per window batch.
                    let reqs = match tasks.stream.source {
                        Some(_) => &tasks.stream.batch_sets[task][set as usize],
                        None => &m.sets[set as usize],
                    };
                    let state = |r: u32| m.reqs[task].get(r as usize).copied().unwrap_or(Req::Free);
                    let mut freed = None;
                    if let Some(&r) = reqs.iter().find(|&&r| state(r) == Req::Done) {
                        m.reqs[task][r as usize] = Req::Free;
                        freed = Some(r);
                    } else if reqs.iter().any(|&r| state(r) == Req::Pending) {
                        m.in_wait[task] = true;
                        tasks.blocked_since[task] = Some(now);
                        return;
                    }
                    tasks.pc[task] += 1;
                    if let Some(at) = freed.and_then(|r| tasks.consumed(t, r, now)) {
                        self.events.push(at, Event::Resume { task: t });
                        return;
                    }
                }
            }
        }
    }

    /// Moves packets of waiting messages into NIC `nic`'s injection queue while it has room
    /// (and, with the host model, once the DMA engine has read their payload).
    pub(super) fn refill_from_tasks(&mut self, nic: usize, now: u64) {
        let Some(tasks) = self.tasks.as_mut() else { return };
        let mut created = Vec::new();
        loop {
            if self.nics.queue[nic].len() + created.len() >= self.nics.queue_packets {
                if let Some(h) = tasks.host.as_mut() {
                    h.stall(nic);
                }
                break;
            }
            let Some(&(message, left)) = tasks.backlog[nic].front() else { break };
            let m = tasks.messages[message as usize];
            let size = match tasks.host.as_mut() {
                Some(h) => {
                    let payload = h.payload(&m, m.packets - left);
                    if let Err(at) = h.read(nic, payload, m.ready, now) {
                        self.events.push(at, Event::Wake { target: (self.topo.num_switches() + nic) as u32 });
                        break;
                    }
                    h.model.packet_phits(payload)
                }
                None => match tasks.cells {
                    None => tasks.packet_phits,
                    Some((cell, _, lo, hi)) => {
                        let draw = if lo == hi {
                            lo
                        } else {
                            let cells = rand::Rng::random_range(&mut self.nics.rng[nic], lo / cell..=hi / cell);
                            cells * cell
                        };
                        draw.min(left)
                    }
                },
            };
            // Cell-granular messages count phits.
            let units = if tasks.cells.is_some() { size } else { 1 };
            let front = tasks.backlog[nic].front_mut().expect("front seen above");
            front.1 -= units;
            if front.1 == 0 {
                tasks.backlog[nic].pop_front();
            }
            let dst = tasks.terminal[m.dst as usize];
            created.push(Packet {
                src: nic as u32,
                dst,
                size,
                generated: now,
                injected: 0,
                message,
                arrived: 0,
                salt: rand::RngCore::next_u32(&mut self.nics.rng[nic]),
                offset: 0,
            });
        }
        for p in created {
            let id = self.new_packet(p);
            self.stats.in_flight += 1;
            self.nics.queue[nic].push_back(id);
        }
    }

    /// A packet of `message` arrived: the message has arrived when it was the last one.
    pub(super) fn message_packet_arrived(&mut self, message: u32, phits: u32, now: u64) {
        let Some(tasks) = self.tasks.as_mut() else { return };
        let units = if tasks.cells.is_some() { phits } else { 1 };
        tasks.undelivered -= units as u64;
        tasks.record_delivery(now, phits);
        let m = &mut tasks.messages[message as usize];
        m.arrived += units;
        if m.arrived == m.packets {
            self.message_arrived(message, now);
        } else {
            self.packet_written(message, now);
        }
        self.check_done(now);
    }

    /// Records the end of the run once every program has finished and the network is empty.
    fn check_done(&mut self, now: u64) {
        if let Some(tasks) = self.tasks.as_mut() {
            if tasks.all_done() && tasks.done_at.is_none() {
                tasks.done_at = Some(now);
            }
        }
    }

    /// Data message `message` is complete at its receiver: requests and receives waiting
    /// for it go on.
    pub(super) fn message_complete(&mut self, message: u32, now: u64) {
        let Some(tasks) = self.tasks.as_mut() else { return };
        let m = tasks.messages[message as usize];
        tasks.message_latency.record(now - m.sent_at);
        let bin = (u64::BITS - (now - m.sent_at).max(1).leading_zeros() - 1) as usize;
        if tasks.latency_log2.len() <= bin {
            tasks.latency_log2.resize(bin + 1, 0);
        }
        tasks.latency_log2[bin] += 1;
        if let Some(Some(env)) = tasks.mpi.envelopes.get_mut(message as usize) {
            env.delivered = true;
            let env = *env;
            // The sender's request first, then the receiver's (if already matched).
            if tasks.mpi.complete(m.src as usize, env.send_req) {
                self.advance(m.src as usize, now);
            }
            let tasks = self.tasks.as_mut().expect("tasks");
            // Matched and delivered: the slot is free (an unmatched one is freed by the
            // receive that matches it).
            if env.recv_req != NO_REQUEST {
                tasks.release(message);
            }
            // The receive overhead is paid when the task frees the request (`consumed`).
            if env.recv_req != NO_REQUEST && tasks.mpi.complete(m.dst as usize, env.recv_req) {
                self.advance(m.dst as usize, now);
            }
        } else if tasks.waiting[m.dst as usize] == Some((m.src, m.seq)) {
            tasks.release(message);
            tasks.waiting[m.dst as usize] = None;
            tasks.next_received.insert((m.src, m.dst), m.seq + 1);
            tasks.pc[m.dst as usize] += 1;
            self.resume_after_receive(m.dst as usize, now);
        } else {
            tasks.release(message);
            tasks.complete.insert((m.src, m.dst, m.seq));
        }
        self.check_done(now);
    }

    /// For causal workloads: the execution time once every program has finished and the
    /// network is empty.
    pub fn execution_time(&self) -> Option<u64> {
        self.tasks.as_ref().and_then(|t| t.done_at)
    }

    /// Number of tasks of the causal workload (0 for independent traffic).
    pub fn num_tasks(&self) -> usize {
        self.tasks.as_ref().map_or(0, |t| t.ops.len())
    }

    /// For causal workloads: per-task compute, wait and finish cycles and the latency
    /// distribution (traffic is added by the caller, which has the programs).
    pub fn replay_stats(&self) -> Option<crate::workload::traces::Replay> {
        let t = self.tasks.as_ref()?;
        Some(crate::workload::traces::Replay {
            compute_cycles: t.compute_cycles.clone(),
            wait_cycles: t.wait_cycles.clone(),
            communication_cycles: t
                .finish_cycle
                .iter()
                .zip(&t.compute_cycles)
                .map(|(f, c)| f.saturating_sub(*c))
                .collect(),
            finish_cycles: t.finish_cycle.clone(),
            latency_histogram: t.latency_log2.clone(),
            traffic: Default::default(),
        })
    }

    /// For causal workloads: what the blocked tasks wait for (at most `limit` lines).
    pub fn blocked_tasks(&self, limit: usize) -> Vec<String> {
        self.tasks.as_ref().map(|t| t.blocked(limit)).unwrap_or_default()
    }

    /// For causal workloads: the last cycle a task advanced or a message packet arrived.
    pub fn last_progress(&self) -> u64 {
        self.tasks.as_ref().map_or(0, |t| t.last_progress)
    }

    /// For causal workloads: messages sent, their latency summary and the consumed load per
    /// time bin (phits per cycle per terminal).
    pub fn workload_stats(&self) -> Option<(usize, crate::stats::Summary, u64, Vec<f64>)> {
        let t = self.tasks.as_ref()?;
        let n = self.topo.num_terminals() as f64;
        let bins = t.bins.iter().map(|&p| p as f64 / (t.bin_cycles as f64 * n)).collect();
        Some((t.stream.data_messages, t.message_latency.summary(), t.bin_cycles, bins))
    }
}

impl Tasks {
    /// Stores message `m` in a free slot; its id (slots are reused: see `window.rs`).
    pub(crate) fn alloc(&mut self, m: Message) -> u32 {
        match self.stream.take_slot() {
            Some(id) => {
                self.messages[id as usize] = m;
                id
            }
            None => {
                self.messages.push(m);
                (self.messages.len() - 1) as u32
            }
        }
    }

    /// Message `id` is done with (delivered and, when tagged, matched): its slot is free.
    pub(crate) fn release(&mut self, id: u32) {
        if let Some(e) = self.mpi.envelopes.get_mut(id as usize) {
            *e = None;
        }
        self.stream.free_slot(id);
    }

    /// Refills `task`'s window from the source once it has run every operation of it;
    /// false when there is no source or its program has ended.
    pub(crate) fn refill_window(&mut self, task: usize) -> bool {
        let Some(source) = self.stream.source.as_mut() else { return false };
        if self.stream.error.is_some() {
            return false;
        }
        let ops = &mut self.ops[task];
        ops.clear();
        self.pc[task] = 0;
        let sets = &mut self.stream.batch_sets[task];
        sets.clear();
        if let Err(e) = source.next(task, ops, sets) {
            self.stream.error = Some(e);
            return false;
        }
        let len = ops.len();
        self.stream.saw_window(len);
        !ops.is_empty()
    }
}
