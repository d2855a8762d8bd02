//! Multi-plane networks (`SPEC|planes:N`): counts and bounds from one plane's, the
//! bisection against brute force, each plane routed and deadlock-checked as the network it
//! copies, packets that never leave their plane, and the plane selection policies.

use crate::common::{topo, QUICK};
use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::{execute, measure, Engine};
use hpcnetsim_core::routing::deadlock_check;
use hpcnetsim_core::topology::paths;
use hpcnetsim_core::Topology;

#[test]
fn counts_and_bounds_are_a_plane_s_times_the_planes() {
    for spec in
        ["tree:k=4,n=3", "tree:k=4,kp=2,n=3", "torus:4x4x2", "mesh:5x3", "hyperx:4x3,t=2", "dragonfly:a=4,p=2,h=2"]
    {
        let one = topo(spec).describe().unwrap();
        for n in [2usize, 3, 4] {
            let many = topo(&format!("{spec}|planes:{n}")).describe().unwrap();
            let what = format!("{spec}|planes:{n}");
            assert_eq!((many.planes, many.endpoints), (n, one.terminals), "{what}");
            assert_eq!(
                (many.terminals, many.switches, many.links, many.switch_links),
                (n * one.terminals, n * one.switches, n * one.links, n * one.switch_links),
                "{what}"
            );
            assert_eq!(many.bisection_channels, n as u64 * one.bisection_channels, "{what}");
            assert_eq!(many.switches_per_level, one.switches_per_level.iter().map(|s| n * s).collect::<Vec<_>>());
            assert_eq!((many.radix, many.diameter), (one.radix, one.diameter), "{what}");
            assert!((many.avg_distance - one.avg_distance).abs() < 1e-12, "{what}");
            assert_eq!(many.ideal_throughput, one.ideal_throughput, "{what}: the bound per NIC port");
            assert_eq!(many.bisection_ratio, one.bisection_ratio, "{what}");
            assert!((many.cost_quadratic - n as f64 * one.cost_quadratic).abs() < 1e-9, "{what}");
        }
    }
}

/// Minimum bisection that splits the endpoints in half, each endpoint with all its ports on
/// one side (a node is one box): every side assignment of the switches and endpoints.
fn brute_force_endpoint_bisection(t: &Topology) -> u64 {
    let (s, e) = (t.num_switches(), t.endpoints());
    assert!(s <= 16 && e <= 8, "too large for brute force");
    let links = t.link_list();
    let mut best = u64::MAX;
    for ends in (0u32..1 << e).filter(|m| m.count_ones() as usize == e / 2) {
        for mask in 0u32..(1 << s) {
            let switch_links = links.iter().filter(|&&(a, _, b, _)| (mask >> a) & 1 != (mask >> b) & 1).count();
            let terminal_links = (0..t.num_terminals())
                .filter(|&x| {
                    let (sw, _) = t.terminal_attachment(x);
                    (mask >> sw) & 1 != (ends >> t.endpoint_of(x)) & 1
                })
                .count();
            best = best.min((switch_links + terminal_links) as u64);
        }
    }
    best
}

#[test]
fn the_bisection_cuts_every_plane_as_brute_force_finds() {
    for spec in ["tree:k=2,n=2|planes:2", "tree:k=2,n=2|planes:3", "torus:4|planes:2", "hyperx:2x2|planes:3"] {
        let t = topo(spec);
        assert_eq!(t.describe().unwrap().bisection_channels, brute_force_endpoint_bisection(&t), "{spec}");
    }
}

#[test]
fn each_plane_is_deadlock_checked_as_the_network_it_copies() {
    for (spec, algorithm, vcs) in
        [("torus:4x4", "dor", 2), ("hyperx:3x3", "hyperx-dor", 1), ("dragonfly:a=4,p=2,h=2", "dragonfly-minimal", 2)]
    {
        let cfg = |s: &str| {
            Config::from_toml(&format!(
                "topology = \"{s}\"\n[routing]\nalgorithm = \"{algorithm}\"\n[switch]\nvcs = {vcs}\n"
            ))
            .unwrap()
        };
        let one = deadlock_check::check(&cfg(spec), None).unwrap();
        let two = deadlock_check::check(&cfg(&format!("{spec}|planes:2")), None).unwrap();
        assert!(two.deadlock_free && one.deadlock_free, "{spec}: {two:?}");
        assert_eq!(two.vcs, one.vcs, "{spec}");
    }
    // The control: a torus ring on one VC, without a dateline, is cyclic on every plane.
    let cyclic =
        Config::from_toml("topology = \"torus:4x4|planes:2\"\n[routing]\nalgorithm = \"dor\"\n[switch]\nvcs = 2\n")
            .unwrap();
    assert!(!deadlock_check::check(&cyclic, Some(1)).unwrap().deadlock_free);
}

