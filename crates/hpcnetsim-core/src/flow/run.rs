//! The flow model driven by a config: the path source of `[flow]`, the nodes of the
//! benchmarks, and `model = "flow"` runs of independent traffic (one steady flow per
//! source and destination of the pattern, limited by the offered load).

use super::maxmin::{Shares, Solver};
use super::paths::{MinimalPaths, PathProvider, PathSet, RoutingPaths, WalkMode};
use super::valiant::ValiantPaths;
use super::{check_flow, push_paths, Flow, Links};
use crate::config::{config_name, Config, PathsKind, PatternKind};
use crate::error::{Error, Result};
use crate::rng::{stream, Owner};
use crate::topology::{Peer, Topology};
use crate::workload::{placement, Pattern};
use serde::Serialize;
use std::time::Instant;

/// Routings that offer several candidates per hop on purpose (their `auto` paths spread).
const ADAPTIVE: &[&str] = &[
    "tree-adaptive",
    "hyperx-adaptive",
    "bubble-adaptive",
    "hyperx-ugal",
    "hyperx-dal",
    "duato",
    "dragonfly-ugal",
    "dragonfly-ugal-g",
    "dragonfly-par",
    "graph-ugal",
];

/// The path source the config asks for on `topo`.
pub fn provider<'a>(cfg: &Config, topo: &'a Topology) -> Result<Box<dyn PathProvider + 'a>> {
    if topo.planes() > 1 {
        // A flow between endpoints would be one flow per plane with its own injection link,
        // which the model's one-injection-channel flows do not represent.
        return Err(Error::Unsupported(format!(
            "{}: the flow model (eBB, mpiGraph, flow runs) takes single-plane networks; \
             run one plane ({}) or the packet engine (model = \"packet\")",
            topo.spec(),
            topo.plane().spec()
        )));
    }
    if cfg.flow.paths == PathsKind::Minimal {
        return Ok(Box::new(MinimalPaths::new(topo)));
    }
    if let Some(table) = cfg.routing.table() {
        // Flows have no VCs: the tables' paths without lanes, whatever `switch.vcs` says.
        let tables = crate::routing::table_lookup::TableRouting::paths_only(table, cfg, topo)?;
        let walk = Box::new(super::table_paths::TablePaths::new(topo, tables, cfg.flow.message_bytes));
        if cfg.flow.paths == PathsKind::Valiant {
            return Ok(Box::new(ValiantPaths::new(topo, walk)));
        }
        return Ok(walk);
    }
    // Flows have no VCs: the routing takes the fewest it accepts from the config's up (a
    // dragonfly's two classes, a twin torus's four, a Slim Fly's VC per hop).
    let (routing, _) = crate::routing::build_with_fewest_vcs(cfg, topo, cfg.switch.vcs as usize)?;
    let mode = match cfg.flow.paths {
        PathsKind::First => WalkMode::First,
        PathsKind::Spread => WalkMode::Spread,
        _ if ADAPTIVE.contains(&routing.name()) => WalkMode::Spread,
        _ => WalkMode::First,
    };
    let walk = Box::new(RoutingPaths::new(topo, routing, mode));
    if cfg.flow.paths == PathsKind::Valiant {
        return Ok(Box::new(ValiantPaths::new(topo, walk)));
    }
    Ok(walk)
}

/// The terminals of the benchmark's ranks, rank order (`flow.nodes`, `flow.placement`).
pub fn nodes(cfg: &Config, topo: &Topology) -> Result<Vec<usize>> {
    let n = topo.num_terminals();
    let f = &cfg.flow;
    let count = if f.nodes == 0 { n } else { f.nodes };
    if count > n {
        return Err(Error::invalid(
            "config",
            "flow.nodes",
            count,
            format!("at most the {n} terminals of {}", topo.spec()),
        ));
    }
    let placed = placement::place(f.placement, &f.placement_list, count, 1, n, cfg.seed)
        .map_err(|e| Error::Unsupported(e.to_string().replace("workload.", "flow.").replace(" tasks", " ranks")))?;
    Ok(placed.into_iter().map(|t| t as usize).collect())
}

/// Mean, spread and quantiles of a sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Distribution {
    /// Mean.
    pub mean: f64,
    /// Standard deviation.
    pub std: f64,
    /// Smallest value.
    pub min: f64,
    /// 5th percentile.
    pub p5: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest value.
    pub max: f64,
}

