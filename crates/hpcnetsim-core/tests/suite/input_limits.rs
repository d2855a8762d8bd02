//! Sizes and references read from traces and fabric files are checked before anything is
//! allocated for them, and refused in one line naming the file, the line and the value:
//! rank counts, message sizes, compute intervals, port and terminal counts, binary files,
//! dependencies on messages that do not exist, duplicate names, ports beyond a radix.

use crate::traces::VEF;
use hpcnetsim_core::config::{TraceFormat, WorkloadConfig};
use hpcnetsim_core::topology::Topology;
use hpcnetsim_core::workload::traces;
use std::path::PathBuf;

fn scale() -> traces::builder::Scale {
    traces::scale(&WorkloadConfig::default())
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hpcnetsim-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The error of reading the text trace `text`, checked to be one line.
fn text_error(text: &str) -> String {
    let e = traces::read_text("t.trace", text, scale()).expect_err("an error").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

fn file_error(name: &str, text: &str, format: TraceFormat) -> String {
    let p = tmp(name, text.as_bytes());
    let e = traces::scan(&p, format, scale()).err().expect("an error").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

fn spec_error(spec: &str) -> String {
    let e = Topology::from_spec(spec).expect_err("an error").to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

#[test]
fn rank_counts_are_bounded_before_anything_is_allocated() {
    let e = text_error("ranks 99999999999\n0 compute 10\n");
    assert!(e.contains("t.trace: line 1") && e.contains("ranks = 99999999999") && e.contains("67108864"), "{e}");
    // Within the bound, the memory estimate judges the count (about 200 bytes a rank: 13 GB at
    // the bound, which a test machine may have): tests/test_input_safety.py has one refused
    // under an address-space limit.
    let e = file_error("big.vef", "VEF 99999999999 0 1 0 0 FALSE\n", TraceFormat::Vef);
    assert!(e.contains("big.vef: line 1") && e.contains("tasks = 99999999999"), "{e}");
    let e = file_error("big.txt", "p99999999999 compute 10\n", TraceFormat::Simgrid);
    assert!(e.contains("big.txt: line 1") && e.contains("rank + 1 = 100000000000"), "{e}");
    let p = tmp("big.meta", b"hostname=x\nnumprocs=99999999999\nfileprefix=big\n");
    let e = traces::scan(&p, TraceFormat::Dumpi, scale()).err().expect("an error").to_string();
    assert!(e.contains("big.meta: line 2") && e.contains("numprocs = 99999999999"), "{e}");
    // Random bytes as any format: refused at once, never read whole.
    for format in [TraceFormat::Text, TraceFormat::Dumpi, TraceFormat::Vef, TraceFormat::Simgrid] {
        let e = traces::scan(std::path::Path::new("/dev/urandom"), format, scale()).err().expect("an error");
        assert!(!e.to_string().contains('\n'), "{format:?}: {e}");
    }
}

#[test]
fn message_sizes_and_compute_intervals_are_bounded() {
    let e = text_error("ranks 2\n0 send 1 1099511627777\n1 recv 0 1099511627777\n");
    assert!(e.contains("line 2 (rank 0)") && e.contains("1099511627777 bytes") && e.contains("2^40"), "{e}");
    let e = text_error("ranks 2\n0 bcast 1099511627777\n1 bcast 1099511627777\n");
    assert!(e.contains("line 2 (rank 0)") && e.contains("2^40"), "{e}");
    let e = text_error("ranks 2\n0 compute 99999999999999999999\n1 compute 5\n");
    assert!(e.contains("line 2 (rank 0)") && e.contains("compute of 100000000000000000000 cycles"), "{e}");
    // Each interval within the bound, their sum beyond it.
    let e = text_error("ranks 2\n0 compute 600000000000\n0 compute 600000000000\n1 compute 5\n");
    assert!(e.contains("line 3 (rank 0)") && e.contains("adds up to more than"), "{e}");
    // The exact bound is accepted.
    traces::read_text("t.trace", "ranks 2\n0 compute 1000000000000\n1 compute 5\n", scale()).unwrap();
}

#[test]
fn a_text_trace_option_without_equals_is_refused() {
    let e = text_error("ranks 2\n0 send 1 100 tag3\n1 recv 0 100\n");
    assert!(e.contains("line 2 (rank 0)") && e.contains("unexpected argument 'tag3'"), "{e}");
    let e = text_error("ranks 2\n0 compute 10 20\n1 compute 5\n");
    assert!(e.contains("unexpected argument '20'"), "{e}");
    // Waits take any number of request ids.
    traces::read_text(
        "t.trace",
        "ranks 2\n0 isend 1 8 req=1\n0 isend 1 8 req=2\n0 waitall 1 2\n1 recv 0 8\n1 recv 0 8\n",
        scale(),
    )
    .unwrap();
}

#[test]
fn vef_dependencies_on_missing_messages_or_collectives_are_refused() {
    file_error_free("ok.vef", VEF);
    // Task 1 waits for message 7, which does not exist (was: ignored, a shorter run).
    let e = file_error("dep2.vef", &VEF.replace("1 1 2 640 2 500 0", "1 1 2 640 2 500 7"), TraceFormat::Vef);
    assert!(e.contains("dep2.vef: line 4 (rank 1)") && e.contains("dependency 2 on message 7"), "{e}");
    // Task 1 did not receive message 1 (it sent it).
    let e = file_error("dep2b.vef", &VEF.replace("2 2 0 640 2 300 1", "2 2 0 640 2 300 2"), TraceFormat::Vef);
    assert!(e.contains("line 5 (rank 2)") && e.contains("message 2"), "{e}");
    let e = file_error("dep1.vef", &VEF.replace("G0 0 0 2 0 4096 1 0 2", "G0 0 0 2 0 4096 1 0 0"), TraceFormat::Vef);
    assert!(e.contains("line 8 (rank 2)") && e.contains("dependency 1 on message 0"), "{e}");
    let e = file_error("dep3.vef", &VEF.replace("3 0 G0", "3 0 G5"), TraceFormat::Vef);
    assert!(e.contains("line 7 (rank 1)") && e.contains("dependency 3 on G5"), "{e}");
}

fn file_error_free(name: &str, text: &str) {
    let p = tmp(name, text.as_bytes());
    traces::scan(&p, TraceFormat::Vef, scale()).map(|_| ()).unwrap();
}

#[test]
fn edge_lists_are_bounded_checked_for_binary_data_and_unique_names() {
    let p = tmp("huge.edges", b"link a b\nterminals a 999999999999\nterminal x b\n");
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("huge.edges:2") && e.contains("999999999999"), "{e}");
    // Random bytes: refused at the first chunk, not read whole.
    let mut bytes = Vec::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.push((x >> 24) as u8);
    }
    let p = tmp("random.edges", &bytes);
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("random.edges:") && e.contains("binary data"), "{e}");
    let e = spec_error("edges:/dev/urandom");
    assert!(e.contains("binary data"), "{e}");
    let p = tmp("dup.edges", b"link a b\nterminal h1 a\nterminal h1 b\n");
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("dup.edges:3") && e.contains("'h1'") && e.contains("line 2"), "{e}");
    let p = tmp("dup2.edges", b"link a b\nterminal a/2 a\nterminals a 2\n");
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("dup2.edges:3") && e.contains("'a/2'"), "{e}");
    let p = tmp("ports.edges", b"switch a 999999999999\nlink a b\nterminal h1 a\nterminal h2 b\n");
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("ports.edges:1") && e.contains("999999999999"), "{e}");
    // No terminals made an unlinked switch `c` (three switches, one isolated).
    let p = tmp("none.edges", b"link a b\nterminals a 2\nterminals c 0\n");
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("none.edges:3") && e.contains("terminals = '0'") && e.contains("at least 1"), "{e}");
    // The control: a good file still reads.
    let p = tmp("ok.edges", b"link a b\nterminal h1 a\nterminals b 2\n");
    assert_eq!(Topology::from_spec(&format!("edges:{}", p.display())).unwrap().num_terminals(), 3);
}

