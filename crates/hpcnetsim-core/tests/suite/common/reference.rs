//! A deliberately simple, phit-level, cycle-by-cycle reference simulator of the same switch
//! model: every cycle it looks at every queue, output and NIC, and moves single phits over
//! the links, with no events and no wake-ups. It shares only the routing functions with the
//! engine. Used to check the event-driven engine (same single-packet latencies, the same
//! behaviour under load within statistical tolerance) and as the cycle-driven baseline of
//! the speed comparison.
//!
//! The model it implements: a packet may take an output if the downstream queue has room
//! for the whole packet (room counted in phits and given back when the packet's tail leaves,
//! `credit_delay_cycles` later) and, with `output_allocation = "link"`, the link is free, or
//! with `"vc"` (INSEE) the output VC is not reserved: a reserved VC waits until the link has
//! sent the packets before it, VCs taken round-robin. The `least-occupied` selection counts
//! the phits present in each downstream queue. A sending output moves one phit per cycle,
//! each arriving `switch + link` delay cycles later; a packet is delivered when its tail
//! phit reaches the destination NIC.

use hpcnetsim_core::config::{Config, OutputAllocation, Selection};
use hpcnetsim_core::rng::{stream, Owner, Stream};
use hpcnetsim_core::routing::{self, Candidate, Offer, Request, Routing};
use hpcnetsim_core::topology::{Peer, Topology};
use hpcnetsim_core::workload::Pattern;
use rand::Rng;
use std::collections::VecDeque;

#[derive(Clone, Copy)]
struct Packet {
    src: usize,
    dst: usize,
    size: u32,
    injected: u64,
    salt: u32,
}

/// A packet in an input queue: how many of its phits have arrived and left.
#[derive(Clone, Copy)]
struct Entry {
    packet: usize,
    arrived: u32,
    sent: u32,
}

/// Where a phit goes when it lands.
#[derive(Clone, Copy, PartialEq)]
enum Sink {
    /// An input queue (channel × vcs + vc) of a switch.
    Queue(usize),
    /// The destination NIC.
    Nic,
}

/// An output (switch port or NIC injection link) sending a packet phit by phit.
#[derive(Clone, Copy)]
struct Sending {
    /// Input queue the packet is read from (`usize::MAX`: the NIC's own queue).
    from: usize,
    packet: usize,
    sink: Sink,
    vc: usize,
    sent: u32,
}

/// Statistics of a reference run.
#[derive(Debug, Default, Clone)]
pub struct RefStats {
    pub delivered: u64,
    pub delivered_phits: u64,
    pub latency_sum: u64,
    pub latencies: Vec<u64>,
    pub generated: u64,
    pub phit_hops: u64,
}

/// The reference network.
pub struct Reference<'a> {
    topo: &'a Topology,
    routing: Box<dyn Routing>,
    pattern: Pattern,
    selection: Selection,
    allocation: OutputAllocation,
    vcs: usize,
    capacity: u32,
    hop: u64,
    credit_delay: u64,
    injection_queue: usize,
    injection_vcs: usize,
    gen_probability: f64,
    size: u32,
    rng: Stream,
    packets: Vec<Packet>,
    fifo: Vec<VecDeque<Entry>>,
    /// Whether the front packet of a queue has been granted an output.
    granted: Vec<bool>,
    /// What each switch output is sending.
    out: Vec<Option<Sending>>,
    /// The input queue holding each output VC (`vc` allocation).
    resv: Vec<Option<usize>>,
    /// The VC each link looks at first for its next packet (`vc` allocation).
    next_vc: Vec<usize>,
    credits: Vec<u32>,
    /// Phits on the wires: (arrival cycle, sink, packet, is head, is tail).
    wire: Vec<(u64, Sink, usize, bool, bool)>,
    /// Room given back: (cycle, sender queue or NIC × vcs + vc, to a NIC, phits).
    returns: Vec<(u64, usize, bool, u32)>,
    /// Queues whose front packet's tail left, and outputs that became free, at a cycle.
    leaving: Vec<(u64, usize)>,
    freed: Vec<(u64, usize, bool)>,
    nic_queue: Vec<VecDeque<usize>>,
    nic_out: Vec<Option<Sending>>,
    nic_credits: Vec<u32>,
    pub stats: RefStats,
    pub recording: bool,
}

