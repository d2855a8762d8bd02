//! Forwarding-table engines (minhop, sssp, dfsssp, updn, ftree, parx): valid loop-free
//! paths on every family, deadlock verdicts, ftree's shift permutations, dumps read back,
//! and the errors for bad inputs.

use crate::common::topo;
use hpcnetsim_core::routing::deadlock::Verdict;
use hpcnetsim_core::routing::tables::{self, dump, stats, EngineOptions, TableEngine, Tables};
use hpcnetsim_core::{Peer, Topology};
use std::collections::HashSet;

const FAMILIES: [&str; 7] = [
    "tree:k=4,n=3",
    "xgft:h=2;m=4,3;w=1,2",
    "torus:4x3,t=2",
    "mesh:3x3",
    "hyperx:4x4,t=2",
    "twin-torus:2x2x3",
    "crossbar:6",
];

fn compute(engine: &str, t: &Topology) -> Tables {
    tables::compute(engine.parse().unwrap(), t, &EngineOptions::default())
        .unwrap_or_else(|e| panic!("{engine} on {}: {e}", t.spec()))
}

/// Every pair on every address reaches its destination through distinct switches.
fn assert_valid(t: &Topology, tb: &Tables) {
    let n = t.num_terminals();
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            for off in 0..tb.offsets() {
                let p = tb.path(t, a, b, off).unwrap_or_else(|e| panic!("{} {a}->{b}: {e:?}", tb.engine));
                let switches: HashSet<u32> = p.iter().map(|h| h.switch).collect();
                assert_eq!(switches.len(), p.len(), "{} {a}->{b} revisits a switch: {p:?}", tb.engine);
                let last = p.last().unwrap();
                assert_eq!(t.ports(last.switch as usize)[last.port as usize], Peer::Terminal(b as u32));
            }
        }
    }
}

#[test]
fn every_engine_gives_valid_loop_free_paths_on_every_family() {
    for spec in FAMILIES {
        let t = topo(spec);
        for engine in ["minhop", "sssp", "dfsssp", "updn"] {
            assert_valid(&t, &compute(engine, &t));
        }
    }
    for spec in ["tree:k=4,n=3", "tree:k=4,kp=2,n=3", "xgft:h=3;m=3,2,2;w=1,2,3"] {
        assert_valid(&topo(spec), &compute("ftree", &topo(spec)));
    }
    let t = topo("hyperx:4x6,t=2");
    let p = compute("parx", &t);
    assert_eq!(p.offsets(), 4);
    assert_valid(&t, &p);
}

#[test]
fn updn_dfsssp_ftree_parx_are_deadlock_free() {
    for spec in FAMILIES {
        let t = topo(spec);
        for engine in ["updn", "dfsssp"] {
            let tb = compute(engine, &t);
            assert_eq!(tb.deadlock_verdict(&t), Verdict::Acyclic, "{engine} on {spec}");
        }
    }
    let t = topo("tree:k=4,kp=2,n=3");
    assert!(compute("ftree", &t).deadlock_verdict(&t).is_acyclic());
    let t = topo("hyperx:4x4,t=2");
    let p = compute("parx", &t);
    assert!(p.deadlock_verdict(&t).is_acyclic());
    // The detours need lanes: PARX without layers would not be acyclic.
    assert!(p.vls > 1, "parx used {} lane(s)", p.vls);
}

#[test]
fn minhop_on_a_torus_deadlocks_and_the_cycle_is_real() {
    let t = topo("torus:5x5");
    let tb = compute("minhop", &t);
    let Verdict::Cycle(cycle) = tb.deadlock_verdict(&t) else { panic!("min-hop on a torus found acyclic") };
    assert!(cycle.len() >= 2);
    // Walk the cycle: every dependency (hop i, hop i+1) is taken by some real path.
    let n = t.num_terminals();
    let mut deps = HashSet::new();
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            let p = tb.path(&t, a, b, 0).unwrap();
            for w in p.windows(2) {
                deps.insert((w[0], w[1]));
            }
        }
    }
    for i in 0..cycle.len() {
        let (x, y) = (cycle[i], cycle[(i + 1) % cycle.len()]);
        assert!(deps.contains(&(x, y)), "no path holds {x:?} then requests {y:?}");
    }
    // DFSSSP on the same torus layers the same kind of paths onto lanes and is acyclic.
    let d = compute("dfsssp", &t);
    assert!(d.deadlock_verdict(&t).is_acyclic());
    assert!(d.vls >= 2);
}

