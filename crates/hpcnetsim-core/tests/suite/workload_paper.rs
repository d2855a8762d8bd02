//! Paper 002 (synthetic workloads), §4.1: the three 64-node networks compared there all
//! have an ideal uniform throughput of 1.

use crate::common::{assert_close, topo};

/// Uniform traffic never sends to itself, which lowers the torus bound to 63/64.
#[test]
fn three_networks_of_section_4_1() {
    for spec in ["crossbar:64", "tree:k=2,n=6", "torus:8x8"] {
        let p = topo(spec).describe().unwrap();
        assert_eq!(p.terminals, 64, "{spec}");
        assert_close(spec, p.ideal_throughput.unwrap(), 1.0, 0.02);
    }
    assert_close("8x8 torus", topo("torus:8x8").describe().unwrap().ideal_throughput.unwrap(), 63.0 / 64.0, 1e-12);
}

/// The torus bound is 8/k for even k (with the N/(N−1) correction for self-traffic).
#[test]
fn torus_bound_is_8_over_k() {
    for k in [4usize, 8, 10, 16] {
        for n in [1u32, 2, 3] {
            let spec = format!("torus:{}", vec![k.to_string(); n as usize].join("x"));
            let nodes = k.pow(n) as f64;
            let want = (8.0 / k as f64 * (nodes - 1.0) / nodes).min(1.0);
            assert_close(&spec, topo(&spec).describe().unwrap().ideal_throughput.unwrap(), want, 1e-9);
        }
    }
}