#[test]
fn ibdm_ports_beyond_the_radix_are_refused() {
    let good =
        "MTS800 S1\n   P1 -> MTS800 S2 P1\n   P2 -> HCA h1 P1\nMTS800 S2\n   P1 -> MTS800 S1 P1\n   P2 -> HCA h2 P1\n";
    let p = tmp("ok.topo", good.as_bytes());
    let t = Topology::from_spec(&format!("ibdm:{}", p.display())).unwrap();
    assert_eq!(t.num_ports(0), 8);
    let p = tmp("radix.topo", good.replace("P2 -> HCA h1", "P99999 -> HCA h1").as_bytes());
    let e = spec_error(&format!("ibdm:{}", p.display()));
    assert!(e.contains("radix.topo:3") && e.contains("P99999") && e.contains("8 ports"), "{e}");
    let p = tmp("remote.topo", good.replace("P1 -> MTS800 S2 P1", "P1 -> MTS800 S2 P9").as_bytes());
    let e = spec_error(&format!("ibdm:{}", p.display()));
    assert!(e.contains("remote.topo:2") && e.contains("P9"), "{e}");
}

#[test]
fn fabric_cables_from_a_switch_to_itself_are_refused() {
    // A loop cable (or a port wired to itself, which was dropped without a word) is refused
    // on its line, as `link a a` of an edge list and `router 0 ... router 0` of anynet are.
    let ib =
        "Switch 4 \"A\"\n[1] \"B\"[1]\n[2] \"A\"[3]\n[4] \"H\"[1]\n\nSwitch 4 \"B\"\n[1] \"A\"[1]\n[4] \"G\"[1]\n\n\
              Hca 1 \"H\"\n[1] \"A\"[4]\n\nHca 1 \"G\"\n[1] \"B\"[4]\n";
    let ok = tmp("noloop.ibnet", ib.replace("[2] \"A\"[3]\n", "").as_bytes());
    assert_eq!(Topology::from_spec(&format!("ibnet:{}", ok.display())).unwrap().num_switches(), 2);
    for (name, text) in [("loop.ibnet", ib.to_string()), ("selfport.ibnet", ib.replace("\"A\"[3]", "\"A\"[2]"))] {
        let p = tmp(name, text.as_bytes());
        let e = spec_error(&format!("ibnet:{}", p.display()));
        assert!(e.contains(&format!("{name}:3")) && e.contains("'A'") && e.contains("itself"), "{e}");
    }
    let topo = "MTS800 S1\n   P1 -> MTS800 S2 P1\n   P2 -> HCA h1 P1\n   P3 -> MTS800 S1 P3\n\
                MTS800 S2\n   P1 -> MTS800 S1 P1\n   P2 -> HCA h2 P1\n";
    let p = tmp("loop.topo", topo.as_bytes());
    let e = spec_error(&format!("ibdm:{}", p.display()));
    assert!(e.contains("loop.topo:4") && e.contains("S1") && e.contains("itself"), "{e}");
}

