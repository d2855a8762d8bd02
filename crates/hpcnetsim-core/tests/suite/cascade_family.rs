//! The Cray Cascade family: counts against its closed forms for several sizes, NERSC Edison
//! (CODES' connection files and the machine's real link map) and ALCF Theta reproduced link
//! for link, the bisection against brute force and the generic balanced cut, and the
//! describe, export, fault and table machinery on it.

use crate::common::{assert_close, brute_force_bisection, brute_force_channel_loads, topo};
use hpcnetsim_core::topology::balanced_cut::balanced_cut;
use hpcnetsim_core::topology::cascade::{Cascade, LinkKind};
use hpcnetsim_core::topology::{paths, Family, Peer};
use hpcnetsim_core::Topology;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fabrics").join(name)
}

fn cascade(t: &Topology) -> &Cascade {
    let Family::Cascade(c) = t.family() else { panic!("{}: not a cascade", t.spec()) };
    c
}

/// Switch-to-switch links as a multiset of unordered switch pairs.
fn pairs(t: &Topology) -> BTreeMap<(usize, usize), usize> {
    let mut out = BTreeMap::new();
    for (a, _, b, _) in t.link_list() {
        let (a, b) = (a as usize, b as usize);
        *out.entry((a.min(b), a.max(b))).or_insert(0) += 1;
    }
    out
}

/// Green, black and global links as multisets of unordered router pairs, by the family's kinds.
fn by_kind(c: &Cascade) -> BTreeMap<(usize, usize, &'static str), usize> {
    let mut out = BTreeMap::new();
    c.for_each_link(|a, _, b, _, kind| {
        let k = match kind {
            LinkKind::Green => "green",
            LinkKind::Black => "black",
            LinkKind::Global => "blue",
        };
        *out.entry((a.min(b), a.max(b), k)).or_insert(0) += 1;
    });
    out
}

