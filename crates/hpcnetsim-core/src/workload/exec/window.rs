//! Bounded memory for causal workloads: message slots are reused once their message has
//! been delivered and matched, and a streamed trace replay holds per task only a window of
//! operations, refilled from the trace as the task runs out of them.

use crate::error::Error;
use crate::workload::traces::stream::ProgramSource;

/// Slots, windows and the source of a streamed replay.
#[derive(Default)]
pub(crate) struct StreamState {
    /// The trace the windows are refilled from (streamed replays only).
    pub(crate) source: Option<Box<dyn ProgramSource>>,
    /// Per task: request sets of the `WaitAny` operations of its window.
    pub(crate) batch_sets: Vec<Vec<Vec<u32>>>,
    /// The first error of the source, or of the replay (a receive smaller than its message):
    /// the replay stops and reports it.
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

impl StreamState {
    /// A free message slot to reuse, if any; counts one more slot in use either way.
    pub(crate) fn take_slot(&mut self) -> Option<u32> {
        self.live += 1;
        self.peak_live = self.peak_live.max(self.live);
        self.free.pop()
    }

    /// Slot `id` is free again.
    pub(crate) fn free_slot(&mut self, id: u32) {
        self.live -= 1;
        self.free.push(id);
    }

    /// A task's window now holds `len` operations.
    pub(crate) fn saw_window(&mut self, len: usize) {
        self.peak_window = self.peak_window.max(len);
    }

    /// The most held at once, with `slots` message slots allocated.
    pub(crate) fn stats(&self, slots: usize) -> StreamStats {
        StreamStats {
            peak_messages: self.peak_live,
            peak_window: self.peak_window,
            peak_buffered: self.source.as_ref().map_or(0, |s| s.peak_buffered()),
            slots,
        }
    }
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