impl Distribution {
    /// The distribution of `values` (all zero when empty).
    pub fn of(values: &[f64]) -> Self {
        if values.is_empty() {
            return Distribution::default();
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len() as f64;
        // Summed in floating point, equal samples can average a rounding step outside them.
        let mean = (v.iter().sum::<f64>() / n).clamp(v[0], v[v.len() - 1]);
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        let q = |p: f64| v[((p * (n - 1.0)).round() as usize).min(v.len() - 1)];
        Distribution { mean, std: var.sqrt(), min: v[0], p5: q(0.05), p50: q(0.5), p95: q(0.95), max: v[v.len() - 1] }
    }
}

/// Load and sharing of the switch-to-switch channels.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkLoads {
    /// Load (fraction of the link bandwidth) over the switch-to-switch channels.
    pub load: Distribution,
    /// Most flows sharing one switch-to-switch channel.
    pub max_flows_per_link: u32,
    /// Every channel's load, indexed like the switch ports (`measurement.per_link_utilisation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_channel: Option<Vec<f64>>,
    /// Every channel's number of flows, indexed like the switch ports (with `per_channel`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows_per_channel: Option<Vec<u32>>,
}

impl LinkLoads {
    /// Summarises channel loads and flow counts (injection channels excluded).
    pub fn new(topo: &Topology, load: &[f64], flows: &[u32], per_channel: bool) -> Self {
        let ports = topo.peers().len();
        let inner: Vec<usize> = (0..ports).filter(|&c| matches!(topo.peers()[c], Peer::Switch { .. })).collect();
        let loads: Vec<f64> = inner.iter().map(|&c| load[c]).collect();
        LinkLoads {
            load: Distribution::of(&loads),
            max_flows_per_link: inner.iter().map(|&c| flows[c]).max().unwrap_or(0),
            per_channel: per_channel.then(|| load[..ports].to_vec()),
            flows_per_channel: per_channel.then(|| flows[..ports].to_vec()),
        }
    }
}

/// The result of a `model = "flow"` run of independent traffic.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowRunResult {
    /// Always `flow`.
    pub model: String,
    /// Topology spec.
    pub topology: String,
    /// Path source (routing and how it was walked).
    pub routing: String,
    /// Virtual channels per link (of the routing's config; the flow model has no VCs).
    pub vcs: u32,
    /// Master seed.
    pub seed: u64,
    /// Traffic pattern.
    pub pattern: String,
    /// Always `converged` (steady rates need no convergence), for tables shared with packet runs.
    pub status: String,
    /// Offered load, phits per cycle per node (fraction of a link's bandwidth).
    pub offered_load: f64,
    /// Accepted load: the flows' max-min fair rates summed per source, mean over the sources.
    pub accepted_load: f64,
    /// Accepted load in bytes per time unit per source.
    pub accepted_bandwidth: f64,
    /// Unit of the bandwidths.
    pub bandwidth_unit: String,
    /// Whether some source gets less than it offers.
    pub saturated: bool,
    /// Every flow as `[source, destination, rate]` (rate in link bandwidths).
    pub flows: Vec<(usize, usize, f64)>,
    /// Rates of the flows.
    pub flow_rate: Distribution,
    /// Link loads and sharing.
    pub link_loads: LinkLoads,
    /// The topology's uniform-traffic bound for every routing, for reference (`None` where
    /// it is not computed; see `topo describe`).
    pub ideal_throughput: Option<f64>,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// One line saying what happened.
    pub message: String,
}

/// The flows of the traffic pattern (each with its demand in link bandwidths).
fn pattern_flows(cfg: &Config, topo: &Topology) -> Result<Vec<(Flow, f64)>> {
    let n = topo.num_terminals();
    let load = cfg.traffic.load;
    let kind = cfg.traffic.pattern;
    let pattern = Pattern::new(&cfg.traffic, topo, cfg.seed)?;
    let fixed = matches!(
        kind,
        PatternKind::BitComplement
            | PatternKind::BitReversal
            | PatternKind::Transpose
            | PatternKind::PerfectShuffle
            | PatternKind::Butterfly
            | PatternKind::Tornado
            | PatternKind::RandomPermutation
            | PatternKind::GroupShift
    );
    let mut out = Vec::new();
    if fixed {
        let mut rng = stream(cfg.seed, Owner::Flow, u64::MAX);
        for s in (0..n).filter(|&s| pattern.is_active(s)) {
            let d = pattern.destination(s, &mut rng);
            if d != s {
                out.push((Flow { src: s, dst: d, bytes: 0.0 }, load));
            }
        }
    } else if kind == PatternKind::Uniform {
        let each = load / (n - 1) as f64;
        for s in 0..n {
            out.extend((0..n).filter(|&d| d != s).map(|d| (Flow { src: s, dst: d, bytes: 0.0 }, each)));
        }
    } else {
        return Err(Error::invalid(
            "config",
            "traffic.pattern",
            format!("'{}'", config_name(&kind)),
            "with model = 'flow': uniform or a permutation (bit-complement, bit-reversal, transpose, \
             perfect-shuffle, butterfly, tornado, random-permutation)",
        ));
    }
    Ok(out)
}

