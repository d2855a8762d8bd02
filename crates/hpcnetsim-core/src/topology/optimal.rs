//! The best any routing can do under uniform traffic: the smallest possible largest
//! channel load, as a multicommodity-flow linear program (docs/topologies.md, "The three
//! throughput bounds").
//!
//! Every terminal sends one unit spread evenly over the other N − 1 terminals. Traffic is
//! aggregated per destination switch (one commodity each, D of them), so the program has
//! one flow variable per (commodity, switch-to-switch channel), plus the load z to
//! minimise:
//!
//! ```text
//! minimise z  subject to  Σ_out f_d − Σ_in f_d = t_v·t_d/(N − 1)   at every switch v ≠ d
//!                         Σ_d f_d(c) ≤ z                           on every channel c
//!                         f ≥ 0
//! ```
//!
//! Any routing, minimal or not, oblivious or adaptive, splits its traffic into such flows,
//! so 1/z* bounds its accepted load. The interior-point solver (Clarabel) returns z*
//! only to its tolerance, so the bound is not taken from its objective: the dual prices
//! y_c ≥ 0 of the channel constraints certify a lower bound on z for every routing by weak
//! duality, Σ_pairs demand · dist_y(pair) / Σ_c y_c (a routing's load weighted by y is at
//! least its traffic times the y-shortest distances), computed here with Dijkstra's
//! algorithm. Whatever the solver's accuracy, that number is a true lower bound, and with
//! the solver's optimal prices it equals z* up to the solver's tolerance.

use crate::topology::{Peer, Topology};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, SupportedConeT, ZeroConeT,
};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Largest number of flow variables solved for (beyond, the bound is reported unavailable).
/// An 8x8 mesh (14 336 variables) solves in 0.4 s, one with a fault in 1.4 s, a faulty 10x10
/// torus (38 800) in 8 s and a 12x12 mesh (76 032) in 10 s on one core; the limit
/// keeps `topo describe` and every run reporting the bound within seconds.
pub const MAX_LP_VARIABLES: usize = 20_000;

/// The solution of the min-max channel load program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptimalLoad {
    /// Certified lower bound on the largest switch-channel load of every routing (from the
    /// dual prices): the number to turn into a throughput bound.
    pub certified: f64,
    /// The solver's primal objective: a load some routing achieves, up to the tolerance.
    pub primal: f64,
    /// Flow variables of the program.
    pub variables: usize,
    /// Wall-clock seconds of building and solving the program.
    pub seconds: f64,
}

/// The switch-to-switch channels as (global channel, tail switch, head switch).
fn switch_channels(topo: &Topology) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for s in 0..topo.num_switches() {
        for (p, peer) in topo.ports(s).iter().enumerate() {
            if let Peer::Switch { switch, .. } = *peer {
                out.push((topo.channel(s, p), s, switch as usize));
            }
        }
    }
    out
}

/// Number of flow variables the program of `topo` has.
pub fn lp_variables(topo: &Topology) -> usize {
    let dests = topo.terminals_at().iter().filter(|&&t| t > 0).count();
    dests * switch_channels(topo).len()
}

/// Solves the min-max channel load program of uniform traffic on `topo`. `None` when the
/// program has more than [`MAX_LP_VARIABLES`] variables or the solver fails (no number
/// rather than a wrong one).
pub fn optimal_max_channel_load(topo: &Topology) -> Option<OptimalLoad> {
    optimal_max_channel_load_within(topo, MAX_LP_VARIABLES)
}