/// (groups, rows, cols, p, extra parameters, green, black, h, cable, global per pair).
type Case = (usize, usize, usize, usize, &'static str, usize, usize, usize, usize, usize);

#[test]
fn cascade_counts_match_the_closed_forms() {
    let cases: [Case; 9] = [
        (15, 6, 16, 4, ",global=24", 1, 3, 10, 2, 24),
        (9, 6, 16, 4, ",global=48", 1, 3, 10, 2, 48),
        (15, 6, 16, 4, "", 1, 3, 10, 2, 68),
        (3, 2, 3, 2, ",black=1,h=2,cable=1", 1, 1, 2, 1, 6),
        (5, 2, 2, 1, ",black=2,green=2,h=2,cable=1,global=2,arrangement=relative", 2, 2, 2, 1, 2),
        (4, 3, 2, 2, ",h=4,global=6,arrangement=circulant", 1, 3, 4, 2, 6),
        (2, 1, 4, 3, ",h=3,global=5", 1, 3, 3, 1, 5),
        (1, 6, 16, 4, "", 1, 3, 10, 2, 0),
        (7, 2, 4, 2, ",h=6,cable=3,global=3", 1, 3, 6, 3, 3),
    ];
    for (g, r, c, p, extra, green, black, h, cable, m) in cases {
        let spec = format!("cascade:groups={g},rows={r},cols={c},p={p}{extra}");
        let t = topo(&spec);
        let f = cascade(&t);
        assert_eq!((f.green, f.black, f.h, f.cable, f.global), (green, black, h, cable, m), "{spec}: defaults");
        let (s, n) = (g * r * c, g * r * c * p);
        assert_eq!((t.num_switches(), t.num_terminals()), (s, n), "{spec}");
        let radix = (c - 1) * green + (r - 1) * black + h + p;
        assert_eq!(t.radix(), radix, "{spec}");
        let (greens, blacks, globals) =
            (g * r * c * (c - 1) / 2 * green, g * c * r * (r - 1) / 2 * black, g * (g - 1) / 2 * m);
        assert_eq!(t.switch_links(), greens + blacks + globals, "{spec}");
        // Every router: its row and column all-to-all with their copies; every group pair m
        // global links; the global ports no cable reaches unplugged.
        let mut per_group_pair = BTreeMap::new();
        let mut unplugged = 0;
        for sw in 0..s {
            let [gx, row, col] = f.coordinates(sw)[..] else { panic!() };
            assert_eq!(sw, f.switch(gx, row, col), "{spec}");
            let (mut in_row, mut in_col) = (0, 0);
            for (nb, _) in t.switch_neighbours(sw) {
                let [gy, r2, c2] = f.coordinates(nb)[..] else { panic!() };
                if gy != gx {
                    *per_group_pair.entry((gx.min(gy), gx.max(gy))).or_insert(0) += 1;
                } else if r2 == row {
                    in_row += 1;
                } else {
                    assert_eq!(c2, col, "{spec}: switch {sw} linked diagonally to {nb}");
                    in_col += 1;
                }
            }
            assert_eq!((in_row, in_col), ((c - 1) * green, (r - 1) * black), "{spec}: switch {sw}");
            unplugged += t.ports(sw).iter().filter(|p| matches!(p, Peer::Unplugged)).count();
        }
        assert_eq!(per_group_pair.len(), g * (g - 1) / 2, "{spec}");
        assert!(per_group_pair.values().all(|&k| k == 2 * m), "{spec}: {per_group_pair:?}");
        assert_eq!(unplugged, g * (r * c * h - (g - 1) * m), "{spec}");
        if s <= 200 {
            let d = t.describe().unwrap();
            assert_eq!(d.links, d.switch_links + n, "{spec}");
            // Row and column hops in the groups, one global hop between them.
            let longest = if g > 1 { 5 } else { 2 };
            assert!(d.diameter <= 2 + longest && d.diameter >= 3, "{spec}: diameter {}", d.diameter);
        }
    }
}

/// Edison as CODES' `dragonfly-custom` files have it: the intra-group file applied to every
/// group, the inter-group file once, every link listed from both ends; and Theta's global links.
#[test]
fn edison_and_theta_are_the_codes_files_link_for_link() {
    let intra = std::fs::read_to_string(data("codes_edison/intra-edison.csv")).unwrap();
    let records = |text: &str| -> Vec<Vec<usize>> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split(',').map(|x| x.trim().parse().unwrap()).collect())
            .collect()
    };
    for (name, groups, m) in [("edison", 15, 24), ("theta", 9, 48)] {
        let spec = format!("cascade:groups={groups},rows=6,cols=16,p=4,global={m}");
        let t = topo(&spec);
        let inter = std::fs::read_to_string(data(&format!("codes_edison/inter-{name}.csv"))).unwrap();
        let mut codes: BTreeMap<(usize, usize, &str), usize> = BTreeMap::new();
        for v in records(&intra) {
            for x in 0..groups {
                let (a, b) = (x * 96 + v[0], x * 96 + v[1]);
                // CODES' link types: 0 row (green), 1 column (black).
                let kind = if v[2] == 0 { "green" } else { "black" };
                *codes.entry((a.min(b), a.max(b), kind)).or_insert(0) += 1;
            }
        }
        for v in records(&inter) {
            *codes.entry((v[0].min(v[1]), v[0].max(v[1]), "blue")).or_insert(0) += 1;
        }
        let codes: BTreeMap<_, _> = codes.into_iter().map(|(k, c)| (k, c / 2)).collect();
        assert_eq!(by_kind(cascade(&t)), codes, "{name}");
        // The imported fabric is the same graph, and the spec's export is CODES' files line for line
        // (up to their order; CODES lists a router's ports in the machine's tile order).
        let fabric = topo(&format!(
            "codes-dragonfly:{},{},p=4",
            data("codes_edison/intra-edison.csv").display(),
            data(&format!("codes_edison/inter-{name}.csv")).display()
        ));
        assert_eq!(pairs(&fabric), pairs(&t), "{name}");
        let sorted = |text: &str| {
            let mut l: Vec<String> =
                text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).map(str::to_string).collect();
            l.sort();
            l
        };
        assert_eq!(sorted(&t.export("codes-intra").unwrap()), sorted(&intra), "{name}: intra");
        assert_eq!(sorted(&t.export("codes-inter").unwrap()), sorted(&inter), "{name}: inter");
    }
}

