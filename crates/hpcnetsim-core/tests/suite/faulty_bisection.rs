//! The bisection reported for networks with faults: the failed links count, not the intact
//! family's closed form.

use crate::common::{brute_force_bisection, topo};

/// Failing the four links between columns 1 and 2 of a 4x4 torus leaves every row a path
/// 2-3-0-1: cutting between 3 and 0 splits the 16 switches 8:8 across the 4 wrap-around
/// links, and no balanced cut is cheaper (exhaustive search). The intact torus needs 8.
#[test]
fn failed_links_across_the_torus_cut_lower_the_bisection() {
    let t = topo("torus:4x4|faults:links=1.0+5.0+9.0+13.0");
    assert_eq!(brute_force_bisection(&t), 4);
    assert_eq!(t.describe().unwrap().bisection_channels, 4);
}

/// The cut reported for the faulty network `spec` is never above its intact network's and is
/// the exhaustive minimum (a valid balanced cut is never below it).
fn assert_exhaustive_minimum(spec: &str) {
    let t = topo(spec);
    let intact = topo(spec.split('|').next().unwrap()).describe().unwrap().bisection_channels;
    let got = t.describe().unwrap().bisection_channels;
    assert!(got <= intact, "{spec}: {got} above the intact {intact}");
    assert_eq!(got, brute_force_bisection(&t), "{spec}: intact {intact}");
}

/// Small faulty instances of the families with the same terminals on every switch: the
/// reported cut is a valid balanced cut (never below the exhaustive minimum), never above
/// the intact network's, and on these instances the minimum itself.
#[test]
fn faulty_bisection_matches_exhaustive_search() {
    for spec in [
        "torus:4x4|faults:random=3,seed=2",
        "torus:3x5|faults:random=4,seed=1",
        "mesh:4x4|faults:random=2,seed=3",
        "hyperx:4x3,t=2|faults:random=5,seed=1",
        "dragonfly:a=3,p=1,h=2,g=4|faults:random=3,seed=1",
        "slimfly:q=3|faults:random=6,seed=2",
        "jellyfish:n=14,k=4,p=1|faults:random=4,seed=1",
    ] {
        assert_exhaustive_minimum(spec);
    }
}

/// Trees carry terminals on their leaves only. Their faulty instances reported the intact
/// tree's cut, whatever failed across it: the leaves are now split in two halves of the
/// terminals and the other switches placed by a minimum cut. Never below the exhaustive
/// minimum, never above the intact cut, and the minimum itself on these instances.
#[test]
fn faulty_trees_report_the_cut_of_their_surviving_links() {
    // The 2-ary 3-tree: switches 8-11 are its roots (level 2).
    let t = topo("tree:k=2,n=3");
    let intact = t.describe().unwrap().bisection_channels;
    assert_eq!(intact, 4);
    for spec in [
        "tree:k=2,n=3|faults:random=2,seed=1",
        "tree:k=2,n=3|faults:random=3,seed=4",
        "tree:k=2,n=3|faults:switches=8",
        "tree:k=4,kp=2,n=2|faults:random=2,seed=2",
        "tree:k=4,kp=2,n=2|faults:random=3,seed=5",
        "xgft:h=2;m=4,4;w=1,2|faults:random=2,seed=1",
    ] {
        assert_exhaustive_minimum(spec);
    }
    // A failed root of the 2-ary 3-tree takes one of the four links across its middle.
    assert_eq!(topo("tree:k=2,n=3|faults:switches=8").describe().unwrap().bisection_channels, 3);
}
