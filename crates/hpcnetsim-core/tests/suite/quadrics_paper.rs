//! Paper 004 (Quadrics), Appendix A: the k-ary n-tree labelling, its size, diameter,
//! average distance, mdi and nca.

use crate::common::{assert_close, topo};
use hpcnetsim_core::topology::{paths, Family, Peer};

fn label(t: &hpcnetsim_core::Topology, s: usize) -> (Vec<usize>, usize) {
    let Family::Tree(x) = t.family() else { panic!("not a tree") };
    let (level, w) = x.switch_label(s);
    (w, x.height() - 1 - level) // paper 004 numbers levels from the top
}

/// Definition A.2 on the built graph: <w, l> is linked to <w', l+1> iff w_i = w'_i for
/// i != l, and node p hangs from <p_0..p_{n-2}, n-1>.
#[test]
fn definition_a2_holds_on_the_graph() {
    for (k, n) in [(4usize, 2usize), (4, 3), (3, 3), (2, 4)] {
        let t = topo(&format!("tree:k={k},n={n}"));
        let Family::Tree(x) = t.family() else { unreachable!() };
        assert_eq!(t.num_switches(), n * k.pow(n as u32 - 1), "n k^(n-1) switches");
        for s in 0..t.num_switches() {
            let (w, l) = label(&t, s);
            for peer in t.ports(s) {
                match *peer {
                    Peer::Switch { switch, .. } => {
                        let (w2, l2) = label(&t, switch as usize);
                        assert_eq!(l.abs_diff(l2), 1);
                        let upper = l.min(l2);
                        for i in 0..n - 1 {
                            if i != upper {
                                assert_eq!(w[i], w2[i], "k={k} n={n}: <{w:?},{l}> -- <{w2:?},{l2}>");
                            }
                        }
                    }
                    Peer::Terminal(p) => {
                        assert_eq!(l, n - 1);
                        assert_eq!(x.node_tuple(p as usize)[..n - 1], w[..], "node {p}");
                    }
                    Peer::Unplugged => assert_eq!(l, 0, "only top-level up-ports are unplugged"),
                }
            }
        }
    }
}

/// Diameter 2n and the average distance of formula (6). Formula (6) averages over all
/// N destinations including the source itself (distance 0), we average over the N−1
/// others: ours × (N−1)/N must equal (6).
#[test]
fn diameter_and_average_distance_formula_6() {
    for (k, n) in [(4, 1), (4, 2), (4, 3), (4, 5), (2, 6), (8, 3)] {
        let t = topo(&format!("tree:k={k},n={n}"));
        let p = t.describe().unwrap();
        let (kf, nf) = (k as f64, n as f64);
        let big_n = kf.powi(n as i32);
        let formula_6 = 2.0 * (nf - 1.0 / (kf - 1.0)) + 2.0 / (big_n * (kf - 1.0));
        assert_eq!(p.diameter, 2 * n, "k={k} n={n} diameter");
        assert_close(&format!("k={k} n={n} d_m"), p.avg_distance * (big_n - 1.0) / big_n, formula_6, 1e-12);
        // The closed form against a BFS over the graph.
        let (d, avg) = paths::distances(&t).unwrap();
        assert_eq!(d, p.diameter);
        assert_close("BFS average", avg, p.avg_distance, 1e-12);
    }
}

/// Figure 18 (4-ary 2-tree): mdi of nodes "2,1" and "2,3" is 1 and their nca is the
/// switch <2, 1>; mdi of "0,1" and "3,2" is 0, their nca is all four level-0 switches
/// and they are joined by four minimal paths.
#[test]
fn figure_18_mdi_and_nca() {
    let t = topo("tree:k=4,n=2");
    let Family::Tree(x) = t.family() else { unreachable!() };
    let node = |p0: usize, p1: usize| 4 * p0 + p1;
    assert_eq!(x.node_tuple(node(2, 1)), vec![2, 1]);
    assert_eq!(x.mdi(node(2, 1), node(2, 3)), Some(1));
    let nca = x.nca(node(2, 1), node(2, 3));
    assert_eq!(nca.len(), 1);
    assert_eq!(label(&t, nca[0]), (vec![2], 1));
    assert_eq!(x.mdi(node(0, 1), node(3, 2)), Some(0));
    let nca = x.nca(node(0, 1), node(3, 2));
    let mut labels: Vec<_> = nca.iter().map(|&s| label(&t, s)).collect();
    labels.sort();
    assert_eq!(labels, vec![(vec![0], 0), (vec![1], 0), (vec![2], 0), (vec![3], 0)]);
    assert_eq!(paths::minimal_paths(&t, node(0, 1), node(3, 2)).unwrap(), 4);
    // Corollary A.1: d(p, q) = 2 (n − mdi(p, q)), |nca| = k^(n−1−mdi), for every pair.
    let t3 = topo("tree:k=3,n=3");
    let Family::Tree(x3) = t3.family() else { unreachable!() };
    for p in 0..27 {
        let dist = paths::bfs(&t3, t3.terminal_attachment(p).0);
        for q in 0..27 {
            if p == q {
                continue;
            }
            let mdi = x3.mdi(p, q).unwrap();
            assert_eq!(dist[t3.terminal_attachment(q).0] as usize + 2, 2 * (3 - mdi));
            assert_eq!(x3.nca(p, q).len(), 3usize.pow(2 - mdi as u32));
            assert_eq!(paths::minimal_paths(&t3, p, q).unwrap(), 3u128.pow(2 - mdi as u32));
        }
    }
}

/// Equation (7): cutting a k-ary n-tree in two symmetric halves cuts N/2 links.
#[test]
fn bisection_width_equation_7() {
    for (k, n) in [(4, 2), (4, 3), (4, 4), (2, 5)] {
        let p = topo(&format!("tree:k={k},n={n}")).describe().unwrap();
        assert_eq!(p.bisection_channels as usize, p.terminals / 2);
    }
}
