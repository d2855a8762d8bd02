//! The state of a causal workload's tasks: their programs and where each stands, the
//! messages in flight and their slots, what each NIC still has to send, the matching of the
//! tagged operations, the host model, and what the run records of them.

use super::host::HostState;
use super::matching::Matching;
use super::window::StreamState;
use crate::event::{Kind, Message};
use crate::observe::latency::{LatencyHistogram, Summary};
use crate::rng::Stream;
use crate::routing::plane_selection::PlaneChoice;
use crate::workload::traces::Replay;
use crate::workload::{message_packet_count, Op};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// The plane of a message whose packets are split over every plane (`Message::plane`).
pub(crate) const STRIPED: u8 = u8::MAX;

/// Packets of a message still to enter one NIC's injection queue: `left` units (packets, or
/// phits when messages are cell-granular) of its units before `end` (the NIC's share ends
/// there; a message on one plane has one share, ending at its last unit).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pending {
    pub(crate) message: u32,
    pub(crate) left: u32,
    pub(crate) end: u32,
}

impl Pending {
    /// The whole of `m`, or its one packet (a control message).
    pub(crate) fn all(message: u32, units: u32) -> Self {
        Pending { message, left: units, end: units }
    }
}

/// NICs given packets to send: `count` of them from `first`, `stride` apart (an endpoint's
/// ports on consecutive planes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NicSet {
    pub(crate) first: usize,
    pub(crate) count: usize,
    pub(crate) stride: usize,
}

