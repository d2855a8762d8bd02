//! Half-ring ties of DORT and TS-DOR outside d_m go either way, per packet, as DOR's on tori:
//! on the 256-PE 5DT torus of paper 003 (4x4x2x2x2) the + and − links of every dimension then
//! carry the same traffic under uniform traffic. Sending every tie + left the − links of the
//! 2-node rings idle and loaded the + side of the 4-node rings three times the − side, which
//! cost the 5DT torus a quarter of its throughput (docs/validation.md, paper 003).

use crate::common::{sim_config, topo};
use hpcnetsim_core::config::Algorithm;
use hpcnetsim_core::routing::{self, Request};
use hpcnetsim_core::Peer;

/// Uses of every (card, port) over all PE pairs and all tie choices (the routing's salts).
fn port_uses(spec: &str, algorithm: Algorithm) -> Vec<[u64; 2]> {
    let t = topo(spec);
    let r = routing::build(&sim_config(spec, 4, algorithm, 0.1), &t).unwrap();
    let mut uses = vec![[0u64; 2]; t.radix()];
    let n = t.num_terminals();
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            for salt in 0..r.salts() {
                let (mut s, mut in_port) = t.terminal_attachment(a);
                let mut in_vc = 0;
                for _ in 0..100 {
                    let mut cands = Vec::new();
                    r.route(&Request { switch: s, in_port, in_vc, src: a, dst: b, salt, offset: 0 }, &mut cands);
                    let c = cands[0];
                    uses[c.port as usize][s % 2] += 1;
                    match t.ports(s)[c.port as usize] {
                        Peer::Switch { switch, port } => {
                            (s, in_port, in_vc) = (switch as usize, port as usize, c.vc as usize)
                        }
                        _ => break,
                    }
                }
            }
        }
    }
    uses
}

#[test]
fn ties_use_both_directions_of_every_ring() {
    for algorithm in [Algorithm::TsDor, Algorithm::Dort] {
        let uses = port_uses("twin-torus:4x4x2x2x2", algorithm);
        // Card 0: d0+, d0−, d1+, d1− (4-node rings); card 1: d3+, d3−, d4+, d4− (2-node rings).
        for dim in 0..2 {
            let pairs = uses[2 * dim].iter().zip(&uses[2 * dim + 1]).enumerate();
            for (card, (&plus, &minus)) in pairs {
                assert!(plus > 0 && minus > 0, "{algorithm:?} card {card} dim {dim}: {plus} + / {minus} −");
                let ratio = plus as f64 / minus as f64;
                assert!((0.95..=1.05).contains(&ratio), "{algorithm:?} card {card} dim {dim}: + / − = {ratio:.3}");
            }
        }
    }
}
