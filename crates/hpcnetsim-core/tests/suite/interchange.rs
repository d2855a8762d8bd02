//! BookSim2 anynet files and CODES dragonfly connection files: the published files read as
//! the networks they describe, exports read back to the same network, and line-numbered
//! errors for bad input.

use crate::common::topo;
use hpcnetsim_core::Topology;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn data(name: &str) -> String {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "tests", "data", "fabrics", name].iter().collect();
    p.to_string_lossy().into_owned()
}

fn write_tmp(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("hpcnetsim-interchange-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// Links as a multiset of unordered switch pairs.
fn pairs(t: &Topology) -> BTreeMap<(u32, u32), usize> {
    let mut out = BTreeMap::new();
    for (a, _, b, _) in t.link_list() {
        *out.entry((a.min(b), a.max(b))).or_insert(0) += 1;
    }
    out
}

/// The switch of every terminal.
fn homes(t: &Topology) -> Vec<usize> {
    (0..t.num_terminals()).map(|x| t.terminal_attachment(x).0).collect()
}

fn same_network(what: &str, a: &Topology, b: &Topology) {
    assert_eq!(a.num_switches(), b.num_switches(), "{what}: switches");
    assert_eq!(pairs(a), pairs(b), "{what}: links");
    assert_eq!(homes(a), homes(b), "{what}: terminals");
}

fn anynet_round_trip(t: &Topology, name: &str) -> Topology {
    let text = t.export("anynet").unwrap();
    topo(&format!("anynet:{}", write_tmp(name, text.as_bytes())))
}

const DALLY72: &str = "codes_dragonfly_dally72/dfdally-72";

#[test]
fn booksim_example_is_read() {
    let t = topo(&format!("anynet:{}", data("booksim_anynet_file")));
    // router 0: nodes 0-2 and router 1; router 1: nodes 3-5; router 2: nodes 6-8, routers 1 and 0.
    assert_eq!((t.num_switches(), t.num_terminals()), (3, 9));
    assert_eq!(pairs(&t), BTreeMap::from([((0, 1), 1), ((0, 2), 1), ((1, 2), 1)]));
    assert_eq!(homes(&t), vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
    // Nodes first, then routers (BookSim's port order).
    assert_eq!(t.num_ports(0), 5);
    assert!(matches!(t.ports(0)[3], hpcnetsim_core::Peer::Switch { switch: 1, .. }));
    same_network("booksim example", &t, &anynet_round_trip(&t, "example.anynet"));
}

/// The q = 13 Slim Fly anynet file is `slimfly:q=13,p=9` (routers numbered like our switches,
/// nodes 9 per router in order).
#[test]
fn slimfly_anynet_file_is_our_slimfly() {
    let t = topo(&format!("anynet:{}", data("slimfly_q13_MMS.19.9.bsconf")));
    same_network("MMS.19.9", &t, &topo("slimfly:q=13,p=9"));
    same_network("MMS.19.9 round trip", &t, &anynet_round_trip(&t, "mms.anynet"));
}

#[test]
fn generated_families_survive_anynet() {
    for spec in ["dragonfly:a=4,p=2,h=2", "slimfly:q=5", "jellyfish:n=20,k=4,p=2", "torus:4x4,t=2", "tree:k=4,n=2"] {
        let t = topo(spec);
        same_network(spec, &t, &anynet_round_trip(&t, "gen.anynet"));
    }
    // anynet has one link per router pair.
    let e = topo("hyperx:3x3,k=2").export("anynet").unwrap_err().to_string();
    assert!(e.contains("parallel links") && !e.contains('\n'), "{e}");
}

/// CODES' dfdally-72 files, read in their decoded text form and in CODES' binary form, are
/// `dragonfly:a=4,p=2,h=2,arrangement=relative`; its export reproduces the files line for line.
#[test]
fn codes_dally72_round_trips() {
    let spec = format!("codes-dragonfly:{}-intra.csv,{}-inter.csv,p=2", data(DALLY72), data(DALLY72));
    let t = topo(&spec);
    let ours = topo("dragonfly:a=4,p=2,h=2,arrangement=relative");
    same_network("dfdally-72", &t, &ours);
    // CODES' port order is ours too.
    assert_eq!(t.link_list(), ours.link_list());
    for (kind, format) in [("intra", "codes-intra"), ("inter", "codes-inter")] {
        let file = std::fs::read_to_string(format!("{}-{kind}.csv", data(DALLY72))).unwrap();
        let body = |s: &str| s.lines().filter(|l| !l.starts_with('#')).map(String::from).collect::<Vec<_>>();
        assert_eq!(body(&ours.export(format).unwrap()), body(&file), "{format}");
        assert_eq!(body(&t.export(format).unwrap()), body(&file), "{format} of the import");
    }
    // The binary form CODES reads: little-endian int32 records.
    let binary = |kind: &str| {
        let text = std::fs::read_to_string(format!("{}-{kind}.csv", data(DALLY72))).unwrap();
        let mut out = Vec::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            for v in line.split(',') {
                out.extend_from_slice(&v.trim().parse::<i32>().unwrap().to_le_bytes());
            }
        }
        write_tmp(&format!("dfdally-72-{kind}"), &out)
    };
    let b = topo(&format!("codes-dragonfly:{},{},p=2", binary("intra"), binary("inter")));
    assert_eq!(b.link_list(), t.link_list());
    assert_eq!(homes(&b), homes(&t));
}

/// NERSC Edison's dragonfly-custom files: 15 groups of 96 routers, 4 nodes each; green rows
/// of 16, black columns of 6 with 3 links per pair, and the measured global links.
#[test]
fn codes_edison_is_read_and_round_trips() {
    let (intra, inter) = (data("codes_edison/intra-edison.csv"), data("codes_edison/inter-edison.csv"));
    let t = topo(&format!("codes-dragonfly:{intra},{inter},p=4"));
    assert_eq!((t.num_switches(), t.num_terminals()), (1440, 5760));
    // 2 880 intra records per group (each link twice), 5 040 inter records (each link twice).
    assert_eq!(t.switch_links(), 15 * 2880 / 2 + 5040 / 2);
    let local = t.link_list().iter().filter(|&&(a, _, b, _)| a / 96 == b / 96).count();
    assert_eq!(local, 15 * 1440);
    let i = t.export("codes-intra").unwrap();
    let o = t.export("codes-inter").unwrap();
    let back = topo(&format!(
        "codes-dragonfly:{},{},p=4",
        write_tmp("edison-intra.csv", i.as_bytes()),
        write_tmp("edison-inter.csv", o.as_bytes())
    ));
    same_network("edison", &t, &back);
    assert_eq!(back.link_list(), t.link_list());
    // ALCF Theta: the same groups, 9 of them, and its own global links.
    let theta = topo(&format!("codes-dragonfly:{intra},{},p=4", data("codes_edison/inter-theta.csv")));
    assert_eq!((theta.num_switches(), theta.num_terminals()), (864, 3456));
    assert_eq!(theta.switch_links(), 9 * 2880 / 2 + 3456 / 2);
    let o = theta.export("codes-inter").unwrap();
    let back = topo(&format!("codes-dragonfly:{intra},{},p=4", write_tmp("theta-inter.csv", o.as_bytes())));
    assert_eq!(back.link_list(), theta.link_list());
    // Only dragonflies have a CODES form.
    let e = topo("torus:4x4").export("codes-inter").unwrap_err().to_string();
    assert!(e.contains("dragonflies") && !e.contains('\n'), "{e}");
}

#[test]
fn bad_files_are_refused_with_file_and_line() {
    let anynet = [
        ("router 0 node 0 node 1\nswitch 1 node 2\n", ":2", "line"),
        ("router 0 node 0 node 1\nrouter 1 node 1\n", ":2", "node"),
        ("router 0 node 0 node 2 router 1\n", ":1", "node"),
        ("router 0 node 0 node 1 router 1 fast\n", ":1", "latency"),
        ("router 0 node 0 node 1 router -4\n", ":1", "router id"),
        ("node 0 node 1\n", ":1", "node"),
        ("router 0 node 0 router 0 node 1\n", ":1", "router"),
    ];
    for (i, (text, at, field)) in anynet.iter().enumerate() {
        let path = write_tmp(&format!("bad{i}.anynet"), text.as_bytes());
        let e = Topology::from_spec(&format!("anynet:{path}")).expect_err("refused").to_string();
        assert!(e.contains(&format!("{path}{at}")) && e.contains(field) && !e.contains('\n'), "{text:?}: {e}");
    }
    let intra = write_tmp("ok-intra.csv", b"0,1,0\n1,0,0\n");
    let codes: [(&str, &[u8], &str, &str); 6] = [
        ("inter", b"0,16777216\n16777216,0\n", "line 1", "destination"),
        ("inter", b"0,2\n2,0\n1,3\n", "line 3", "link"),
        ("inter", b"0,2\n2,x\n", "line 2", "destination"),
        ("inter", b"0,2,1\n", "line 1", "line"),
        ("inter", b"0,-2\n", "line 1", "destination"),
        ("inter", &[1, 0, 0, 0, 2, 0, 0], "bytes", "file"),
    ];
    for (i, (_, bytes, at, field)) in codes.iter().enumerate() {
        let inter = write_tmp(&format!("bad{i}-inter"), bytes);
        let e = Topology::from_spec(&format!("codes-dragonfly:{intra},{inter},p=1")).expect_err("refused").to_string();
        assert!(e.contains(at) && e.contains(field) && !e.contains('\n'), "{bytes:?}: {e}");
    }
    let inter = write_tmp("ok-inter.csv", b"0,2\n2,0\n");
    let empty = write_tmp("empty.csv", b"");
    for (body, field) in [
        (format!("{intra},{inter}"), "spec"),
        (format!("{intra},{inter},p=0"), "p"),
        (format!("{intra},/nonexistent,p=1"), "file"),
        // Two empty files used to give one router with p terminals and no links.
        (format!("{empty},{empty},p=1"), "files = no connection records"),
        (format!("{empty},{empty},p=4"), "files = no connection records"),
    ] {
        let e = Topology::from_spec(&format!("codes-dragonfly:{body}")).expect_err("refused").to_string();
        assert!(e.contains(field) && !e.contains('\n'), "{body}: {e}");
    }
}
