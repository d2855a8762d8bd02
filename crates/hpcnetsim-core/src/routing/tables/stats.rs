//! What a set of tables does to the network: path lengths, routes per link, lanes used,
//! unreachable pairs, and the exact uniform-traffic throughput bound under these routes.

use super::Tables;
use crate::routing::deadlock::{Hop, Verdict};
use crate::topology::{Peer, Topology};
use serde::Serialize;

/// How many unreachable pairs are listed by name (all are counted).
pub const LISTED_UNREACHABLE: usize = 20;

/// Summary of one routing, as `hpcnetsim route` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RouteStats {
    /// Topology spec.
    pub spec: String,
    /// Engine that computed the tables.
    pub engine: String,
    /// LID mask control (2^lmc addresses per terminal).
    pub lmc: u8,
    /// Virtual lanes the paths use.
    pub vls_used: usize,
    /// Routed (source, destination address) paths between distinct terminals.
    pub paths: usize,
    /// Ordered terminal pairs with no route on some address.
    pub unreachable_pairs: usize,
    /// The first unreachable pairs, `(source, destination)`.
    pub unreachable_examples: Vec<(usize, usize)>,
    /// Shortest path, in switch-to-switch links; `None` when there is no path.
    pub min_hops: Option<usize>,
    /// Longest path, in switch-to-switch links; `None` when there is no path.
    pub max_hops: Option<usize>,
    /// Mean path length, in switch-to-switch links; `None` when there is no path.
    pub mean_hops: Option<f64>,
    /// Largest number of paths crossing one switch-to-switch channel (one direction).
    pub max_routes_per_link: usize,
    /// Mean number of paths per switch-to-switch channel.
    pub mean_routes_per_link: f64,
    /// Uniform-traffic throughput bound under these tables (addresses used equally),
    /// as a fraction of injection bandwidth: 1 / max(1, largest channel load); `None` when
    /// some pair is unreachable (uniform traffic cannot be delivered).
    pub routed_throughput: Option<f64>,
}

/// Routes per channel (paths crossing it) and the load per channel under uniform traffic
/// (every terminal injecting 1, spread evenly over the others and over its addresses).
pub fn channel_usage(topo: &Topology, t: &Tables) -> (Vec<usize>, Vec<f64>) {
    let even = 1.0 / t.offsets() as f64;
    channel_usage_split(topo, t, &|_, _, _| even)
}

/// [`channel_usage`] with the traffic of every (source switch, destination, offset) split
/// as `split` says (fractions of each pair's traffic, summing to 1 over the offsets).
pub fn channel_usage_split(
    topo: &Topology,
    t: &Tables,
    split: &dyn Fn(usize, usize, usize) -> f64,
) -> (Vec<usize>, Vec<f64>) {
    let mut routes = vec![0usize; topo.peers().len()];
    let n = topo.num_terminals();
    let per_pair = 1.0 / (n.max(2) - 1) as f64;
    let mut load = vec![0.0; topo.peers().len()];
    for s in (0..topo.num_switches()).filter(|&s| topo.terminals_at()[s] > 0) {
        let here = topo.terminals_at()[s] as usize;
        for lid in 0..t.lids() {
            let dst = lid >> t.lmc;
            // Sources on this switch other than the destination itself.
            let sources = here - usize::from(topo.terminal_attachment(dst).0 == s);
            if sources == 0 {
                continue;
            }
            if let Some(p) = t.switch_path(topo, s, lid) {
                for c in p {
                    routes[c] += sources;
                    load[c] += sources as f64 * per_pair * split(s, dst, lid & (t.offsets() - 1));
                }
            }
        }
    }
    (routes, load)
}

/// Uniform-traffic throughput bound (fraction of injection bandwidth) from channel loads.
pub fn throughput_bound(topo: &Topology, load: &[f64]) -> f64 {
    let max = (0..load.len())
        .filter(|&c| matches!(topo.peers()[c], Peer::Switch { .. }))
        .map(|c| load[c])
        .fold(1.0, f64::max);
    1.0 / max
}

