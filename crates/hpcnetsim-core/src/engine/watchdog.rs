//! Deadlock evidence: when no packet moves, find a cycle of input queues whose front
//! packets each wait for room in the next one.

use super::Engine;
use crate::routing::Routing;
use crate::stats::{BlockedChannel, Evidence};
use crate::switch::fabric::Fabric;
use crate::topology::Peer;

impl Engine<'_> {
    /// The downstream queues the front packet of input queue `q` may go to, if every one of
    /// them lacks room (the packet is blocked by credits, not by a busy link); `None` if it
    /// is not blocked that way. Entries are (output port, downstream queue).
    fn blocked_on(&self, q: usize) -> Option<Vec<(u32, usize, u32, u32)>> {
        let s = self.sw.links[q / self.k.vcs].switch as usize;
        let w = self.sw.lists[s].waiting().iter().find(|w| w.queue as usize == q)?;
        let base = self.topo.channel(s, 0);
        let mut next = Vec::new();
        for c in self.class(w.class) {
            let out = base + c.port as usize;
            let Peer::Switch { switch, port } = self.topo.peers()[out] else { return None };
            let need = if c.bubble { w.size + self.k.max_packet_phits } else { w.size };
            if self.sw.out_vcs[out * self.k.vcs + c.vc as usize].credits >= need {
                return None;
            }
            let room = self.sw.out_vcs[out * self.k.vcs + c.vc as usize].credits;
            let d = self.topo.channel(switch as usize, port as usize) * self.k.vcs + c.vc as usize;
            next.push((c.port as u32, d, need, room));
        }
        (!next.is_empty()).then_some(next)
    }

    /// A cycle of blocked input queues, each waiting for the next (the last for the first);
    /// empty if none is found (packets stuck for another reason).
    fn blocked_cycle_only(&self) -> Vec<BlockedChannel> {
        let queues = self.sw.out_vcs.len();
        // 0 = unvisited, 1 = on the current walk, 2 = known to lead to no cycle.
        let mut mark = vec![0u8; queues];
        for start in 0..queues {
            if mark[start] != 0 || self.sw.fifo.len(start) == 0 {
                continue;
            }
            let mut walk: Vec<(usize, u32)> = Vec::new();
            let mut q = start;
            loop {
                if mark[q] == 1 {
                    let from = walk.iter().position(|&(x, _)| x == q).expect("queue on the walk");
                    return walk[from..].iter().map(|&(x, port)| self.blocked_entry(x, port)).collect();
                }
                if mark[q] == 2 || self.sw.fifo.len(q) == 0 {
                    break;
                }
                let Some(next) = self.blocked_on(q) else { break };
                mark[q] = 1;
                // Follow a successor that is itself occupied (an empty queue is not full).
                let Some(&(port, d, ..)) = next.iter().find(|&&(_, d, ..)| self.sw.fifo.len(d) > 0) else { break };
                walk.push((q, port));
                q = d;
            }
            for &(x, _) in &walk {
                mark[x] = 2;
            }
            if mark[q] == 1 {
                mark[q] = 2;
            }
            mark[start] = 2;
        }
        Vec::new()
    }

    /// Evidence of a deadlock: a cycle of blocked input queues, each waiting for the next;
    /// failing that, up to `limit` blocked front packets with the room they need and have.
    pub fn deadlock_evidence(&self, limit: usize) -> Evidence {
        if self.tech.flits() {
            return self.worm_deadlock_evidence(limit);
        }
        if self.k.voq_ports > 1 {
            // The walk below follows input FIFOs; virtual output queues give no evidence yet.
            return Evidence { cycle: false, channels: Vec::new() };
        }
        let cycle = self.blocked_cycle_only();
        if !cycle.is_empty() {
            return Evidence { cycle: true, channels: cycle };
        }
        let channels = (0..self.sw.out_vcs.len())
            .filter(|&q| self.sw.fifo.len(q) > 0)
            .filter_map(|q| self.blocked_on(q).map(|next| (q, next[0].0)))
            .take(limit)
            .map(|(q, port)| self.blocked_entry(q, port))
            .collect();
        Evidence { cycle: false, channels }
    }

    /// Replaces the routing (to build deliberately deadlock-prone networks in tests).
    #[doc(hidden)]
    pub fn set_routing(&mut self, routing: Box<dyn Routing>) {
        self.routing = routing;
    }

    fn blocked_entry(&self, q: usize, waits_on_port: u32) -> BlockedChannel {
        let p = self.sw.fifo.front(q).expect("a blocked queue has a front packet");
        let (need, room) = self
            .blocked_on(q)
            .and_then(|next| next.iter().find(|n| n.0 == waits_on_port).map(|n| (n.2, n.3)))
            .unwrap_or((self.packets[p as usize].size, 0));
        self.blocked_channel(q, self.sw.fifo.len(q) as u32, waits_on_port, need, room)
    }

    /// The evidence entry of input queue `q`, whose front packet waits on `waits_on_port`
    /// and needs `need` phits where `room` are free: where it is, what it holds, for both
    /// switching modes (cut-through here, wormhole in `worm_deadlock.rs`).
    pub(super) fn blocked_channel(
        &self,
        q: usize,
        queued: u32,
        waits_on_port: u32,
        need: u32,
        room: u32,
    ) -> BlockedChannel {
        let channel = q / self.k.vcs;
        let s = self.sw.links[channel].switch as usize;
        let p = self.sw.fifo.front(q).expect("a blocked queue has a front packet");
        let pk = &self.packets[p as usize];
        BlockedChannel {
            switch: s as u32,
            port: (channel - self.topo.channel(s, 0)) as u32,
            vc: (q % self.k.vcs) as u32,
            packet: p,
            src: pk.src,
            dst: pk.dst,
            queued_packets: queued,
            waits_on_port,
            need_phits: need,
            room_phits: room,
            capacity_phits: self.k.queue_phits,
        }
    }
}
