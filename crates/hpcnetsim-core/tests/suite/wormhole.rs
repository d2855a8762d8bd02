//! Wormhole switching at flit level (paper 004 §2.2, the `elite` preset): worms spanning
//! several switches, the wormhole pipeline latency, no deadlock under saturation with the
//! Elite routing, causal workloads on it, and wormhole configs that cannot work.

use crate::common::topo;
use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::execute::execute_programs;
use hpcnetsim_core::engine::Engine;
use hpcnetsim_core::topology::paths;
use hpcnetsim_core::workload::Programs;
use std::collections::BTreeMap;

/// A wormhole config on a 4-ary 3-tree: `switch` lines add to (or override) the preset.
fn config(switch: &str, load: f64) -> Config {
    let text = format!("topology = \"tree:k=4,n=3\"\n[switch]\n{switch}\n[traffic]\nload = {load}\n");
    Config::from_toml(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Zero load: a worm's head pays the hop delay L at every link, its body follows one flit
/// per cycle behind it, so the tail arrives `h·L + size − 1` cycles after the head left
/// the NIC (serialisation once, not per hop as store-and-forward would: `h·(L + size − 1)`).
/// This holds when every buffer covers the credit loop (L + 1 + c flits), whatever the
/// packet's length against the buffer: a 189-flit Elan packet crosses 64-flit buffers.
#[test]
fn zero_load_latency_is_the_wormhole_pipeline() {
    let t = topo("tree:k=4,n=3");
    let cases = [
        // (switch lines, hop delay L)
        ("preset = \"elite\"", 10u64),
        ("switching = \"wormhole\"\nbuffer_flits = 4", 1),
        ("switching = \"wormhole\"\nbuffer_flits = 8\nswitch_delay_cycles = 2\nlink_delay_cycles = 3", 5),
    ];
    for (switch, hop) in cases {
        let c = config(switch, 0.0);
        for size in [1u32, 5, 16, 189] {
            // Pairs 2, 4 and 6 links apart (same leaf switch, same subtree, across the root).
            for (a, b) in [(0usize, 1usize), (0, 5), (3, 60)] {
                let mut e = Engine::new(&c, &t).unwrap();
                e.set_recording(true);
                e.inject(a, b, size);
                e.run_until(50_000);
                let h = paths::terminal_distance(&t, a, b).unwrap() as u64;
                let want = h * hop + size as u64 - 1;
                let got = e.stats.network_latency.summary();
                assert_eq!(got.count, 1, "{switch}: {a} -> {b} size {size} not delivered");
                assert_eq!(got.max as u64, want, "{switch}: {a} -> {b}, {h} links, {size} flits");
                assert_eq!(e.stats.counters.packet_hops, h, "one packet-hop per link");
                e.check_idle().unwrap_or_else(|m| panic!("{switch}: {m}"));
                e.check_invariants().unwrap();
            }
        }
    }
    // Buffers shorter than the credit loop stall the worm: 2 flits against a loop of
    // L + 1 = 6 cycles send 2 flits every 6 cycles, so a long worm is slower.
    let c = config("switching = \"wormhole\"\nbuffer_flits = 2\nswitch_delay_cycles = 2\nlink_delay_cycles = 3", 0.0);
    let mut e = Engine::new(&c, &t).unwrap();
    e.set_recording(true);
    e.inject(0, 1, 64);
    e.run_until(50_000);
    assert!(e.stats.network_latency.summary().max as u64 > 2 * 5 + 63 + 64, "credit-starved worm");
}

/// Two long worms to the same terminal: the one that waits for the last link keeps its
/// flits in every buffer of its path, full, in five switches at once, while the other one
/// streams; then both arrive and the network is empty.
#[test]
fn a_blocked_worm_spans_several_switches() {
    let t = topo("tree:k=4,n=3");
    let mut c = config("switching = \"wormhole\"\nbuffer_flits = 4\nvcs = 1", 0.0);
    c.switch.vcs = 1;
    let mut e = Engine::new(&c, &t).unwrap();
    // The long worm is the older one: it wins the last link, and the short one waits.
    e.inject(0, 63, 200);
    e.run_until(2);
    e.inject(20, 63, 64);
    e.run_until(120);
    e.check_invariants().unwrap();
    let mut per_packet: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    for w in e.worm_buffers() {
        assert!(w.flits <= 4, "a buffer holds at most its 4 flits: {w:?}");
        per_packet.entry(w.packet).or_default().push((w.switch, w.flits));
    }
    assert_eq!(per_packet.len(), 2, "both worms in the network: {per_packet:?}");
    let blocked = per_packet
        .values()
        .find(|bufs| bufs.iter().all(|&(_, f)| f == 4))
        .unwrap_or_else(|| panic!("no blocked worm with full buffers: {per_packet:?}"));
    let switches: std::collections::BTreeSet<u32> = blocked.iter().map(|&(s, _)| s).collect();
    assert_eq!(switches.len(), 5, "a 6-link route has 5 switches, all holding the blocked worm: {blocked:?}");
    // The streaming worm holds buffers along its whole path too, however few flits each.
    assert!(per_packet.values().all(|b| b.len() >= 5), "{per_packet:?}");
    e.set_recording(true);
    e.run_until(2_000);
    assert_eq!(e.stats.counters.delivered, 2);
    e.check_idle().unwrap();
}

/// Saturation with the Elite switch and routing (tree-adaptive up-phase over the group of
/// up-links, two VCs, 64-flit buffers, 16-flit packets) on a 4-ary 3-tree for 200 000
/// cycles: deliveries progress in every 20 000-cycle interval, the state stays
/// consistent, and once the sources stop the network drains completely.
#[test]
fn no_deadlock_under_saturation_with_the_elite_routing() {
    let t = topo("tree:k=4,n=3");
    let c = config("preset = \"elite\"", 1.0);
    let mut e = Engine::new(&c, &t).unwrap();
    assert_eq!(e.routing_name(), "tree-adaptive");
    let mut last = 0;
    for step in 1..=10 {
        e.run_until(step * 20_000);
        e.check_invariants().unwrap_or_else(|m| panic!("cycle {}: {m}", step * 20_000));
        let delivered = e.stats.counters.delivered;
        assert!(delivered > last + 10_000, "stalled before cycle {}: {delivered} delivered", step * 20_000);
        last = delivered;
    }
    // Saturated: about half the link rate per node or more, not a trickle.
    let flits_per_node_cycle = e.stats.counters.delivered_phits as f64 / 64.0 / 200_000.0;
    assert!(flits_per_node_cycle > 0.3, "accepted {flits_per_node_cycle} flits per node and cycle");
    e.stop_sources();
    e.run_until(400_000);
    let k = &e.stats.counters;
    assert_eq!(k.generated - k.dropped, k.delivered);
    e.check_idle().unwrap();
}

/// Causal workloads drive wormhole networks through the same NIC path: a chain of
/// messages on the QsNET technology (Elite switches, Elan NIC model) completes, and a
/// message of several 189-flit packets to a node three switches away takes longer than
/// to a node on the same switch by exactly two hops per message (the pipeline: the
/// distance is paid once per packet head, not per flit).
#[test]
fn causal_messages_cross_wormhole_networks() {
    let base = "topology = \"tree:k=4,n=2\"\ntechnology = \"qsnet\"\n[workload]\nplacement = \"list\"\nplacement_list = [0, 1, 15]\n";
    let cfg = Config::from_toml(base).unwrap();
    assert_eq!(cfg.switch.preset, "elite");
    let time = |to: usize, bytes: u64| {
        let mut p = Programs::new(3);
        for _ in 0..4 {
            p.message(Some(0), Some(to), bytes);
            p.message(Some(to), Some(0), 0);
        }
        execute_programs(&cfg, p, "ping").unwrap().execution_time_cycles.unwrap()
    };
    let hop = (cfg.switch.switch_delay_cycles + cfg.switch.link_delay_cycles) as u64;
    for bytes in [0u64, 1000] {
        let (near, far) = (time(1, bytes), time(2, bytes));
        // 4 rounds of a message and its empty reply, each 2 links longer each way.
        assert_eq!(far - near, 4 * 2 * 2 * hop, "{bytes} B: near {near}, far {far}");
    }
}

/// Wormhole settings that cannot work are refused with one line naming the field.
#[test]
fn bad_wormhole_configs_are_refused_in_one_line() {
    let cases = [
        ("switching = \"wormhole\"\nbuffers = \"voq\"", "switch.buffers"),
        ("switching = \"wormhole\"\narbitration = \"islip\"\noutput_allocation = \"link\"", "switch.arbitration"),
        ("switching = \"wormhole\"\ncredit_unit = \"cell\"", "switch.credit_unit"),
        ("switching = \"wormhole\"\nbuffer_flits = 100000000", "switch.buffer_flits"),
        ("buffer_flits = 64", "switch.buffer_flits"),
        ("preset = \"elite\"\nswitching = \"cut-through\"", "switch.buffer_flits"),
    ];
    for (switch, field) in cases {
        let text = format!("topology = \"tree:k=4,n=3\"\n[switch]\n{switch}\n");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains(field), "{switch}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let torus = "topology = \"torus:4x4\"\n[switch]\npreset = \"elite\"\nvcs = 1\n";
    let e = Config::from_toml(torus).unwrap_err().to_string();
    assert!(e.contains("switch.switching") && e.contains("bubble"), "{e}");
}

/// Around a 1D ring always in the + direction, on VC 0: a cyclic channel dependency.
struct Clockwise {
    n: usize,
}

impl hpcnetsim_core::routing::Routing for Clockwise {
    fn name(&self) -> &'static str {
        "clockwise"
    }
    fn route(&self, req: &hpcnetsim_core::routing::Request, out: &mut Vec<hpcnetsim_core::routing::Candidate>) {
        // torus:N with one terminal per switch: ports 0 (+), 1 (-), 2 (terminal).
        let port = if req.dst % self.n == req.switch { 2 } else { 0 };
        out.push(hpcnetsim_core::routing::Candidate::new(port, 0));
    }
}

/// Worms routed around a ring on one VC deadlock; the evidence is the cycle of heads, each
/// waiting for the VC held by the worm of the next, and it walks around the ring.
#[test]
fn a_cyclic_routing_deadlocks_worms_and_the_evidence_walks_the_ring() {
    let n = 6;
    let t = topo(&format!("torus:{n}"));
    let text = format!(
        "topology = \"torus:{n}\"\n[switch]\nswitching = \"wormhole\"\nbuffer_flits = 4\nvcs = 2\n[routing]\nalgorithm = \"dor\"\n[traffic]\nload = 1.0\n"
    );
    let c = Config::from_toml(&text).unwrap();
    let mut e = Engine::new(&c, &t).unwrap();
    e.set_routing(Box::new(Clockwise { n }));
    e.run_until(20_000);
    assert!(e.stats.in_flight > 0 && e.now() - e.stats.last_delivery > 10_000, "the ring did not deadlock");
    e.check_invariants().unwrap();
    let ev = e.deadlock_evidence(10);
    assert!(ev.cycle, "no cycle found: {:?}", ev.channels);
    // A worm holds the VCs of every switch it spans, so the heads of the cycle may be more
    // than one switch apart; together they go once around the ring.
    let k = ev.channels.len();
    let mut turn = 0;
    for (i, b) in ev.channels.iter().enumerate() {
        let next = &ev.channels[(i + 1) % k];
        assert_eq!(b.waits_on_port, 0, "clockwise");
        let ahead = (next.switch + n as u32 - b.switch) % n as u32;
        assert!(ahead >= 1, "entry {i} does not lead ahead: {:?}", ev.channels);
        turn += ahead;
        assert!(b.room_phits < b.need_phits, "entry {i} waits for a VC that is not free: {b:?}");
    }
    assert_eq!(turn, n as u32, "the cycle goes once around the ring: {:?}", ev.channels);
    // The same ring with DOR and its dateline keeps delivering.
    let mut e = Engine::new(&c, &t).unwrap();
    e.run_until(20_000);
    assert!(e.now() - e.stats.last_delivery < 1000, "DOR with its dateline stalled");
    assert!(!e.deadlock_evidence(10).cycle);
}