/// [`optimal_max_channel_load`] with an explicit size limit.
pub fn optimal_max_channel_load_within(topo: &Topology, max_variables: usize) -> Option<OptimalLoad> {
    let start = Instant::now();
    let t = topo.terminals_at();
    let n = topo.num_terminals() as f64;
    let s_count = topo.num_switches();
    let dests: Vec<usize> = (0..s_count).filter(|&s| t[s] > 0).collect();
    let channels = switch_channels(topo);
    let (d_count, c_count) = (dests.len(), channels.len());
    let variables = d_count * c_count;
    if variables > max_variables || n < 2.0 {
        return None;
    }
    if c_count == 0 || d_count < 2 {
        // One switch (or none with terminals elsewhere): no switch channel carries anything.
        return Some(OptimalLoad { certified: 0.0, primal: 0.0, variables, seconds: start.elapsed().as_secs_f64() });
    }
    let demand = |v: usize, d: usize| t[v] as f64 * t[d] as f64 / (n - 1.0);

    // Rows: conservation (S − 1 per commodity, the destination's own row left out as it is
    // implied), then one capacity row per channel, then f ≥ 0.
    let eq_rows = d_count * (s_count - 1);
    let cap_row = |j: usize| eq_rows + j;
    let nonneg_row = |col: usize| eq_rows + c_count + col;
    let rows = eq_rows + c_count + variables;
    let eq_row = |k: usize, v: usize| -> Option<usize> {
        let d = dests[k];
        (v != d).then(|| k * (s_count - 1) + if v < d { v } else { v - 1 })
    };

    let mut colptr = Vec::with_capacity(variables + 2);
    let mut rowval = Vec::with_capacity(variables * 4 + c_count);
    let mut nzval = Vec::with_capacity(variables * 4 + c_count);
    colptr.push(0);
    for k in 0..d_count {
        for (j, &(_, tail, head)) in channels.iter().enumerate() {
            // Row indices must ascend within a column.
            let mut entries: Vec<(usize, f64)> = Vec::with_capacity(4);
            if let Some(r) = eq_row(k, tail) {
                entries.push((r, 1.0));
            }
            if let Some(r) = eq_row(k, head) {
                entries.push((r, -1.0));
            }
            entries.sort_by_key(|e| e.0);
            entries.push((cap_row(j), 1.0));
            entries.push((nonneg_row(k * c_count + j), -1.0));
            for (r, v) in entries {
                rowval.push(r);
                nzval.push(v);
            }
            colptr.push(rowval.len());
        }
    }
    for j in 0..c_count {
        rowval.push(cap_row(j));
        nzval.push(-1.0);
    }
    colptr.push(rowval.len());
    let a = CscMatrix::new(rows, variables + 1, colptr, rowval, nzval);
    let mut b = vec![0.0; rows];
    for (k, &d) in dests.iter().enumerate() {
        for v in 0..s_count {
            if let Some(r) = eq_row(k, v) {
                b[r] = demand(v, d);
            }
        }
    }
    let mut q = vec![0.0; variables + 1];
    q[variables] = 1.0;
    let p = CscMatrix::zeros((variables + 1, variables + 1));
    let cones: [SupportedConeT<f64>; 2] = [ZeroConeT(eq_rows), NonnegativeConeT(c_count + variables)];
    let settings = DefaultSettingsBuilder::default().verbose(false).build().ok()?;
    let mut solver = DefaultSolver::new(&p, &q, &a, &b, &cones, settings).ok()?;
    solver.solve();
    if !matches!(solver.solution.status, SolverStatus::Solved | SolverStatus::AlmostSolved) {
        return None;
    }
    let primal = solver.solution.x[variables];
    let prices: Vec<f64> = (0..c_count).map(|j| solver.solution.z[cap_row(j)].max(0.0)).collect();
    let all: Vec<(usize, f64)> = dests.iter().map(|&d| (d, 1.0)).collect();
    let certified = certified_load(topo, &all, &channels, &prices)?;
    Some(OptimalLoad { certified, primal, variables, seconds: start.elapsed().as_secs_f64() })
}