#[test]
fn edge_list_switch_declarations_are_checked_on_their_line() {
    let good = "switch a 4\nlink a b\nterminals a 1\nterminals b 1\n";
    let p = tmp("declared.edges", good.as_bytes());
    assert_eq!(Topology::from_spec(&format!("edges:{}", p.display())).unwrap().num_ports(0), 4);
    // A second declaration replaced the first without a word (radix 3 from `switch a 4`, `switch a 3`).
    let p = tmp("twice.edges", format!("{good}switch a 3\n").as_bytes());
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("twice.edges:5") && e.contains("'a'") && e.contains("line 1"), "{e}");
    // Fewer ports than the switch uses: the declaring line (the message had none).
    let p = tmp("small.edges", good.replace("switch a 4", "switch a 1").as_bytes());
    let e = spec_error(&format!("edges:{}", p.display()));
    assert!(e.contains("small.edges:1") && e.contains("1 on switch a") && e.contains("at least the 2"), "{e}");
}

/// `,t=N` puts terminals on free ports; an edge list's undeclared switch has none, which the
/// refusal now says, with the line that gives it some.
#[test]
fn edge_list_terminals_per_switch_need_declared_ports() {
    let p = tmp("tri.edges", b"link a b\nlink b c\nlink c a\n");
    let e = spec_error(&format!("edges:{},t=2", p.display()));
    assert!(e.contains("at most the 0 free ports of switch a (declare it wider with a `switch a PORTS` line)"), "{e}");
    let p = tmp("tri-declared.edges", b"switch a 4\nswitch b 4\nswitch c 4\nlink a b\nlink b c\nlink c a\n");
    assert_eq!(Topology::from_spec(&format!("edges:{},t=2", p.display())).unwrap().num_terminals(), 6);
    // A space after the comma was read as part of the file name.
    assert_eq!(Topology::from_spec(&format!("edges:{}, t=2", p.display())).unwrap().num_terminals(), 6);
}

