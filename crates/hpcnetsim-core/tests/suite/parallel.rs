//! The parallel engine gives the sequential engine's results bit for bit, whatever the
//! number of threads: on every topology family, every switch technology and allocation
//! rule, adaptive and table routing, and causal workloads. Each run checks the engine's
//! invariants after every chunk (debug builds), so the merged state is checked as it goes.

use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::control::{Control, Mode};
use hpcnetsim_core::engine::execute::execute_with;
use hpcnetsim_core::engine::measure::run_with;
use hpcnetsim_core::engine::Engine;
use hpcnetsim_core::topology::Topology;

/// A short measurement (the runs are compared, not judged).
const SHORT: &str = "[measurement]\nwarmup_cycles = 600\nwindow_cycles = 300\nconvergence_windows = 1\n\
max_convergence_cycles = 300\nbatches = 2\nbatch_cycles = 400\n";

fn fabric(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fabrics").join(name);
    p.to_string_lossy().into_owned()
}

/// The result of `toml` as JSON, without its wall-clock time, run on `threads` threads.
fn result(toml: &str, threads: usize) -> String {
    let cfg = Config::from_toml(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut ctl = Control::default();
    ctl.threads = threads;
    let mut v = if cfg.workload.is_some() {
        serde_json::to_value(execute_with(&cfg, &mut ctl).unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap()
    } else {
        serde_json::to_value(run_with(&cfg, &mut ctl).unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap()
    };
    v.as_object_mut().unwrap().remove("wall_seconds");
    serde_json::to_string(&v).unwrap()
}

/// Runs `toml` on 1, 2 and 3 threads and asserts identical results; returns the JSON.
fn same_on_all_threads(toml: &str) -> String {
    let one = result(toml, 1);
    for threads in [2, 3] {
        let many = result(toml, threads);
        assert!(one == many, "{threads} threads differ from 1 on\n{toml}\n1: {one}\n{threads}: {many}");
    }
    one
}

#[test]
fn every_family_gives_the_same_results_on_any_number_of_threads() {
    let cases = [
        "topology = \"torus:8x8\"\n[traffic]\nload = 0.6\n",
        "topology = \"mesh:4x3,t=2\"\n[traffic]\nload = 0.5\n",
        "topology = \"tree:k=4,kp=2,n=3\"\n[traffic]\nload = 0.8\n",
        "topology = \"tree:k=4,kp=4,n=3\"\n[routing]\nalgorithm = \"tree-deterministic\"\n[traffic]\nload = 0.9\n",
        "topology = \"twin-torus:4x2x2x2x2\"\n[switch]\nvcs = 4\n[traffic]\nload = 0.7\n",
        "topology = \"hyperx:4x4,t=2\"\n[switch]\nvcs = 2\n[routing]\nalgorithm = \"hyperx-ugal\"\n[traffic]\nload = 0.6\n",
        "topology = \"crossbar:8\"\n[traffic]\nload = 0.9\n",
    ];
    for case in cases {
        let r = same_on_all_threads(&format!("{case}{SHORT}"));
        assert!(r.contains("\"delivered_packets\"") || r.contains("delivered"), "{r}");
    }
}

/// The NICs' share of a step runs beside the partitions' (`engine/nic_view.rs`): sources that
/// choose a plane by the queues of every port of their endpoint, packets created and freed
/// in the same round, and collectors that record delivered packets one by one, in order,
/// still give one thread's results.
#[test]
fn nics_beside_the_partitions_give_the_same_results() {
    let cases = [
        "topology = \"tree:k=4,kp=4,n=3|planes:2\"\n[routing]\nplane_selection = \"shortest-queue\"\n[traffic]\nload = 0.7\n\
         [stats]\npacket_sample = 0.25\nlatency_percentiles = true\n",
        "topology = \"torus:8x8\"\n[switch]\nvcs = 4\ntraffic_classes = 2\n[traffic]\nload = 0.9\n[stats]\npacket_sample = 1.0\n",
    ];
    for case in cases {
        let r = same_on_all_threads(&format!("{case}{SHORT}"));
        assert!(r.contains("\"packets\""), "no packet table in {r}");
    }
}

#[test]
fn switch_technologies_and_allocation_rules_give_the_same_results() {
    let cases = [
        // INSEE: output VC reservation, least-occupied selection, bubble flow control.
        "topology = \"torus:6x6\"\n[switch]\nvcs = 3\noutput_allocation = \"vc\"\n[routing]\nalgorithm = \"bubble-adaptive\"\n[traffic]\nload = 0.9\n",
        // Random arbitration and random selection.
        "topology = \"torus:4x4x4\"\n[switch]\narbitration = \"random\"\n[routing]\nselection = \"random\"\n[traffic]\nload = 0.8\n",
        // Oldest-first arbitration, Duato's routing with two traffic classes.
        "topology = \"torus:4x4x4\"\n[switch]\nvcs = 6\ntraffic_classes = 2\narbitration = \"oldest-first\"\n[routing]\nalgorithm = \"duato\"\n[traffic]\nload = 0.8\n",
        // EXTOLL: virtual output queues and iSLIP.
        "topology = \"torus:4x4x2\"\ntechnology = \"extoll\"\n[switch]\nvcs = 3\n[routing]\nalgorithm = \"duato\"\n[traffic]\nload = 0.9\n",
        // Table routing (InfiniBand-style forwarding, lanes on the VCs) on an imported fabric.
        &format!(
            "topology = \"ibnet:{},t=3\"\n[switch]\nvcs = 4\n[routing]\nalgorithm = \"table\"\nengine = \"dfsssp\"\nlmc = 1\n[traffic]\nload = 0.5\n",
            fabric("slimfly_q5_ibsim.txt")
        ),
    ];
    for case in cases {
        same_on_all_threads(&format!("{case}{SHORT}"));
    }
}

#[test]
fn causal_workloads_give_the_same_execution_on_any_number_of_threads() {
    let cases = [
        "topology = \"tree:k=4,kp=4,n=3\"\n[workload]\nkernel = \"alltoall\"\nmessage_bytes = 4096\n",
        "topology = \"torus:4x4\"\n[workload]\nkernel = \"bu\"\nmessage_bytes = 20000\n",
        // Concurrent jobs with the NIC and host model.
        "topology = \"torus:8x4\"\ntechnology = \"qdr-infiniband\"\n[[workload.jobs]]\nkernel = \"allreduce\"\ntasks = 16\nmessage_bytes = 8192\n\
         [[workload.jobs]]\nkernel = \"alltoall\"\ntasks = 16\nfirst_terminal = 16\nmessage_bytes = 2048\n",
        // Two tasks per terminal: messages between them are copied in memory.
        "topology = \"torus:4x4\"\nswitch.vcs = 2\n[workload]\nkernel = \"allreduce\"\nalgorithm = \"ring\"\n\
         message_bytes = 4096\nplacement = \"random\"\ntasks_per_terminal = 2\n",
    ];
    for case in cases {
        let r = same_on_all_threads(case);
        assert!(r.contains("\"completed\""), "{r}");
    }
}

#[test]
fn threads_are_chosen_by_size_and_wormhole_stays_sequential() {
    let small = Topology::from_spec("torus:8x8").unwrap();
    let cfg = Config::from_toml("topology = \"torus:8x8\"\n").unwrap();
    let mut e = Engine::new(&cfg, &small).unwrap();
    assert_eq!(e.set_threads(0), 1, "small networks run on one thread");
    // From AUTO_MIN_CHANNELS channels on: every core.
    let large = Topology::from_spec("torus:128x128").unwrap();
    assert!(large.peers().len() >= hpcnetsim_core::engine::AUTO_MIN_CHANNELS);
    let cfg = Config::from_toml("topology = \"torus:128x128\"\n").unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(Engine::new(&cfg, &large).unwrap().set_threads(0), cores);
    assert_eq!(e.set_threads(2), 2);
    assert_eq!(e.threads(), 2);
    // More threads than switches: one partition per switch at most.
    let tiny = Topology::from_spec("crossbar:4").unwrap();
    let cfg = Config::from_toml("topology = \"crossbar:4\"\n").unwrap();
    assert_eq!(Engine::new(&cfg, &tiny).unwrap().set_threads(3), 1);
    let cfg = Config::from_toml("topology = \"tree:k=4,kp=4,n=3\"\n[switch]\npreset = \"elite\"\n").unwrap();
    let tree = Topology::from_spec(&cfg.topology).unwrap();
    assert_eq!(Engine::new(&cfg, &tree).unwrap().set_threads(3), 1, "wormhole switching is sequential");
}

/// Configs of a 2-VC torus and 4-ary 3-tree, a HyperX with UGAL and an EXTOLL thin-tree, at
/// these loads (in that order).
fn four_families(loads: [f64; 4]) -> [String; 4] {
    let tables = [
        "topology = \"torus:8x8\"\n[switch]\nvcs = 2\n",
        "topology = \"tree:k=4,kp=4,n=3\"\n[switch]\nvcs = 2\n",
        "topology = \"hyperx:4x4,t=2\"\n[switch]\nvcs = 2\n[routing]\nalgorithm = \"hyperx-ugal\"\n",
        "topology = \"tree:k=4,kp=2,n=3\"\n[switch]\npreset = \"extoll\"\n",
    ];
    std::array::from_fn(|i| format!("{}[traffic]\nload = {}\n", tables[i], loads[i]))
}

/// Prefetching is a hint to the caches: forced on for networks that small (it starts at half
/// the last-level cache), every counter of the sequential and parallel engines is unchanged.
#[test]
fn prefetching_changes_no_result() {
    for case in four_families([0.6, 0.8, 0.6, 0.7]) {
        let cfg = Config::from_toml(&case).unwrap_or_else(|e| panic!("{e}\n{case}"));
        let topo = Topology::from_spec(&cfg.topology).unwrap();
        let counters = |threads: usize, prefetch: bool| {
            let mut e = Engine::new(&cfg, &topo).unwrap();
            e.set_threads(threads);
            e.set_prefetching(prefetch);
            e.run_until(2000);
            format!("{:?}", e.stats.counters)
        };
        let plain = counters(1, false);
        assert!(plain.contains("phit_hops") && !plain.contains("phit_hops: 0,"), "{plain}");
        for threads in [1, 2] {
            assert_eq!(counters(threads, true), plain, "{threads} thread(s), prefetching, on\n{case}");
        }
    }
}

/// The thread count and the prefetching may change between two chunks of a run, with packets
/// waiting at the switches (their candidate lists move to the new partitions' tables): every counter
/// equals the one-thread run's, and the invariants hold after every chunk.
#[test]
fn threads_may_change_between_chunks() {
    for case in four_families([0.9, 0.9, 0.8, 0.8]) {
        let cfg = Config::from_toml(&case).unwrap_or_else(|e| panic!("{e}\n{case}"));
        let topo = Topology::from_spec(&cfg.topology).unwrap();
        let run = |schedule: &[Mode]| {
            let mut e = Engine::new(&cfg, &topo).unwrap();
            let mut waited = false;
            for (i, &mode) in schedule.iter().cycle().take(24).enumerate() {
                e.set_mode(mode);
                e.run_until(97 * (i as u64 + 1));
                e.check_invariants().unwrap_or_else(|m| panic!("{m}\n{case}"));
                waited |= e.waiting_packets() > 0;
            }
            (format!("{:?}", e.stats.counters), waited)
        };
        let mode = |threads, prefetch| Mode { threads, prefetch };
        let (one, waited) = run(&[mode(1, false)]);
        assert!(waited, "packets wait at some switch between chunks\n{case}");
        let schedule = [mode(2, true), mode(1, false), mode(3, true), mode(3, true), mode(1, true), mode(1, false)];
        assert_eq!(run(&schedule).0, one, "{case}");
    }
}

/// The ways of running the automatic choice measures, the engine's current mode first: only
/// one thread without prefetching where the state fits in a core's level-2 cache (a 4-ary
/// 3-tree's 50 KB), one thread with and without it above (a 4-ary 6-tree's 6 MB, above half
/// of any level-2 cache), and also all cores (always prefetching) from `AUTO_MIN_CHANNELS`
/// channels on; only what is pinned otherwise.
#[test]
fn the_automatic_choice_measures_the_modes_that_may_pay() {
    let mode = |threads, prefetch| Mode { threads, prefetch };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cfg = Config::from_toml("topology = \"tree:k=4,kp=4,n=3\"\n").unwrap();
    let topo = Topology::from_spec(&cfg.topology).unwrap();
    let mut e = Engine::new(&cfg, &topo).unwrap();
    assert_eq!(e.modes(0, None, None), [mode(1, false)], "too small to prefetch");
    e.set_prefetching(true);
    assert_eq!(e.modes(0, None, None), [mode(1, true), mode(1, false)]);
    assert_eq!(e.modes(0, Some(true), None), [mode(1, true)]);
    e.set_threads(2);
    assert_eq!(e.modes(2, None, None), [mode(2, true)], "the parallel engine always prefetches");

    let cfg = Config::from_toml("topology = \"tree:k=4,kp=4,n=6\"\n").unwrap();
    let topo = Topology::from_spec(&cfg.topology).unwrap();
    assert!(topo.peers().len() >= hpcnetsim_core::engine::AUTO_MIN_CHANNELS);
    let mut e = Engine::new(&cfg, &topo).unwrap();
    e.set_threads(1);
    e.set_prefetching(false);
    assert_eq!(e.modes(1, None, None), [mode(1, false), mode(1, true)]);
    assert_eq!(e.modes(1, Some(false), None), [mode(1, false)]);
    e.set_prefetching(true);
    let expected = match cores {
        1 => vec![mode(1, true), mode(1, false)],
        n => vec![mode(1, true), mode(1, false), mode(n, true)],
    };
    assert_eq!(e.modes(0, None, None), expected);
    assert_eq!(e.modes(0, Some(true), None), expected.iter().copied().filter(|m| m.prefetch).collect::<Vec<_>>());
    // A cap on the cores (a sweep's share): one core is one thread, two at most two.
    assert_eq!(e.modes(0, None, Some(1)), [mode(1, true), mode(1, false)]);
    assert_eq!(e.modes(0, None, Some(2)).last().copied(), Some(mode(cores.min(2), cores > 1)));
}

/// An observer that hands the run a second core after its first report (a sweep whose other
/// points have finished).
struct MoreCores(usize);

impl hpcnetsim_core::engine::control::Observer for MoreCores {
    fn observe(&mut self, _: &hpcnetsim_core::engine::control::Progress) -> hpcnetsim_core::Result<()> {
        self.0 += 1;
        Ok(())
    }
    fn cores(&mut self) -> Option<usize> {
        Some(if self.0 > 1 { 2 } else { 1 })
    }
}

/// A run started on one thread that is given a second core goes on choosing between one
/// thread and two, with the result of one thread.
#[test]
fn cores_handed_to_a_running_simulation_change_nothing_but_its_threads() {
    use hpcnetsim_core::engine::control::{Budget, Control};
    let toml = format!("topology = \"tree:k=4,kp=4,n=6\"\n[traffic]\nload = 0.4\n{SHORT}");
    let cfg = Config::from_toml(&toml).unwrap();
    let mut ctl = Control::default();
    ctl.threads = 1;
    let alone = hpcnetsim_core::engine::measure::run_with(&cfg, &mut ctl).unwrap();
    let mut obs = MoreCores(0);
    let mut ctl = Control::new(Some(&mut obs), Budget::default());
    ctl.threads = 1;
    let handed = hpcnetsim_core::engine::measure::run_with(&cfg, &mut ctl).unwrap();
    assert_eq!((handed.batch_accepted_loads, handed.latency), (alone.batch_accepted_loads, alone.latency));
    assert_eq!(handed.packet_hops, alone.packet_hops);
    assert_eq!((ctl.threads, ctl.cores), (0, Some(2)), "the run was handed two cores");
}

/// The measured choice of prefetching, pinned on or off, gives the same result.
#[test]
fn pinned_or_measured_prefetching_gives_the_same_result() {
    // A network whose state outgrows a core's level-2 cache, so that both are measured.
    let toml = format!("topology = \"tree:k=4,kp=4,n=5\"\n[traffic]\nload = 0.8\n{SHORT}");
    let cfg = Config::from_toml(&toml).unwrap();
    let run = |prefetch: Option<bool>| {
        let mut ctl = Control::default();
        ctl.prefetch = prefetch;
        let mut v = serde_json::to_value(run_with(&cfg, &mut ctl).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("wall_seconds");
        v.to_string()
    };
    let measured = run(None);
    assert!(measured.contains("phit_hops"), "{measured}");
    assert_eq!(run(Some(true)), measured);
    assert_eq!(run(Some(false)), measured);
}