impl NicSet {
    /// Each NIC of the set.
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        (0..self.count).map(move |i| self.first + i * self.stride)
    }
}

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
    pub(crate) backlog: Vec<VecDeque<Pending>>,
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
    pub(crate) message_latency: LatencyHistogram,
    /// Phits delivered per time bin (temporal evolution of the consumed load).
    pub(crate) bin_cycles: u64,
    pub(crate) bins: Vec<u64>,
    /// Matching of the tagged operations (`Isend`, `Irecv`, `Wait`, `WaitAny`).
    pub(crate) mpi: Matching,
    /// Per task: cycle since which it is blocked in a receive or wait, if it is.
    pub(crate) blocked_since: Vec<Option<u64>>,
    /// Per task: cycles spent blocked in receives and waits.
    pub(crate) wait_cycles: Vec<u64>,
    /// Per task: cycles of compute (of each interval begun, the whole interval).
    pub(crate) compute_cycles: Vec<u64>,
    /// Per task: cycle its last compute interval ends.
    pub(crate) compute_until: Vec<u64>,
    /// Per task: cycle its program ended.
    pub(crate) finish_cycle: Vec<u64>,
    /// Messages per power-of-two latency bin.
    pub(crate) latency_log2: Vec<u64>,
    /// The NIC and host model, when `nic.enabled`.
    pub(crate) host: Option<HostState>,
    /// Rendezvous control messages sent.
    pub(crate) controls: usize,
    /// Message slots, windows and the trace source of a streamed replay (`window.rs`).
    pub(crate) stream: StreamState,
    /// Endpoints the tasks run on (`terminal`): NIC `p·E + e` is endpoint `e`'s port on
    /// plane `p` of a multi-plane network (one plane otherwise: NIC e).
    pub(crate) endpoints: usize,
    /// On a multi-plane network: the plane of each message, and the stream of random choices.
    pub(crate) planes: Option<(PlaneChoice, Stream)>,
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
            compute_until: vec![0; n],
            finish_cycle: vec![0; n],
            latency_log2: Vec::new(),
            host: None,
            cells: None,
            controls: 0,
            stream: Default::default(),
            endpoints: nics,
            planes: None,
        }
    }

    /// The NIC of task `task`'s endpoint on `plane`.
    #[inline]
    pub(crate) fn nic(&self, task: u32, plane: u8) -> usize {
        plane as usize * self.endpoints + self.terminal[task as usize] as usize
    }

    /// What a message of `bytes` counts for until it has arrived: its packets, or its phits
    /// (whole cells, at least one) when messages are cell-granular.
    pub(crate) fn units(&self, bytes: u64) -> u64 {
        match self.cells {
            None => message_packet_count(bytes, self.phit_bytes, self.packet_phits),
            Some((cell_phits, cell_bytes, _, _)) => {
                bytes.div_ceil(cell_bytes as u64).max(1).saturating_mul(cell_phits as u64)
            }
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

    /// With the NIC model, a send first pays its software overhead: the first time this is
    /// asked for an operation, the cycle the task returns to it.
    pub(crate) fn send_overhead(&mut self, task: usize, now: u64) -> Option<u64> {
        let h = self.host.as_mut()?;
        if h.model.send_overhead == 0 || std::mem::take(&mut h.paid[task]) {
            return None;
        }
        h.paid[task] = true;
        Some(now + h.model.send_overhead)
    }

    /// Hands data message `m` to its sender's NIC (after a rendezvous request when it is
    /// long), or to its NICs on every plane when it is striped; returns the NICs to wake (the
    /// first, and how many: plane after plane) and the message's id.
    pub(crate) fn post(&mut self, mut m: Message) -> (NicSet, u32) {
        if let Some((choice, rng)) = &mut self.planes {
            let (from, to) = (self.terminal[m.src as usize] as usize, self.terminal[m.dst as usize] as usize);
            let (backlog, e) = (&self.backlog, self.endpoints);
            m.plane = match choice.stripes() && self.cells.is_none() {
                true => STRIPED,
                false => choice.pick(from, to, rng, |p| backlog[p * e + from].len()) as u8,
            };
        }
        let (units, unit) = match &self.host {
            Some(h) => {
                (h.packets(m.bytes), format!("packets of at most {} bytes (nic.max_payload)", h.model.max_payload))
            }
            None if self.cells.is_some() => (self.units(m.bytes), "phits in cells (switch.cell_bytes)".to_string()),
            None => (
                self.units(m.bytes),
                format!(
                    "packets of {} bytes (switch.phit_bytes × traffic.packet_phits)",
                    self.phit_bytes as u64 * self.packet_phits as u64
                ),
            ),
        };
        // A message counts its packets in 32 bits: a larger one stops the run (a wrapped count
        // would deliver nothing, or too little, and call it done).
        m.packets = u32::try_from(units).unwrap_or_else(|_| {
            self.stream.error.get_or_insert(crate::error::Error::invalid(
                "workload",
                format!("message from task {} to task {}", m.src, m.dst),
                format!("{} bytes", m.bytes),
                format!("at most {} {unit}", u32::MAX),
            ));
            1
        });
        let id = self.admit(m);
        let threshold = self.host.as_ref().map_or(0, |h| h.model.rendezvous_threshold);
        if threshold > 0 && m.bytes > threshold {
            // Request and clear-to-send: two header-only packets before the data (on plane
            // 0 when the data is striped).
            let plane = if m.plane == STRIPED { 0 } else { m.plane };
            let rts = self.alloc(Message { packets: 1, bytes: 0, kind: Kind::Rts { data: id }, plane, ..m });
            self.controls += 2;
            self.undelivered += 2;
            let nic = self.nic(m.src, plane);
            self.backlog[nic].push_back(Pending::all(rts, 1));
            (NicSet { first: nic, count: 1, stride: 0 }, id)
        } else {
            (self.queue_data(id), id)
        }
    }

    /// Stores data message `m` between two tasks of one terminal, which is copied in memory
    /// rather than sent; its id and the cycles the copy takes (one per phit, at least one).
    /// It counts as undelivered until copied, so that the run does not end before it.
    pub(crate) fn post_local(&mut self, mut m: Message) -> (u32, u64) {
        m.packets = 1;
        (self.admit(m), m.bytes.div_ceil(self.phit_bytes as u64).max(1))
    }

    /// Stores data message `m` (its packets counted undelivered until they arrive) and
    /// returns its id.
    fn admit(&mut self, m: Message) -> u32 {
        self.undelivered += m.packets as u64;
        self.stream.data_messages += 1;
        self.alloc(m)
    }

    /// Puts data message `id`'s packets in its sender's NIC backlog, or a share in each
    /// plane's when it is striped (the first planes take one more when they do not divide
    /// evenly); the NICs given work.
    pub(crate) fn queue_data(&mut self, id: u32) -> NicSet {
        let m = self.messages[id as usize];
        if m.plane != STRIPED {
            let nic = self.nic(m.src, m.plane);
            self.backlog[nic].push_back(Pending::all(id, m.packets));
            return NicSet { first: nic, count: 1, stride: 0 };
        }
        let planes = self.planes.as_ref().map_or(1, |(c, _)| c.planes()) as u32;
        let (share, extra) = (m.packets / planes, m.packets % planes);
        let mut end = 0;
        for p in 0..planes {
            let units = share + u32::from(p < extra);
            if units > 0 {
                end += units;
                let nic = self.nic(m.src, p as u8);
                self.backlog[nic].push_back(Pending { message: id, left: units, end });
            }
        }
        let count = (planes as usize).min(m.packets as usize);
        NicSet { first: self.nic(m.src, 0), count, stride: self.endpoints }
    }

    /// With the NIC model, freeing completed receive request `req` of `task` costs the
    /// receive overhead: the cycle the task goes on, if it has to wait for it.
    pub(crate) fn consumed(&mut self, task: u32, req: u32, now: u64) -> Option<u64> {
        let h = self.host.as_mut()?;
        (h.receives.remove(&(task, req)) && h.model.receive_overhead > 0).then(|| now + h.model.receive_overhead)
    }

    /// Records a packet of `phits` whose tail arrived at `now` in the temporal-evolution bins.
    /// Its phits arrived one a cycle up to `now`, so each bin gets those of its own cycles:
    /// counted whole at the tail, a packet crossing into a short last bin read as more than a
    /// phit per cycle (16 phits in a 7-cycle bin: 2.29).
    pub(crate) fn record_delivery(&mut self, now: u64, phits: u32) {
        let width = self.bin_cycles;
        let first = now + 1 - (phits as u64).min(now + 1);
        let last_bin = (now / width) as usize;
        if last_bin >= self.bins.len() {
            self.bins.resize(last_bin + 1, 0);
        }
        let mut start = first;
        while start <= now {
            let bin = start / width;
            let end = ((bin + 1) * width - 1).min(now);
            self.bins[bin as usize] += end - start + 1;
            start = end + 1;
        }
        self.last_progress = self.last_progress.max(now);
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

    /// A receive matched with a larger message stops the run with its error (as an error of
    /// the source does: `StreamState::error`).
    pub(crate) fn stop_if_truncated(&mut self) {
        if let Some(e) = self.mpi.truncated.take() {
            self.stream.error.get_or_insert(e);
        }
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

    /// Per-task compute, wait and finish cycles and the latency distribution (the traffic
    /// table is added by the caller, which has the programs), up to cycle `now`: a run
    /// stopped by a budget or a deadlock counts the part of a compute interval or a wait done
    /// by then.
    pub(crate) fn replay(&self, now: u64) -> Replay {
        let compute: Vec<u64> =
            self.compute_cycles.iter().zip(&self.compute_until).map(|(&c, &u)| c - u.saturating_sub(now)).collect();
        let wait = self.wait_cycles.iter().zip(&self.blocked_since);
        Replay {
            wait_cycles: wait.map(|(&w, b)| w + b.map_or(0, |since| now.saturating_sub(since))).collect(),
            communication_cycles: self.finish_cycle.iter().zip(&compute).map(|(f, c)| f.saturating_sub(*c)).collect(),
            compute_cycles: compute,
            finish_cycles: self.finish_cycle.clone(),
            latency_histogram: self.latency_log2.clone(),
        }
    }

    /// Messages sent, their latency summary and the consumed load per time bin (phits per
    /// cycle per terminal, of `terminals`) over cycles `0..end`.
    ///
    /// The series has a bin for every `bin_cycles` up to `end`, also where nothing arrived
    /// (a run ending in computation ends in idle bins), and the last bin is divided by the cycles
    /// it spans, not by a whole bin: a run of 1.5 bins at full load reads 1.0 in both.
    pub(crate) fn workload_stats(&self, terminals: usize, end: u64) -> (usize, Summary, u64, Vec<f64>) {
        let n = terminals as f64;
        let width = self.bin_cycles;
        let count = self.bins.len().max(end.div_ceil(width) as usize);
        let bins = (0..count)
            .map(|k| {
                let phits = self.bins.get(k).copied().unwrap_or(0);
                let spans = end.saturating_sub(k as u64 * width).clamp(1, width);
                phits as f64 / (spans as f64 * n)
            })
            .collect();
        (self.stream.data_messages, self.message_latency.summary(), width, bins)
    }
}