impl<'a> Reference<'a> {
    /// A reference network for `cfg` (fixed packet size, Bernoulli injection, random
    /// arbitration).
    pub fn new(cfg: &Config, topo: &'a Topology) -> Self {
        let vcs = cfg.switch.vcs as usize;
        let size = cfg.traffic.packet_phits;
        let capacity = cfg.switch.queue_packets * size;
        let channels = topo.peers().len();
        let n = topo.num_terminals();
        Reference {
            topo,
            routing: routing::build(cfg, topo).unwrap(),
            pattern: Pattern::new(&cfg.traffic, topo, cfg.seed).unwrap(),
            selection: cfg.routing.selection,
            allocation: cfg.switch.output_allocation,
            vcs,
            capacity,
            hop: (cfg.switch.switch_delay_cycles + cfg.switch.link_delay_cycles) as u64,
            credit_delay: cfg.switch.credit_delay_cycles as u64,
            injection_queue: cfg.switch.injection_queue_packets as usize,
            injection_vcs: cfg.switch.nic_vcs(topo.family()),
            gen_probability: cfg.traffic.load / size as f64,
            size,
            rng: stream(cfg.seed ^ 0x5eed, Owner::Setup, 99),
            packets: Vec::new(),
            fifo: vec![VecDeque::new(); channels * vcs],
            granted: vec![false; channels * vcs],
            out: vec![None; channels],
            resv: vec![None; channels * vcs],
            next_vc: vec![0; channels],
            credits: vec![capacity; channels * vcs],
            wire: Vec::new(),
            returns: Vec::new(),
            leaving: Vec::new(),
            freed: Vec::new(),
            nic_queue: vec![VecDeque::new(); n],
            nic_out: vec![None; n],
            nic_credits: vec![capacity; n * vcs],
            stats: RefStats::default(),
            recording: false,
        }
    }

    /// Adds one packet to a NIC's injection queue.
    pub fn inject(&mut self, src: usize, dst: usize, _t: u64) {
        let salt = self.rng.random();
        self.packets.push(Packet { src, dst, size: self.size, injected: 0, salt });
        self.nic_queue[src].push_back(self.packets.len() - 1);
    }

    fn pick(&mut self, offers: &[Offer]) -> Option<Candidate> {
        routing::select(self.selection, offers, &mut self.rng)
    }

    /// Phits present in input queue `q`.
    fn occupancy(&self, q: usize) -> u32 {
        self.fifo[q].iter().map(|e| e.arrived - e.sent).sum()
    }

    /// Takes the items due at `t` out of `v`.
    fn due<T: Copy>(v: &mut Vec<T>, t: u64, at: impl Fn(&T) -> u64) -> Vec<T> {
        let mut out = Vec::new();
        v.retain(|x| {
            if at(x) == t {
                out.push(*x);
                false
            } else {
                true
            }
        });
        out
    }