/// Computes the summary of `t` on `topo`.
pub fn summarise(topo: &Topology, t: &Tables) -> RouteStats {
    let n = topo.num_terminals();
    let (mut paths, mut hops_sum, mut min_hops, mut max_hops) = (0usize, 0usize, usize::MAX, 0usize);
    let mut unreachable = 0;
    let mut examples = Vec::new();
    // Sources on one switch share their paths: walk each (switch, address) once.
    const CUT: u32 = u32::MAX;
    let mut hops: Vec<Vec<u32>> = vec![Vec::new(); topo.num_switches()];
    for (s, h) in hops.iter_mut().enumerate().filter(|&(s, _)| topo.terminals_at()[s] > 0) {
        *h = (0..t.lids()).map(|lid| t.switch_path(topo, s, lid).map_or(CUT, |p| p.len() as u32)).collect();
    }
    for src in 0..n {
        let (s, _) = topo.terminal_attachment(src);
        for dst in (0..n).filter(|&d| d != src) {
            let mut ok = true;
            for off in 0..t.offsets() {
                match hops[s][t.lid(dst, off)] {
                    CUT => ok = false,
                    len => {
                        let len = len as usize;
                        paths += 1;
                        hops_sum += len;
                        min_hops = min_hops.min(len);
                        max_hops = max_hops.max(len);
                    }
                }
            }
            if !ok {
                unreachable += 1;
                if examples.len() < LISTED_UNREACHABLE {
                    examples.push((src, dst));
                }
            }
        }
    }
    let (routes, load) = channel_usage(topo, t);
    let links: Vec<usize> = (0..routes.len()).filter(|&c| matches!(topo.peers()[c], Peer::Switch { .. })).collect();
    let max_load = links.iter().map(|&c| load[c]).fold(1.0, f64::max);
    RouteStats {
        spec: topo.spec().to_string(),
        engine: t.engine.clone(),
        lmc: t.lmc,
        vls_used: t.vls,
        paths,
        unreachable_pairs: unreachable,
        unreachable_examples: examples,
        // No path, no length: 0 would read as paths of one switch.
        min_hops: (paths > 0).then_some(min_hops),
        max_hops: (paths > 0).then_some(max_hops),
        mean_hops: (paths > 0).then(|| hops_sum as f64 / paths as f64),
        max_routes_per_link: links.iter().map(|&c| routes[c]).max().unwrap_or(0),
        mean_routes_per_link: if links.is_empty() {
            0.0
        } else {
            links.iter().map(|&c| routes[c]).sum::<usize>() as f64 / links.len() as f64
        },
        routed_throughput: (unreachable == 0).then_some(1.0 / max_load),
    }
}

/// Everything `hpcnetsim route` reports: the summary, the all-minimal-paths bound beside
/// the routed one, and (when asked) the deadlock verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RouteReport {
    /// Path and link statistics.
    #[serde(flatten)]
    pub stats: RouteStats,
    /// Uniform-traffic bound of every routing (`topo describe`'s `ideal_throughput`), `None`
    /// where it is not computed.
    pub ideal_throughput: Option<f64>,
    /// Uniform-traffic bound with every minimal path weighted evenly (`topo describe`),
    /// `None` where faults disconnect terminals.
    pub minimal_spread_throughput: Option<f64>,
    /// Deadlock verdict of the tables with their lanes, when checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlock: Option<super::super::deadlock::Verdict>,
}

/// `topo describe`'s `ideal_throughput` and `minimal_spread_throughput`, both `None` when the
/// tables leave pairs unreachable because faults disconnect terminals (describe refuses such a
/// network: uniform traffic cannot be delivered, so no bound holds).
fn network_bounds(topo: &Topology, unreachable_pairs: usize) -> (Option<f64>, Option<f64>) {
    if unreachable_pairs > 0 && topo.distances().is_err() {
        return (None, None);
    }
    (topo.throughput_bound(), Some(topo.minimal_spread_throughput()))
}

/// Summarises `t`, adding the ideal bound and, with `check_deadlock`, the verdict.
pub fn report(topo: &Topology, t: &Tables, check_deadlock: bool) -> crate::Result<RouteReport> {
    let stats = summarise(topo, t);
    let (ideal_throughput, minimal_spread_throughput) = network_bounds(topo, stats.unreachable_pairs);
    Ok(RouteReport {
        stats,
        ideal_throughput,
        minimal_spread_throughput,
        deadlock: check_deadlock.then(|| t.deadlock_verdict(topo)),
    })
}

