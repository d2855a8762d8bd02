//! The ib_flit_sim fabrics (IBDM .topo files with OpenSM's forwarding tables): the graph
//! (directors expanded into chips) carries OpenSM's tables to every host, and our ftree is as
//! balanced as OpenSM's (maximum routes per link).

use hpcnetsim_core::routing::tables::{self, fdbs, stats, EngineOptions, TableEngine};
use hpcnetsim_core::Topology;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", "..", "tests", "data", "fabrics", "ib_flit_sim", name].iter().collect()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

/// OpenSM's and our ftree's statistics on one fabric.
fn compare(base: &str, fdbs_text: &str) -> (stats::RouteStats, stats::RouteStats) {
    let t = Topology::from_spec(&format!("ibdm:{}", data(&format!("{base}.topo")).display())).unwrap();
    let opensm =
        fdbs::load(fdbs_text, &read(&format!("{base}.fdbs.ini")), &read(&format!("{base}.hcas")), base, &t).unwrap();
    let ours = tables::compute(TableEngine::Ftree, &t, &EngineOptions::default()).unwrap();
    (stats::summarise(&t, &opensm), stats::summarise(&t, &ours))
}

#[test]
fn opensm_tables_deliver_on_the_imported_32_node_tree_and_ftree_matches_their_balance() {
    let (opensm, ours) = compare("is1_3l_32n", &read("is1_3l_32n.fdbs"));
    // Every host reaches every host through OpenSM's tables on our graph: the wiring agrees.
    assert_eq!(opensm.unreachable_pairs, 0);
    assert_eq!(opensm.paths, 32 * 31);
    assert_eq!(ours.unreachable_pairs, 0);
    assert_eq!(ours.max_hops, opensm.max_hops);
    assert!(
        ours.max_routes_per_link <= opensm.max_routes_per_link,
        "{} vs {}",
        ours.max_routes_per_link,
        opensm.max_routes_per_link
    );
}

/// The 1944-node fabric (108 36-port leaves, three 648-port directors expanded into 162
/// chips): a few seconds in release builds, so run on demand:
/// `cargo test --release --test ib_flit_sim_fabrics -- --ignored --nocapture`.
#[test]
#[ignore]
fn ftree_on_the_1944_node_fabric_is_as_balanced_as_opensm() {
    let gz = data("is4_3l_1944n.fdbs.gz");
    let out = std::process::Command::new("gzip").arg("-dc").arg(&gz).output().expect("gzip");
    let text = String::from_utf8(out.stdout).unwrap();
    let (opensm, ours) = compare("is4_3l_1944n", &text);
    println!("OpenSM: {opensm:?}\nours:   {ours:?}");
    assert_eq!(opensm.unreachable_pairs, 0);
    assert_eq!(ours.unreachable_pairs, 0);
    assert!(ours.max_routes_per_link <= opensm.max_routes_per_link);
}

#[test]
fn damaged_opensm_tables_are_refused_on_their_line() {
    let base = "is1_3l_32n";
    let t = Topology::from_spec(&format!("ibdm:{}", data(&format!("{base}.topo")).display())).unwrap();
    let (ini, hcas) = (read(&format!("{base}.fdbs.ini")), read(&format!("{base}.hcas")));
    let good = read(&format!("{base}.fdbs"));
    let load = |text: &str| fdbs::load(text, &ini, &hcas, "t.fdbs", &t).map(|_| ()).map_err(|e| e.to_string());
    assert!(load(&good).is_ok());
    let lines: Vec<&str> = good.lines().collect();
    // A row listed twice was appended to the first (its entries shifted past the last LID and
    // dropped without a word); it is refused with both lines.
    let twice = format!("{}\n{}\n", good.trim_end(), lines[0]);
    let e = load(&twice).unwrap_err();
    assert!(e.contains(&format!("t.fdbs:{}", lines.len() + 1)) && e.contains("line 1"), "{e}");
    // A port beyond the switch's: the line and the LID (the message named neither).
    let wide = good.replacen(lines[1], &lines[1].replacen(" 0 1 ", " 0 99 ", 1), 1);
    let e = load(&wide).unwrap_err();
    assert!(e.contains("t.fdbs:2") && e.contains("LID 2") && e.contains("= 99"), "{e}");
}

