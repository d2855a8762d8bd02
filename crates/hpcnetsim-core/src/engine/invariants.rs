//! Invariants of the engine's state, checked between chunks of a run when asked
//! (`--check`, and always in debug builds): packets conserved, credits within capacity,
//! no packet freed twice or still queued after delivery, none delivered to the wrong terminal.

use super::Engine;
use crate::topology::Peer;

impl Engine<'_> {
    /// Checks the engine's state; returns what is wrong, in one line, otherwise.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        if let Some(m) = self.sw.misdelivered {
            let (c, t, src, dst) = (m.cycle, m.terminal, m.src, m.dst);
            return Err(format!(
                "a packet from terminal {src} delivered to terminal {t} in cycle {c}, its destination is terminal {dst}"
            ));
        }
        // Conservation: every live packet is counted in flight, and only those.
        let live = self.packets.len() as u64 - self.free_packets.len() as u64;
        if live != self.stats.in_flight {
            return Err(format!(
                "packets not conserved: {live} packets alive, {} counted in flight",
                self.stats.in_flight
            ));
        }
        // A packet id is freed once, at its delivery; a freed packet is in no queue.
        let mut freed = vec![false; self.packets.len()];
        for &p in &self.free_packets {
            if std::mem::replace(&mut freed[p as usize], true) {
                return Err(format!("packet {p} delivered twice"));
            }
        }
        for (nic, q) in self.nics.queue.iter().enumerate() {
            if let Some(&p) = q.iter().find(|&&p| freed[p as usize]) {
                return Err(format!("delivered packet {p} still in the injection queue of NIC {nic}"));
            }
        }
        if self.tech.flits() {
            return self.check_worm_buffers(&freed);
        }
        for (c, peer) in self.topo.peers().iter().enumerate() {
            for vc in 0..self.k.vcs {
                let q = c * self.k.vcs + vc;
                let mut held = 0u64;
                // Every queue of the buffer: itself, or its virtual output queues.
                for p in (q * self.k.voq_ports..(q + 1) * self.k.voq_ports).flat_map(|v| self.sw.fifo.iter(v)) {
                    if freed[p as usize] {
                        return Err(format!("delivered packet {p} still in input queue {q}"));
                    }
                    held += self.model.credit_cost(self.packets[p as usize].size) as u64;
                }
                if held > self.k.queue_phits as u64 {
                    return Err(format!("input queue {q} holds {held} phits, capacity {}", self.k.queue_phits));
                }
                // The sender's credits plus what the queue holds never exceed its capacity
                // (credits on their way back make up the difference).
                let upstream = match *peer {
                    Peer::Switch { switch, port } => {
                        self.sw.out_vcs[self.topo.channel(switch as usize, port as usize) * self.k.vcs + vc].credits
                    }
                    Peer::Terminal(nic) => self.nics.credits[nic as usize * self.k.vcs + vc],
                    Peer::Unplugged => continue,
                };
                if upstream as u64 + held > self.k.queue_phits as u64 {
                    return Err(format!(
                        "credits above capacity: sender of input queue {q} holds {upstream} credits while the queue holds {held} phits, capacity {}",
                        self.k.queue_phits
                    ));
                }
            }
        }
        Ok(())
    }
}
