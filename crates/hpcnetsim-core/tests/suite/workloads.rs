//! Causal workloads: each kernel produces exactly the messages and causal order of its
//! definition (paper 002 §3, paper 000 §4.3), placements put tasks where they should, the
//! execution time on an uncontended crossbar equals the hand computation, and a program
//! waiting for a message that never comes is reported, not run forever.

use crate::common::{sim_config, topo};
use hpcnetsim_core::config::{Algorithm, Kernel, LengthEvolution, PlacementKind, TraceFormat, WorkloadConfig};
use hpcnetsim_core::engine::execute::{execute, run_to_completion};
use hpcnetsim_core::engine::Engine;
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::workload::placement::place;
use hpcnetsim_core::workload::{kernels, Op, Programs};

fn programs(kernel: Kernel, n: usize, edit: impl Fn(&mut WorkloadConfig)) -> Programs {
    let mut w = WorkloadConfig { kernel, message_bytes: 100, ..Default::default() };
    edit(&mut w);
    kernels::build(&w, n).unwrap()
}

use Op::{Recv as R, Send as S};

fn s(to: u32) -> Op {
    S { to, bytes: 100 }
}
fn r(from: u32) -> Op {
    R { from, bytes: 100 }
}

#[test]
fn binary_trees_and_barrier() {
    let p = programs(Kernel::Bt, 8, |_| {});
    // Stage 1: the odd tasks send; stage 2: tasks 2 and 6; stage 3: task 4; root 0 hears 1, 2, 4.
    assert_eq!(p.tasks[0], vec![r(1), r(2), r(4)]);
    assert_eq!(p.tasks[4], vec![r(5), r(6), s(0)]);
    assert_eq!(p.tasks[6], vec![r(7), s(4)]);
    assert_eq!(p.tasks[1], vec![s(0)]);
    assert_eq!(p.messages().len(), 7);
    let p = programs(Kernel::Ibt, 8, |_| {});
    assert_eq!(p.tasks[0], vec![s(4), s(2), s(1)]);
    assert_eq!(p.tasks[4], vec![r(0), s(6), s(5)]);
    assert_eq!(p.tasks[7], vec![r(6)]);
    // Non-powers of two: peers that do not exist are skipped.
    let p = programs(Kernel::Bt, 6, |_| {});
    assert_eq!(p.tasks[4], vec![r(5), s(0)]);
    assert_eq!(p.messages().len(), 5);
    let p = programs(Kernel::Barrier, 4, |_| {});
    assert_eq!(
        p.tasks[0],
        vec![R { from: 1, bytes: 0 }, R { from: 2, bytes: 0 }, S { to: 2, bytes: 0 }, S { to: 1, bytes: 0 }]
    );
    // Gather doubles the length at each stage.
    let p = programs(Kernel::Bt, 8, |w| w.length_evolution = hpcnetsim_core::config::LengthEvolution::Doubling);
    assert_eq!(p.tasks[0], vec![R { from: 1, bytes: 100 }, R { from: 2, bytes: 200 }, R { from: 4, bytes: 400 }]);
}

#[test]
fn butterfly() {
    let p = programs(Kernel::Bu, 8, |_| {});
    assert_eq!(p.tasks[5], vec![s(4), r(4), s(7), r(7), s(1), r(1)]);
    assert_eq!(p.messages().len(), 8 * 3);
    let mut w = WorkloadConfig { kernel: Kernel::Bu, ..Default::default() };
    w.message_bytes = 1;
    assert!(kernels::build(&w, 6).unwrap_err().to_string().contains("power of two"));
}

