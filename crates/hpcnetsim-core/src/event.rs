//! The vocabulary between the engine and its components (switch technologies, NICs, task
//! execution): the events of a cycle, the packet record, and the record of a causal
//! workload's message (shared by the task execution, the NICs and the host model). The engine keeps them in its
//! event wheel and packet table; a component receives the events addressed to it and
//! answers with new ones (`crate::switch::fabric::Fabric::push_event`).

/// Something that happens at a cycle.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A source generates a packet.
    Generate { nic: u32 },
    /// The tail of the packet a NIC is sending has left it.
    NicTail { nic: u32 },
    /// A packet head enters the input buffer `queue` (channel × vcs + vc).
    Arrive { queue: u32, packet: u32 },
    /// The tail of the front packet of `queue` has left it (an input FIFO, or a virtual
    /// output queue: buffer × ports + output port).
    Tail { queue: u32 },
    /// Room returns to the sender of output queue `queue` (channel × vcs + vc).
    Credit { queue: u32, phits: u32 },
    /// Room returns to a NIC for VC `vc` of its switch's input queue.
    NicCredit { nic: u32, vc: u32, phits: u32 },
    /// The tail of a packet reaches its destination.
    Deliver { packet: u32 },
    /// Arbitration at a switch (target < switches) or injection at a NIC (target − switches).
    Wake { target: u32 },
    /// A task's compute interval ends (or its program starts).
    Resume { task: u32 },
    /// The destination NIC has written the last payload of a message to host memory.
    HostWritten { message: u32 },
    /// A message between two tasks of one terminal has been copied in memory (such a
    /// message never enters the network).
    LocalCopy { message: u32 },
    /// Wormhole: a flit of `packet` enters input buffer `queue` (its head if the buffer is empty).
    Flit { queue: u32, packet: u32 },
    /// Wormhole: a flit credit returns to the sender of output VC `queue`; the tail's frees the VC.
    FlitCredit { queue: u32, tail: bool },
    /// Wormhole: a flit credit returns to a NIC for `vc`; the tail's frees the VC.
    NicFlitCredit { nic: u32, vc: u32, tail: bool },
}

impl Event {
    /// Where a NIC, delivery or task event is handled among those of its round: after the
    /// switch events, in the order of this key, so that their effects (room in a NIC's
    /// queue, packet records taken and freed, tasks resumed) do not depend on the order in
    /// which the round's events were created. Deliveries and the host's writes come first,
    /// then tasks resume and sources generate, then room returns to the NICs (a tail leaving
    /// a NIC, credits): a NIC registers what left it at the end of the cycle, so room freed
    /// in a cycle takes new packets from the next. Events with equal keys are equal. `None`
    /// for switch events and wake-ups, whose order changes no result (`InputQueued::settle`).
    /// The key's four parts are packed into one integer, compared at once.
    #[inline]
    pub(crate) fn serial_key(&self) -> Option<u128> {
        let (rank, a, b, c): (u8, u32, u32, u32) = match *self {
            Event::Deliver { packet } => (0, packet, 0, 0),
            Event::HostWritten { message } => (1, message, 0, 0),
            Event::LocalCopy { message } => (1, message, 1, 0),
            Event::Resume { task } => (2, task, 0, 0),
            Event::Generate { nic } => (3, nic, 0, 0),
            Event::NicTail { nic } => (4, nic, 0, 0),
            Event::NicCredit { nic, vc, phits } => (5, nic, vc, phits),
            Event::NicFlitCredit { nic, vc, tail } => (5, nic, vc, tail as u32),
            Event::Arrive { .. }
            | Event::Tail { .. }
            | Event::Credit { .. }
            | Event::Wake { .. }
            | Event::Flit { .. }
            | Event::FlitCredit { .. } => return None,
        };
        Some((rank as u128) << 96 | (a as u128) << 64 | (b as u128) << 32 | c as u128)
    }
}

/// A packet in flight.
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) size: u32,
    pub(crate) generated: u64,
    pub(crate) injected: u64,
    /// The message this packet carries a piece of, or `NO_MESSAGE`.
    pub(crate) message: u32,
    /// Cycle its head entered the input queue it is in (or the NIC's injection link); kept
    /// by debug builds only, whose occupancy check walks the queue.
    pub(crate) arrived: u64,
    /// Random bits for the routing's tie-breaking (see `routing::Request::salt`).
    pub(crate) salt: u32,
    /// LID offset (virtual destination) chosen by the sender; table routing only.
    pub(crate) offset: u8,
}

/// No queue (an unreserved output VC, a queue holding no reservation).
pub const NONE: u32 = u32::MAX;

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
    /// The plane it travels on (multi-plane networks; 0 otherwise).
    pub(crate) plane: u8,
}

impl Message {
    /// A data message of `bytes` from task `src` to `dst`, sent at `now`.
    pub(crate) fn data(src: u32, dst: u32, seq: u64, bytes: u64, now: u64) -> Self {
        Message { src, dst, seq, packets: 0, arrived: 0, sent_at: now, bytes, kind: Kind::Data, ready: now, plane: 0 }
    }
}
