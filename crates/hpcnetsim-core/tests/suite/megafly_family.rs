//! The Megafly (Dragonfly+) family: counts and distances against the closed forms for
//! several sizes, the papers' largest networks of a router radix, the bisection against
//! brute force, and the describe, export, fault and table machinery on it.

use crate::common::{assert_close, brute_force_bisection, brute_force_channel_loads, topo};
use hpcnetsim_core::topology::megafly::Megafly;
use hpcnetsim_core::topology::{paths, Family};
use hpcnetsim_core::Topology;
use std::collections::BTreeMap;

fn megafly(t: &Topology) -> &Megafly {
    let Family::Megafly(m) = t.family() else { panic!("{}: not a megafly", t.spec()) };
    m
}

#[test]
fn megafly_counts_and_distances_match_the_closed_forms() {
    // (leaves, spines, p, h, groups or default, arrangement)
    for (l, s, p, h, groups, arrangement) in [
        (2, 2, 2, 2, None, "absolute"),
        (4, 4, 4, 4, None, "relative"),
        (3, 2, 2, 3, None, "circulant"),
        (4, 2, 3, 2, Some(3), "absolute"),
        (2, 3, 1, 2, Some(4), "relative"),
        (8, 8, 8, 8, Some(9), "absolute"),
        (1, 2, 2, 1, None, "absolute"),
    ] {
        let spec = match groups {
            Some(g) => format!("megafly:leaves={l},spines={s},p={p},h={h},groups={g},arrangement={arrangement}"),
            None => format!("megafly:leaves={l},spines={s},p={p},h={h},arrangement={arrangement}"),
        };
        let t = topo(&spec);
        let g = groups.unwrap_or(s * h + 1);
        let m = s * h / (g - 1);
        assert_eq!(megafly(&t).links_per_group_pair(), m, "{spec}");
        let n = g * l * p;
        assert_eq!((t.num_switches(), t.num_terminals()), (g * (l + s), n), "{spec}");
        assert_eq!(t.radix(), (p + s).max(l + h), "{spec}");
        assert_eq!(t.switch_links(), g * l * s + g * s * h / 2, "{spec}");
        // Leaves: p terminals and every spine of the group; spines: every leaf and h groups.
        let f = megafly(&t);
        let mut per_group_pair = BTreeMap::new();
        for sw in 0..t.num_switches() {
            let (gx, spine) = (f.group(sw), f.is_spine(sw));
            let (mut local, mut global) = (0, 0);
            for (nb, _) in t.switch_neighbours(sw) {
                if f.group(nb) == gx {
                    assert_ne!(f.is_spine(nb), spine, "{spec}: {sw} - {nb} on one level");
                    local += 1;
                } else {
                    assert!(spine && f.is_spine(nb), "{spec}: global link {sw} - {nb} off the spines");
                    global += 1;
                    *per_group_pair.entry((gx.min(f.group(nb)), gx.max(f.group(nb)))).or_insert(0) += 1;
                }
            }
            let want = if spine { (l, h) } else { (s, 0) };
            assert_eq!((local, global), want, "{spec}: switch {sw}");
            assert_eq!(t.terminals_at()[sw] as usize, if spine { 0 } else { p }, "{spec}: switch {sw}");
        }
        assert_eq!(per_group_pair.len(), g * (g - 1) / 2, "{spec}");
        assert!(per_group_pair.values().all(|&c| c == 2 * m), "{spec}");
        // Distances in links: 2 on one leaf, 4 within a group (leaf, spine, leaf), 5 between
        // groups (leaf, spine, global, spine, leaf), whatever the arrangement.
        let (diameter, avg) = paths::distances(&t).unwrap();
        let others = (2 * (p - 1) + 4 * (l - 1) * p + 5 * (g - 1) * l * p) as f64 / (n - 1) as f64;
        assert_eq!(diameter, 5, "{spec}");
        assert_close(&spec, avg, others, 1e-12);
    }
    // The largest network of a router radix k: k/2 leaves, spines, terminals and global links
    // per router, (k/2)² + 1 groups, (k/2)²((k/2)² + 1) terminals (Shpiner et al.; Flajslik
    // et al.: 1 049 600 endpoints with 64-port routers).
    for k in [8usize, 16, 40, 64] {
        let half = k / 2;
        let spec = format!("megafly:leaves={half},spines={half},p={half},h={half}");
        let f = hpcnetsim_core::topology::check_spec(&spec).unwrap();
        let Family::Megafly(m) = f else { panic!("{spec}") };
        assert_eq!(m.groups, half * half + 1, "{spec}");
        assert_eq!(m.terminals(), half * half * (half * half + 1), "{spec}");
        assert_eq!(m.switches(), k * (half * half + 1), "{spec}");
        if k <= 16 {
            assert_eq!(topo(&spec).radix(), k, "{spec}");
        }
    }
}