#[test]
fn a_packet_takes_its_plane_s_copy_of_the_single_network_path() {
    for spec in ["tree:k=4,n=3", "torus:4x4", "hyperx:4x4,t=2"] {
        let single = topo(spec);
        let many = topo(&format!("{spec}|planes:3"));
        let cfg = Config::from_toml(&format!("topology = \"{spec}|planes:3\"\n[traffic]\nload = 0.0\n")).unwrap();
        let e = single.num_terminals();
        for (a, b) in [(0, e - 1), (1, e / 2), (e - 1, 2)] {
            for plane in 0..3 {
                let (src, dst) = (many.plane_terminal(a, plane), many.plane_terminal(b, plane));
                let mut eng = Engine::new(&cfg, &many).unwrap();
                eng.set_recording(true);
                eng.inject(src, dst, 8);
                eng.run_until(2_000);
                let hops = paths::terminal_distance(&single, a, b).unwrap() as u64;
                assert_eq!(eng.stats.counters.delivered, 1, "{spec} plane {plane}");
                assert_eq!(eng.stats.network_latency.summary().max as u64, hops + 7, "{spec} {a}->{b} plane {plane}");
            }
        }
    }
}

fn accepted(spec: &str, pattern: &str, selection: &str, load: f64) -> f64 {
    let cfg = Config::from_toml(&format!(
        "topology = \"{spec}\"\n[routing]\nplane_selection = \"{selection}\"\n[traffic]\nload = {load}\npattern = \"{pattern}\"\n{QUICK}"
    ))
    .unwrap();
    measure::run(&cfg).unwrap().accepted_load.unwrap()
}

#[test]
fn plane_selection_decides_how_much_of_the_planes_a_permutation_uses() {
    // Bit complement on 16 endpoints: source + destination is always 15, so `hash` puts every
    // packet on plane 1 and leaves plane 0's ports idle; the other policies use both.
    let spec = "tree:k=4,n=2|planes:2";
    let single = accepted("tree:k=4,n=2", "bit-complement", "round-robin", 0.9);
    let hash = accepted(spec, "bit-complement", "hash", 0.9);
    for policy in ["round-robin", "random", "shortest-queue"] {
        let a = accepted(spec, "bit-complement", policy, 0.9);
        assert!((a - single).abs() < 0.06 * single, "{policy}: {a} against one plane's {single}");
        assert!(hash < 0.56 * a, "hash {hash} against {policy} {a}");
    }
    assert!(hash > 0.4 * single, "hash still fills its plane: {hash}");
}

#[test]
fn striped_messages_use_every_plane_s_links() {
    let run = |spec: &str, selection: &str, nic: &str| {
        let cfg = Config::from_toml(&format!(
            "topology = \"{spec}\"\n[routing]\nplane_selection = \"{selection}\"\n[workload]\nkernel = \"alltoall\"\nmessage_bytes = 4096\n{nic}"
        ))
        .unwrap();
        let r = execute::execute(&cfg).unwrap();
        assert_eq!(r.status, hpcnetsim_core::stats::Status::Completed, "{spec}: {}", r.message);
        r.execution_time_cycles.unwrap() as f64
    };
    // Every message on one plane at a time: an exchange step gains little from a second plane;
    // striped, each message crosses both at once.
    let one = run("tree:k=4,n=2", "round-robin", "");
    let whole = run("tree:k=4,n=2|planes:2", "round-robin", "");
    let striped = run("tree:k=4,n=2|planes:2", "stripe", "");
    assert!(
        striped < 0.62 * one && striped < 0.8 * whole,
        "one plane {one}, messages whole {whole}, striped {striped}"
    );
    // With the host model (payloads, rendezvous over 1 KiB, host-bus reads and writes).
    let nic = "[nic]\nenabled = true\nrendezvous_threshold = \"1 KiB\"\n";
    let (one, striped) = (run("tree:k=4,n=2", "stripe", nic), run("tree:k=4,n=2|planes:2", "stripe", nic));
    assert!(striped < 0.9 * one, "with the host model: one plane {one}, striped {striped}");
}