    /// Simulates cycle `t`.
    pub fn step(&mut self, t: u64) {
        // Phase 1: phits land, room comes back, tails leave, outputs free up, generation.
        for (_, sink, p, head, tail) in Self::due(&mut self.wire, t, |w| w.0) {
            match sink {
                Sink::Queue(q) => {
                    if head {
                        self.fifo[q].push_back(Entry { packet: p, arrived: 1, sent: 0 });
                    } else {
                        let e = self.fifo[q].iter_mut().rev().find(|e| e.packet == p).expect("packet being received");
                        e.arrived += 1;
                    }
                }
                Sink::Nic if tail => {
                    let pk = self.packets[p];
                    self.stats.delivered += 1;
                    self.stats.delivered_phits += pk.size as u64;
                    if self.recording {
                        self.stats.latency_sum += t - pk.injected;
                        self.stats.latencies.push(t - pk.injected);
                    }
                }
                Sink::Nic => {}
            }
        }
        for (_, q) in Self::due(&mut self.leaving, t, |l| l.0) {
            let e = self.fifo[q].pop_front().expect("a leaving packet");
            self.granted[q] = false;
            let vc = q % self.vcs;
            let size = self.packets[e.packet].size;
            match self.topo.peers()[q / self.vcs] {
                Peer::Switch { switch, port } => {
                    let up = self.topo.channel(switch as usize, port as usize) * self.vcs + vc;
                    self.returns.push((t + self.credit_delay, up, false, size));
                }
                Peer::Terminal(n) => self.returns.push((t + self.credit_delay, n as usize * self.vcs + vc, true, size)),
                Peer::Unplugged => unreachable!(),
            }
        }
        // After the tails: with no credit delay, room freed this cycle is usable this cycle.
        for (_, i, nic, phits) in Self::due(&mut self.returns, t, |r| r.0) {
            if nic {
                self.nic_credits[i] += phits
            } else {
                self.credits[i] += phits
            }
        }
        for (_, i, nic) in Self::due(&mut self.freed, t, |f| f.0) {
            if nic {
                self.nic_out[i] = None;
                self.nic_queue[i].pop_front();
            } else {
                let vc = self.out[i].take().expect("a sending output").vc;
                self.resv[i * self.vcs + vc] = None;
                self.next_vc[i] = (vc + 1) % self.vcs;
            }
        }
        for n in 0..self.topo.num_terminals() {
            if self.gen_probability > 0.0
                && self.pattern.is_active(n)
                && self.rng.random_bool(self.gen_probability.min(1.0))
            {
                self.stats.generated += 1;
                if self.nic_queue[n].len() < self.injection_queue {
                    let dst = self.pattern.destination(n, &mut self.rng);
                    self.inject(n, dst, t);
                }
            }
        }
        // Phase 2: injection at every NIC, allocation at every switch.
        for n in 0..self.topo.num_terminals() {
            if self.nic_out[n].is_some() {
                continue;
            }
            let Some(&p) = self.nic_queue[n].front() else { continue };
            let (s, port) = self.topo.terminal_attachment(n);
            let size = self.packets[p].size;
            let offers: Vec<Offer> = (0..self.injection_vcs)
                .map(|vc| {
                    let room = self.nic_credits[n * self.vcs + vc];
                    let occupancy = self.occupancy(self.topo.channel(s, port) * self.vcs + vc);
                    Offer { candidate: Candidate::new(port, vc), room, occupancy, takeable: room >= size }
                })
                .collect();
            if let Some(c) = self.pick(&offers) {
                let vc = c.vc as usize;
                self.nic_credits[n * self.vcs + vc] -= size;
                self.packets[p].injected = t;
                let sink = Sink::Queue(self.topo.channel(s, port) * self.vcs + vc);
                self.nic_out[n] = Some(Sending { from: usize::MAX, packet: p, sink, vc, sent: 0 });
            }
        }
        for s in 0..self.topo.num_switches() {
            let base = self.topo.channel(s, 0);
            let mut requests: Vec<(usize, usize, Candidate)> = Vec::new();
            for port in 0..self.topo.num_ports(s) {
                for vc in 0..self.vcs {
                    let q = (base + port) * self.vcs + vc;
                    if self.granted[q] {
                        continue;
                    }
                    let Some(e) = self.fifo[q].front() else { continue };
                    let pk = self.packets[e.packet];
                    let mut cands = Vec::new();
                    self.routing.route(
                        &Request {
                            switch: s,
                            in_port: port,
                            in_vc: vc,
                            src: pk.src,
                            dst: pk.dst,
                            salt: pk.salt,
                            offset: 0,
                        },
                        &mut cands,
                    );
                    let offers: Vec<Offer> = cands
                        .into_iter()
                        .map(|c| {
                            let o = base + c.port as usize;
                            let oq = o * self.vcs + c.vc as usize;
                            let free = match self.allocation {
                                OutputAllocation::Link => self.out[o].is_none(),
                                OutputAllocation::Vc => self.resv[oq].is_none(),
                            };
                            let (room, occupancy) = match self.topo.peers()[o] {
                                Peer::Switch { switch, port } => (
                                    self.credits[oq],
                                    self.occupancy(
                                        self.topo.channel(switch as usize, port as usize) * self.vcs + c.vc as usize,
                                    ),
                                ),
                                _ => (u32::MAX, 0),
                            };
                            let need = if c.bubble { 2 * pk.size } else { pk.size };
                            Offer { candidate: c, room, occupancy, takeable: free && room >= need }
                        })
                        .collect();
                    if let Some(c) = self.pick(&offers) {
                        let key = match self.allocation {
                            OutputAllocation::Link => base + c.port as usize,
                            OutputAllocation::Vc => (base + c.port as usize) * self.vcs + c.vc as usize,
                        };
                        requests.push((key, q, c));
                    }
                }
            }
            let mut outs: Vec<usize> = requests.iter().map(|r| r.0).collect();
            outs.sort();
            outs.dedup();
            for key in outs {
                let group: Vec<&(usize, usize, Candidate)> = requests.iter().filter(|r| r.0 == key).collect();
                let &(_, q, c) = group[self.rng.random_range(0..group.len())];
                let o = base + c.port as usize;
                let vc = c.vc as usize;
                let p = self.fifo[q][0].packet;
                let sink = match self.topo.peers()[o] {
                    Peer::Switch { switch, port } => {
                        self.credits[o * self.vcs + c.vc as usize] -= self.packets[p].size;
                        Sink::Queue(self.topo.channel(switch as usize, port as usize) * self.vcs + c.vc as usize)
                    }
                    Peer::Terminal(_) => Sink::Nic,
                    Peer::Unplugged => unreachable!(),
                };
                self.granted[q] = true;
                match self.allocation {
                    OutputAllocation::Link => self.out[o] = Some(Sending { from: q, packet: p, sink, vc, sent: 0 }),
                    OutputAllocation::Vc => self.resv[o * self.vcs + vc] = Some(q),
                }
            }
            if self.allocation == OutputAllocation::Vc {
                // Every free link starts the first reserved VC from its round-robin pointer.
                for o in base..base + self.topo.num_ports(s) {
                    if self.out[o].is_some() {
                        continue;
                    }
                    for i in 0..self.vcs {
                        let vc = (self.next_vc[o] + i) % self.vcs;
                        if let Some(q) = self.resv[o * self.vcs + vc] {
                            let p = self.fifo[q][0].packet;
                            let sink = match self.topo.peers()[o] {
                                Peer::Switch { switch, port } => {
                                    Sink::Queue(self.topo.channel(switch as usize, port as usize) * self.vcs + vc)
                                }
                                _ => Sink::Nic,
                            };
                            self.out[o] = Some(Sending { from: q, packet: p, sink, vc, sent: 0 });
                            break;
                        }
                    }
                }
            }
        }
        // Phase 3: every busy output and NIC sends one phit, if that phit is there.
        for o in 0..self.out.len() {
            if let Some(mut snd) = self.out[o] {
                let e = self.fifo[snd.from].front_mut().expect("the packet being sent");
                if e.arrived > e.sent {
                    e.sent += 1;
                    let size = self.packets[snd.packet].size;
                    self.send_phit(t, &mut snd, size);
                    if snd.sent == size {
                        self.freed.push((t + 1, o, false));
                        self.leaving.push((t + 1, snd.from));
                    }
                    self.out[o] = Some(snd);
                }
            }
        }
        for n in 0..self.nic_out.len() {
            if let Some(mut snd) = self.nic_out[n] {
                let size = self.packets[snd.packet].size;
                if snd.sent < size {
                    self.send_phit(t, &mut snd, size);
                    if snd.sent == size {
                        self.freed.push((t + 1, n, true));
                    }
                    self.nic_out[n] = Some(snd);
                }
            }
        }
    }

    /// Puts the next phit of `snd` on the wire.
    fn send_phit(&mut self, t: u64, snd: &mut Sending, size: u32) {
        let head = snd.sent == 0;
        snd.sent += 1;
        self.wire.push((t + self.hop, snd.sink, snd.packet, head, snd.sent == size));
        self.stats.phit_hops += 1;
    }
}