#[test]
fn wave_fronts_and_waterfall() {
    // 3x3 virtual mesh, task = x + 3y.
    let p = programs(Kernel::W2, 9, |_| {});
    assert_eq!(p.tasks[0], vec![s(1), s(3)]);
    assert_eq!(p.tasks[4], vec![r(3), r(1), s(5), s(7)]);
    assert_eq!(p.tasks[8], vec![r(7), r(5)]);
    let p = programs(Kernel::W2, 9, |w| w.return_sweep = true);
    assert_eq!(p.tasks[8], vec![r(7), r(5), s(7), s(5)]);
    assert_eq!(p.tasks[0], vec![s(1), s(3), r(1), r(3)]);
    let p = programs(Kernel::W3, 27, |_| {});
    assert_eq!(p.tasks[13], vec![r(12), r(10), r(4), s(14), s(16), s(22)]);
    let p = programs(Kernel::Wf, 4, |w| {
        w.message_bytes = 40 * 1024;
        w.burst_messages = 40;
    });
    assert_eq!(p.messages().len(), 40 * 4);
    assert!(p.messages().iter().all(|m| m.2 == 1024));
    // Sweeps that do not divide the message share it as a buffer's blocks: 1 000 B in 3 sweeps
    // are 334 + 333 + 333 between every pair of neighbours (3 x 333 = 999 dropped a byte).
    let p = programs(Kernel::Wf, 4, |w| {
        w.message_bytes = 1000;
        w.burst_messages = 3;
    });
    let from_0_to_1: Vec<u64> = p.messages().iter().filter(|m| (m.0, m.1) == (0, 1)).map(|m| m.2).collect();
    assert_eq!(from_0_to_1, vec![334, 333, 333]);
    assert_eq!(p.messages().iter().map(|m| m.2).sum::<u64>(), 4 * 1000);
    assert!(kernels::build(&WorkloadConfig { kernel: Kernel::W2, ..Default::default() }, 8).is_err());
}

#[test]
fn rectangular_meshes() {
    // workload.mesh = [4, 2]: 8 tasks, task = x + 4y.
    let p = programs(Kernel::W2, 8, |w| w.mesh = vec![4, 2]);
    assert_eq!(p.tasks[0], vec![s(1), s(4)]);
    assert_eq!(p.tasks[5], vec![r(4), r(1), s(6)]);
    assert_eq!(p.tasks[7], vec![r(6), r(3)]);
    // Each line of x carries 3 links, each line of y 1, both ways.
    assert_eq!(programs(Kernel::M2, 8, |w| w.mesh = vec![4, 2]).messages().len(), 2 * (2 * 3 + 4));
    assert_eq!(programs(Kernel::M2, 8, |w| w.mesh = vec![2, 4]).messages().len(), 2 * (4 + 2 * 3));
    assert_eq!(programs(Kernel::M3, 12, |w| w.mesh = vec![3, 2, 2]).messages().len(), 2 * (4 * 2 + 6 + 6));
    // A square given as sides is the square mesh.
    assert_eq!(programs(Kernel::W2, 9, |w| w.mesh = vec![3, 3]).tasks, programs(Kernel::W2, 9, |_| {}).tasks);
    let err = |mesh: Vec<usize>, n| {
        let w = WorkloadConfig { kernel: Kernel::W2, mesh, ..Default::default() };
        kernels::build(&w, n).unwrap_err().to_string()
    };
    let e = err(vec![4, 2, 1], 8);
    assert!(e.contains("workload.mesh") && e.contains("[4, 2, 1]") && e.contains("2 sides for a 2D kernel"), "{e}");
    assert!(err(vec![4, 4], 8).contains("whose product is the task count 8"));
    assert!(err(vec![8, 0], 8).contains("positive sides"));
    assert!(err(vec![], 8).contains("a square number for a 2D virtual mesh (or workload.mesh)"));
}

#[test]
fn distributions() {
    let p = programs(Kernel::M2, 9, |_| {});
    assert_eq!(p.tasks[4], vec![s(5), s(3), s(7), s(1), r(3), r(5), r(1), r(7)]);
    assert_eq!(p.messages().len(), 24);
    assert_eq!(programs(Kernel::M2, 9, |w| w.wrap = true).messages().len(), 36);
    assert_eq!(programs(Kernel::M2, 9, |w| w.diagonals = true).messages().len(), 40);
    // 3x3x3 mesh: 3 dimensions × 2 links per line × 9 lines, each link used both ways.
    assert_eq!(programs(Kernel::M3, 27, |_| {}).messages().len(), 2 * 3 * 2 * 9);
    // Direction distribution: X+, X−, Y+, Y− one at a time.
    let p = programs(Kernel::D2, 9, |_| {});
    assert_eq!(p.tasks[4], vec![s(5), r(3), s(3), r(5), s(7), r(1), s(1), r(7)]);
    assert_eq!(p.tasks[0], vec![s(1), r(1), s(3), r(3)]);
}

