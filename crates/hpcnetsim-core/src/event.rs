//! The vocabulary between the engine and its components (switch technologies, NICs, task
//! execution): the events of a cycle and the packet record. The engine keeps them in its
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
    /// Wormhole: a flit of `packet` enters input buffer `queue` (its head if the buffer is empty).
    Flit { queue: u32, packet: u32 },
    /// Wormhole: a flit credit returns to the sender of output VC `queue`; the tail's frees the VC.
    FlitCredit { queue: u32, tail: bool },
    /// Wormhole: a flit credit returns to a NIC for `vc`; the tail's frees the VC.
    NicFlitCredit { nic: u32, vc: u32, tail: bool },
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
