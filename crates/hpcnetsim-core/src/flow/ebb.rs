//! Effective bisection bandwidth (Netgauge eBB, paper 001 §4.2): split the nodes into two
//! random halves, pair every node of one half with one of the other, let every pair
//! exchange a message both ways at once, and average the per-flow bandwidth; repeat over
//! many random bisections. Samples run in parallel; sample `i` draws from its own stream,
//! so results do not depend on the number of threads.

use super::completion::complete;
use super::maxmin::{Shares, Solver};
use super::paths::{PathProvider, PathSet};
use super::run::{nodes, provider, Distribution};
use super::{push_paths, Links};
use crate::config::{config_name, Config, Measure};
use crate::error::{Error, Result};
use crate::rng::{stream, Owner};
use crate::topology::Topology;
use rand::seq::SliceRandom;
use serde::Serialize;
use std::time::Instant;

/// What an eBB run measures.
#[derive(Clone, Copy, Debug)]
pub struct EbbSettings {
    /// Random bisections.
    pub samples: u32,
    /// Master seed.
    pub seed: u64,
    /// Steady rates or message size over completion time.
    pub measure: Measure,
    /// Message size in bytes (for `Measure::Completion`).
    pub message_bytes: f64,
}

/// Workspace of one thread.
#[derive(Default)]
struct Work {
    solver: Solver,
    shares: Shares,
    set: PathSet,
    rates: Vec<f64>,
    active: Vec<u32>,
    order: Vec<usize>,
}

/// Mean per-flow bandwidth (in link bandwidths) of one random bisection of `nodes`.
fn sample(
    topo: &Topology,
    links: &Links,
    paths: &dyn PathProvider,
    nodes: &[usize],
    s: &EbbSettings,
    i: u32,
    w: &mut Work,
) -> Result<f64> {
    let mut rng = stream(s.seed, Owner::Flow, i as u64);
    w.order.clear();
    w.order.extend_from_slice(nodes);
    w.order.shuffle(&mut rng);
    let half = w.order.len() / 2;
    w.shares.clear();
    for k in 0..half {
        let (a, b) = (w.order[k], w.order[k + half]);
        for (src, dst) in [(a, b), (b, a)] {
            push_paths(topo, links, paths, src, dst, &mut w.set, &mut w.shares)?;
        }
    }
    let flows = w.shares.len();
    match s.measure {
        Measure::Rate => {
            w.active.clear();
            w.active.extend(0..flows as u32);
            w.solver.solve(&links.capacity, &w.shares, &w.active, &mut w.rates);
            Ok(w.rates.iter().sum::<f64>() / flows as f64)
        }
        Measure::Completion => {
            let bytes = vec![s.message_bytes; flows];
            let c = complete(&links.capacity, &w.shares, &bytes, links.bandwidth);
            let size = s.message_bytes / links.bandwidth;
            Ok(c.finish.iter().map(|t| size / t).sum::<f64>() / flows as f64)
        }
    }
}

/// Most flows of one eBB run, samples times nodes: 1 000 samples of the 10 648 nodes of
/// `tree:k=22,n=3` (docs/flow.md) pass.
pub const MAX_EBB_FLOWS: u64 = 1 << 24;

/// eBB of every sample (mean per-flow bandwidth in link bandwidths), in sample order.
pub fn ebb_samples(
    topo: &Topology,
    links: &Links,
    paths: &dyn PathProvider,
    nodes: &[usize],
    s: &EbbSettings,
) -> Result<Vec<f64>> {
    if nodes.len() < 2 {
        return Err(Error::invalid("eBB", "nodes", nodes.len(), "at least 2 nodes"));
    }
    // One max-min fair allocation of the nodes' flows per sample: 1 000 samples of mesh:20x20x20's
    // 8 000 nodes take 50 s on two cores; 10 000 samples would take eight minutes.
    let flows = s.samples as u64 * nodes.len() as u64;
    if flows > MAX_EBB_FLOWS {
        return Err(Error::invalid(
            "eBB",
            "flow.samples",
            format!("{} x {} nodes", s.samples, nodes.len()),
            "at most 2^24 flows in all (samples x nodes): fewer samples or nodes",
        ));
    }
    let n = topo.num_terminals();
    if let Some(&bad) = nodes.iter().find(|&&t| t >= n) {
        return Err(Error::invalid("eBB", "node", bad, format!("terminals in 0..{n}")));
    }
    let mut seen = vec![false; n];
    for &t in nodes {
        if std::mem::replace(&mut seen[t], true) {
            return Err(Error::invalid("eBB", "node", t, "each terminal at most once"));
        }
    }
    // Every sample pairs every node: the first finds a node cut off from the others, and the
    // error names the same pair every run.
    crate::in_order::map_in_order(s.samples as usize, Work::default, |w, i| {
        sample(topo, links, paths, nodes, s, i as u32, w)
    })
}

/// The result of an eBB run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EbbResult {
    /// Topology spec.
    pub topology: String,
    /// Path source.
    pub routing: String,
    /// Nodes taking part.
    pub nodes: usize,
    /// Placement of the nodes.
    pub placement: String,
    /// Random bisections.
    pub samples: u32,
    /// Master seed.
    pub seed: u64,
    /// `rate` or `completion`.
    pub measure: String,
    /// Message size in bytes.
    pub message_bytes: u64,
    /// Effective bisection bandwidth: mean over the samples of the mean per-flow bandwidth,
    /// as a fraction of the link bandwidth.
    pub ebb: f64,
    /// The same in bytes per time unit.
    pub ebb_bandwidth: f64,
    /// Unit of `ebb_bandwidth`.
    pub bandwidth_unit: String,
    /// Distribution of the per-sample values (fractions of the link bandwidth).
    pub distribution: Distribution,
    /// Every sample's value (fractions of the link bandwidth).
    pub sample_values: Vec<f64>,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// One line saying what happened.
    pub message: String,
}

/// Runs eBB as the config's `[flow]` table says.
pub fn run(cfg: &Config) -> Result<EbbResult> {
    let start = Instant::now();
    let topo = Topology::from_spec(&cfg.topology)?;
    let links = Links::from_config(&topo, cfg);
    let paths = provider(cfg, &topo)?;
    let nodes = nodes(cfg, &topo)?;
    let s = EbbSettings {
        samples: cfg.flow.samples,
        seed: cfg.seed,
        measure: cfg.flow.measure,
        message_bytes: cfg.flow.message_bytes as f64,
    };
    let values = ebb_samples(&topo, &links, paths.as_ref(), &nodes, &s)?;
    let distribution = Distribution::of(&values);
    let ebb = distribution.mean;
    let wall = start.elapsed().as_secs_f64();
    Ok(EbbResult {
        topology: topo.spec().to_string(),
        routing: paths.name(),
        nodes: nodes.len(),
        placement: config_name(&cfg.flow.placement),
        samples: s.samples,
        seed: cfg.seed,
        measure: config_name(&cfg.flow.measure),
        message_bytes: cfg.flow.message_bytes,
        ebb,
        ebb_bandwidth: ebb * links.bandwidth,
        bandwidth_unit: links.bandwidth_unit(),
        distribution,
        sample_values: values,
        threads: rayon::current_num_threads(),
        wall_seconds: wall,
        message: format!(
            "eBB of {} nodes on {} over {} bisections: {:.4} of the link bandwidth ({:.1} s)",
            nodes.len(),
            topo.spec(),
            s.samples,
            ebb,
            wall
        ),
    })
}
