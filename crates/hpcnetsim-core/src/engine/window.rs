//! Bounded memory for causal workloads: message slots are reused once their message has
//! been delivered and matched, and a streamed trace replay holds per task only a window of
//! operations, refilled from the trace as the task runs out of them.

use super::tasks::{Message, Tasks};
use super::Engine;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::topology::Topology;
use crate::workload::traces::stream::ProgramSource;
use crate::workload::Programs;

/// Slots, windows and the source of a streamed replay.
#[derive(Default)]
pub(crate) struct StreamState {
    /// The trace the windows are refilled from (streamed replays only).
    pub(crate) source: Option<Box<dyn ProgramSource>>,
    /// Per task: request sets of the `WaitAny` operations of its window.
    pub(crate) batch_sets: Vec<Vec<Vec<u32>>>,
    /// The first error of the source (the replay stops and reports it).
    pub(crate) error: Option<Error>,
    /// Free message slots.
    free: Vec<u32>,
    /// Slots in use, and the most ever in use at once.
    live: usize,
    peak_live: usize,
    /// Most operations a task's window has held.
    peak_window: usize,
    /// Data messages sent.
    pub(crate) data_messages: usize,
}

/// What a replay held at most at once: the measure of its memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Message slots (messages sent and not yet delivered and matched).
    pub peak_messages: usize,
    /// Operations in one task's window.
    pub peak_window: usize,
    /// Operations read from the trace and not yet in a window, over all tasks.
    pub peak_buffered: usize,
    /// Message slots allocated (the slot table's length).
    pub slots: usize,
}

impl Tasks {
    /// Stores message `m` in a free slot; its id.
    pub(crate) fn alloc(&mut self, m: Message) -> u32 {
        let s = &mut self.stream;
        s.live += 1;
        s.peak_live = s.peak_live.max(s.live);
        match s.free.pop() {
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
        self.stream.live -= 1;
        self.stream.free.push(id);
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
        self.stream.peak_window = self.stream.peak_window.max(ops.len());
        !ops.is_empty()
    }
}

impl<'a> Engine<'a> {
    /// A network replaying the tasks of `source` as a stream, task `i` on terminal
    /// `terminal[i]` (the trace was checked by a first pass: see `traces::scan`).
    pub fn with_source(
        cfg: &Config,
        topo: &'a Topology,
        source: Box<dyn ProgramSource>,
        terminal: Vec<u32>,
    ) -> Result<Self> {
        let n = source.ranks();
        let mut e = Engine::with_programs(cfg, topo, Programs::new(n), terminal)?;
        let tasks = e.tasks.as_mut().expect("programs loaded");
        tasks.stream.source = Some(source);
        tasks.stream.batch_sets = vec![Vec::new(); n];
        Ok(e)
    }

    /// For causal workloads: the most messages, window operations and buffered trace
    /// operations held at once.
    pub fn stream_stats(&self) -> Option<StreamStats> {
        let t = self.tasks.as_ref()?;
        Some(StreamStats {
            peak_messages: t.stream.peak_live,
            peak_window: t.stream.peak_window,
            peak_buffered: t.stream.source.as_ref().map_or(0, |s| s.peak_buffered()),
            slots: t.messages.len(),
        })
    }

    /// The error that stopped a streamed replay's reading, if any (taken).
    pub fn take_stream_error(&mut self) -> Option<Error> {
        self.tasks.as_mut().and_then(|t| t.stream.error.take())
    }
}
