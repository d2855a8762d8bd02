//! Table routing in the packet engine: every switch forwards by its forwarding table,
//! indexed by the packet's virtual destination (terminal and LID offset). The sender picks
//! the LID offset per packet (round-robin, random, or paper 001's PARX rule, Table 1) and
//! injects on the path's virtual lane (service level mapped one to one onto the engine's
//! VCs); the lane never changes along the path, as in InfiniBand.

use super::tables::{self, sssp, EngineOptions, Tables};
use super::{Candidate, Request, Routing};
use crate::config::{self, AddressPolicy, Config};
use crate::error::{Error, Result};
use crate::rng::{stream, Owner, Stream};
use crate::topology::{Family, Topology};
use rand::Rng;
use std::sync::Mutex;

/// Stream id of the senders' address draws (under [`Owner::Setup`]).
const ADDRESS_STREAM: u64 = 0xADD2;

/// Messages of at most this many bytes are "small" for the PARX rule (paper 001 §3.2.4).
pub const PARX_SMALL_BYTES: u64 = 512;

/// Paper 001 Table 1: valid LID offsets, `[destination quadrant][source quadrant]`, for
/// small (a) and large (b) messages; two entries where the table gives an alternative.
const PARX_SMALL: [[[u8; 2]; 4]; 4] = [
    [[1, 3], [1, 1], [0, 2], [3, 3]],
    [[1, 1], [1, 2], [2, 2], [0, 3]],
    [[1, 3], [2, 2], [0, 2], [0, 0]],
    [[3, 3], [1, 2], [0, 0], [0, 3]],
];
const PARX_LARGE: [[[u8; 2]; 4]; 4] = [
    [[0, 2], [0, 0], [0, 2], [2, 2]],
    [[0, 0], [0, 3], [3, 3], [0, 3]],
    [[1, 3], [3, 3], [1, 3], [1, 1]],
    [[2, 2], [1, 2], [1, 1], [1, 2]],
];

/// Paper 001 Table 1: the LID offsets a message of the given class may use from a source
/// in quadrant `src_q` to a destination in quadrant `dst_q`.
pub fn parx_offsets(src_q: usize, dst_q: usize, small: bool) -> [u8; 2] {
    (if small { &PARX_SMALL } else { &PARX_LARGE })[dst_q][src_q]
}

/// The table-lookup routing.
pub struct TableRouting {
    tables: Tables,
    policy: AddressPolicy,
    phit_bytes: u64,
    /// Quadrant of every terminal's switch (PARX rule only).
    quadrant: Vec<u8>,
    /// Per-sender state: next round-robin offset and the random stream.
    senders: Mutex<(Vec<u32>, Stream)>,
    /// Uniform-traffic bound under these tables and this address policy.
    bound: f64,
}

impl TableRouting {
    /// Computes (or loads) the tables `r` names and checks them against the network.
    pub fn new(r: &config::TableRouting, cfg: &Config, topo: &Topology) -> Result<Self> {
        Self::build(r, cfg, topo, true)
    }

    /// The tables' paths alone, for the flow model: flows have no VCs, so no lanes are
    /// assigned and `switch.vcs` bounds nothing (a 3D torus whose DFSSSP layering needs more
    /// lanes than a table holds still has its paths).
    pub fn paths_only(r: &config::TableRouting, cfg: &Config, topo: &Topology) -> Result<Self> {
        Self::build(r, cfg, topo, false)
    }

