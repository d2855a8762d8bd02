//! The tasks' steps: a task runs from its current operation until it blocks, computes or
//! ends; a NIC takes the packets of its waiting messages into its injection queue while it
//! has room; a message's packets arriving complete it, and the requests and receives that
//! wait for it go on.

use super::host::HostPath;
use super::matching::{Envelope, Posted, Req};
use super::tasks::Pending;
use super::TaskSide;
use crate::event::{Event, Message, Packet};
use crate::workload::program::NO_REQUEST;
use crate::workload::Op;

/// The steps of task execution, for anything that is a `TaskSide`.
pub(crate) trait Execute: TaskSide {
    /// Runs task `task` from its current operation until it blocks, computes or ends.
    fn advance(&mut self, task: usize, now: u64) {
        let t = task as u32;
        loop {
            let Some(tasks) = self.tasks() else { return };
            tasks.last_progress = tasks.last_progress.max(now);
            if let Some(since) = tasks.blocked_since[task].take() {
                tasks.wait_cycles[task] += now - since;
            }
            let Some(&op) = tasks.ops[task].get(tasks.pc[task]) else {
                if tasks.refill_window(task) {
                    continue;
                }
                tasks.finish_cycle[task] = now;
                tasks.finished += 1;
                if tasks.all_done() {
                    tasks.done_at = Some(now);
                }
                return;
            };
            match op {
                Op::Send { to, bytes } => {
                    if let Some(back) = tasks.send_overhead(task, now) {
                        self.schedule(back, Event::Resume { task: t });
                        return;
                    }
                    let seq = tasks.next_sent.entry((t, to)).or_insert(0);
                    let m = Message::data(t, to, *seq, bytes, now);
                    *seq += 1;
                    tasks.pc[task] += 1;
                    self.send_message(m, now);
                }
                Op::Recv { from, .. } => {
                    let seq = *tasks.next_received.get(&(from, t)).unwrap_or(&0);
                    if !tasks.complete.remove(&(from, t, seq)) {
                        tasks.waiting[task] = Some((from, seq));
                        tasks.blocked_since[task] = Some(now);
                        return;
                    }
                    tasks.next_received.insert((from, t), seq + 1);
                    tasks.pc[task] += 1;
                    let overhead = tasks.host.as_ref().map_or(0, |h| h.model.receive_overhead);
                    if overhead > 0 {
                        self.schedule(now + overhead, Event::Resume { task: t });
                        return;
                    }
                }
                Op::Compute { cycles } => {
                    tasks.pc[task] += 1;
                    tasks.compute_cycles[task] += cycles;
                    tasks.compute_until[task] = now + cycles;
                    // A task computing is progress until its interval ends (traced compute
                    // can be far longer than `stall_cycles`).
                    tasks.last_progress = tasks.last_progress.max(now + cycles);
                    self.schedule(now + cycles, Event::Resume { task: t });
                    return;
                }
                Op::Isend { to, bytes, tag, comm, req } => {
                    if let Some(back) = tasks.send_overhead(task, now) {
                        self.schedule(back, Event::Resume { task: t });
                        return;
                    }
                    tasks.mpi.open(task, req);
                    let env = Envelope { tag, comm, send_req: req, recv_req: NO_REQUEST, delivered: false, bytes };
                    tasks.pc[task] += 1;
                    let id = self.send_message(Message::data(t, to, 0, bytes, now), now);
                    let tasks = self.tasks().expect("tasks");
                    tasks.mpi.send(id, t, to, env);
                    tasks.stop_if_truncated();
                }
                Op::Irecv { from, tag, comm, req, bytes } => {
                    if let Some(id) = tasks.mpi.post(task, Posted { from, tag, comm, req, bytes }) {
                        // Its message had arrived: matched now, its slot is free.
                        tasks.release(id);
                    }
                    tasks.stop_if_truncated();
                    if let Some(h) = tasks.host.as_mut() {
                        h.receives.insert((t, req));
                    }
                    tasks.pc[task] += 1;
                }
                Op::Wait { req } => {
                    if tasks.mpi.state(task, req) == Req::Pending {
                        tasks.mpi.in_wait[task] = true;
                        tasks.blocked_since[task] = Some(now);
                        return;
                    }
                    // A completed request is freed; waiting on a free one returns at once
                    // (MPI_REQUEST_NULL).
                    if let Some(r) = tasks.mpi.reqs[task].get_mut(req as usize) {
                        *r = Req::Free;
                    }
                    tasks.pc[task] += 1;
                    if let Some(at) = tasks.consumed(t, req, now) {
                        self.schedule(at, Event::Resume { task: t });
                        return;
                    }
                }
                Op::WaitAny { set } => {
                    let m = &mut tasks.mpi;
                    // A streamed replay numbers the sets per window batch.
                    let reqs = match tasks.stream.source {
                        Some(_) => &tasks.stream.batch_sets[task][set as usize],
                        None => &m.sets[set as usize],
                    };
                    let state = |r: u32| m.reqs[task].get(r as usize).copied().unwrap_or(Req::Free);
                    let mut freed = None;
                    if let Some(&r) = reqs.iter().find(|&&r| state(r) == Req::Done) {
                        m.reqs[task][r as usize] = Req::Free;
                        freed = Some(r);
                    } else if reqs.iter().any(|&r| state(r) == Req::Pending) {
                        m.in_wait[task] = true;
                        tasks.blocked_since[task] = Some(now);
                        return;
                    }
                    tasks.pc[task] += 1;
                    if let Some(at) = freed.and_then(|r| tasks.consumed(t, r, now)) {
                        self.schedule(at, Event::Resume { task: t });
                        return;
                    }
                }
            }
        }
    }

