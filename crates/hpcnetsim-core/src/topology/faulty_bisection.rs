//! The bisection of a network with faults (`SPEC|faults:...`).
//!
//! The families' closed forms describe the intact network. Faults only take links out, so
//! the intact family's cut is still a balanced cut of the faulty network, crossed by at most
//! as many links: an upper bound, but one that ignores every failed link across it
//! (`torus:4x4` with the four links between two columns failed reported 8 where 4 links
//! separate the halves). Where every switch carries the same terminals, refined cuts of the
//! surviving links (`balanced_cut.rs`) are tried too and the smallest cut kept. Trees
//! (terminals on the leaves only) keep the intact cut.

use super::balanced_cut::{bisection_from, uniform_terminals};
use super::Topology;

/// Refinements tried, from breadth-first orders of switches spread evenly over the
/// numbering: faults break the regularity that lets one start find the minimum (a 4x4 torus
/// with 3 failed links: 8 links from switch 0, the minimum 6 from switch 8).
const STARTS: usize = 8;

/// Links cut by a balanced bisection of `topo` as built, faults included: an upper bound on
/// the minimum, never above the intact network's.
pub fn bisection_channels(topo: &Topology) -> u64 {
    let intact = topo.family().bisection_channels();
    if topo.faulty_links() == 0 {
        return intact;
    }
    let Some(p) = uniform_terminals(topo.terminals_at()) else { return intact };
    let switches = topo.num_switches();
    let links: Vec<(usize, usize)> = topo.link_list().iter().map(|&(a, _, b, _)| (a as usize, b as usize)).collect();
    let starts = STARTS.min(switches);
    (0..starts).filter_map(|i| bisection_from(switches, &links, p, i * switches / starts)).fold(intact, u64::min)
}
