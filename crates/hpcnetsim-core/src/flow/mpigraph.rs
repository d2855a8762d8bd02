//! mpiGraph (paper 001 Fig. 1): for every shift s = 1..n−1, every rank i sends to rank
//! (i + s) mod n at once; the bandwidth of each stream fills an n × n matrix. The number
//! of streams sharing a cable shows where minimal static routing bottlenecks.

use super::completion::complete;
use super::maxmin::{Shares, Solver};
use super::paths::PathSet;
use super::run::{nodes, provider, Distribution};
use super::{push_paths, Links};
use crate::config::{config_name, Config, Measure};
use crate::error::{Error, Result};
use crate::topology::{Peer, Topology};
use serde::Serialize;
use std::time::Instant;

/// The result of an mpiGraph run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MpiGraphResult {
    /// Topology spec.
    pub topology: String,
    /// Path source.
    pub routing: String,
    /// Terminal of every rank.
    pub terminals: Vec<usize>,
    /// Placement of the ranks.
    pub placement: String,
    /// `rate` or `completion`.
    pub measure: String,
    /// Message size in bytes.
    pub message_bytes: u64,
    /// `bandwidth[i][j]`: bandwidth of the stream from rank i to rank j (0 on the diagonal),
    /// in bytes per time unit.
    pub bandwidth: Vec<Vec<f64>>,
    /// Unit of the bandwidths.
    pub bandwidth_unit: String,
    /// Distribution of the off-diagonal bandwidths (mean = average per pair).
    pub pair_bandwidth: Distribution,
    /// Most streams sharing one switch-to-switch cable (direction) in any shift.
    pub worst_streams_per_cable: u32,
    /// The same per shift (index s − 1).
    pub streams_per_cable_by_shift: Vec<u32>,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// One line saying what happened.
    pub message: String,
}

/// Most ranks of one mpiGraph run (16.7 million flows).
pub const MAX_RANKS: usize = 4096;

/// Runs mpiGraph as the config's `[flow]` table says.
pub fn run(cfg: &Config) -> Result<MpiGraphResult> {
    let start = Instant::now();
    let topo = Topology::from_spec(&cfg.topology)?;
    let links = Links::from_config(&topo, cfg);
    let paths = provider(cfg, &topo)?;
    let ranks = nodes(cfg, &topo)?;
    let n = ranks.len();
    if n < 2 {
        return Err(Error::invalid("config", "flow.nodes", n, "at least 2 ranks"));
    }
    // Each shift is a max-min fair allocation of n flows, n(n-1) flows in all: 1 728 ranks take
    // 7 s on two cores, the 21 120 of mesh:22x30x32 would take hours.
    if n > MAX_RANKS {
        return Err(Error::invalid(
            "config",
            "flow.nodes",
            n,
            format!("at most {MAX_RANKS} ranks for mpiGraph (n(n-1) flows, one shift at a time)"),
        ));
    }
    let inner: Vec<usize> =
        (0..topo.peers().len()).filter(|&c| matches!(topo.peers()[c], Peer::Switch { .. })).collect();
    let bytes = cfg.flow.message_bytes as f64;
    // One shift per task: (bandwidth of rank i's stream, most streams on a cable).
    // Shift k + 1 at index k; an error is the first in shift order, the same every run.
    let shifts = crate::in_order::map_in_order(
        n - 1,
        || (Solver::default(), PathSet::default()),
        |(solver, set), k| -> Result<(Vec<f64>, u32)> {
            let s = k + 1;
            let mut shares = Shares::default();
            for i in 0..n {
                push_paths(&topo, &links, paths.as_ref(), ranks[i], ranks[(i + s) % n], set, &mut shares)?;
            }
            let rates = match cfg.flow.measure {
                Measure::Rate => {
                    let active: Vec<u32> = (0..n as u32).collect();
                    let mut rates = Vec::new();
                    solver.solve(&links.capacity, &shares, &active, &mut rates);
                    rates
                }
                Measure::Completion => {
                    let c = complete(&links.capacity, &shares, &vec![bytes; n], links.bandwidth);
                    c.finish.iter().map(|t| bytes / links.bandwidth / t).collect()
                }
            };
            let counts = shares.flows_per_channel(links.len());
            let worst = inner.iter().map(|&c| counts[c]).max().unwrap_or(0);
            Ok((rates.iter().map(|r| r * links.bandwidth).collect(), worst))
        },
    )?;
    let mut bandwidth = vec![vec![0.0; n]; n];
    let mut pairs = Vec::with_capacity(n * (n - 1));
    for (k, (bw, _)) in shifts.iter().enumerate() {
        for i in 0..n {
            bandwidth[i][(i + k + 1) % n] = bw[i];
            pairs.push(bw[i]);
        }
    }
    let by_shift: Vec<u32> = shifts.iter().map(|s| s.1).collect();
    let worst = by_shift.iter().copied().max().unwrap_or(0);
    let pair_bandwidth = Distribution::of(&pairs);
    let wall = start.elapsed().as_secs_f64();
    Ok(MpiGraphResult {
        topology: topo.spec().to_string(),
        routing: paths.name(),
        terminals: ranks,
        placement: config_name(&cfg.flow.placement),
        measure: config_name(&cfg.flow.measure),
        message_bytes: cfg.flow.message_bytes,
        message: format!(
            "mpiGraph of {n} ranks on {}: {:.4} of the link bandwidth per pair on average, up to {worst} streams per cable",
            topo.spec(),
            pair_bandwidth.mean / links.bandwidth
        ),
        bandwidth,
        bandwidth_unit: links.bandwidth_unit(),
        pair_bandwidth,
        worst_streams_per_cable: worst,
        streams_per_cable_by_shift: by_shift,
        wall_seconds: wall,
    })
}