/// Runs the independent traffic of `cfg` as steady flows (the config's `model = "flow"`).
pub fn simulate(cfg: &Config) -> Result<FlowRunResult> {
    let start = Instant::now();
    let topo = Topology::from_spec(&cfg.topology)?;
    let links = Links::from_config(&topo, cfg);
    let paths = provider(cfg, &topo)?;
    let flows = pattern_flows(cfg, &topo)?;
    // Each flow's demand is a private channel of that capacity.
    let mut capacity = links.capacity.clone();
    let mut shares = Shares::default();
    let mut set = PathSet::default();
    let mut entries = Vec::new();
    for (i, (f, demand)) in flows.iter().enumerate() {
        check_flow(&topo, f)?;
        let mut one = Shares::default();
        push_paths(&topo, &links, paths.as_ref(), f.src, f.dst, &mut set, &mut one)?;
        entries.clear();
        entries.extend_from_slice(one.of(0));
        entries.push(((links.len() + i) as u32, 1.0));
        capacity.push(*demand);
        shares.push_raw(&entries);
    }
    let active: Vec<u32> = (0..shares.len() as u32).collect();
    let mut rates = Vec::new();
    Solver::default().solve(&capacity, &shares, &active, &mut rates);
    let mut per_source = vec![0.0; topo.num_terminals()];
    let mut active_source = vec![false; topo.num_terminals()];
    for ((f, _), r) in flows.iter().zip(&rates) {
        per_source[f.src] += r;
        active_source[f.src] = true;
    }
    let sources = active_source.iter().filter(|&&a| a).count().max(1);
    let accepted = per_source.iter().sum::<f64>() / sources as f64;
    let load = shares.channel_loads(&rates, capacity.len());
    let counts = shares.flows_per_channel(capacity.len());
    let saturated = flows.iter().zip(&rates).any(|((_, d), r)| *r < d * (1.0 - 1e-9));
    let flow_rate = Distribution::of(&rates);
    let message = format!(
        "{} flows of {} on {}: accepted {:.4} of offered {:.4} per source",
        flows.len(),
        config_name(&cfg.traffic.pattern),
        topo.spec(),
        accepted,
        cfg.traffic.load
    );
    Ok(FlowRunResult {
        model: "flow".into(),
        topology: topo.spec().to_string(),
        routing: paths.name(),
        vcs: cfg.switch.vcs,
        seed: cfg.seed,
        pattern: config_name(&cfg.traffic.pattern),
        status: "converged".into(),
        offered_load: cfg.traffic.load,
        accepted_load: accepted,
        accepted_bandwidth: accepted * links.bandwidth,
        bandwidth_unit: links.bandwidth_unit(),
        saturated,
        flows: flows.iter().zip(&rates).map(|((f, _), &r)| (f.src, f.dst, r)).collect(),
        flow_rate,
        link_loads: LinkLoads::new(&topo, &load, &counts, cfg.measurement.per_link_utilisation),
        ideal_throughput: topo.throughput_bound(),
        wall_seconds: start.elapsed().as_secs_f64(),
        message,
    })
}

/// The result of running given flows to completion.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowsResult {
    /// Topology spec.
    pub topology: String,
    /// Path source.
    pub routing: String,
    /// Max-min fair rate of every flow while all run (fractions of the link bandwidth).
    pub rates: Vec<f64>,
    /// Finish time of every flow (time unit of the bandwidth: s or cycles).
    pub finish: Vec<f64>,
    /// Bytes over finish time of every flow.
    pub bandwidth: Vec<f64>,
    /// Unit of `bandwidth`.
    pub bandwidth_unit: String,
    /// Time unit of `finish`.
    pub time_unit: String,
    /// When the last flow finished.
    pub makespan: f64,
    /// Rate recomputations (groups of flows finishing together).
    pub phases: usize,
    /// Link loads at the initial rates and the flows sharing each link.
    pub link_loads: LinkLoads,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
}

/// Runs `flows` (source, destination, bytes) on the network of `cfg` until all finish.
pub fn run_flows(cfg: &Config, flows: &[Flow]) -> Result<FlowsResult> {
    let start = Instant::now();
    let topo = Topology::from_spec(&cfg.topology)?;
    let links = Links::from_config(&topo, cfg);
    let paths = provider(cfg, &topo)?;
    let shares = super::flow_shares(&topo, &links, paths.as_ref(), flows)?;
    let bytes: Vec<f64> = flows.iter().map(|f| f.bytes).collect();
    let c = super::complete(&links.capacity, &shares, &bytes, links.bandwidth);
    let load = shares.channel_loads(&c.initial_rates, links.len());
    let counts = shares.flows_per_channel(links.len());
    Ok(FlowsResult {
        topology: topo.spec().to_string(),
        routing: paths.name(),
        bandwidth: bytes.iter().zip(&c.finish).map(|(b, t)| if *t > 0.0 { b / t } else { 0.0 }).collect(),
        bandwidth_unit: links.bandwidth_unit(),
        time_unit: links.time_unit.to_string(),
        makespan: c.finish.iter().copied().fold(0.0, f64::max),
        phases: c.phases,
        link_loads: LinkLoads::new(&topo, &load, &counts, true),
        rates: c.initial_rates,
        finish: c.finish,
        wall_seconds: start.elapsed().as_secs_f64(),
    })
}
