//! The bisection of a network with faults (`SPEC|faults:...`).
//!
//! The families' closed forms describe the intact network. Faults only take links out, so
//! the intact family's cut is still a balanced cut of the faulty network, crossed by at most
//! as many links: an upper bound, but one that ignores every failed link across it
//! (`torus:4x4` with the four links between two columns failed reported 8 where 4 links
//! separate the halves). Where every switch carries the same terminals, refined cuts of the
//! surviving links (`balanced_cut.rs`) are tried too and the smallest cut kept. Where only
//! some switches carry terminals (trees' leaves), those are split into two halves of the
//! terminals, in index order from several starts, and the others placed where they cut
//! fewest surviving links (`split_cut.rs`, a minimum cut).

use super::balanced_cut::{balancing_moves, best_bisection, uniform_terminals, STARTS};
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
        return split_bisections(topo.terminals_at(), &links).fold(intact, u64::min);
    };
    best_bisection(switches, &links, p).map_or(intact, |cut| cut.min(intact))
}

/// Balanced cuts of a network whose terminals sit on some switches only: from each of
/// [`STARTS`] starts, the switches with terminals in index order (wrapping round) until half
/// the terminals, the rest of them on the other side, the switches without terminals where
/// they cut fewest links, and the terminal links that balance an uneven split.
fn split_bisections<'a>(terminals: &'a [u32], links: &'a [(usize, usize)]) -> impl Iterator<Item = u64> + 'a {
    let hosts: Vec<usize> = (0..terminals.len()).filter(|&s| terminals[s] > 0).collect();
    let total: usize = terminals.iter().map(|&t| t as usize).sum();
    let starts = STARTS.min(hosts.len());
    (0..starts).filter_map(move |i| {
        let mut side = vec![None; terminals.len()];
        let mut held = 0;
        for k in 0..hosts.len() {
            let s = hosts[(i * hosts.len() / starts + k) % hosts.len()];
            // Into the first half while that brings it closer to half the terminals.
            let first = held + terminals[s] as usize <= total / 2
                || (held < total / 2 && held + terminals[s] as usize - total / 2 < total / 2 - held);
            side[s] = Some(!first);
            held += if first { terminals[s] as usize } else { 0 };
        }
        super::split_cut::split_cut(terminals.len(), links, &side).map(|cut| cut + balancing_moves(total, held))
    })
}
