//! Causal workloads inside the engine: task programs advance when their compute ends or
//! their awaited message completes; sends queue packets at the task's NIC, which feeds its
//! injection queue as room appears (no packet is ever dropped).

use crate::workload::Op;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// Packets that belong to no message (independent traffic).
pub(crate) const NO_MESSAGE: u32 = u32::MAX;

/// A message in flight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message {
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) seq: u64,
    pub(crate) packets: u32,
    pub(crate) arrived: u32,
    pub(crate) sent_at: u64,
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
    /// Time from the send to the last packet's arrival, per message.
    pub(crate) message_latency: crate::stats::LatencyHistogram,
    /// Phits delivered per time bin (temporal evolution of the consumed load).
    pub(crate) bin_cycles: u64,
    pub(crate) bins: Vec<u64>,
}

impl Tasks {
    /// Programs placed on terminals (`terminal[i]` for task `i`).
    pub(crate) fn new(
        ops: Vec<Vec<Op>>,
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
        }
    }

    /// Whether every program has finished and every message packet arrived.
    pub(crate) fn all_done(&self) -> bool {
        self.finished == self.ops.len() && self.undelivered == 0
    }

    /// One line per blocked task (at most `limit`), saying what it waits for.
    pub(crate) fn blocked(&self, limit: usize) -> Vec<String> {
        self.waiting
            .iter()
            .enumerate()
            .filter_map(|(t, w)| w.map(|(src, seq)| format!("task {t} waits for message #{seq} from task {src}")))
            .take(limit)
            .collect()
    }

    /// Records `phits` delivered at `now` in the temporal-evolution bins.
    pub(crate) fn record_delivery(&mut self, now: u64, phits: u32) {
        let bin = (now / self.bin_cycles) as usize;
        if bin >= self.bins.len() {
            self.bins.resize(bin + 1, 0);
        }
        self.bins[bin] += phits as u64;
        self.last_progress = now;
    }
}