/// The machine's own link map (every tile of every Aries router, with its colour): Edison's
/// green, black and blue links are `cascade:groups=15,rows=6,cols=16,p=4,global=24` link for
/// link, the map's groups 0..15 without 12 renumbered in order.
#[test]
fn edison_is_the_real_link_map_link_for_link() {
    let out = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(data("cray_edison/links-edison.txt.gz"))
        .output()
        .expect("gzip");
    let text = String::from_utf8(out.stdout).unwrap();
    // `c0-0c0s0a0l01(0:0:0) blue -> c2-0c0s0a0l01(1:0:0)`: (group:chassis:slot).
    let coords = |name: &str| -> [usize; 3] {
        let inner = &name[name.find('(').unwrap() + 1..name.len() - 1];
        let v: Vec<usize> = inner.split(':').map(|x| x.parse().unwrap()).collect();
        [v[0], v[1], v[2]]
    };
    let mut lines = Vec::new();
    let mut groups = std::collections::BTreeSet::new();
    let mut tiles = BTreeMap::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        *tiles.entry(w[1].to_string()).or_insert(0) += 1;
        let a = coords(w[0]);
        groups.insert(a[0]);
        if w[3] != "processor" && w[3] != "unused" {
            lines.push((a, w[1].to_string(), coords(w[3])));
        }
    }
    assert_eq!(text.lines().count(), 1440 * 48, "48 tiles per router");
    assert_eq!(groups.len(), 15);
    let renumber: BTreeMap<usize, usize> = groups.iter().enumerate().map(|(i, &g)| (g, i)).collect();
    let router = |[g, c, s]: [usize; 3]| renumber[&g] * 96 + c * 16 + s;
    let mut map: BTreeMap<(usize, usize, &str), usize> = BTreeMap::new();
    for (a, colour, b) in &lines {
        let kind = match colour.as_str() {
            "green" => "green",
            "black" => "black",
            "blue" => "blue",
            other => panic!("colour {other}"),
        };
        let (x, y) = (router(*a), router(*b));
        *map.entry((x.min(y), x.max(y), kind)).or_insert(0) += 1;
    }
    // Every link is listed from both of its tiles.
    assert!(map.values().all(|&c| c % 2 == 0));
    let map: BTreeMap<_, _> = map.into_iter().map(|(k, c)| (k, c / 2)).collect();
    let t = topo("cascade:groups=15,rows=6,cols=16,p=4,global=24");
    assert_eq!(by_kind(cascade(&t)), map);
    // 8 processor tiles (4 nodes, 2 tiles each), 15 green, 15 black and 10 blue per router;
    // 4 of the 10 blue tiles cabled on 12 routers of a chassis, 2 on the other 4.
    assert_eq!(tiles["ptile"], 1440 * 8);
    assert_eq!((tiles["green"], tiles["black"], tiles["blue"]), (1440 * 15, 1440 * 15, 1440 * 10));
    let blue_used = lines.iter().filter(|l| l.1 == "blue").count();
    assert_eq!(blue_used, 15 * 6 * (12 * 4 + 4 * 2));
    let unplugged: usize = (0..1440).map(|s| t.ports(s).iter().filter(|p| matches!(p, Peer::Unplugged)).count()).sum();
    assert_eq!(unplugged, 1440 * 10 - blue_used);
}

/// Small instances: the bisection against an exhaustive search and the channel loads against
/// an enumeration of every minimal path; larger ones against the generic balanced cut
/// (Fiduccia–Mattheyses), which it must not exceed by much.
#[test]
fn cascade_bounds_match_brute_force() {
    for spec in [
        "cascade:groups=2,rows=2,cols=2,p=1,black=1,h=1,cable=1",
        "cascade:groups=3,rows=2,cols=2,p=2,black=1,h=1,cable=1",
        "cascade:groups=3,rows=2,cols=2,p=1,black=2,h=2,cable=1,global=2",
        "cascade:groups=2,rows=2,cols=3,p=1,black=1,h=1,global=3",
        "cascade:groups=4,rows=1,cols=3,p=1,h=1,global=1",
        "cascade:groups=5,rows=2,cols=2,p=1,black=1,h=1,cable=1,global=1",
        "cascade:groups=2,rows=3,cols=3,p=2,black=1,h=4,global=6",
        "cascade:groups=1,rows=4,cols=4,p=1,black=1",
        "cascade:groups=3,rows=1,cols=5,p=1,h=1,global=2,arrangement=circulant",
    ] {
        let t = topo(spec);
        let d = t.describe().unwrap();
        let best = brute_force_bisection(&t);
        assert_eq!(d.bisection_channels, best, "{spec}");
        // Channel loads of the even spread over every minimal path, enumerated.
        let brute = brute_force_channel_loads(&t);
        let fast = paths::channel_loads(&t);
        for (c, (b, f)) in brute.iter().zip(&fast).enumerate() {
            assert!((b - f).abs() < 1e-9, "{spec}: channel {c}: enumerated {b}, computed {f}");
        }
        let brute_max = brute.iter().copied().fold(0.0, f64::max);
        assert_close(spec, d.minimal_spread_throughput, 1.0 / brute_max.max(1.0), 1e-9);
        let ideal = d.ideal_throughput.expect("small networks solve the program");
        assert!(ideal >= d.minimal_spread_throughput - 1e-9 && ideal <= d.bisection_throughput + 1e-6, "{spec}");
    }
    for spec in [
        "cascade:groups=9,rows=2,cols=4,p=2,black=1,h=2,cable=1,global=2",
        "cascade:groups=15,rows=6,cols=16,p=4,global=24",
        "cascade:groups=4,rows=6,cols=16,p=4,global=24",
        "cascade:groups=8,rows=3,cols=8,p=2,h=4,global=12",
    ] {
        let t = topo(spec);
        let links: Vec<(usize, usize)> = t.link_list().iter().map(|&(a, _, b, _)| (a as usize, b as usize)).collect();
        let fm = balanced_cut(t.num_switches(), &links).unwrap();
        let closed = t.family().bisection_channels();
        eprintln!("{spec}: closed form {closed}, balanced cut {fm}");
        assert!(closed as f64 <= fm as f64 * 1.05, "{spec}: closed form {closed}, balanced cut {fm}");
    }
}

