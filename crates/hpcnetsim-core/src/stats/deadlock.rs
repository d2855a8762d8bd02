//! Evidence of a deadlock: the cycle of channels whose front packets wait for each other.

use serde::Serialize;

/// One input queue in a cycle of blocked channels: the packet at its front cannot move
/// because every queue it may go to is full; it waits for the next entry of the cycle
/// (the last waits for the first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockedChannel {
    /// Switch owning the input queue.
    pub switch: u32,
    /// Input port of that switch.
    pub port: u32,
    /// Virtual channel of the queue.
    pub vc: u32,
    /// Packet id of the front packet holding the queue.
    pub packet: u32,
    /// Source terminal of that packet.
    pub src: u32,
    /// Destination terminal of that packet.
    pub dst: u32,
    /// Packets in the queue (the front one included).
    pub queued_packets: u32,
    /// Output port of the same switch through which it waits for the next entry.
    pub waits_on_port: u32,
    /// Phits of room the packet needs downstream (its size, plus one packet for a bubble).
    pub need_phits: u32,
    /// Phits of room the downstream queue has (its sender's credits).
    pub room_phits: u32,
    /// Capacity of the downstream queue in phits.
    pub capacity_phits: u32,
}

/// Evidence of a deadlock: a cycle of blocked channels, or (when the packets wait for room
/// no queue can ever give) the blocked channels without a cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// Whether `channels` is a cycle (each waits for the next, the last for the first).
    pub cycle: bool,
    /// The blocked channels.
    pub channels: Vec<BlockedChannel>,
}

/// The evidence in one line (see [`describe_cycle`]).
pub fn describe(e: &Evidence) -> String {
    if e.cycle {
        return describe_cycle(&e.channels);
    }
    let Some(b) = e.channels.first() else { return "no blocked channel found".to_string() };
    let never = e.channels.iter().filter(|b| b.need_phits > b.capacity_phits).count();
    format!(
        "no cycle of full queues; {} blocked front packets{}, e.g. s{}.p{}.vc{} (packet {} {}->{}) needs {} phits on output port {}, has {} of {}",
        e.channels.len(),
        if never > 0 { format!(" ({never} need more room than a queue holds)") } else { String::new() },
        b.switch, b.port, b.vc, b.packet, b.src, b.dst, b.need_phits, b.waits_on_port, b.room_phits, b.capacity_phits
    )
}

/// The cycle in one line: `s3.p1.vc0 (packet 17, 2->9) -> s4.p0.vc0 (...) -> s3.p1.vc0`.
pub fn describe_cycle(cycle: &[BlockedChannel]) -> String {
    let hop =
        |b: &BlockedChannel| format!("s{}.p{}.vc{} (packet {} {}->{})", b.switch, b.port, b.vc, b.packet, b.src, b.dst);
    let mut parts: Vec<String> = cycle.iter().map(hop).collect();
    if let Some(first) = cycle.first() {
        parts.push(format!("s{}.p{}.vc{}", first.switch, first.port, first.vc));
    }
    format!(
        "cycle of {} blocked channels (switch.input port.VC, front packet src->dst): {}",
        cycle.len(),
        parts.join(" -> ")
    )
}