#[test]
fn ftree_makes_shift_permutations_contention_free_on_k_ary_n_trees() {
    for spec in ["tree:k=4,n=3", "tree:k=2,n=4", "tree:k=3,n=2"] {
        let t = topo(spec);
        let tb = compute("ftree", &t);
        let n = t.num_terminals();
        for shift in 1..n {
            let mut used = HashSet::new();
            for a in 0..n {
                for h in tb.path(&t, a, (a + shift) % n, 0).unwrap() {
                    assert!(used.insert((h.switch, h.port)), "{spec} shift {shift}: channel {h:?} used twice");
                }
            }
        }
        // Control: min-hop balances by counts only and is not contention-free on every shift.
        let m = compute("minhop", &t);
        let contended = (1..n).any(|shift| {
            let mut used = HashSet::new();
            (0..n).any(|a| m.path(&t, a, (a + shift) % n, 0).unwrap().iter().any(|h| !used.insert((h.switch, h.port))))
        });
        if spec == "tree:k=4,n=3" {
            assert!(contended, "the control should show contention");
        }
    }
}

#[test]
fn dumps_load_back_to_the_same_tables() {
    for (spec, engine) in [("hyperx:4x4,t=2", "dfsssp"), ("hyperx:4x4,t=2", "parx"), ("tree:k=4,n=2", "ftree")] {
        let t = topo(spec);
        let tb = compute(engine, &t);
        let text = dump::dump(&t, &tb);
        let mut back = dump::load(&text, "dump.txt", &t).unwrap();
        back.engine = tb.engine.clone();
        assert_eq!(back, tb, "{spec} {engine}");
    }
}

#[test]
fn route_statistics_count_paths_and_links() {
    let t = topo("tree:k=4,n=2");
    let tb = compute("ftree", &t);
    let s = stats::summarise(&t, &tb);
    let n = t.num_terminals();
    assert_eq!(s.paths, n * (n - 1));
    assert_eq!(s.unreachable_pairs, 0);
    assert_eq!((s.min_hops, s.max_hops), (Some(0), Some(2)));
    // A 4-ary 2-tree under ftree carries 4 destinations x 3 remote sources... per up-link:
    // every leaf up-link carries the 3 remote leaves' traffic towards 4 destinations / 4 links.
    let links = 2 * t.switch_links();
    let total: usize = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| tb.path(&t, a, b, 0).unwrap().len() - 1)
        .sum();
    assert!((s.mean_routes_per_link - total as f64 / links as f64).abs() < 1e-9);
    let routed = s.routed_throughput.unwrap();
    assert!(routed > 0.0 && routed <= 1.0);
    // ftree on a full fat-tree reaches the ideal uniform bound.
    let ideal = t.describe().unwrap().ideal_throughput.unwrap();
    assert!((routed - ideal).abs() < 1e-9, "{routed} vs {ideal}");
}

#[test]
fn bad_inputs_are_reported() {
    let err = |r: Result<Tables, hpcnetsim_core::Error>| r.unwrap_err().to_string();
    let e = err(tables::compute(TableEngine::Parx, &topo("torus:4x4"), &EngineOptions::default()));
    assert!(e.contains("parx") && e.contains("2D HyperX"), "{e}");
    let e = err(tables::compute(TableEngine::Ftree, &topo("torus:4x4"), &EngineOptions::default()));
    assert!(e.contains("fat-tree"), "{e}");
    let e = "nope".parse::<TableEngine>().unwrap_err().to_string();
    assert!(e.contains("routing: engine = 'nope'") && e.contains("minhop"), "{e}");
    let one = EngineOptions { max_vls: 1, ..EngineOptions::default() };
    let e = err(tables::compute(TableEngine::Dfsssp, &topo("torus:5x5"), &one));
    assert!(e.contains("vls = 1") && e.contains("virtual lanes"), "{e}");
    let t = topo("hyperx:4x4,t=2");
    let text = dump::dump(&t, &compute("minhop", &t));
    let broken = text.replacen("0x0002 ", "0x0002 x", 1);
    let line = broken.lines().position(|l| l.contains("0x0002 x")).unwrap() + 1;
    let e = err(dump::load(&broken, "lft.txt", &t));
    assert!(e.contains(&format!("lft.txt:{line}")), "{e}");
    let e = err(dump::load("Unicast lids [0x1-0x2] of switch 0:\n", "lft.txt", &t));
    assert!(e.contains("lft.txt:1") && e.contains("lmc"), "{e}");
}

