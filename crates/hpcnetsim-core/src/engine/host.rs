//! The engine's side of the host model (`crate::nic::host`): a task continues after its
//! receive overhead, a message that has arrived completes once its host write is done, and
//! the NICs answer the rendezvous handshake's control messages.

use super::{Engine, Event};
use crate::event::{Kind, Message};

impl<'a> Engine<'a> {
    /// A task whose message has arrived continues after the receive overhead.
    pub(super) fn resume_after_receive(&mut self, task: usize, now: u64) {
        let overhead = self.tasks.as_ref().and_then(|t| t.host.as_ref()).map_or(0, |h| h.model.receive_overhead);
        if overhead == 0 {
            self.advance(task, now);
        } else {
            self.events.push(now + overhead, Event::Resume { task: task as u32 });
        }
    }

    /// The last packet of `message` reached its NIC at `now`: with a host write still to
    /// finish, completion waits for it; control packets of the rendezvous answer at once.
    pub(super) fn message_arrived(&mut self, message: u32, now: u64) {
        let Some(tasks) = self.tasks.as_mut() else { return };
        let m = tasks.messages[message as usize];
        match m.kind {
            Kind::Rts { data } => {
                // The receiver's NIC answers with a clear-to-send.
                tasks.release(message);
                let cts = Message { src: m.dst, dst: m.src, kind: Kind::Cts { data }, ready: now, ..m };
                let id = tasks.alloc(Message { packets: 1, arrived: 0, bytes: 0, ..cts });
                let nic = tasks.terminal[m.dst as usize] as usize;
                tasks.backlog[nic].push_back((id, 1));
                self.wake(self.topo.num_switches() + nic, now);
            }
            Kind::Cts { data } => {
                tasks.release(message);
                let d = &mut tasks.messages[data as usize];
                d.ready = now;
                let (packets, nic) = (d.packets, tasks.terminal[d.src as usize] as usize);
                tasks.backlog[nic].push_back((data, packets));
                self.wake(self.topo.num_switches() + nic, now);
            }
            Kind::Data => {
                let done = match tasks.host.as_mut() {
                    Some(h) => {
                        let nic = tasks.terminal[m.dst as usize] as usize;
                        // Packets may arrive out of order; the payloads add up all the same.
                        let last = m.bytes - (m.packets as u64 - 1) * h.model.max_payload;
                        h.write(nic, last, now)
                    }
                    None => now,
                };
                if done > now {
                    tasks.host.as_mut().expect("host model").writing += 1;
                    self.events.push(done, Event::HostWritten { message });
                } else {
                    self.message_complete(message, now);
                }
            }
        }
    }

    /// A packet of `message` other than its last reached its NIC: its payload is written.
    pub(super) fn packet_written(&mut self, message: u32, now: u64) {
        let Some(tasks) = self.tasks.as_mut() else { return };
        let m = tasks.messages[message as usize];
        if let (Some(h), Kind::Data) = (tasks.host.as_mut(), m.kind) {
            let nic = tasks.terminal[m.dst as usize] as usize;
            h.write(nic, h.model.max_payload.min(m.bytes), now);
        }
    }

    /// The host write of `message` has finished.
    pub(super) fn host_written(&mut self, message: u32, now: u64) {
        if let Some(h) = self.tasks.as_mut().and_then(|t| t.host.as_mut()) {
            h.writing -= 1;
        }
        self.message_complete(message, now);
    }
}