/// describe, exports, faults, forwarding tables and the group-shift pattern on the family.
#[test]
fn cascade_works_with_the_rest_of_hpcnetsim() {
    use hpcnetsim_core::routing::tables::{self, EngineOptions};
    let base = "cascade:groups=3,rows=2,cols=3,p=2,black=2,h=2,cable=1";
    for spec in [base.to_string(), format!("{base}|faults:random=3,seed=2")] {
        let t = topo(&spec);
        let d = t.describe().unwrap();
        assert!(d.ideal_throughput.is_some() && d.avg_distance > 2.0, "{spec}: {d:?}");
        let json: serde_json::Value = serde_json::from_str(&t.export("json").unwrap()).unwrap();
        assert_eq!(json["family"], "cascade", "{spec}");
        assert_eq!(json["switches"][7]["coordinates"], serde_json::json!([1, 0, 1]), "{spec}");
        for format in ["graphml", "dot", "ibnet", "codes-intra", "codes-inter"] {
            match t.export(format) {
                Ok(text) => assert!(!text.is_empty(), "{spec} {format}"),
                // CODES applies one intra-group file to every group: faults make them differ.
                Err(e) => assert!(format == "codes-intra" && spec.contains("faults"), "{spec} {format}: {e}"),
            }
        }
        for engine in ["dfsssp", "updn", "minhop"] {
            let tb = tables::compute(engine.parse().unwrap(), &t, &EngineOptions::default()).unwrap();
            let paths = (0..t.num_terminals())
                .flat_map(|s| (0..t.num_terminals()).map(move |d| (s, d)))
                .filter(|&(s, d)| s != d)
                .filter(|&(s, d)| tb.path(&t, s, d, 0).is_ok())
                .count();
            assert_eq!(paths, t.num_terminals() * (t.num_terminals() - 1), "{spec} {engine}");
        }
    }
    // Relative and circulant arrangements keep the group rotation: the symmetry shortcut
    // gives the loads of every source.
    let t = topo("cascade:groups=4,rows=2,cols=2,p=1,black=1,h=3,cable=1,global=4,arrangement=relative");
    assert!(t.symmetry().is_some());
    let (all, sym) = (paths::channel_loads_with(&t, None), paths::channel_loads(&t));
    for (c, (a, s)) in all.iter().zip(&sym).enumerate() {
        assert_close(&format!("channel {c}"), *s, *a, 1e-9);
    }
    assert!(topo(base).symmetry().is_none(), "the absolute arrangement is not rotation-invariant");
    // anynet has one link per router pair: Aries' three black links per column pair are refused.
    let e = topo("cascade:groups=2,rows=2,cols=2,p=1,h=1,global=1").export("anynet").unwrap_err().to_string();
    assert!(e.contains("parallel") && !e.contains('\n'), "{e}");
    let anynet = topo("cascade:groups=2,rows=2,cols=2,p=1,black=1,h=1,global=1").export("anynet").unwrap();
    assert!(anynet.starts_with("router 0"), "{anynet}");
}

#[test]
fn bad_cascade_parameters_are_refused_in_one_line() {
    for (spec, field) in [
        ("cascade:rows=6,cols=16,p=4", "groups"),
        ("cascade:groups=15,cols=16,p=4", "rows"),
        ("cascade:groups=15,rows=6,cols=16,p=4,global=69", "global"),
        ("cascade:groups=15,rows=6,cols=16,p=4,global=0", "global"),
        ("cascade:groups=1,rows=6,cols=16,p=4,global=3", "global"),
        ("cascade:groups=15,rows=6,cols=16,p=4,h=5,cable=2", "cable"),
        ("cascade:groups=200,rows=2,cols=2,p=4,h=2", "groups"),
        ("cascade:groups=3,rows=2,cols=2,p=1,black=0", "black"),
        ("cascade:groups=3,rows=2,cols=2,p=1,arrangement=palm", "arrangement"),
        ("cascade:groups=3,rows=2,cols=2,p=1,tiles=2", "tiles"),
    ] {
        let e = Topology::from_spec(spec).err().unwrap_or_else(|| panic!("{spec} accepted")).to_string();
        assert!(e.contains(field) && !e.contains('\n'), "{spec}: {e}");
    }
}