    /// Sends data message `m`: through the network from the sender's NICs, or, between two
    /// tasks of one terminal, as a copy in memory that arrives after one cycle per phit of
    /// its size (the rate of the terminal's link; at least one cycle) and never enters the
    /// network. Returns the message's id.
    fn send_message(&mut self, m: Message, now: u64) -> u32 {
        let tasks = self.tasks().expect("tasks");
        if tasks.terminal[m.src as usize] == tasks.terminal[m.dst as usize] {
            let (id, cycles) = tasks.post_local(m);
            self.schedule(now + cycles, Event::LocalCopy { message: id });
            return id;
        }
        let (nics, id) = tasks.post(m);
        for nic in nics.iter() {
            self.wake_nic(nic, now);
        }
        id
    }

    /// Message `message` between two tasks of one terminal has been copied: it has arrived.
    fn local_copied(&mut self, message: u32, now: u64) {
        let Some(tasks) = self.tasks() else { return };
        tasks.undelivered -= tasks.messages[message as usize].packets as u64;
        tasks.last_progress = tasks.last_progress.max(now);
        self.message_complete(message, now);
    }

    /// Moves packets of waiting messages into NIC `nic`'s injection queue while it has room
    /// (and, with the host model, once the DMA engine has read their payload).
    fn feed_nic(&mut self, nic: usize, now: u64) {
        let Some((tasks, rng, room)) = self.tasks_at_nic(nic) else { return };
        let mut created = Vec::new();
        let mut wake_at = None;
        loop {
            if created.len() >= room {
                if let Some(h) = tasks.host.as_mut() {
                    h.stall(nic);
                }
                break;
            }
            let Some(&Pending { message, left, end }) = tasks.backlog[nic].front() else { break };
            let m = tasks.messages[message as usize];
            let size = match tasks.host.as_mut() {
                Some(h) => {
                    let payload = h.payload(&m, end - left);
                    if let Err(at) = h.read(nic, payload, m.ready, now) {
                        wake_at = Some(at);
                        break;
                    }
                    h.model.packet_phits(payload)
                }
                None => match tasks.cells {
                    None => tasks.packet_phits,
                    Some((cell, _, lo, hi)) => {
                        let draw = if lo == hi {
                            lo
                        } else {
                            let cells = rand::Rng::random_range(rng, lo / cell..=hi / cell);
                            cells * cell
                        };
                        draw.min(left)
                    }
                },
            };
            // Cell-granular messages count phits.
            let units = if tasks.cells.is_some() { size } else { 1 };
            let front = tasks.backlog[nic].front_mut().expect("front seen above");
            front.left -= units;
            if front.left == 0 {
                tasks.backlog[nic].pop_front();
            }
            // To the destination's port on this NIC's plane.
            let dst = tasks.nic(m.dst, (nic / tasks.endpoints) as u8) as u32;
            created.push(Packet {
                src: nic as u32,
                dst,
                size,
                generated: now,
                injected: 0,
                message,
                arrived: 0,
                salt: rand::RngCore::next_u32(rng),
                offset: 0,
            });
        }
        if let Some(at) = wake_at {
            // The DMA engine has the payload then (always after `now`).
            self.wake_nic(nic, at);
        }
        for p in created {
            self.enqueue_packet(nic, p);
        }
    }