/// The report of `hpcnetsim route` on any network, `tables` giving the forwarding tables of a
/// single network. A multi-plane network (`SPEC|planes:N`) is routed as the simulator routes
/// it (`routing::planes`): packets never leave their plane, so each plane is the single network
/// it copies, with its own tables when it has faults and one set shared by all when intact
/// (computed once). Its report adds up the planes' paths, takes their worst hops, routes per
/// link, lanes and routed bound, and names terminals and switches in the whole network's
/// numbering; pairs on different planes are no paths. Returns the report and the tables of
/// the first plane (those of every plane when intact).
pub fn report_network(
    topo: &Topology,
    check_deadlock: bool,
    tables: &dyn Fn(&Topology) -> crate::Result<Tables>,
) -> crate::Result<(RouteReport, Tables)> {
    if topo.planes() == 1 {
        let t = tables(topo)?;
        return Ok((report(topo, &t, check_deadlock)?, t));
    }
    let (switches, terminals) = (topo.num_switches() / topo.planes(), topo.endpoints());
    let intact = topo.faulty_links() == 0;
    let mut first = None;
    let mut planes = Vec::with_capacity(topo.planes());
    for p in 0..if intact { 1 } else { topo.planes() } {
        let plane = if intact { topo.plane().clone() } else { topo.plane_slice(p) };
        let t = tables(&plane)?;
        let stats = summarise(&plane, &t);
        let channels = plane.peers().iter().filter(|peer| matches!(peer, Peer::Switch { .. })).count();
        let verdict = check_deadlock.then(|| t.deadlock_verdict(&plane));
        planes.push((stats, channels, verdict));
        first.get_or_insert(t);
    }
    if intact {
        planes = vec![planes[0].clone(); topo.planes()];
    }
    let with_paths: Vec<&RouteStats> = planes.iter().map(|p| &p.0).filter(|s| s.paths > 0).collect();
    let paths: usize = planes.iter().map(|p| p.0.paths).sum();
    let channels: usize = planes.iter().map(|p| p.1).sum();
    let unreachable_examples = planes
        .iter()
        .enumerate()
        .flat_map(|(p, (s, _, _))| {
            s.unreachable_examples.iter().map(move |&(a, b)| (a + p * terminals, b + p * terminals))
        })
        .take(LISTED_UNREACHABLE)
        .collect();
    let deadlock = check_deadlock.then(|| {
        planes
            .iter()
            .enumerate()
            .find_map(|(p, (_, _, v))| match v {
                Some(Verdict::Cycle(cycle)) => Some(Verdict::Cycle(
                    cycle.iter().map(|h| Hop { switch: h.switch + (p * switches) as u32, ..*h }).collect(),
                )),
                _ => None,
            })
            .unwrap_or(Verdict::Acyclic)
    });
    let one = &planes[0].0;
    let stats = RouteStats {
        spec: topo.spec().to_string(),
        engine: one.engine.clone(),
        lmc: one.lmc,
        vls_used: planes.iter().map(|p| p.0.vls_used).max().unwrap_or(0),
        paths,
        unreachable_pairs: planes.iter().map(|p| p.0.unreachable_pairs).sum(),
        unreachable_examples,
        min_hops: with_paths.iter().filter_map(|s| s.min_hops).min(),
        max_hops: with_paths.iter().filter_map(|s| s.max_hops).max(),
        mean_hops: (paths > 0).then(|| {
            with_paths.iter().map(|s| s.mean_hops.unwrap_or(0.0) * s.paths as f64).sum::<f64>() / paths as f64
        }),
        max_routes_per_link: planes.iter().map(|p| p.0.max_routes_per_link).max().unwrap_or(0),
        mean_routes_per_link: if channels == 0 {
            0.0
        } else {
            planes.iter().map(|p| p.0.mean_routes_per_link * p.1 as f64).sum::<f64>() / channels as f64
        },
        routed_throughput: planes.iter().try_fold(f64::INFINITY, |b, p| p.0.routed_throughput.map(|r| b.min(r))),
    };
    let (ideal_throughput, minimal_spread_throughput) = network_bounds(topo, stats.unreachable_pairs);
    let report = RouteReport { stats, ideal_throughput, minimal_spread_throughput, deadlock };
    Ok((report, first.expect("a network has at least two planes here")))
}