#[test]
fn placements() {
    assert_eq!(place(PlacementKind::Linear, &[], 6, 2, 4, 1).unwrap(), vec![0, 0, 1, 1, 2, 2]);
    let mut random = place(PlacementKind::Random, &[], 8, 1, 8, 1).unwrap();
    random.sort();
    assert_eq!(random, (0..8).collect::<Vec<u32>>());
    let clustered = place(PlacementKind::Clustered, &[], 20, 1, 64, 3).unwrap();
    assert!(clustered.windows(2).all(|w| w[1] > w[0]));
    let gaps = clustered.windows(2).filter(|w| w[1] - w[0] > 1).count();
    assert!(gaps < 12, "geometric strides with p = 0.8 are mostly 1: {clustered:?}");
    assert!(place(PlacementKind::List, &[3, 3], 2, 1, 4, 1).is_err());
    assert!(place(PlacementKind::Linear, &[], 9, 2, 4, 1).is_err());
    // Only a list placement reads the list (kernels, traces, programs and jobs alike).
    for kind in [PlacementKind::Linear, PlacementKind::Random, PlacementKind::Clustered] {
        let line = place(kind, &[3, 2], 2, 1, 4, 1).unwrap_err().to_string();
        let name = hpcnetsim_core::config::config_name(&kind);
        assert_eq!(
            line,
            format!(
                "config: workload.placement_list = 2 entries is invalid: left out with placement '{name}', \
                 which does not read it (placement = \"list\" does)"
            )
        );
    }
}

/// BT on an 8-port crossbar with one-packet messages: each stage costs one uncontended
/// message, 2 links × 1 cycle + 16 − 1 = 17 cycles, and there are 3 stages. With 640-byte
/// messages (3 packets of 256 bytes) the last packet leaves 32 cycles later.
#[test]
fn execution_time_on_a_crossbar_is_the_hand_computation() {
    for (bytes, per_stage) in [(100u64, 17u64), (640, 49)] {
        let mut c = sim_config("crossbar:8", 1, Algorithm::Auto, 0.0);
        c.workload = Some(WorkloadConfig { kernel: Kernel::Bt, message_bytes: bytes, ..Default::default() });
        let r = execute(&c).unwrap();
        assert_eq!(r.status, Status::Completed, "{}", r.message);
        assert_eq!(r.execution_time_cycles, Some(3 * per_stage), "{bytes} bytes");
        assert_eq!(r.messages, 7);
    }
    // Butterfly: every stage is a perfect exchange, uncontended on a crossbar.
    let mut c = sim_config("crossbar:8", 1, Algorithm::Auto, 0.0);
    c.workload = Some(WorkloadConfig { kernel: Kernel::Bu, message_bytes: 0, ..Default::default() });
    assert_eq!(execute(&c).unwrap().execution_time_cycles, Some(3 * 17));
}

#[test]
fn unmatched_and_cyclic_programs() {
    let t = topo("crossbar:4");
    let c = sim_config("crossbar:4", 1, Algorithm::Auto, 0.0);
    // A receive nobody sends: refused before running.
    let mut missing = Programs::new(2);
    missing.tasks[0].push(Op::Recv { from: 1, bytes: 10 });
    assert!(missing.check().is_err());
    assert!(Engine::with_programs(&c, &t, missing, vec![0, 1]).is_err());
    // A matched exchange with a compute interval completes: 5 cycles + 17 per message.
    let mut ok = Programs::new(2);
    ok.tasks[1].push(Op::Compute { cycles: 5 });
    ok.message(Some(1), Some(0), 10);
    let r = run_to_completion(&c, Engine::with_programs(&c, &t, ok, vec![0, 1]).unwrap(), "custom", 10_000);
    assert_eq!((r.status, r.execution_time_cycles), (Status::Completed, Some(5 + 17)));
    // What was simulated is the execution, not the chunk of cycles it completed in.
    assert_eq!(r.cycles, 5 + 17);
    // Each task waits for the other before sending: the workload deadlocks, and the report
    // says who waits for what.
    let mut cycle = Programs::new(2);
    cycle.tasks[0].extend([Op::Recv { from: 1, bytes: 1 }, Op::Send { to: 1, bytes: 1 }]);
    cycle.tasks[1].extend([Op::Recv { from: 0, bytes: 1 }, Op::Send { to: 0, bytes: 1 }]);
    cycle.check().unwrap();
    let r = run_to_completion(&c, Engine::with_programs(&c, &t, cycle, vec![0, 1]).unwrap(), "custom", 10_000);
    assert_eq!(r.status, Status::Deadlock);
    assert_eq!(r.execution_time_cycles, None);
    assert_eq!(r.blocked, vec!["task 0 waits for message #0 from task 1", "task 1 waits for message #0 from task 0"]);
    assert!(r.message.contains("deadlocked workload"), "{}", r.message);
}