/// Small instances: channel loads and the bisection against enumeration.
#[test]
fn megafly_bounds_match_brute_force() {
    for spec in [
        "megafly:leaves=2,spines=1,p=1,h=2",
        "megafly:leaves=2,spines=2,p=1,h=1",
        "megafly:leaves=2,spines=2,p=2,h=2,groups=3",
        "megafly:leaves=3,spines=2,p=1,h=1",
        "megafly:leaves=2,spines=2,p=1,h=2",
        "megafly:leaves=1,spines=2,p=2,h=1",
        "megafly:leaves=3,spines=3,p=1,h=1,groups=2",
        "megafly:leaves=2,spines=2,p=1,h=2,arrangement=circulant",
    ] {
        let t = topo(spec);
        let d = t.describe().unwrap();
        assert_eq!(d.bisection_channels, brute_force_bisection(&t), "{spec}");
        let brute = brute_force_channel_loads(&t);
        let fast = paths::channel_loads(&t);
        for (c, (b, f)) in brute.iter().zip(&fast).enumerate() {
            assert!((b - f).abs() < 1e-9, "{spec}: channel {c}: enumerated {b}, computed {f}");
        }
        let ideal = d.ideal_throughput.expect("small networks solve the program");
        assert!(ideal >= d.minimal_spread_throughput - 1e-9 && ideal <= d.bisection_throughput + 1e-6, "{spec}");
    }
    // Larger: the group cut of a balanced network, (g/2)²·m links for an even g, and its
    // symmetric loads with a rotation-invariant arrangement.
    let t = topo("megafly:leaves=4,spines=4,p=4,h=4,groups=9,arrangement=relative");
    assert!(t.symmetry().is_some());
    let (all, sym) = (paths::channel_loads_with(&t, None), paths::channel_loads(&t));
    for (c, (a, s)) in all.iter().zip(&sym).enumerate() {
        assert_close(&format!("channel {c}"), *s, *a, 1e-9);
    }
    let even = topo("megafly:leaves=4,spines=4,p=4,h=3,groups=4").family().bisection_channels();
    assert!(even <= 2 * 2 * 4, "{even}");
}

#[test]
fn megafly_works_with_the_rest_of_hpcnetsim() {
    use hpcnetsim_core::routing::tables::{self, EngineOptions};
    let base = "megafly:leaves=2,spines=2,p=2,h=2";
    for spec in [base.to_string(), format!("{base}|faults:random=2,seed=4")] {
        let t = topo(&spec);
        let d = t.describe().unwrap();
        assert!(d.ideal_throughput.is_some(), "{spec}: {d:?}");
        let json: serde_json::Value = serde_json::from_str(&t.export("json").unwrap()).unwrap();
        assert_eq!(json["family"], "megafly", "{spec}");
        assert_eq!(json["switches"][3]["coordinates"], serde_json::json!([0, 1, 1]), "{spec}");
        for format in ["graphml", "dot", "ibnet", "anynet"] {
            assert!(!t.export(format).unwrap().is_empty(), "{spec} {format}");
        }
        for engine in ["dfsssp", "updn", "minhop"] {
            let tb = tables::compute(engine.parse().unwrap(), &t, &EngineOptions::default()).unwrap();
            let n = t.num_terminals();
            let ok = (0..n).flat_map(|s| (0..n).map(move |d| (s, d))).filter(|&(s, d)| s != d);
            assert!(ok.clone().all(|(s, d)| tb.path(&t, s, d, 0).is_ok()), "{spec} {engine}");
        }
    }
    // CODES' dragonfly files describe groups of routers that all hold terminals.
    assert!(topo(base).export("codes-inter").is_err());
}

#[test]
fn bad_megafly_parameters_are_refused_in_one_line() {
    for (spec, field) in [
        ("megafly:leaves=4,spines=4,p=4", "h"),
        ("megafly:spines=4,p=4,h=4", "leaves"),
        ("megafly:leaves=4,spines=4,p=4,h=4,groups=4", "groups"),
        ("megafly:leaves=4,spines=4,p=4,h=4,groups=18", "groups"),
        ("megafly:leaves=4,spines=4,p=4,h=4,groups=1", "groups"),
        ("megafly:leaves=0,spines=4,p=4,h=4", "leaves"),
        ("megafly:leaves=4,spines=4,p=4,h=4,arrangement=x", "arrangement"),
    ] {
        let e = Topology::from_spec(spec).err().unwrap_or_else(|| panic!("{spec} accepted")).to_string();
        assert!(e.contains(field) && !e.contains('\n'), "{spec}: {e}");
    }
}