#[test]
fn faulty_planes_are_routed_each_on_its_own_links() {
    let spec = "torus:4x4|planes:2|faults:links=17.0+26.0";
    let t = topo(spec);
    assert_eq!(t.faulty_links(), 2);
    let base = format!("topology = \"{spec}\"\n[switch]\nvcs = 4\n[traffic]\nload = 0.3\n{QUICK}");
    let e = measure::run(&Config::from_toml(&base).unwrap()).unwrap_err().to_string();
    assert!(e.contains("table routing"), "{e}");
    let tables = format!("{base}\n[routing]\nalgorithm = \"table\"\nengine = \"dfsssp\"\n");
    let r = measure::run(&Config::from_toml(&tables).unwrap()).unwrap();
    assert!((r.accepted_load.unwrap() - 0.3).abs() < 0.03, "{:?}", r.accepted_load);
}

#[test]
fn the_flow_model_refuses_in_one_line_and_bad_suffixes_are_errors() {
    let cfg = Config::from_toml("topology = \"tree:k=4,n=2|planes:2\"\nmodel = \"flow\"\n").unwrap();
    let e = hpcnetsim_core::flow::run::simulate(&cfg).unwrap_err().to_string();
    assert!(e.contains("single-plane") && e.contains("tree:k=4,n=2") && !e.contains('\n'), "{e}");
    for (spec, want) in [
        // The error names the spec, as the other spec errors do.
        ("tree:k=4,n=2|planes:1", "tree:k=4,n=2|planes:1: planes = '1' is invalid"),
        ("tree:k=4,n=2|planes:2|planes:3", "at most one 'planes:' suffix"),
        ("tree:k=4,n=2|faults:random=1|faults:random=2", "at most one 'faults:' suffix"),
    ] {
        let e = Topology::from_spec(spec).unwrap_err().to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{spec}: {e}");
    }
    // Suffixes in either order name the same network.
    let a = topo("torus:4x4|planes:2|faults:links=17.0");
    let b = topo("torus:4x4|faults:links=17.0|planes:2");
    assert_eq!(a.peers(), b.peers());
}

#[test]
fn every_export_of_a_multi_plane_network_names_each_switch_within_its_plane() {
    // Trees' levels and labels were read with whole-network switch indices: the exports of a
    // multi-plane tree panicked ("switch index out of range") on the second plane's switches.
    for spec in ["tree:k=4,n=2", "xgft:h=2;m=4,4;w=1,2", "torus:3x2", "dragonfly:a=2,p=1,h=1"] {
        let one = topo(spec);
        let two = topo(&format!("{spec}|planes:2"));
        for format in ["json", "graphml", "dot"] {
            assert!(two.export(format).is_ok(), "{spec} {format}");
        }
        let doc: serde_json::Value = serde_json::from_str(&two.export("json").unwrap()).unwrap();
        let switches = doc["switches"].as_array().unwrap();
        let s = one.num_switches();
        assert_eq!(switches.len(), 2 * s);
        for (i, sw) in switches.iter().enumerate() {
            assert_eq!(sw["plane"], i / s, "{spec} switch {i}");
            assert_eq!(sw["level"], serde_json::json!(one.switch_level(i % s)), "{spec} switch {i}");
            assert_eq!(sw["coordinates"], serde_json::json!(one.switch_coordinates(i % s)), "{spec} switch {i}");
        }
    }
}

#[test]
fn fabric_files_of_another_tool_refuse_a_multi_plane_network_in_one_line() {
    // They hold one connected network: the readers refused the planes' files as disconnected,
    // and CODES read the 2-plane 72-node dragonfly's as one 18-group dragonfly.
    for spec in ["dragonfly:a=4,p=2,h=2|planes:2", "tree:k=4,n=2|planes:3", "torus:4x4|planes:2|faults:random=2"] {
        for format in ["ibnet", "anynet", "codes-intra", "codes-inter"] {
            let e = topo(spec).export(format).unwrap_err().to_string();
            assert!(!e.contains('\n') && e.contains(&format!("format = '{format}' of the multi-plane")), "{e}");
            assert!(e.contains("json, graphml or dot"), "{e}");
        }
    }
    let plane = topo("dragonfly:a=4,p=2,h=2");
    for format in ["ibnet", "anynet", "codes-intra", "codes-inter"] {
        assert!(plane.export(format).is_ok(), "{format}");
    }
}