#[test]
fn kernels_run_to_completion_on_every_family() {
    for (spec, vcs, n) in
        [("tree:k=4,kp=2,n=3", 2, 64), ("torus:8x8", 2, 64), ("hyperx:4x4,t=4", 2, 64), ("twin-torus:2x2x2x2x2", 4, 64)]
    {
        for kernel in [Kernel::Bt, Kernel::Ibt, Kernel::Bu, Kernel::W2, Kernel::M2, Kernel::M3, Kernel::D3, Kernel::Wf]
        {
            let mut c = sim_config(spec, vcs, Algorithm::Auto, 0.0);
            c.workload = Some(WorkloadConfig { kernel, tasks: n, message_bytes: 2048, ..Default::default() });
            let r = execute(&c).unwrap();
            assert_eq!(r.status, Status::Completed, "{spec} {kernel:?}: {}", r.message);
            let want = kernels::build(c.workload.as_ref().unwrap(), n).unwrap().messages().len();
            assert_eq!(r.messages, want);
            assert!(r.consumed_load.iter().sum::<f64>() > 0.0);
        }
    }
}

/// Hand-made programs (traces, `hpcnetsim.Program`) with packets of `workload.packet_cells_*`
/// run as a kernel with the same sizes does: their queues are sized for the smallest packet.
/// They were sized for `traffic.packet_phits`, and one-cell packets overflowed an input FIFO
/// (a panic) on an all-to-all of 3 000 B on `torus:4x4`.
#[test]
fn hand_made_programs_size_queues_for_their_smallest_packets() {
    use hpcnetsim_core::config::Config;
    use hpcnetsim_core::engine::execute::execute_programs;
    let toml = "topology = \"torus:4x4\"\nswitch.vcs = 2\n[workload]\nkernel = \"alltoall\"\nmessage_bytes = 3000\n\
                packet_cells_min = 1\npacket_cells_max = 8\n";
    let cfg = Config::from_toml(toml).unwrap();
    let kernel = execute(&cfg).unwrap();
    assert_eq!(kernel.status, Status::Completed, "{}", kernel.message);
    let programs = kernels::build(cfg.workload.as_ref().unwrap(), 16).unwrap();
    let hand_made = execute_programs(&cfg, programs, "alltoall").unwrap();
    assert_eq!(hand_made.status, Status::Completed, "{}", hand_made.message);
    assert_eq!(hand_made.execution_time_cycles, kernel.execution_time_cycles);
    assert_eq!(hand_made.packet_hops, kernel.packet_hops);
}

/// The consumed load's bins are a time series of one quantity: weighted by the cycles each bin
/// spans, their mean is the same whatever the bin width, and the series reaches the run's end.
/// A last bin divided by a whole bin's width (it spans fewer cycles) would read low.
#[test]
fn consumed_load_has_the_same_mean_whatever_the_bin_width() {
    let mut c = sim_config("torus:4x4", 2, Algorithm::Auto, 0.0);
    c.workload = Some(WorkloadConfig { kernel: Kernel::M2, tasks: 16, message_bytes: 4096, ..Default::default() });
    let series = |bin: u64| {
        let mut c = c.clone();
        c.measurement.window_cycles = bin;
        let r = execute(&c).unwrap();
        assert_eq!(r.status, Status::Completed, "{}", r.message);
        (r.execution_time_cycles.unwrap(), r.consumed_load)
    };
    // The series covers cycles 0 to the execution time, the cycle of the last delivery.
    let (time, whole) = series(1 << 30);
    let end = time + 1;
    assert_eq!(whole.len(), 1);
    for bin in [end / 3 + 1, end / 2 + 7, end - 1] {
        let (same_time, bins) = series(bin);
        assert_eq!(same_time, time);
        assert_eq!(bins.len() as u64, end.div_ceil(bin), "bin {bin} of a run of {end} cycles");
        let spans = |k: usize| (end - k as u64 * bin).min(bin) as f64;
        let mean = bins.iter().enumerate().map(|(k, load)| load * spans(k)).sum::<f64>() / end as f64;
        assert!((mean - whole[0]).abs() < 1e-9 * whole[0], "bin {bin}: mean {mean} vs {}", whole[0]);
    }
}