#[test]
fn faults_are_routed_around_and_reported() {
    // Random link faults: every engine still gives valid paths, the layered ones stay acyclic.
    for spec in [
        "hyperx:4x4,t=2|faults:random=6,seed=2",
        "tree:k=4,n=3|faults:fraction=0.1,seed=5",
        "torus:4x4|faults:random=3",
    ] {
        let t = topo(spec);
        assert!(t.faulty_links() > 0, "{spec}");
        for engine in ["minhop", "sssp", "dfsssp", "updn"] {
            let tb = compute(engine, &t);
            if stats::summarise(&t, &tb).unreachable_pairs == 0 {
                assert_valid(&t, &tb);
            }
            if engine != "minhop" && engine != "sssp" {
                assert!(tb.deadlock_verdict(&t).is_acyclic(), "{engine} on {spec}");
            }
        }
    }
    let t = topo("tree:k=4,n=3|faults:fraction=0.1,seed=5");
    let f = compute("ftree", &t);
    assert_eq!(stats::summarise(&t, &f).unreachable_pairs, 0);
    assert_valid(&t, &f);
    assert!(f.deadlock_verdict(&t).is_acyclic());
    let t = topo("hyperx:4x4,t=2|faults:random=4,seed=9");
    let p = compute("parx", &t);
    assert_valid(&t, &p);
    assert!(p.deadlock_verdict(&t).is_acyclic());
    // Same seed, same faults; another seed, other faults.
    let links = |s: &str| topo(s).link_list();
    assert_eq!(links("torus:6x6|faults:random=5,seed=4"), links("torus:6x6|faults:random=5,seed=4"));
    assert_ne!(links("torus:6x6|faults:random=5,seed=4"), links("torus:6x6|faults:random=5,seed=7"));
    assert_eq!(topo("torus:6x6|faults:random=5").switch_links(), topo("torus:6x6").switch_links() - 5);
}

#[test]
fn a_disconnecting_fault_set_reports_the_pairs() {
    // Cutting both links of switch 1 of a 4-switch ring isolates its terminal.
    let t = topo("torus:4,t=1|faults:switches=1");
    for engine in ["minhop", "sssp", "dfsssp", "updn"] {
        let tb = compute(engine, &t);
        let s = stats::summarise(&t, &tb);
        // Terminal 1 can neither send nor receive: 3 + 3 ordered pairs.
        assert_eq!(s.unreachable_pairs, 6, "{engine}");
        assert!(s.unreachable_examples.contains(&(0, 1)) && s.unreachable_examples.contains(&(1, 0)));
        assert!(matches!(tb.path(&t, 0, 1, 0), Err(tables::PathError::Unreachable { .. })));
        tb.path(&t, 0, 2, 0).unwrap();
    }
    // The same disconnection by naming links.
    let t = topo("mesh:3|faults:links=1.0");
    let s = stats::summarise(&t, &compute("dfsssp", &t));
    assert!(s.unreachable_pairs > 0);
    // Faults that do not exist are errors naming the field.
    for (spec, field) in [
        ("torus:4x4|faults:links=0.99", "faults.links"),
        ("torus:4x4|faults:switches=77", "faults.switches"),
        ("torus:4x4|faults:random=100", "faults.random"),
        ("torus:4x4|faults:fraction=2", "faults.fraction"),
        ("torus:4x4|faults:bogus=1", "faults"),
        ("torus:4x4|oops", "suffix"),
    ] {
        let e = Topology::from_spec(spec).unwrap_err().to_string();
        assert!(e.contains(field), "{spec}: {e}");
    }
}