#[test]
fn ibnet_exports_of_wide_switches_read_back() {
    // `topo export --format ibnet` wrote a 5000-port crossbar that `ibnet:` refused (ports at
    // most 4096); counts are bounded by MAX_PORTS in total, as an edge list's are.
    let t = Topology::from_spec("crossbar:5000").unwrap();
    let p = tmp("wide.ibnet", hpcnetsim_core::topology::import::to_ibnet(&t).as_bytes());
    let back = Topology::from_spec(&format!("ibnet:{}", p.display())).unwrap();
    assert_eq!((back.num_switches(), back.num_ports(0), back.num_terminals()), (1, 5000, 5000));
    let p = tmp("huge.ibnet", b"Switch 300000000 \"A\"\n");
    let e = spec_error(&format!("ibnet:{}", p.display()));
    assert!(e.contains("huge.ibnet:1") && e.contains("'300000000'") && e.contains("200000000"), "{e}");
    let p = tmp("total.ibnet", b"Switch 150000000 \"A\"\nSwitch 150000000 \"B\"\n");
    let e = spec_error(&format!("ibnet:{}", p.display()));
    assert!(e.contains("total.ibnet:2") && e.contains("at most 200000000 ports in total"), "{e}");
}

#[test]
fn fabric_files_starting_with_a_byte_order_mark_are_read() {
    // Saved by a Windows editor: the mark made the first line unreadable in every text format.
    let bom = |name: &str, text: &str| tmp(name, format!("\u{feff}{text}").as_bytes()).display().to_string();
    let files = [
        (
            "ibnet",
            bom(
                "bom.ibnet",
                "Switch 2 \"A\"\n[1] \"H\"[1]\n[2] \"G\"[1]\nCa 1 \"H\"\n[1] \"A\"[1]\nCa 1 \"G\"\n[1] \"A\"[2]\n",
            ),
        ),
        ("edges", bom("bom.edges", "link a b\nterminals a 1\nterminals b 1\n")),
        ("anynet", bom("bom.anynet", "router 0 node 0 router 1\nrouter 1 node 1\n")),
        ("ibdm", bom("bom.topo", "MTS800 S1\n   P1 -> HCA h1 P1\n   P2 -> HCA h2 P1\n")),
    ];
    for (format, path) in files {
        let t = Topology::from_spec(&format!("{format}:{path}")).unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(t.num_terminals(), 2, "{format}");
    }
    let intra = bom("bom-intra.csv", "0,1,0\n1,0,0\n");
    let inter = tmp("bom-inter.csv", b"0,2\n2,0\n").display().to_string();
    let t = Topology::from_spec(&format!("codes-dragonfly:{intra},{inter},p=1")).unwrap();
    assert_eq!(t.num_terminals(), 4);
}
