//! A table dump that says one thing twice is refused: a second block for a switch, a second
//! entry for a LID, a second lane line for a terminal or a second `# lmc:` header each
//! replaced what came before without a word, so two dumps pasted together loaded as the
//! second one's tables. Lanes out of range are named by value, and a block's closing count must
//! be its entries'.

use crate::common::topo;
use hpcnetsim_core::routing::tables::{self, dump, EngineOptions, TableEngine};

/// The error of loading `text` on the 4-switch HyperX, as one line.
fn refusal(text: &str) -> String {
    dump::load(text, "lft.txt", &topo("hyperx:2x2,t=1")).expect_err("refused").to_string()
}

/// The dump of DFSSSP on `hyperx:2x2,t=1` with two lanes written out: its blocks, entries and
/// lane lines, written here rather than computed so that each case edits a known line.
const DUMP: &str = "# lmc: 0
Unicast lids [0x0001-0x0004] of switch 0:
0x0001 002
0x0002 000
0x0003 001
0x0004 001
4 lids valid for this switch
Unicast lids [0x0001-0x0004] of switch 1:
0x0001 000
0x0002 002
0x0003 001
0x0004 001
4 lids valid for this switch
Unicast lids [0x0001-0x0004] of switch 2:
0x0001 001
0x0002 001
0x0003 002
0x0004 000
4 lids valid for this switch
Unicast lids [0x0001-0x0004] of switch 3:
0x0001 001
0x0002 001
0x0003 000
0x0004 002
4 lids valid for this switch
VLs of terminal 0: 0 0 0 1
";

#[test]
fn the_hand_written_dump_loads_and_delivers_every_pair() {
    let t = topo("hyperx:2x2,t=1");
    let tb = dump::load(DUMP, "lft.txt", &t).unwrap();
    for a in 0..4 {
        for b in (0..4).filter(|&b| b != a) {
            let path = tb.path(&t, a, b, 0).unwrap();
            assert!(path.len() <= 3, "{a}->{b}: {path:?}");
        }
    }
    assert_eq!((tb.vls, tb.vl(0, 3), tb.vl(1, 3)), (2, 1, 0));
}

#[test]
fn a_second_block_for_a_switch_is_refused() {
    // Switch 1's block renamed switch 0: switch 0's entries were replaced, switch 1 had none.
    let e = refusal(&DUMP.replace("of switch 1:", "of switch 0:"));
    assert!(e.starts_with("lft.txt:8: switch = 'Unicast lids [0x0001-0x0004] of switch 0:' is invalid"), "{e}");
    assert!(e.contains("one block per switch (switch 0's began on line 2)"), "{e}");
}

#[test]
fn an_entry_count_that_differs_from_the_entries_is_refused() {
    // Switch 2's entry for LID 3 deleted: its pair would have read as unreachable.
    let cut = DUMP.replace("0x0003 002\n", "");
    let e = refusal(&cut);
    assert_eq!(
        e,
        "lft.txt:18: line = '4 lids valid for this switch' is invalid: the count of the entries above it: \
         switch 2's block has 3"
    );
    assert!(refusal(&DUMP.replacen("4 lids valid", "x lids valid", 1)).contains("switch 0's block has 4"));
}

#[test]
fn a_second_entry_for_a_lid_is_refused() {
    let e = refusal(&DUMP.replace("0x0002 000\n", "0x0002 000\n0x0002 001\n"));
    assert!(e.starts_with("lft.txt:5: entry = '0x0002 001' is invalid"), "{e}");
    assert!(e.contains("one entry per LID (LID 0x0002 of switch 0 already goes to port 0)"), "{e}");
}

#[test]
fn a_second_lane_line_or_lmc_header_is_refused() {
    let e = refusal(&format!("{DUMP}VLs of terminal 0: 1 1 1 1\n"));
    assert!(e.starts_with("lft.txt:27: terminal = 0 is invalid: one 'VLs of terminal' line per terminal"), "{e}");
    assert!(e.contains("terminal 0's is on line 26"), "{e}");
    // Two dumps pasted together: the second header dropped the first dump's tables.
    let e = refusal(&format!("{DUMP}{DUMP}"));
    assert!(e.starts_with("lft.txt:27: line = '# lmc: 0' is invalid: one '# lmc: N' header per file"), "{e}");
}

#[test]
fn a_lane_out_of_range_is_named_by_its_value() {
    let e = refusal(&DUMP.replace("VLs of terminal 0: 0 0 0 1", "VLs of terminal 0: 0 0 0 9"));
    assert!(e.starts_with("lft.txt:26: VL = '9' is invalid: a lane from 0 to 7"), "{e}");
    let e = refusal(&DUMP.replace("VLs of terminal 0: 0 0 0 1", "VLs of terminal 0: 0 x 0 1"));
    assert!(e.starts_with("lft.txt:26: VL = 'x' is invalid"), "{e}");
    let e = refusal(&DUMP.replace("VLs of terminal 0: 0 0 0 1", "VLs of terminal 0: 0 0 1"));
    assert!(e.starts_with("lft.txt:26: VLs = 3 values is invalid: 4 lanes, one per LID"), "{e}");
}