/// Certifies the even spread over minimal paths without solving the program: with prices
/// on the channels the spread loads most (`spread_loads` indexed by global channel, as
/// [`crate::topology::paths::channel_loads`] gives), the weak-duality bound is at most
/// their load, and equals it when no routing can unload them (tori, HyperX, fat-trees and
/// most trees built by hand). Whether that certified lower bound on every routing's largest
/// switch-channel load meets the spread's largest load, up to a relative 1e-10 (the two sums
/// round differently, by about 1e-12 on a 256-switch twin torus): the spread is then optimal.
pub fn certify_minimal_spread(topo: &Topology, spread_loads: &[f64]) -> bool {
    let t = topo.terminals_at();
    // The spread's loads, hence the prices, are invariant under the network's symmetry.
    let dests: Vec<(usize, f64)> = match topo.symmetry() {
        Some(sym) => sym.sources.iter().map(|&(s, size)| (s as usize, size)).collect(),
        None => (0..topo.num_switches()).filter(|&s| t[s] > 0).map(|s| (s, 1.0)).collect(),
    };
    let channels = switch_channels(topo);
    let max = channels.iter().map(|&(c, _, _)| spread_loads[c]).fold(0.0, f64::max);
    if max <= 0.0 {
        return false;
    }
    let prices: Vec<f64> =
        channels.iter().map(|&(c, _, _)| if spread_loads[c] >= max * (1.0 - 1e-9) { 1.0 } else { 0.0 }).collect();
    certified_load(topo, &dests, &channels, &prices).is_some_and(|certified| certified >= max * (1.0 - 1e-10))
}

/// A Dijkstra queue entry, smallest distance first.
#[derive(PartialEq)]
struct Entry(f64, usize);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

/// The weak-duality bound Σ demand · dist_y / Σ y for channel prices `prices` (any y ≥ 0
/// not all zero gives a lower bound on the largest load of every routing), lowered by a
/// relative 1e-12 so that rounding in the sums cannot lift it above the truth.
///
/// `dests` are the destination switches with the number of destinations each stands for: all
/// of them once, or one per orbit of the network's symmetry when the prices are invariant
/// under it (distances then repeat along the orbit). The destinations' Dijkstra runs go in
/// parallel; their sums are added in order, so the result does not depend on the threads.
fn certified_load(
    topo: &Topology,
    dests: &[(usize, f64)],
    channels: &[(usize, usize, usize)],
    prices: &[f64],
) -> Option<f64> {
    let total: f64 = prices.iter().sum();
    if total.partial_cmp(&0.0) != Some(Ordering::Greater) || !total.is_finite() {
        return None;
    }
    let t = topo.terminals_at();
    let n = topo.num_terminals() as f64;
    let s_count = topo.num_switches();
    // Reverse adjacency: for each head switch, its (tail, price) channels.
    let mut into: Vec<Vec<(usize, f64)>> = vec![Vec::new(); s_count];
    for (&(_, tail, head), &y) in channels.iter().zip(prices) {
        into[head].push((tail, y));
    }
    let per_dest = |&(d, weight): &(usize, f64)| -> Option<f64> {
        if t[d] == 0 {
            return Some(0.0);
        }
        let mut dist = vec![f64::INFINITY; s_count];
        let mut heap = BinaryHeap::new();
        dist[d] = 0.0;
        heap.push(Entry(0.0, d));
        while let Some(Entry(du, u)) = heap.pop() {
            if du > dist[u] {
                continue;
            }
            for &(v, y) in &into[u] {
                let dv = du + y;
                if dv < dist[v] {
                    dist[v] = dv;
                    heap.push(Entry(dv, v));
                }
            }
        }
        let mut sum = 0.0;
        for (v, &tv) in t.iter().enumerate() {
            if tv > 0 && v != d {
                if !dist[v].is_finite() {
                    return None;
                }
                sum += tv as f64 * t[d] as f64 / (n - 1.0) * dist[v];
            }
        }
        Some(weight * sum)
    };
    let parts: Vec<Option<f64>> = dests.par_iter().map(per_dest).collect();
    let sum: f64 = parts.into_iter().sum::<Option<f64>>()?;
    Some(sum / total * (1.0 - 1e-12))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_prices_give_the_average_load() {
        // Prices all 1 give Σ demand·hops / channels: the average switch-channel load of
        // minimal routing. Ring of 4 (torus:4, one terminal each): 12 ordered pairs of
        // distances 1,2,1 per source → Σ hops = 4·4 = 16, /3 per unit demand, 8 channels.
        let topo = Topology::from_spec("torus:4").unwrap();
        let channels = switch_channels(&topo);
        let dests: Vec<(usize, f64)> = (0..4).map(|d| (d, 1.0)).collect();
        let got = certified_load(&topo, &dests, &channels, &vec![1.0; channels.len()]).unwrap();
        assert!((got - 16.0 / 3.0 / 8.0).abs() < 1e-9, "{got}");
    }
}
