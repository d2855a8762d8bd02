//! A message of a causal workload as the engine carries it: who sends it to whom, how many
//! packets it takes, what kind of operation it serves. Shared by the task execution
//! (`tasks.rs`), the NIC and host model (`nic.rs`) and the slot reuse (`window.rs`).

/// Packets that belong to no message (independent traffic).
pub(crate) const NO_MESSAGE: u32 = u32::MAX;

/// What a message carries: a task's data, or a rendezvous control packet of the NIC model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Data of a send.
    Data,
    /// Request to send data message `data` (sender to receiver).
    Rts { data: u32 },
    /// Clear to send data message `data` (receiver to sender).
    Cts { data: u32 },
}

/// A message in flight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message {
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) seq: u64,
    pub(crate) packets: u32,
    pub(crate) arrived: u32,
    pub(crate) sent_at: u64,
    /// Length in bytes.
    pub(crate) bytes: u64,
    pub(crate) kind: Kind,
    /// Cycle from which its packets may enter the NIC.
    pub(crate) ready: u64,
}

impl Message {
    /// A data message of `bytes` from task `src` to `dst`, sent at `now`.
    pub(crate) fn data(src: u32, dst: u32, seq: u64, bytes: u64, now: u64) -> Self {
        Message { src, dst, seq, packets: 0, arrived: 0, sent_at: now, bytes, kind: Kind::Data, ready: now }
    }
}