#[test]
fn every_engine_dump_still_loads() {
    for (spec, engine) in [("hyperx:4x4,t=2", TableEngine::Dfsssp), ("torus:4x4", TableEngine::Ksp)] {
        let t = topo(spec);
        let opts = EngineOptions { lmc: if engine == TableEngine::Ksp { 1 } else { 0 }, ..EngineOptions::default() };
        let tb = tables::compute(engine, &t, &opts).unwrap();
        let mut back = dump::load(&dump::dump(&t, &tb), "lft.txt", &t).unwrap();
        back.engine = tb.engine.clone();
        assert_eq!(back, tb, "{spec}");
    }
}

/// A dump of another network (fewer switches) is refused, naming the first switch without a
/// block and the network the dump's header names; before, it loaded and every pair of the
/// larger network was reported unreachable.
#[test]
fn a_dump_of_another_network_is_refused() {
    let small = topo("hyperx:2x2,t=1");
    let t = tables::compute(TableEngine::Dfsssp, &small, &EngineOptions::default()).unwrap();
    let text = dump::dump(&small, &t);
    let e = dump::load(&text, "small.lft", &topo("hyperx:4x4,t=1")).expect_err("refused").to_string();
    assert!(e.contains("switch = 4 (no 'Unicast lids' block) is invalid"), "{e}");
    assert!(e.contains("16 switches of hyperx:4x4,t=1 (4 read; the dump's header names hyperx:2x2,t=1)"), "{e}");
    // Same switches, more terminals: the first line that cannot fit names the dump's network.
    let two = topo("hyperx:4x4,t=2");
    let wide = dump::dump(&two, &tables::compute(TableEngine::Dfsssp, &two, &EngineOptions::default()).unwrap());
    let e = dump::load(&wide, "two.lft", &topo("hyperx:4x4,t=3")).expect_err("refused").to_string();
    assert!(e.ends_with("(the dump's header names hyperx:4x4,t=2; these tables are loaded for hyperx:4x4,t=3)"), "{e}");
    // A torus's tables fit the ports of the mesh of the same size but route pairs nowhere.
    let torus = topo("torus:4x4");
    let ring = dump::dump(&torus, &tables::compute(TableEngine::Dfsssp, &torus, &EngineOptions::default()).unwrap());
    let e = dump::load(&ring, "t44.lft", &topo("mesh:4x4")).expect_err("refused").to_string();
    assert_eq!(e, "t44.lft: spec = torus:4x4 is invalid: tables of mesh:4x4: the dump's header names another network");
    // Tables of the intact torus on the torus with a failed link are the same family's.
    assert!(dump::load(&ring, "t44.lft", &topo("torus:4x4|faults:links=0.0")).is_ok());
    // The same dump on its own network loads, every switch's block read.
    assert!(dump::load(&text, "small.lft", &small).is_ok());
    // A block left out of a dump of the right network is refused too.
    let cut: String = DUMP.lines().take_while(|l| !l.ends_with("of switch 3:")).map(|l| format!("{l}\n")).collect();
    assert!(refusal(&cut).contains("switch = 3 (no 'Unicast lids' block)"), "{}", refusal(&cut));
}

/// A dump cut short is refused rather than loaded with what was left: cut inside a block
/// (its remaining entries read as unreachable pairs), or after the tables with the lane lines
/// its `# vls: N` header promises missing (their paths went on lane 0, and an acyclic layering
/// was reported as a possible deadlock).
#[test]
fn a_dump_cut_short_is_refused() {
    let t = topo("hyperx:4x4,t=2");
    let tb = tables::compute(TableEngine::Dfsssp, &t, &EngineOptions::default()).unwrap();
    assert!(tb.vls > 1);
    let text = dump::dump(&t, &tb);
    let lines: Vec<&str> = text.lines().collect();
    let load = |n: usize| {
        let cut: String = lines[..n].iter().map(|l| format!("{l}\n")).collect();
        dump::load(&cut, "lft.txt", &t).map(|_| ()).map_err(|e| e.to_string())
    };
    assert!(load(lines.len()).is_ok());
    // Cut two entries into the last switch's block.
    let last = lines.iter().rposition(|l| l.starts_with("Unicast lids")).unwrap();
    let e = load(last + 3).unwrap_err();
    assert_eq!(
        e,
        format!(
            "lft.txt: end of file: switch = 15's block (begun on line {}) not closed is invalid: every 'Unicast lids' \
             block closed by its 'N lids valid for this switch' line",
            last + 1
        )
    );
    // A block whose closing line was cut out, followed by the next block.
    let closing = lines.iter().position(|l| l.ends_with("lids valid for this switch")).unwrap();
    let without: String =
        lines.iter().enumerate().filter(|&(i, _)| i != closing).map(|(_, l)| format!("{l}\n")).collect();
    let e = dump::load(&without, "lft.txt", &t).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("lft.txt:{}: switch = 0's block (begun on line 6) not closed", closing + 1)), "{e}");
    // Cut after the tables, before the last terminals' lane lines.
    let first_vl = lines.iter().position(|l| l.starts_with("VLs of terminal")).unwrap();
    let e = load(first_vl + 20).unwrap_err();
    assert_eq!(
        e,
        format!(
            "lft.txt: terminal = 20 (no 'VLs of terminal' line) is invalid: a lane line for each of the 32 terminals, \
             as the '# vls: {}' header on line 5 says (20 read)",
            tb.vls
        )
    );
    assert!(load(first_vl).unwrap_err().contains("terminal = 0 (no 'VLs of terminal' line)"));
    // The header's value is checked.
    let e = dump::load(&text.replace("# vls: ", "# vls: 9"), "lft.txt", &t).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("lft.txt:5: vls = '9"), "{e}");
}
