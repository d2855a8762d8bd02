//! A deliberately simple, cycle-by-cycle reference simulator of the same switch model:
//! every cycle it looks at every queue, every output and every NIC, with no events and no
//! wake-ups. It shares only the routing functions with the engine. Used to check the
//! event-driven engine (same single-packet latencies, statistically the same behaviour
//! under load) and as the cycle-driven baseline of the speed comparison.

use hpcnetsim_core::config::{Config, Selection};
use hpcnetsim_core::rng::{stream, Owner, Stream};
use hpcnetsim_core::routing::{self, Candidate, Request, Routing};
use hpcnetsim_core::topology::{Peer, Topology};
use hpcnetsim_core::workload::Pattern;
use rand::Rng;
use std::collections::VecDeque;

#[derive(Clone, Copy)]
struct Packet {
    src: usize,
    dst: usize,
    size: u32,
    generated: u64,
    injected: u64,
}

/// Statistics of a reference run.
#[derive(Debug, Default, Clone)]
pub struct RefStats {
    pub delivered: u64,
    pub delivered_phits: u64,
    pub latency_sum: u64,
    pub latencies: Vec<u64>,
    pub generated: u64,
}

/// The reference network.
pub struct Reference<'a> {
    topo: &'a Topology,
    routing: Box<dyn Routing>,
    pattern: Pattern,
    selection: Selection,
    vcs: usize,
    capacity: u32,
    hop: u64,
    credit_delay: u64,
    injection_queue: usize,
    gen_probability: f64,
    size: u32,
    rng: Stream,
    packets: Vec<Packet>,
    /// Input queues (channel × vcs + vc): packets whose head has arrived.
    fifo: Vec<VecDeque<usize>>,
    /// Cycle at which the front packet of a queue finishes leaving (None: not granted).
    leaving_until: Vec<Option<u64>>,
    out_busy_until: Vec<u64>,
    credits: Vec<u32>,
    /// Heads travelling on links: (arrival cycle, queue or usize::MAX for a NIC, packet).
    heads: Vec<(u64, usize, usize)>,
    /// Credits travelling back: (cycle, sender queue or NIC × vcs + vc, is_nic, phits).
    returns: Vec<(u64, usize, bool, u32)>,
    nic_queue: Vec<VecDeque<usize>>,
    /// Cycle at which the packet a NIC is sending has left it.
    nic_sending: Vec<Option<u64>>,
    nic_credits: Vec<u32>,
    /// Packets whose tail reaches their NIC at the given cycle.
    deliveries: Vec<(u64, usize)>,
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
        Reference {
            topo,
            routing: routing::build(cfg, topo).unwrap(),
            pattern: Pattern::new(&cfg.traffic, topo, cfg.seed).unwrap(),
            selection: cfg.routing.selection,
            vcs,
            capacity,
            hop: (cfg.switch.switch_delay_cycles + cfg.switch.link_delay_cycles) as u64,
            credit_delay: cfg.switch.credit_delay_cycles as u64,
            injection_queue: cfg.switch.injection_queue_packets as usize,
            gen_probability: cfg.traffic.load / size as f64,
            size,
            rng: stream(cfg.seed ^ 0x5eed, Owner::Setup, 99),
            packets: Vec::new(),
            fifo: vec![VecDeque::new(); channels * vcs],
            leaving_until: vec![None; channels * vcs],
            out_busy_until: vec![0; channels],
            credits: vec![capacity; channels * vcs],
            heads: Vec::new(),
            returns: Vec::new(),
            nic_queue: vec![VecDeque::new(); topo.num_terminals()],
            nic_sending: vec![None; topo.num_terminals()],
            nic_credits: vec![capacity; topo.num_terminals() * vcs],
            deliveries: Vec::new(),
            stats: RefStats::default(),
            recording: false,
        }
    }

    /// Adds one packet to a NIC's injection queue at cycle `t`.
    pub fn inject(&mut self, src: usize, dst: usize, t: u64) {
        self.packets.push(Packet { src, dst, size: self.size, generated: t, injected: 0 });
        self.nic_queue[src].push_back(self.packets.len() - 1);
    }

    fn pick(&mut self, available: &[(Candidate, u32)]) -> Option<Candidate> {
        routing::select(self.selection, available, &mut self.rng)
    }

    /// Simulates cycle `t`.
    pub fn step(&mut self, t: u64) {
        // Phase 1: heads land, credits come back, tails leave, deliveries, generation.
        let mut landed: Vec<(u64, usize, usize)> = Vec::new();
        self.heads.retain(|&h| {
            if h.0 == t {
                landed.push(h);
                false
            } else {
                true
            }
        });
        for (_, q, p) in landed {
            self.fifo[q].push_back(p);
        }
        let mut back = Vec::new();
        self.returns.retain(|&r| {
            if r.0 == t {
                back.push(r);
                false
            } else {
                true
            }
        });
        for (_, i, nic, phits) in back {
            if nic {
                self.nic_credits[i] += phits
            } else {
                self.credits[i] += phits
            }
        }
        for q in 0..self.fifo.len() {
            if self.leaving_until[q] == Some(t) {
                let p = self.fifo[q].pop_front().unwrap();
                self.leaving_until[q] = None;
                let vc = q % self.vcs;
                match self.topo.peers()[q / self.vcs] {
                    Peer::Switch { switch, port } => {
                        let up = self.topo.channel(switch as usize, port as usize) * self.vcs + vc;
                        self.returns.push((t + self.credit_delay, up, false, self.packets[p].size));
                    }
                    Peer::Terminal(n) => self.returns.push((
                        t + self.credit_delay,
                        n as usize * self.vcs + vc,
                        true,
                        self.packets[p].size,
                    )),
                    Peer::Unplugged => unreachable!(),
                }
            }
        }
        let mut done = Vec::new();
        self.deliveries.retain(|&d| {
            if d.0 == t {
                done.push(d.1);
                false
            } else {
                true
            }
        });
        for p in done {
            let pk = self.packets[p];
            self.stats.delivered += 1;
            self.stats.delivered_phits += pk.size as u64;
            if self.recording {
                self.stats.latency_sum += t - pk.injected;
                self.stats.latencies.push(t - pk.injected);
            }
        }
        for n in 0..self.topo.num_terminals() {
            if self.nic_sending[n] == Some(t) {
                self.nic_queue[n].pop_front();
                self.nic_sending[n] = None;
            }
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
            if self.nic_sending[n].is_some() {
                continue;
            }
            let Some(&p) = self.nic_queue[n].front() else { continue };
            let (s, port) = self.topo.terminal_attachment(n);
            let avail: Vec<(Candidate, u32)> = (0..self.vcs)
                .filter(|&vc| self.nic_credits[n * self.vcs + vc] >= self.packets[p].size)
                .map(|vc| (Candidate::new(port, vc), self.nic_credits[n * self.vcs + vc]))
                .collect();
            if let Some(c) = self.pick(&avail) {
                self.nic_credits[n * self.vcs + c.vc as usize] -= self.packets[p].size;
                self.nic_sending[n] = Some(t + self.packets[p].size as u64);
                self.packets[p].injected = t;
                let q = self.topo.channel(s, port) * self.vcs + c.vc as usize;
                self.heads.push((t + self.hop, q, p));
            }
        }
        for s in 0..self.topo.num_switches() {
            let base = self.topo.channel(s, 0);
            let mut requests: Vec<(usize, usize, Candidate)> = Vec::new();
            for port in 0..self.topo.num_ports(s) {
                for vc in 0..self.vcs {
                    let q = (base + port) * self.vcs + vc;
                    if self.leaving_until[q].is_some() {
                        continue;
                    }
                    let Some(&p) = self.fifo[q].front() else { continue };
                    let pk = self.packets[p];
                    let mut cands = Vec::new();
                    let req = Request { switch: s, in_port: port, in_vc: vc, src: pk.src, dst: pk.dst };
                    self.routing.route(&req, &mut cands);
                    let avail: Vec<(Candidate, u32)> = cands
                        .into_iter()
                        .filter_map(|c| {
                            let out = base + c.port as usize;
                            if self.out_busy_until[out] > t {
                                return None;
                            }
                            let room = match self.topo.peers()[out] {
                                Peer::Terminal(_) => u32::MAX,
                                _ => self.credits[out * self.vcs + c.vc as usize],
                            };
                            let need = if c.bubble { 2 * pk.size } else { pk.size };
                            (room >= need).then_some((c, room))
                        })
                        .collect();
                    if let Some(c) = self.pick(&avail) {
                        requests.push((base + c.port as usize, q, c));
                    }
                }
            }
            let mut outs: Vec<usize> = requests.iter().map(|r| r.0).collect();
            outs.sort();
            outs.dedup();
            for out in outs {
                let group: Vec<&(usize, usize, Candidate)> = requests.iter().filter(|r| r.0 == out).collect();
                let &(_, q, c) = group[self.rng.random_range(0..group.len())];
                let p = self.fifo[q][0];
                let size = self.packets[p].size as u64;
                self.out_busy_until[out] = t + size;
                self.leaving_until[q] = Some(t + size);
                match self.topo.peers()[out] {
                    Peer::Switch { switch, port } => {
                        self.credits[out * self.vcs + c.vc as usize] -= size as u32;
                        let next = self.topo.channel(switch as usize, port as usize) * self.vcs + c.vc as usize;
                        self.heads.push((t + self.hop, next, p));
                    }
                    Peer::Terminal(_) => self.deliveries.push((t + self.hop + size - 1, p)),
                    Peer::Unplugged => unreachable!(),
                }
            }
        }
    }
}