/// No bin of the consumed load exceeds a phit per cycle and terminal (each terminal link
/// delivers at most one): packets counted whole at their tail put 16 phits into the 4-cycle
/// last bin of the butterfly on `crossbar:8` (4.0; 2.29 on `crossbar:64`, paper 002's Fig. 9).
#[test]
fn consumed_load_never_exceeds_a_phit_per_cycle() {
    for bin in [100, 800, 1000, 7] {
        let mut c = sim_config("crossbar:8", 1, Algorithm::Auto, 0.0);
        c.switch.phit_bytes = 4;
        c.measurement.window_cycles = bin;
        c.workload = Some(WorkloadConfig { kernel: Kernel::Bu, tasks: 8, message_bytes: 3200, ..Default::default() });
        let r = execute(&c).unwrap();
        assert_eq!(r.status, Status::Completed, "{}", r.message);
        let most = r.consumed_load.iter().copied().fold(0.0, f64::max);
        assert!(most <= 1.0 + 1e-12, "bin {bin}: {most} phits per cycle and terminal ({:?})", r.consumed_load);
        assert!(most > 0.5, "bin {bin}: {most}");
    }
}

/// A field of one kernel set beside another kernel would go unread (a mesh for the binary
/// tree, a wrap for the wave-front, a root for the butterfly, ...): it is refused, naming the
/// field, its value, the kernel and the kernels that read it.
#[test]
fn a_field_the_kernel_does_not_read_is_refused() {
    type Edit = fn(&mut WorkloadConfig);
    let cases: [(Kernel, Edit, &str); 9] = [
        (Kernel::Bt, |w| w.mesh = vec![4, 4], "workload.mesh = [4,4] is invalid"),
        (Kernel::W2, |w| w.wrap = true, "workload.wrap = true is invalid"),
        (Kernel::Bu, |w| w.diagonals = true, "workload.diagonals = true is invalid"),
        (Kernel::M2, |w| w.return_sweep = true, "workload.return_sweep = true is invalid"),
        (Kernel::W2, |w| w.burst_messages = 8, "workload.burst_messages = 8 is invalid"),
        (Kernel::M2, |w| w.length_evolution = LengthEvolution::Doubling, "workload.length_evolution = 'doubling'"),
        (Kernel::M3, |w| w.compute_cycles = 10, "workload.compute_cycles = 10 is invalid"),
        (Kernel::Bt, |w| w.root = 3, "workload.root = 3 is invalid"),
        (Kernel::Allreduce, |w| w.segment_bytes = 1024, "workload.segment_bytes = 1024 is invalid"),
    ];
    for (kernel, edit, start) in cases {
        let mut w = WorkloadConfig { kernel, ..Default::default() };
        edit(&mut w);
        let line = kernels::build(&w, 16).expect_err("refused").to_string();
        assert!(line.contains(start) && !line.contains('\n'), "{line}");
        let name = hpcnetsim_core::config::config_name(&kernel);
        let named =
            if start.contains("placement_list") { "placement 'linear'".to_string() } else { format!("'{name}'") };
        assert!(line.contains(&named), "{line}");
    }
    // A trace's own fields beside a kernel, as beside a job's kernel.
    let w = WorkloadConfig { kernel: Kernel::Bu, cpu_factor: 0.5, ..Default::default() };
    assert_eq!(
        kernels::build(&w, 16).unwrap_err().to_string(),
        "config: workload.cpu_factor = 0.5 is invalid: left out with kernel 'bu', which does not read it \
         (read by workload.trace replays)"
    );
    let w = WorkloadConfig { kernel: Kernel::M2, format: TraceFormat::Dumpi, ..Default::default() };
    assert!(kernels::build(&w, 16).unwrap_err().to_string().contains("workload.format = 'dumpi' is invalid"));
    let mut w = WorkloadConfig { kernel: Kernel::Bt, root: 3, ..Default::default() };
    assert_eq!(
        kernels::build(&w, 16).unwrap_err().to_string(),
        "config: workload.root = 3 is invalid: left out with kernel 'bt', which does not read it \
         (read by bcast, reduce, gather, scatter)"
    );
    // The kernels that read them accept them.
    for (kernel, edit) in [
        (Kernel::W2, (|w| w.return_sweep = true) as Edit),
        (Kernel::Wf, |w| w.burst_messages = 8),
        (Kernel::D2, |w| {
            w.wrap = true;
            w.diagonals = true;
            w.compute_cycles = 5;
            w.mesh = vec![8, 2];
        }),
        (Kernel::Ibt, |w| w.length_evolution = LengthEvolution::Halving),
        (Kernel::Scatter, |w| w.root = 3),
        (Kernel::Bcast, |w| w.segment_bytes = 1024),
        (Kernel::Bu, |w| {
            w.placement = PlacementKind::List;
            w.placement_list = (0..16).collect();
        }),
    ] {
        w = WorkloadConfig { kernel, ..Default::default() };
        edit(&mut w);
        kernels::build(&w, 16).unwrap();
    }
}