#[test]
fn a_row_wrapped_over_lines_with_its_index_loads_as_the_whole_row() {
    // ib_flit_sim wraps long rows (the 1944-node fabric's 1945 LIDs over 20 lines), each line
    // repeating the row's index: the lines are one row, not a row listed twice.
    let base = "is1_3l_32n";
    let t = Topology::from_spec(&format!("ibdm:{}", data(&format!("{base}.topo")).display())).unwrap();
    let (ini, hcas) = (read(&format!("{base}.fdbs.ini")), read(&format!("{base}.hcas")));
    let good = read(&format!("{base}.fdbs"));
    let mut wrapped = String::new();
    for line in good.lines() {
        let (idx, rest) = line.split_once(':').unwrap();
        let ports: Vec<&str> = rest.split_whitespace().collect();
        let (a, b) = ports.split_at(ports.len() / 2);
        wrapped += &format!("{idx}: {}\n{idx}: {}\n", a.join(" "), b.join(" "));
    }
    let whole = stats::summarise(&t, &fdbs::load(&good, &ini, &hcas, base, &t).unwrap());
    let split = stats::summarise(&t, &fdbs::load(&wrapped, &ini, &hcas, base, &t).unwrap());
    assert_eq!(split.paths, 32 * 31);
    assert_eq!(split.unreachable_pairs, 0);
    assert_eq!(split, whole);
    // The same index after another row's is still a row listed twice.
    let first = wrapped.lines().next().unwrap();
    let e = fdbs::load(&format!("{wrapped}{first}\n"), &ini, &hcas, "t.fdbs", &t).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains(&format!("t.fdbs:{}", wrapped.lines().count() + 1)) && e.contains("line 1"), "{e}");
}

#[test]
fn opensm_tables_of_the_1944_node_fabric_deliver_every_host_pair() {
    let gz = data("is4_3l_1944n.fdbs.gz");
    let out = std::process::Command::new("gzip").arg("-dc").arg(&gz).output().expect("gzip");
    let text = String::from_utf8(out.stdout).unwrap();
    let base = "is4_3l_1944n";
    let t = Topology::from_spec(&format!("ibdm:{}", data(&format!("{base}.topo")).display())).unwrap();
    let opensm =
        fdbs::load(&text, &read(&format!("{base}.fdbs.ini")), &read(&format!("{base}.hcas")), base, &t).unwrap();
    let s = stats::summarise(&t, &opensm);
    assert_eq!((s.paths, s.unreachable_pairs), (1944 * 1943, 0));
    assert_eq!(s.max_routes_per_link, 1926);
}

#[test]
fn opensm_tables_cut_short_are_refused() {
    // A row missing or ended early loaded, and its switch's pairs were reported unreachable
    // (236 of 992 without the last row) as if OpenSM had left them so.
    let base = "is1_3l_32n";
    let t = Topology::from_spec(&format!("ibdm:{}", data(&format!("{base}.topo")).display())).unwrap();
    let (ini, hcas) = (read(&format!("{base}.fdbs.ini")), read(&format!("{base}.hcas")));
    let good = read(&format!("{base}.fdbs"));
    let load = |text: &str| fdbs::load(text, &ini, &hcas, "t.fdbs", &t).map(|_| ()).map_err(|e| e.to_string());
    let lines: Vec<&str> = good.lines().collect();
    let without_last: String = lines[..19].iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(
        load(&without_last).unwrap_err(),
        "t.fdbs: row = 19 (switch SW-L2-3-1) missing is invalid: a row for each of the 20 indices of the .ini file (19 read)"
    );
    let short = format!("{without_last}19: 255 4 5 6\n");
    assert_eq!(
        load(&short).unwrap_err(),
        "t.fdbs:20: row 19 = 4 entries is invalid: an entry for each LID from 0 to the hosts' last, 32 (a file cut short?)"
    );
}
