//! The memory a topology takes, estimated from its spec before it is built: its switches,
//! ports and terminals by closed form, the bytes of its graph and of a description, and the
//! refusal (`memory::check`) of a spec that would not fit.

use super::Family;
use crate::error::Result;
use crate::memory::check;

/// Switches, switch ports and terminals of a family, computed without building it.
pub fn counts(f: &Family) -> (u128, u128, u128) {
    let prod = |d: &[usize]| d.iter().map(|&x| x as u128).product::<u128>();
    match f {
        Family::Tree(x) => {
            let per_level = x.switches_per_level();
            let h = per_level.len();
            let ports = (0..h)
                .map(|l| {
                    let up = if l + 1 < h { x.w[l + 1] } else { x.top_up_ports };
                    per_level[l] as u128 * (x.m[l] + up) as u128
                })
                .sum();
            (per_level.iter().map(|&s| s as u128).sum(), ports, x.terminals() as u128)
        }
        Family::Torus(t) => {
            let s = prod(&t.dims);
            (s, s * (2 * t.dims.len() + t.terminals_per_switch) as u128, s * t.terminals_per_switch as u128)
        }
        Family::TwinTorus(t) => {
            let nodes = prod(&t.dims);
            (2 * nodes, 2 * nodes * (t.dims.len() + 2) as u128, 2 * nodes)
        }
        Family::HyperX(h) => {
            let s = prod(&h.dims);
            let net: u128 = h.dims.iter().map(|&d| (d as u128 - 1) * h.link_multiplicity as u128).sum();
            (s, s * (net + h.terminals_per_switch as u128), s * h.terminals_per_switch as u128)
        }
        Family::Dragonfly(d) => {
            let s = d.switches() as u128;
            (s, s * (d.network_ports() + d.p) as u128, s * d.p as u128)
        }
        Family::Cascade(c) => {
            let s = c.switches() as u128;
            (s, s * (c.network_ports() + c.p) as u128, c.terminals() as u128)
        }
        Family::Megafly(m) => {
            let g = m.groups as u128;
            let ports = g * (m.leaves * (m.p + m.spines) + m.spines * (m.leaves + m.h)) as u128;
            (m.switches() as u128, ports, m.terminals() as u128)
        }
        Family::SlimFly(f) => {
            let s = f.switches() as u128;
            (s, s * (f.network_degree() + f.p) as u128, s * f.p as u128)
        }
        Family::Jellyfish(j) => (j.n as u128, (j.n * (j.k + j.p)) as u128, (j.n * j.p) as u128),
        Family::Crossbar(c) => (1, c.ports as u128, c.ports as u128),
        Family::Fabric(f) => {
            (f.ports.len() as u128, f.ports.iter().map(|&p| p as u128).sum(), f.terminals.len() as u128)
        }
    }
}

/// Bytes of the port-level graph of a family (measured: about 20 bytes per port with the
/// routing's own tables, see docs/reliability.md).
pub fn topology_bytes(f: &Family) -> u128 {
    let (switches, ports, terminals) = counts(f);
    20 * ports + 16 * switches + 16 * terminals
}

/// Bytes needed to describe a topology: the graph, and the channel loads of its throughput
/// bound, a vector of 8 bytes per channel for the partial sums of each thread, one for their
/// total and one for the result. (Twice the graph, the former estimate, let
/// `hyperx:63x63x63x2`, 94 million ports, pass under a 4 GiB address-space limit and abort
/// out of memory in the loads: 3.7 GB peak on two threads.)
pub fn describe_bytes(f: &Family) -> u128 {
    let ports = counts(f).1;
    topology_bytes(f) + 8 * ports * (rayon::current_num_threads() as u128 + 2)
}

/// Refuses describing `spec` when it would not fit in memory.
pub fn check_describe(spec_text: &str) -> Result<()> {
    let f = super::check_spec(spec_text)?;
    check(spec_text.trim(), "size", &format!("{} ports", counts(&f).1), describe_bytes(&f))
}

/// Refuses building the graph of `spec` when it would not fit in memory.
pub fn check_topology(spec_text: &str) -> Result<()> {
    let f = super::check_spec(spec_text)?;
    check(spec_text.trim(), "size", &format!("{} ports", counts(&f).1), topology_bytes(&f))
}
