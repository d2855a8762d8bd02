//! Table routing in the flow model: flows follow the forwarding tables, split over the LID
//! offsets their senders use (all of them for round-robin addresses, paper 001's Table 1 for
//! PARX), so PARX's detours relieve the single cable between two HyperX switches.

use hpcnetsim_core::flow::{mpigraph, run, PathSet};
use hpcnetsim_core::{Config, Topology};

fn cfg(spec: &str, routing: &str) -> Config {
    Config::from_toml(&format!(
        "topology = \"{spec}\"\n[switch]\nvcs = 8\n[routing]\nalgorithm = \"table\"\n{routing}\n[flow]\nnodes = 8"
    ))
    .unwrap()
}

/// Distinct paths of one flow and their total weight.
fn flow_paths(c: &Config, t: &Topology, src: usize, dst: usize) -> (usize, f64) {
    let p = run::provider(c, t).unwrap();
    let mut out = PathSet::default();
    p.paths(src, dst, &mut out).unwrap();
    (out.num_paths(), out.total_weight())
}

#[test]
fn flows_split_over_the_offsets_their_senders_use() {
    let t = Topology::from_spec("hyperx:4x4,t=2").unwrap();
    let one = cfg("hyperx:4x4,t=2", "engine = \"minhop\"");
    assert_eq!(flow_paths(&one, &t, 0, 31), (1, 1.0));
    let rr = cfg("hyperx:4x4,t=2", "engine = \"minhop\"\nlmc = 2");
    let (n, w) = flow_paths(&rr, &t, 0, 31);
    assert_eq!(n, 4);
    assert!((w - 1.0).abs() < 1e-12, "{w}");
    let parx = cfg("hyperx:4x4,t=2", "engine = \"parx\"\nlmc = 2\naddress = \"parx\"");
    let (n, w) = flow_paths(&parx, &t, 0, 31);
    assert!((1..=2).contains(&n) && (w - 1.0).abs() < 1e-12, "{n} paths, weight {w}");
}

#[test]
fn parx_detours_relieve_the_cable_between_two_switches() {
    // 8 ranks on the first four switches of one line (paper 001 Fig. 1 in small): minimal
    // routing sends both terminals of a switch over one cable, PARX's large-message offsets
    // detour through the other half.
    let dfsssp = mpigraph::run(&cfg("hyperx:4x4,t=2", "engine = \"dfsssp\"")).unwrap();
    let parx = mpigraph::run(&cfg("hyperx:4x4,t=2", "engine = \"parx\"\nlmc = 2\naddress = \"parx\"")).unwrap();
    assert_eq!(dfsssp.worst_streams_per_cable, 2);
    assert!(
        parx.pair_bandwidth.mean > 1.2 * dfsssp.pair_bandwidth.mean,
        "parx {} dfsssp {}",
        parx.pair_bandwidth.mean,
        dfsssp.pair_bandwidth.mean
    );
    // Small messages take PARX's minimal offsets: no gain.
    let mut small = cfg("hyperx:4x4,t=2", "engine = \"parx\"\nlmc = 2\naddress = \"parx\"");
    small.flow.message_bytes = 256;
    let s = mpigraph::run(&small).unwrap();
    assert!(
        s.pair_bandwidth.mean < parx.pair_bandwidth.mean,
        "{} vs {}",
        s.pair_bandwidth.mean,
        parx.pair_bandwidth.mean
    );
}