/// A message of more packets than a message can count (2^32) stops the run with one error
/// naming the message, rather than allocating one entry per packet (2^34 packets of 64 bytes
/// for the largest allowed message: an abort for want of 64 GB) or wrapping the count.
#[test]
fn a_message_of_more_packets_than_a_message_counts_is_an_error() {
    let mut c = sim_config("crossbar:4", 1, Algorithm::Auto, 0.0);
    c.switch.phit_bytes = 4;
    c.workload = Some(WorkloadConfig { kernel: Kernel::Bt, message_bytes: 1 << 40, ..Default::default() });
    let line = execute(&c).expect_err("refused").to_string();
    assert_eq!(
        line,
        "workload: message from task 1 to task 0 = 1099511627776 bytes is invalid: at most 4294967295 packets \
         of 64 bytes (switch.phit_bytes × traffic.packet_phits)"
    );
    // 2^32 − 1 packets is the largest count, 2^32 one too many (and a multiple of 2^32 would wrap to 0).
    let mut c = sim_config("crossbar:4", 1, Algorithm::Auto, 0.0);
    c.switch.phit_bytes = 1;
    c.traffic.packet_phits = 1;
    c.workload = Some(WorkloadConfig { kernel: Kernel::Bt, message_bytes: 1 << 32, ..Default::default() });
    assert!(execute(&c).expect_err("refused").to_string().contains("= 4294967296 bytes is invalid"));
}

/// A `[traffic]` field a workload run does not read is refused (a load or a pattern beside a
/// kernel or a trace ran the workload alone, silently); the packet sizes, which it reads,
/// stay allowed.
#[test]
fn a_traffic_field_beside_a_workload_is_refused() {
    use hpcnetsim_core::config::Config;
    let workload = "[workload]\nkernel = \"alltoall\"\n";
    for (traffic, start) in [
        ("load = 0.5", "config: traffic.load = 0.5 is invalid: left out beside [workload]"),
        ("pattern = \"bit-reversal\"", "config: traffic.pattern = 'bit-reversal' is invalid"),
        ("injection = \"bursty\"", "config: traffic.injection = 'bursty' is invalid"),
        ("hot_fraction = 0.2", "config: traffic.hot_fraction = 0.2 is invalid"),
    ] {
        let toml = format!("topology = \"tree:k=4,n=2\"\n[traffic]\n{traffic}\n{workload}");
        let e = Config::from_toml(&toml).expect_err(traffic).to_string();
        assert!(e.starts_with(start) && !e.contains('\n'), "{e}");
    }
    let sizes = format!("topology = \"tree:k=4,n=2\"\n[traffic]\npacket_phits = 8\npacket_phits_max = 32\n{workload}");
    assert!(Config::from_toml(&sizes).is_ok());
    assert!(Config::from_toml("topology = \"tree:k=4,n=2\"\n[traffic]\nload = 0.5\n").is_ok());
}
