//! Paper 001 (HyperX): the 12x8 HyperX with 7 terminals per switch, and the tree it is
//! compared with.

use crate::common::{assert_close, topo};

#[test]
fn twelve_by_eight_hyperx() {
    let p = topo("hyperx:12x8,t=7").describe().unwrap();
    assert_eq!(p.terminals, 672);
    assert_eq!(p.switches, 96);
    // 57.1 % bisection: the 8-switch dimension cut in halves.
    assert_close("bisection ratio", p.bisection_ratio, 0.571, 0.001);
    // Every switch: 11 + 7 network ports and 7 terminals (of a 36-port switch).
    assert_eq!(p.radix, 25);
    assert_eq!(p.diameter, 4);
    // Half-bisection HyperX still carries full uniform traffic (§2.2).
    assert_eq!(p.ideal_throughput, Some(1.0));
}

/// §2.3: a three-level tree of 36-port switches with 15 terminals per edge switch is
/// under-subscribed: more than full bisection.
#[test]
fn undersubscribed_three_level_tree() {
    let p = topo("xgft:h=3;m=15,18,18;w=1,18,18").describe().unwrap();
    assert_eq!(p.terminals, 15 * 18 * 18);
    assert_eq!(p.radix, 36);
    assert_eq!(p.switches_per_level, vec![324, 324, 324]);
    assert_eq!(p.bisection_ratio, 1.0);
    assert_eq!(p.ideal_throughput, Some(1.0));
}

/// Link multiplicity K doubles the links of every connected pair.
#[test]
fn link_multiplicity() {
    let a = topo("hyperx:4x4,t=8").describe().unwrap();
    let b = topo("hyperx:4x4,t=8,k=2").describe().unwrap();
    assert_eq!(b.switch_links, 2 * a.switch_links);
    assert_eq!(b.bisection_channels, 2 * a.bisection_channels);
    assert_eq!(b.radix, a.radix + 6);
}
