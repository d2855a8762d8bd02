//! Table routing in the packet engine: packets follow the tables (zero-load latency equals
//! the table path), lanes keep a saturated network moving, a dumped table simulates exactly
//! like the engine that computed it, and bad set-ups are reported.

use crate::common::{sim_config, topo};
use hpcnetsim_core::config::{AddressPolicy, Algorithm, Config};
use hpcnetsim_core::engine::{measure, Engine};
use hpcnetsim_core::routing::deadlock;
use hpcnetsim_core::routing::table_lookup::TableRouting;
use hpcnetsim_core::routing::tables::{self, dump, EngineOptions, TableEngine};

fn table_config(spec: &str, vcs: u32, engine: TableEngine, load: f64) -> Config {
    let mut c = sim_config(spec, vcs, Algorithm::Table, load);
    c.routing.table_mut().engine = engine;
    c
}

fn quick(mut c: Config) -> Config {
    c.measurement.warmup_cycles = 1000;
    c.measurement.batches = 2;
    c.measurement.batch_cycles = 1000;
    c
}

#[test]
fn packets_follow_the_tables() {
    for (spec, engine, lmc) in [
        ("tree:k=4,n=3", TableEngine::Ftree, 0),
        ("hyperx:4x4,t=2", TableEngine::Parx, 2),
        ("torus:4x4,t=2", TableEngine::Updn, 1),
    ] {
        let t = topo(spec);
        let mut c = table_config(spec, 8, engine, 0.0);
        c.routing.table_mut().lmc = lmc;
        let tb = tables::compute(engine, &t, &EngineOptions { lmc, ..EngineOptions::default() }).unwrap();
        let n = t.num_terminals();
        for (a, b) in [(0, n - 1), (1, n / 2), (n - 1, 2), (3, 2)] {
            // Round-robin addresses: the k-th packet from a uses offset k mod 2^lmc.
            for off in 0..tb.offsets() {
                let mut e = Engine::new(&c, &t).unwrap();
                for _ in 0..off {
                    e.inject(a, (a + 1) % n, 16);
                }
                e.run_until(5_000);
                e.set_recording(true);
                e.inject(a, b, 16);
                e.run_until(10_000);
                let links = tb.path(&t, a, b, off).unwrap().len() as u64 + 1;
                let hop = (c.switch.switch_delay_cycles + c.switch.link_delay_cycles) as u64;
                assert_eq!(
                    e.stats.network_latency.summary().max as u64,
                    links * hop + 15,
                    "{spec} {engine}: {a} -> {b} offset {off}"
                );
            }
        }
    }
}

#[test]
fn lanes_keep_a_saturated_network_delivering_and_the_analysis_agrees() {
    for (spec, engine) in [("torus:4x4", TableEngine::Dfsssp), ("hyperx:4x4,t=2", TableEngine::Parx)] {
        let t = topo(spec);
        let mut c = table_config(spec, 8, engine, 1.0);
        if engine == TableEngine::Parx {
            c.routing.table_mut().address = AddressPolicy::Parx;
        }
        // The engine's own routing object passes the deadlock analysis on its lanes.
        let r = TableRouting::new(c.routing.table().unwrap(), &c, &t).unwrap();
        assert!(r.tables().vls > 1, "{spec}: expected several lanes");
        assert!(deadlock::check_routing(&t, &r, 8, false).unwrap().is_acyclic());
        let mut e = Engine::new(&c, &t).unwrap();
        let mut last = 0;
        for step in 1..=6 {
            e.run_until(step * 3_000);
            assert!(e.stats.counters.delivered > last + 100, "{spec} {engine} stalled before cycle {}", step * 3_000);
            last = e.stats.counters.delivered;
        }
    }
}

#[test]
fn a_dumped_table_simulates_like_the_engine_that_computed_it() {
    let spec = "hyperx:4x4,t=2";
    let t = topo(spec);
    let mut c = quick(table_config(spec, 4, TableEngine::Dfsssp, 0.4));
    c.routing.table_mut().lmc = 1;
    let direct = measure::run(&c).unwrap();
    let tb =
        tables::compute(TableEngine::Dfsssp, &t, &EngineOptions { lmc: 1, max_vls: 4, ..EngineOptions::default() })
            .unwrap();
    let path = std::env::temp_dir().join(format!("hpcnetsim-lft-{}.txt", std::process::id()));
    std::fs::write(&path, dump::dump(&t, &tb)).unwrap();
    c.routing.table_mut().tables = Some(path.to_string_lossy().into_owned());
    let loaded = measure::run(&c).unwrap();
    assert_eq!(loaded.batch_accepted_loads, direct.batch_accepted_loads);
    assert_eq!(loaded.latency, direct.latency);
    assert_eq!(loaded.packet_hops, direct.packet_hops);
    assert!(direct.routed_throughput.is_some_and(|b| b > 0.0 && b <= direct.ideal_throughput.unwrap() + 1e-12));
}

