//! The host model of causal workloads (paper 004 §2.1, §3.1.3, §5.3),
//! applied where messages enter and leave the network: send and receive overheads, the
//! host-bus read that feeds the DMA engine, the host-bus write at the destination, packets
//! of at most `max_payload` bytes plus header, and the rendezvous handshake.
//!
//! The host-bus write does not push back on the network: a destination that writes slower
//! than packets arrive completes its messages late rather than stalling its link.
//!
//! On a shared bus with a rate of its own (`bus_bytes_per_cycle`, the Elan3's PCI bus) a read
//! holds the bus only for its data and waits for host memory with the bus free; a read's
//! data also arrives `read_latency` after its transfer, pipelined with the next reads.

use super::run::Execute;
use super::tasks::Pending;
use super::TaskSide;
use crate::config::NicModel;
use crate::event::{Event, Kind, Message};

/// Per-NIC state of the host model.
pub(crate) struct HostState {
    pub(crate) model: NicModel,
    /// Per NIC: cycle (fractional) at which its DMA engine has read everything it started.
    dma_free: Vec<f64>,
    /// Per NIC: the cycle the read of its next packet ends, once started (the bus is
    /// reserved for it).
    reading: Vec<Option<u64>>,
    /// Per NIC: whether its last refill stopped at a full injection queue (the DMA engine
    /// had no buffer to read into, so the next read starts no earlier than the next refill).
    dma_stalled: Vec<bool>,
    /// Per NIC: cycle (fractional) at which its host-bus writes are done (with a shared
    /// bus, reads and writes both use `dma_free`).
    write_free: Vec<f64>,
    /// Per NIC, with `bus_bytes_per_cycle`: cycle (fractional) at which the shared bus is
    /// free (reads then hold it only for their transfer; `dma_free` paces the reads alone).
    bus_free: Vec<f64>,
    /// Per task: whether the send overhead of its current operation has been paid.
    pub(crate) paid: Vec<bool>,
    /// Messages whose host write is still under way.
    pub(crate) writing: u64,
    /// Posted receive requests (task, request) whose overhead is still to be paid.
    pub(crate) receives: rustc_hash::FxHashSet<(u32, u32)>,
}

impl HostState {
    /// The model for `nics` NICs and `tasks` tasks.
    pub(crate) fn new(model: NicModel, nics: usize, tasks: usize) -> Self {
        HostState {
            model,
            dma_free: vec![0.0; nics],
            dma_stalled: vec![false; nics],
            reading: vec![None; nics],
            write_free: vec![0.0; nics],
            bus_free: vec![0.0; nics],
            paid: vec![false; tasks],
            writing: 0,
            receives: Default::default(),
        }
    }

    /// Packets of a message of `bytes`.
    pub(crate) fn packets(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.model.max_payload).max(1)
    }

    /// Payload of packet `index` (from 0) of `m`.
    pub(crate) fn payload(&self, m: &Message, index: u32) -> u64 {
        match m.kind {
            Kind::Data if index + 1 < m.packets => self.model.max_payload,
            Kind::Data => m.bytes - (m.packets as u64 - 1) * self.model.max_payload,
            _ => 0,
        }
    }

    /// Whether the DMA engine of `nic` has read the next packet (`payload` bytes of a message
    /// ready at `ready`) by `now`; otherwise the cycle it will have. A read reserves the bus
    /// when it starts.
    pub(crate) fn read(&mut self, nic: usize, payload: u64, ready: u64, now: u64) -> Result<(), u64> {
        if let Some(end) = self.reading[nic] {
            return if end <= now {
                self.reading[nic] = None;
                Ok(())
            } else {
                Err(end)
            };
        }
        if std::mem::take(&mut self.dma_stalled[nic]) {
            self.dma_free[nic] = self.dma_free[nic].max(now as f64);
        }
        let start = self.dma_free[nic].max(ready as f64);
        let mut end = start + self.model.read_bytes_per_cycle.map_or(0.0, |r| payload as f64 / r);
        if let (Some(bus), Some(_)) = (self.model.bus_bytes_per_cycle, self.model.read_bytes_per_cycle) {
            // The read's data takes the bus as soon as it is free after the read starts; the
            // rest of the read's time is the wait for host memory, with the bus free for
            // writes (PCI delayed reads). A busy bus delays the read only if its data then
            // ends later than the read would have.
            let data = start.max(self.bus_free[nic]) + payload as f64 / bus;
            self.bus_free[nic] = data;
            end = end.max(data);
        }
        self.dma_free[nic] = end;
        if self.model.read_latency > 0 && payload > 0 && self.model.read_bytes_per_cycle.is_some() {
            // Reads are pipelined (the Elan keeps several outstanding): the latency delays the
            // data, not the next read. A header-only packet reads nothing.
            end += self.model.read_latency as f64;
        }
        if end <= now as f64 {
            Ok(())
        } else {
            self.reading[nic] = Some(end.ceil() as u64);
            Err(end.ceil() as u64)
        }
    }

    /// The injection queue of `nic` was full: the DMA engine waits for room.
    pub(crate) fn stall(&mut self, nic: usize) {
        self.dma_stalled[nic] = true;
    }

    /// Cycle at which `nic` has written a packet of `payload` bytes that arrived at `now`.
    pub(crate) fn write(&mut self, nic: usize, payload: u64, now: u64) -> u64 {
        let Some(w) = self.model.write_bytes_per_cycle else { return now };
        // On a shared bus a write waits for the reads already started (for their transfers
        // only when the bus has its own rate).
        let bus = match (self.model.shared_bus, self.model.bus_bytes_per_cycle) {
            (true, Some(_)) => &mut self.bus_free,
            (true, None) => &mut self.dma_free,
            (false, _) => &mut self.write_free,
        };
        let end = bus[nic].max(now as f64) + payload as f64 / w;
        bus[nic] = end;
        end.ceil() as u64
    }
}