#[test]
fn tables_are_reproducible() {
    for (spec, engine) in
        [("torus:5x4", "dfsssp"), ("hyperx:4x4,t=2", "parx"), ("tree:k=3,n=3|faults:random=4", "ftree")]
    {
        let t = topo(spec);
        let runs: Vec<Tables> = (0..3).map(|_| compute(engine, &t)).collect();
        assert!(runs.windows(2).all(|w| w[0] == w[1]), "{spec} {engine}");
    }
}

#[test]
fn parx_demands_steer_the_heavy_pairs_apart() {
    // Two heavy flows between the same pair of switches: with their demands known, PARX
    // spreads their four addresses so that the heaviest channel carries less demand.
    let t = topo("hyperx:4x4,t=2");
    // Terminals 0, 1 on switch 0 send to 6, 7 on switch 3 (same row).
    let demands = vec![(0, 6, 1e9), (1, 7, 1e9), (0, 7, 1e9), (1, 6, 1e9)];
    let heavy = |tb: &Tables| {
        let mut load = std::collections::HashMap::new();
        for &(s, d, _) in &demands {
            for off in 0..4 {
                for h in tb.path(&t, s, d, off).unwrap() {
                    *load.entry((h.switch, h.port)).or_insert(0) += 1;
                }
            }
        }
        load.into_values().max().unwrap()
    };
    let plain = compute("parx", &t);
    let aware =
        tables::compute(TableEngine::Parx, &t, &EngineOptions { demands: demands.clone(), ..EngineOptions::default() })
            .unwrap();
    assert_valid(&t, &aware);
    assert!(aware.deadlock_verdict(&t).is_acyclic());
    assert!(heavy(&aware) <= heavy(&plain), "{} > {}", heavy(&aware), heavy(&plain));
    assert_ne!(aware, plain, "demands changed nothing");
    let n = sssp_normalise();
    assert_eq!(n, vec![(0, 1, 255), (1, 0, 1), (2, 3, 128)]);
    // Demands that cross no link (a terminal to itself, two terminals of switch 0) change
    // nothing, however large: before, the largest set the scale and the others shrank.
    let mut local = demands.clone();
    local.extend([(0, 0, 1e12), (1, 0, 5e11)]);
    let with_local =
        tables::compute(TableEngine::Parx, &t, &EngineOptions { demands: local, ..EngineOptions::default() }).unwrap();
    assert_eq!(with_local, aware);
    let bad = EngineOptions { demands: vec![(0, 99, 1.0)], ..EngineOptions::default() };
    assert!(tables::compute(TableEngine::Parx, &t, &bad).unwrap_err().to_string().contains("demand"));
}

fn sssp_normalise() -> Vec<(usize, usize, u64)> {
    tables::sssp::normalise_demands(&[(0, 1, 1000.0), (1, 0, 1.0), (2, 3, 500.0), (3, 2, 0.0)])
}

#[test]
fn parx_small_messages_take_minimal_paths_and_large_ones_detour() {
    use hpcnetsim_core::routing::table_lookup::parx_offsets;
    use hpcnetsim_core::routing::tables::sssp::quadrant;
    use hpcnetsim_core::topology::paths::bfs;
    let t = topo("hyperx:6x4,t=1");
    let tb = compute("parx", &t);
    let q = |term: usize| {
        let c = t.family().switch_coordinates(t.terminal_attachment(term).0);
        quadrant(c[0], c[1], &[6, 4])
    };
    let (mut longer, mut pairs) = (0, 0);
    for a in 0..t.num_terminals() {
        let dist = bfs(&t, t.terminal_attachment(a).0);
        for b in (0..t.num_terminals()).filter(|&b| b != a) {
            let minimal = dist[t.terminal_attachment(b).0] as usize + 1;
            for off in parx_offsets(q(a), q(b), true) {
                assert_eq!(tb.path(&t, a, b, off as usize).unwrap().len(), minimal, "small {a}->{b} via LID_{off}");
            }
            for off in parx_offsets(q(a), q(b), false) {
                pairs += 1;
                longer += usize::from(tb.path(&t, a, b, off as usize).unwrap().len() > minimal);
            }
        }
    }
    // Large messages within a half are pushed across the other half.
    assert!(longer * 4 > pairs, "only {longer} of {pairs} large-message paths detour");
}