    /// A packet of `message` arrived at NIC `nic`: the message has arrived when it was the
    /// last one.
    fn message_packet_arrived(&mut self, message: u32, phits: u32, nic: usize, now: u64) {
        let Some(tasks) = self.tasks() else { return };
        let units = if tasks.cells.is_some() { phits } else { 1 };
        tasks.undelivered -= units as u64;
        tasks.record_delivery(now, phits);
        let m = &mut tasks.messages[message as usize];
        m.arrived += units;
        if m.arrived == m.packets {
            self.message_arrived(message, nic, now);
        } else {
            self.packet_written(message, nic, now);
        }
        self.check_done(now);
    }

    /// Records the end of the run once every program has finished and the network is empty.
    fn check_done(&mut self, now: u64) {
        if let Some(tasks) = self.tasks() {
            if tasks.all_done() && tasks.done_at.is_none() {
                tasks.done_at = Some(now);
            }
        }
    }

    /// Data message `message` is complete at its receiver: requests and receives waiting
    /// for it go on.
    fn message_complete(&mut self, message: u32, now: u64) {
        let Some(tasks) = self.tasks() else { return };
        let m = tasks.messages[message as usize];
        tasks.message_latency.record(now - m.sent_at);
        let bin = (u64::BITS - (now - m.sent_at).max(1).leading_zeros() - 1) as usize;
        if tasks.latency_log2.len() <= bin {
            tasks.latency_log2.resize(bin + 1, 0);
        }
        tasks.latency_log2[bin] += 1;
        if let Some(Some(env)) = tasks.mpi.envelopes.get_mut(message as usize) {
            env.delivered = true;
            let env = *env;
            // The sender's request first, then the receiver's (if already matched).
            if tasks.mpi.complete(m.src as usize, env.send_req) {
                self.advance(m.src as usize, now);
            }
            let tasks = self.tasks().expect("tasks");
            // Matched and delivered: the slot is free (an unmatched one is freed by the
            // receive that matches it).
            if env.recv_req != NO_REQUEST {
                tasks.release(message);
            }
            // The receive overhead is paid when the task frees the request (`consumed`).
            if env.recv_req != NO_REQUEST && tasks.mpi.complete(m.dst as usize, env.recv_req) {
                self.advance(m.dst as usize, now);
            }
        } else if tasks.waiting[m.dst as usize] == Some((m.src, m.seq)) {
            tasks.release(message);
            tasks.waiting[m.dst as usize] = None;
            tasks.next_received.insert((m.src, m.dst), m.seq + 1);
            tasks.pc[m.dst as usize] += 1;
            self.resume_after_receive(m.dst as usize, now);
        } else {
            tasks.release(message);
            tasks.complete.insert((m.src, m.dst, m.seq));
        }
        self.check_done(now);
    }
}

impl<T: TaskSide + ?Sized> Execute for T {}