/// The task side of the host model: a task continues after its receive overhead, a message
/// that has arrived completes once its host write is done, and the NICs answer the
/// rendezvous handshake's control messages.
pub(crate) trait HostPath: TaskSide {
    /// A task whose message has arrived continues after the receive overhead.
    fn resume_after_receive(&mut self, task: usize, now: u64) {
        let overhead = self.tasks().and_then(|t| t.host.as_ref()).map_or(0, |h| h.model.receive_overhead);
        if overhead == 0 {
            self.advance(task, now);
        } else {
            self.schedule(now + overhead, Event::Resume { task: task as u32 });
        }
    }

    /// The last packet of `message` reached NIC `nic` at `now`: with a host write still to
    /// finish, completion waits for it; control packets of the rendezvous answer at once.
    fn message_arrived(&mut self, message: u32, nic: usize, now: u64) {
        let Some(tasks) = self.tasks() else { return };
        let m = tasks.messages[message as usize];
        match m.kind {
            Kind::Rts { data } => {
                // The receiver's NIC answers with a clear-to-send at once: ahead of the data
                // it has still to send, which would otherwise hold the answer (and the
                // sender's whole message) for as long as its own message takes.
                tasks.release(message);
                let cts = Message { src: m.dst, dst: m.src, kind: Kind::Cts { data }, ready: now, ..m };
                let id = tasks.alloc(Message { packets: 1, arrived: 0, bytes: 0, ..cts });
                let reading = tasks.host.as_ref().is_some_and(|h| h.reading[nic].is_some());
                let backlog = &mut tasks.backlog[nic];
                match backlog.front_mut() {
                    // The DMA engine is reading the front packet: that packet goes first.
                    Some(front) if reading && front.left > 1 => {
                        let next = Pending { left: 1, end: front.end - front.left + 1, ..*front };
                        front.left -= 1;
                        backlog.push_front(Pending::all(id, 1));
                        backlog.push_front(next);
                    }
                    Some(_) if reading => backlog.insert(1, Pending::all(id, 1)),
                    _ => backlog.push_front(Pending::all(id, 1)),
                }
                self.wake_nic(nic, now);
            }
            Kind::Cts { data } => {
                tasks.release(message);
                tasks.messages[data as usize].ready = now;
                for nic in tasks.queue_data(data).iter() {
                    self.wake_nic(nic, now);
                }
            }
            Kind::Data => {
                let done = match tasks.host.as_mut() {
                    Some(h) => {
                        // Packets may arrive out of order; the payloads add up all the same.
                        let last = m.bytes - (m.packets as u64 - 1) * h.model.max_payload;
                        h.write(nic, last, now)
                    }
                    None => now,
                };
                if done > now {
                    tasks.host.as_mut().expect("host model").writing += 1;
                    self.schedule(done, Event::HostWritten { message });
                } else {
                    self.message_complete(message, now);
                }
            }
        }
    }

    /// A packet of `message` other than its last reached NIC `nic`: its payload is written.
    fn packet_written(&mut self, message: u32, nic: usize, now: u64) {
        let Some(tasks) = self.tasks() else { return };
        let m = tasks.messages[message as usize];
        if let (Some(h), Kind::Data) = (tasks.host.as_mut(), m.kind) {
            h.write(nic, h.model.max_payload.min(m.bytes), now);
        }
    }

    /// The host write of `message` has finished.
    fn host_written(&mut self, message: u32, now: u64) {
        if let Some(h) = self.tasks().and_then(|t| t.host.as_mut()) {
            h.writing -= 1;
        }
        self.message_complete(message, now);
    }
}

impl<T: TaskSide + ?Sized> HostPath for T {}