#[test]
fn bad_table_setups_are_reported() {
    let err = |c: &Config| measure::run(c).unwrap_err().to_string();
    // More lanes needed than VCs.
    let e = err(&quick(table_config("torus:5x5", 1, TableEngine::Dfsssp, 0.1)));
    assert!(e.contains("switch.vcs"), "{e}");
    // An engine that does not apply.
    let e = err(&quick(table_config("torus:4x4", 2, TableEngine::Parx, 0.1)));
    assert!(e.contains("parx"), "{e}");
    // A disconnected network: the pairs are named.
    let e = err(&quick(table_config("torus:4|faults:switches=1", 2, TableEngine::Updn, 0.1)));
    assert!(e.contains("unreachable") && e.contains("0->1") && e.contains("faults disconnect the network"), "{e}");
    // Tables read from a file that leave pairs out, on an intact network: the tables are the
    // cause, not faults.
    let topo = hpcnetsim_core::Topology::from_spec("hyperx:2x2,t=1").unwrap();
    let t = hpcnetsim_core::routing::tables::compute(TableEngine::Dfsssp, &topo, &Default::default()).unwrap();
    // Switch 0's route to terminal 1 (LID 2) left out.
    let full = hpcnetsim_core::routing::tables::dump::dump(&topo, &t);
    let hole = full.lines().position(|l| l.starts_with("0x0002 ")).unwrap();
    // The block's closing count follows (a count that disagrees is refused before routing).
    let count = hole + full.lines().skip(hole).position(|l| l.ends_with("lids valid for this switch")).unwrap();
    let closing = |l: &str| {
        let n: usize = l.split_whitespace().next().unwrap().parse().unwrap();
        format!("{} lids valid for this switch\n", n - 1)
    };
    let text: String = full
        .lines()
        .enumerate()
        .filter(|&(i, _)| i != hole)
        .map(|(i, l)| if i == count { closing(l) } else { format!("{l}\n") })
        .collect();
    let path = std::env::temp_dir().join(format!("hpcnetsim-holes-{}.lft", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let mut c = quick(table_config("hyperx:2x2,t=1", 2, TableEngine::Dfsssp, 0.1));
    c.routing.table_mut().tables = Some(path.to_string_lossy().into_owned());
    let e = err(&c);
    assert!(e.contains("unreachable") && e.contains("(the tables read do not route them)"), "{e}");
    std::fs::remove_file(&path).unwrap();
    // Algorithmic routing on a faulty network points to table routing.
    let e = err(&quick(sim_config("torus:4x4|faults:random=2", 2, Algorithm::Dor, 0.1)));
    assert!(e.contains("table"), "{e}");
    // The PARX address rule needs PARX tables.
    let mut c = quick(table_config("hyperx:4x4,t=2", 8, TableEngine::Dfsssp, 0.1));
    c.routing.table_mut().address = AddressPolicy::Parx;
    assert!(err(&c).contains("routing.address"));
    // A missing table file.
    let mut c = quick(table_config("hyperx:4x4,t=2", 8, TableEngine::Dfsssp, 0.1));
    c.routing.table_mut().tables = Some("/nonexistent/lft.txt".into());
    assert!(err(&c).contains("routing.tables"));
}

#[test]
fn table_fields_are_validated_with_the_config() {
    let base = "topology = \"torus:4x4\"\n[routing]\n";
    for (body, field) in [
        ("algorithm = \"table\"\nengine = \"nope\"", "routing.engine"),
        ("algorithm = \"table\"\nlmc = 9", "routing.lmc"),
        ("algorithm = \"dor\"\nengine = \"dfsssp\"", "routing.algorithm"),
        ("algorithm = \"table\"\naddress = \"sideways\"", "sideways"),
    ] {
        let e = Config::from_toml(&format!("{base}{body}")).unwrap_err().to_string();
        assert!(e.contains(field), "{body}: {e}");
    }
    let ok =
        Config::from_toml(&format!("{base}algorithm = \"table\"\nengine = \"updn\"\nlmc = 1\naddress = \"random\""))
            .unwrap();
    assert_eq!(ok.routing.table().map(|t| t.address), Some(AddressPolicy::Random));
}

/// Pairs an engine leaves without a route on a faulty network that still links them are the
/// engine's doing, not a disconnection: ftree on a damaged 4-ary 3-tree, which DFSSSP routes whole.
#[test]
fn unreachable_pairs_of_a_connected_faulty_network_blame_the_engine() {
    let spec = "tree:k=4,n=3|faults:random=5,seed=2";
    let e = measure::run(&quick(table_config(spec, 2, TableEngine::Ftree, 0.1))).unwrap_err().to_string();
    assert!(e.contains("unreachable under routing 'ftree'"), "{e}");
    assert!(e.contains("the network links them, but 'ftree' finds no route around its faults"), "{e}");
    assert!(!e.contains("disconnect"), "{e}");
    measure::run(&quick(table_config(spec, 2, TableEngine::Dfsssp, 0.1))).unwrap();
}
