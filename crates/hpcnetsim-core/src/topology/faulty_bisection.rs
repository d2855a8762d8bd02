//! The bisection of a network with faults (`SPEC|faults:...`).
//!
//! The families' closed forms describe the intact network. Faults only take links out, so
//! the intact family's cut is still a balanced cut of the faulty network, crossed by at most
//! as many links: an upper bound, but one that ignores every failed link across it
//! (`torus:4x4` with the four links between two columns failed reported 8 where 4 links
//! separate the halves). Where every switch carries the same terminals, refined cuts of the
//! surviving links (`balanced_cut.rs`) are tried too and the smallest cut kept. Where only
//! some switches carry terminals (trees' leaves), those are split into two halves of the
//! terminals and the others placed where they cut fewest surviving links (`split_cut.rs`).

use super::balanced_cut::{best_bisection, uniform_terminals};
use super::Topology;

/// Links cut by a balanced bisection of `topo` as built, faults included: an upper bound on
/// the minimum, never above the intact network's.
pub fn bisection_channels(topo: &Topology) -> u64 {
    let intact = topo.family().bisection_channels();
    if topo.faulty_links() == 0 {
        return intact;
    }
    let switches = topo.num_switches();
    let links: Vec<(usize, usize)> = topo.link_list().iter().map(|&(a, _, b, _)| (a as usize, b as usize)).collect();
    let Some(p) = uniform_terminals(topo.terminals_at()) else {
        return super::split_cut::host_split_bisection(topo.terminals_at(), &links)
            .map_or(intact, |cut| cut.min(intact));
    };
    best_bisection(switches, &links, p).map_or(intact, |cut| cut.min(intact))
}