    fn build(r: &config::TableRouting, cfg: &Config, topo: &Topology, lanes: bool) -> Result<Self> {
        let vcs = cfg.switch.vcs as usize;
        let tables = match &r.tables {
            Some(path) => {
                // ib_flit_sim's tables need their .ini and host list beside them: `route` reads
                // the three and writes one dump, which is what a config names.
                if path.ends_with(".fdbs") || path.ends_with(".fdbs.gz") {
                    return Err(Error::invalid(
                        "config",
                        "routing.tables",
                        format!("'{path}'"),
                        format!(
                            "a table dump of hpcnetsim's own ('# lmc: N' first): ib_flit_sim tables become one with \
                             `hpcnetsim route '{}' --load {path} --dump FILE`, then routing.tables = FILE",
                            topo.spec()
                        ),
                    ));
                }
                let text = std::fs::read_to_string(path).map_err(|e| {
                    Error::invalid(
                        "config",
                        "routing.tables",
                        format!("'{path}'"),
                        format!("a readable table dump ({e})"),
                    )
                })?;
                let t = tables::dump::load(&text, path, topo)?;
                if lanes && t.vls > vcs {
                    return Err(Error::invalid(
                        "config",
                        "switch.vcs",
                        vcs,
                        format!("at least {} (the lanes the tables in {path} use)", t.vls),
                    ));
                }
                t
            }
            None => {
                let opts =
                    EngineOptions { lmc: r.lmc, max_vls: vcs, layering: r.layering, lanes, ..EngineOptions::default() };
                tables::compute(r.engine, topo, &opts).map_err(|e| match e {
                    Error::Invalid { field, value, allowed, .. } if field == "vls" => Error::invalid(
                        "config",
                        "switch.vcs",
                        value,
                        allowed.replace("virtual lanes", "VCs (virtual lanes)"),
                    ),
                    // An engine refusing the network (ftree on a HyperX) is a config error like
                    // any other: `config: routing.engine = ...`, which the file's name prefixes.
                    Error::Invalid { context, field, value, allowed } if context == "routing" => {
                        Error::invalid("config", format!("routing.{field}"), value, allowed)
                    }
                    other => other,
                })?
            }
        };
        tables.check_fits(topo)?;
        let stats = tables::stats::summarise(topo, &tables);
        if stats.unreachable_pairs > 0 {
            let pairs: Vec<String> = stats.unreachable_examples.iter().map(|(a, b)| format!("{a}->{b}")).collect();
            // Computed tables miss pairs where faults cut the network, or where the engine
            // cannot route around them (ftree on a damaged tree): a path between the first
            // pair's switches tells which.
            let (a, b) = stats.unreachable_examples[0];
            let linked = || {
                let reach = crate::topology::paths::bfs(topo, topo.terminal_attachment(a).0);
                reach[topo.terminal_attachment(b).0] != u32::MAX
            };
            let cause = if r.tables.is_some() {
                "the tables read do not route them".to_string()
            } else if linked() {
                format!(
                    "the network links them, but '{}' finds no route around its faults; \
                     dfsssp, sssp, minhop and updn route every linked pair",
                    tables.engine
                )
            } else {
                "faults disconnect the network".to_string()
            };
            return Err(Error::Unsupported(format!(
                "{}: {} terminal pairs are unreachable under routing '{}' ({cause}): {}{}",
                topo.spec(),
                stats.unreachable_pairs,
                tables.engine,
                pairs.join(" "),
                if stats.unreachable_pairs > pairs.len() { " ..." } else { "" }
            )));
        }
        let policy = r.address;
        let quadrant = match (policy, topo.family()) {
            (AddressPolicy::Parx, Family::HyperX(h)) if h.dims.len() == 2 && tables.lmc == 2 => (0..topo
                .num_terminals())
                .map(|t| {
                    let c = h.coordinates(topo.terminal_attachment(t).0);
                    sssp::quadrant(c[0], c[1], &h.dims) as u8
                })
                .collect(),
            (AddressPolicy::Parx, _) => {
                return Err(Error::invalid(
                    "config",
                    "routing.address",
                    "'parx'",
                    "a 2D HyperX with LMC 2 (routing.engine = \"parx\"); use round-robin or random elsewhere",
                ))
            }
            _ => Vec::new(),
        };
        let bound = match policy {
            AddressPolicy::Parx => {
                // Table 1 for packets of the configured size, alternatives taken equally.
                let bytes = cfg.traffic.packet_phits as u64 * cfg.switch.phit_bytes as u64;
                let table = if bytes <= PARX_SMALL_BYTES { &PARX_SMALL } else { &PARX_LARGE };
                let sq: Vec<u8> = (0..topo.num_switches())
                    .map(|s| match topo.family() {
                        Family::HyperX(h) => {
                            let c = h.coordinates(s);
                            sssp::quadrant(c[0], c[1], &h.dims) as u8
                        }
                        _ => 0,
                    })
                    .collect();
                let split = |s: usize, dst: usize, o: usize| {
                    let pair = table[quadrant[dst] as usize][sq[s] as usize];
                    pair.iter().filter(|&&x| x as usize == o).count() as f64 / 2.0
                };
                let (_, load) = tables::stats::channel_usage_split(topo, &tables, &split);
                tables::stats::throughput_bound(topo, &load)
            }
            _ => stats.routed_throughput.expect("every pair is routed: unreachable ones are refused above"),
        };
        Ok(TableRouting {
            bound,
            senders: Mutex::new((vec![0; topo.num_terminals()], stream(cfg.seed, Owner::Setup, ADDRESS_STREAM))),
            tables,
            policy,
            phit_bytes: cfg.switch.phit_bytes as u64,
            quadrant,
        })
    }

    /// The tables in use.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The LID offsets a sender uses for messages of `bytes` from `src` to `dst`, each with
    /// the share of the messages it takes (the average of the address policy's choice).
    pub fn offset_shares(&self, src: usize, dst: usize, bytes: u64) -> Vec<(u8, f64)> {
        let n = self.tables.offsets();
        match self.policy {
            AddressPolicy::Parx => {
                let table = if bytes <= PARX_SMALL_BYTES { &PARX_SMALL } else { &PARX_LARGE };
                let pair = table[self.quadrant[dst] as usize][self.quadrant[src] as usize];
                if pair[0] == pair[1] {
                    vec![(pair[0], 1.0)]
                } else {
                    vec![(pair[0], 0.5), (pair[1], 0.5)]
                }
            }
            _ => (0..n).map(|o| (o as u8, 1.0 / n as f64)).collect(),
        }
    }
}

impl Routing for TableRouting {
    fn name(&self) -> &'static str {
        "table"
    }

    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let lid = self.tables.lid(req.dst, req.offset as usize);
        if let Some(p) = self.tables.port(req.switch, lid) {
            out.push(Candidate::new(p, req.in_vc));
        }
    }

    fn offsets(&self) -> usize {
        self.tables.offsets()
    }

    fn address_offset(&self, src: usize, dst: usize, size_phits: u32) -> u8 {
        let n = self.tables.offsets();
        if n == 1 {
            return 0;
        }
        let mut state = self.senders.lock().expect("sender state");
        match self.policy {
            AddressPolicy::RoundRobin => {
                let o = state.0[src] as usize % n;
                state.0[src] = state.0[src].wrapping_add(1);
                o as u8
            }
            AddressPolicy::Random => state.1.random_range(0..n) as u8,
            AddressPolicy::Parx => {
                let table =
                    if size_phits as u64 * self.phit_bytes <= PARX_SMALL_BYTES { &PARX_SMALL } else { &PARX_LARGE };
                let pair = table[self.quadrant[dst] as usize][self.quadrant[src] as usize];
                pair[state.1.random_range(0..2usize)]
            }
        }
    }

    fn throughput_bound(&self) -> Option<f64> {
        Some(self.bound)
    }

    fn injection_vc(&self, src: usize, dst: usize, offset: u8) -> Option<usize> {
        Some(self.tables.vl(src, self.tables.lid(dst, offset as usize)))
    }
}
