//! Deadlock evidence under wormhole switching: a cycle of worms whose heads each wait for
//! an output VC held by the next worm. A VC is held by the worm in the buffer it leads to
//! (one worm per buffer, until the tail's credit returns), so the wait-for graph runs from
//! a waiting head to the head of the worm in the downstream buffer of every VC it may take.

use super::{Engine, NONE};
use crate::stats::{BlockedChannel, Evidence};
use crate::switch::fabric::Fabric;
use crate::topology::Peer;

impl Engine<'_> {
    /// Per packet: the input buffer where its head waits for an output VC, or `NONE`.
    fn waiting_heads(&self) -> Vec<u32> {
        let mut head = vec![NONE; self.packets.len()];
        for w in self.sw.lists.iter().flat_map(|l| l.waiting()) {
            if let Some(p) = self.sw.fifo.front(w.queue as usize) {
                head[p as usize] = w.queue;
            }
        }
        head
    }

    /// The heads the head in buffer `q` waits for, one per candidate VC as (output port,
    /// output VC, head buffer of the worm holding it); `None` if a candidate is free or
    /// leads to no waiting head (the head is not blocked by other worms alone).
    fn worm_waits_on(&self, q: usize, heads: &[u32]) -> Option<Vec<(u32, usize, usize)>> {
        let s = self.sw.links[q / self.k.vcs].switch as usize;
        let w = self.sw.lists[s].waiting().iter().find(|w| w.queue as usize == q)?;
        let base = self.topo.channel(s, 0);
        let mut next = Vec::new();
        for c in self.class(w.class) {
            let out = base + c.port as usize;
            let oq = out * self.k.vcs + c.vc as usize;
            let Peer::Switch { switch, port } = self.topo.peers()[out] else { return None };
            if self.sw.out_vcs[oq].reserved == NONE {
                return None;
            }
            let d = self.topo.channel(switch as usize, port as usize) * self.k.vcs + c.vc as usize;
            let p = self.sw.fifo.front(d)?;
            let h = heads[p as usize];
            if h == NONE {
                return None;
            }
            next.push((c.port as u32, oq, h as usize));
        }
        (!next.is_empty()).then_some(next)
    }

    /// Evidence of a deadlock among worms: a cycle of waiting heads, each waiting for the
    /// next; failing that, up to `limit` waiting heads with every candidate VC held.
    pub(super) fn worm_deadlock_evidence(&self, limit: usize) -> Evidence {
        let heads = self.waiting_heads();
        // 0 = unvisited, 1 = on the current walk, 2 = known to lead to no cycle.
        let mut mark = vec![0u8; self.sw.out_vcs.len()];
        for start in self.sw.lists.iter().flat_map(|l| l.waiting()).map(|w| w.queue as usize) {
            if mark[start] != 0 {
                continue;
            }
            let mut walk: Vec<(usize, u32, usize)> = Vec::new();
            let mut q = start;
            loop {
                if mark[q] == 1 {
                    let from = walk.iter().position(|&(x, ..)| x == q).expect("head on the walk");
                    let channels = walk[from..].iter().map(|&(x, port, oq)| self.worm_entry(x, port, oq)).collect();
                    return Evidence { cycle: true, channels };
                }
                if mark[q] == 2 {
                    break;
                }
                let Some(next) = self.worm_waits_on(q, &heads) else { break };
                mark[q] = 1;
                let (port, oq, h) = next[0];
                walk.push((q, port, oq));
                q = h;
            }
            for &(x, ..) in &walk {
                mark[x] = 2;
            }
            mark[start] = 2;
        }
        let channels = self
            .sw
            .lists
            .iter()
            .flat_map(|l| l.waiting())
            .filter_map(|w| self.worm_waits_on(w.queue as usize, &heads).map(|n| (w.queue as usize, n[0])))
            .take(limit)
            .map(|(q, (port, oq, _))| self.worm_entry(q, port, oq))
            .collect();
        Evidence { cycle: false, channels }
    }

    /// The entry of the waiting head in buffer `q`, waiting for output VC `oq` of `port`: it
    /// needs a free VC, that is a downstream buffer with all its room.
    fn worm_entry(&self, q: usize, port: u32, oq: usize) -> BlockedChannel {
        self.blocked_channel(q, 1, port, self.k.queue_phits, self.sw.out_vcs[oq].credits)
    }
}
