//! The order in which a cycle's events are handled changes no result: every switch puts
//! what a cycle brought (new front packets, heads entering virtual output queue buffers)
//! in a canonical order before it arbitrates, and routings that weigh their ports' load
//! decide only then. The sequential engine is run with each round of events and each
//! cycle's wake-ups shuffled, on every switch technology and on routings that read the
//! load; the results must equal the unshuffled run's bit for bit. This is what lets a
//! partition of the parallel engine handle its events in its own order.

use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::control::Control;
use hpcnetsim_core::engine::execute::execute_with;
use hpcnetsim_core::engine::measure::run_with;

/// A short measurement (the runs are compared, not judged).
const SHORT: &str = "[measurement]\nwarmup_cycles = 600\nwindow_cycles = 300\nconvergence_windows = 1\n\
max_convergence_cycles = 300\nbatches = 2\nbatch_cycles = 400\n";

/// The result of `toml` as JSON without its wall-clock time, with the event order drawn
/// from `shuffle` (`None`: creation order).
fn result(toml: &str, shuffle: Option<u64>) -> String {
    let cfg = Config::from_toml(toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut ctl = Control::default();
    ctl.threads = 1;
    ctl.shuffle = shuffle;
    let mut v = match cfg.workload.is_some() {
        true => serde_json::to_value(execute_with(&cfg, &mut ctl).unwrap_or_else(|e| panic!("{e}\n{toml}"))),
        false => serde_json::to_value(run_with(&cfg, &mut ctl).unwrap_or_else(|e| panic!("{e}\n{toml}"))),
    }
    .unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    serde_json::to_string(&v).unwrap()
}

/// Runs `toml` in creation order and in two shuffled orders; asserts identical results.
fn same_in_any_order(toml: &str) -> String {
    let plain = result(toml, None);
    for seed in [1, 2] {
        let shuffled = result(toml, Some(seed));
        assert!(plain == shuffled, "shuffled order {seed} differs on\n{toml}\nplain: {plain}\nshuffled: {shuffled}");
    }
    plain
}

#[test]
fn switch_technologies_give_the_same_results_in_any_event_order() {
    let cases = [
        "topology = \"torus:8x8\"\n[traffic]\nload = 0.9\n",
        "topology = \"tree:k=4,kp=2,n=3\"\n[switch]\narbitration = \"random\"\n[routing]\nselection = \"random\"\n[traffic]\nload = 0.9\n",
        // INSEE: output VC reservation, least-occupied selection, bubble flow control.
        "topology = \"torus:6x6\"\n[switch]\nvcs = 3\noutput_allocation = \"vc\"\n[routing]\nalgorithm = \"bubble-adaptive\"\n[traffic]\nload = 0.9\n",
        // EXTOLL: virtual output queues chosen by the room downstream, and iSLIP.
        "topology = \"torus:4x4x2\"\ntechnology = \"extoll\"\n[switch]\nvcs = 3\n[routing]\nalgorithm = \"duato\"\n[traffic]\nload = 0.9\n",
        // Virtual output queues under the separable allocator.
        "topology = \"tree:k=4,kp=4,n=3\"\n[switch]\nbuffers = \"voq\"\n[traffic]\nload = 0.9\n",
        "topology = \"tree:k=4,kp=4,n=3\"\n[switch]\npreset = \"output-queued\"\n[traffic]\nload = 0.9\n",
        "topology = \"tree:k=4,kp=4,n=3\"\n[switch]\npreset = \"elite\"\n[traffic]\nload = 0.6\n",
    ];
    for case in cases {
        let r = same_in_any_order(&format!("{case}{SHORT}"));
        assert!(r.contains("delivered"), "{r}");
    }
}

#[test]
fn routings_that_weigh_load_give_the_same_results_in_any_event_order() {
    let cases = [
        "topology = \"hyperx:4x4,t=2\"\n[switch]\nvcs = 2\n[routing]\nalgorithm = \"hyperx-ugal\"\n[traffic]\nload = 0.7\n",
        "topology = \"dragonfly:a=4,p=2,h=2\"\n[switch]\nvcs = 3\n[routing]\nalgorithm = \"dragonfly-ugal\"\n[traffic]\nload = 0.6\n",
    ];
    for case in cases {
        same_in_any_order(&format!("{case}{SHORT}"));
    }
}

#[test]
fn causal_workloads_give_the_same_execution_in_any_event_order() {
    let cases = [
        "topology = \"tree:k=4,kp=4,n=3\"\n[workload]\nkernel = \"alltoall\"\nmessage_bytes = 4096\n",
        "topology = \"torus:8x4\"\ntechnology = \"qdr-infiniband\"\n[[workload.jobs]]\nkernel = \"allreduce\"\ntasks = 16\nmessage_bytes = 8192\n\
         [[workload.jobs]]\nkernel = \"alltoall\"\ntasks = 16\nfirst_terminal = 16\nmessage_bytes = 2048\n",
    ];
    for case in cases {
        let r = same_in_any_order(case);
        assert!(r.contains("\"completed\""), "{r}");
    }
}
