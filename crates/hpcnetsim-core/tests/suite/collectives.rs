//! MPI collective algorithms: message counts and bytes per task against each algorithm's
//! known totals, the default choice, and execution times on a crossbar against hand
//! computations.

use crate::common::sim_config;
use hpcnetsim_core::config::{Algorithm, CollectiveAlgorithm as A, Kernel, WorkloadConfig};
use hpcnetsim_core::engine::execute::execute;
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::workload::collectives::default_algorithm;
use hpcnetsim_core::workload::{kernels, Op, Programs};

fn build(kernel: Kernel, algorithm: A, n: usize, bytes: u64) -> Programs {
    // Segments of 30 bytes for the pipelined chain, the only reader of segment_bytes.
    let segment_bytes = if kernel == Kernel::Bcast { 30 } else { 8192 };
    let w = WorkloadConfig { kernel, algorithm, message_bytes: bytes, segment_bytes, ..Default::default() };
    kernels::build(&w, n).unwrap_or_else(|e| panic!("{kernel:?} {algorithm:?} on {n}: {e}"))
}

/// (messages sent, bytes sent) by each task.
fn per_task(p: &Programs) -> Vec<(usize, u64)> {
    let mut out = vec![(0, 0); p.len()];
    for (f, _, b) in p.messages() {
        out[f].0 += 1;
        out[f].1 += b;
    }
    out
}

#[test]
fn message_counts_and_bytes() {
    // Ring allreduce: 2(N − 1) steps of m/N from every task.
    assert!(per_task(&build(Kernel::Allreduce, A::Ring, 8, 800)).iter().all(|&t| t == (14, 1400)));
    assert_eq!(per_task(&build(Kernel::DeepbenchAllreduce, A::Auto, 4, 400)), vec![(6, 600); 4]);
    // Rabenseifner: m/2 + m/4 + m/8 out and the same back.
    assert!(per_task(&build(Kernel::Allreduce, A::Rabenseifner, 8, 800)).iter().all(|&t| t == (6, 1400)));
    // Recursive doubling on 6 tasks: 2 fold messages, 4 × 2 exchanges, 2 unfold messages.
    assert_eq!(build(Kernel::Allreduce, A::RecursiveDoubling, 6, 8).messages().len(), 2 + 8 + 2);
    // Allgathers: every task ends up sending (N − 1) blocks.
    for (alg, n) in [(A::Ring, 6), (A::Bruck, 6), (A::RecursiveDoubling, 8), (A::Bruck, 8)] {
        let bytes: Vec<u64> = per_task(&build(Kernel::Allgather, alg, n, 10)).iter().map(|t| t.1).collect();
        assert_eq!(bytes, vec![10 * (n as u64 - 1); n], "{alg:?} on {n}");
    }
    // Alltoall: pairwise and linear send N − 1 blocks; Bruck (N/2)·log N blocks.
    assert_eq!(per_task(&build(Kernel::Alltoall, A::Pairwise, 5, 7)), vec![(4, 28); 5]);
    assert_eq!(per_task(&build(Kernel::Alltoall, A::Linear, 5, 7)), vec![(4, 28); 5]);
    assert_eq!(per_task(&build(Kernel::Alltoall, A::Bruck, 8, 7)), vec![(3, 7 * 4 * 3); 8]);
    // Rooted trees: N − 1 messages; gather/scatter move (N − 1) blocks through the root.
    let b = build(Kernel::Bcast, A::Binomial, 8, 5);
    assert_eq!(b.messages().len(), 7);
    assert_eq!(per_task(&b)[0], (3, 15));
    assert_eq!(build(Kernel::Gather, A::Binomial, 8, 5).tasks[0].len(), 3);
    let gathered: u64 =
        build(Kernel::Gather, A::Binomial, 8, 5).messages().iter().filter(|m| m.1 == 0).map(|m| m.2).sum();
    assert_eq!(gathered, 35);
    assert_eq!(per_task(&build(Kernel::Scatter, A::Binomial, 8, 5))[0].1, 35);
    assert_eq!(build(Kernel::Reduce, A::Binomial, 6, 5).messages().len(), 5);
    // Chain: 4 segments (30 + 30 + 30 + 10 bytes) down 3 links.
    let chain = build(Kernel::Bcast, A::Chain, 4, 100);
    assert_eq!(chain.messages().len(), 12);
    assert_eq!(chain.tasks[1].len(), 8);
    // Scatter + allgather: binomial scatter (N − 1) plus a ring of N(N − 1).
    assert_eq!(build(Kernel::Bcast, A::ScatterAllgather, 8, 800).messages().len(), 7 + 56);
    // Barriers: dissemination ⌈log N⌉ rounds of N empty messages.
    let d = build(Kernel::MpiBarrier, A::Dissemination, 5, 99);
    assert_eq!(d.messages().len(), 15);
    assert!(d.messages().iter().all(|m| m.2 == 0));
    assert_eq!(build(Kernel::MpiBarrier, A::RecursiveDoubling, 8, 0).messages().len(), 24);
}

/// The bytes of block `j` of `m` split over `n` tasks: the first m mod n blocks one byte
/// larger, so that the blocks cover the message exactly (MPICH's and Open MPI's split).
fn block(m: u64, n: usize, j: usize) -> u64 {
    m / n as u64 + u64::from((j as u64) < m % n as u64)
}

#[test]
fn blocks_of_a_split_message_cover_it_exactly() {
    // Sizes that the task count does not divide (and smaller than it): every collective that
    // splits its buffer sends in total what its algorithm must move, no more and no less.
    for n in [3usize, 5, 6, 7, 8, 16] {
        for m in [1u64, 7, 13, 1001, 65_537] {
            let total = |kernel, alg| -> u64 { build(kernel, alg, n, m).messages().iter().map(|x| x.2).sum() };
            let k = n as u64 - 1;
            // Reduce-scatter and allgather around the ring: each moves the whole vector N − 1
            // times (every task sends each block but one).
            assert_eq!(total(Kernel::Allreduce, A::Ring), 2 * k * m, "ring allreduce of {m} on {n}");
            assert_eq!(total(Kernel::DeepbenchAllreduce, A::Auto), 2 * k * m, "deepbench ring of {m} on {n}");
            if n.is_power_of_two() {
                // Recursive halving then doubling: the same volume as the ring.
                assert_eq!(total(Kernel::Allreduce, A::Rabenseifner), 2 * k * m, "Rabenseifner of {m} on {n}");
            }
            // Binomial scatter of the blocks (block j crosses popcount(j) tree edges), then the
            // ring allgather of the whole vector.
            let scatter: u64 = (0..n).map(|j| block(m, n, j) * j.count_ones() as u64).sum();
            assert_eq!(
                total(Kernel::Bcast, A::ScatterAllgather),
                scatter + k * m,
                "scatter-allgather bcast of {m} on {n}"
            );
            // Segments down the chain: the whole vector over N − 1 links.
            assert_eq!(total(Kernel::Bcast, A::Chain), k * m, "chain bcast of {m} on {n}");
            // Per-task blocks (gather, scatter, allgather, alltoall) are whole blocks of m.
            let tree: u64 = (0..n).map(|j| m * j.count_ones() as u64).sum();
            assert_eq!(total(Kernel::Scatter, A::Binomial), tree, "binomial scatter of {m} on {n}");
            assert_eq!(total(Kernel::Gather, A::Binomial), tree, "binomial gather of {m} on {n}");
            assert_eq!(total(Kernel::Allgather, A::Ring), n as u64 * k * m, "ring allgather of {m} on {n}");
            assert_eq!(total(Kernel::Allgather, A::Bruck), n as u64 * k * m, "Bruck allgather of {m} on {n}");
            assert_eq!(total(Kernel::Alltoall, A::Pairwise), n as u64 * k * m, "pairwise alltoall of {m} on {n}");
        }
    }
    // The ring allreduce of 7 bytes on 8 tasks: 7 one-byte blocks and an empty one, 98 bytes
    // (it sent 1-byte blocks for all 8, 112 bytes); Rabenseifner's halves on 8 tasks are 4, 2
    // and 1 block(s) of the task's share (it sent 3, 1 and 0 bytes, 64 bytes in all).
    let ring = build(Kernel::Allreduce, A::Ring, 8, 7);
    assert_eq!(ring.messages().iter().map(|x| x.2).sum::<u64>(), 98);
    assert_eq!(ring.messages().iter().filter(|x| x.2 == 0).count(), 14);
    let r = build(Kernel::Allreduce, A::Rabenseifner, 8, 7);
    assert_eq!(r.messages().iter().map(|x| x.2).sum::<u64>(), 98);
    // Sends and receives still pair up, in order and length.
    for (kernel, alg, n) in [
        (Kernel::Allreduce, A::Ring, 6),
        (Kernel::Allreduce, A::Rabenseifner, 8),
        (Kernel::Bcast, A::ScatterAllgather, 7),
    ] {
        for m in [7u64, 13, 1001] {
            build(kernel, alg, n, m).check().unwrap_or_else(|e| panic!("{kernel:?} {alg:?} {m} on {n}: {e}"));
        }
    }
}

#[test]
fn unsupported_combinations_are_errors() {
    let w = |kernel, algorithm| WorkloadConfig { kernel, algorithm, ..Default::default() };
    assert!(kernels::build(&w(Kernel::Alltoall, A::Ring), 4).unwrap_err().to_string().contains("workload.algorithm"));
    assert!(kernels::build(&w(Kernel::Allreduce, A::Rabenseifner), 6)
        .unwrap_err()
        .to_string()
        .contains("power of two"));
    let mut bad_root = w(Kernel::Bcast, A::Binomial);
    bad_root.root = 9;
    assert!(kernels::build(&bad_root, 4).unwrap_err().to_string().contains("workload.root = 9"));
}

#[test]
fn default_algorithms() {
    assert_eq!(default_algorithm(Kernel::Bcast, 64, 1024), A::Binomial);
    assert_eq!(default_algorithm(Kernel::Bcast, 64, 1 << 20), A::ScatterAllgather);
    assert_eq!(default_algorithm(Kernel::Allreduce, 64, 8), A::RecursiveDoubling);
    assert_eq!(default_algorithm(Kernel::Allreduce, 48, 1 << 22), A::Ring);
    assert_eq!(default_algorithm(Kernel::Alltoall, 64, 64), A::Bruck);
    assert_eq!(default_algorithm(Kernel::MpiBarrier, 6, 0), A::Dissemination);
}

fn crossbar_time(kernel: Kernel, algorithm: A, n: usize, bytes: u64, segment: u64) -> u64 {
    let mut c = sim_config(&format!("crossbar:{n}"), 1, Algorithm::Auto, 0.0);
    c.workload =
        Some(WorkloadConfig { kernel, algorithm, message_bytes: bytes, segment_bytes: segment, ..Default::default() });
    let r = execute(&c).unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    r.execution_time_cycles.unwrap()
}

/// One-packet messages cross a crossbar in 2 links × 1 cycle (INSEE: a phit crosses a
/// switch, switching plus transmission, in one cycle) + 16 − 1 = 17 cycles; a NIC sends one
/// 16-phit packet every 16 cycles.
#[test]
fn crossbar_times_match_hand_computations() {
    // Ring allreduce on 4 tasks, 100-byte chunks: 2(N − 1) = 6 dependent steps.
    assert_eq!(crossbar_time(Kernel::Allreduce, A::Ring, 4, 400, 8192), 6 * 17);
    // Pipelined chain, 3 one-packet segments down 3 links: the first segment takes 3 × 17,
    // each further one adds a packet time at the root.
    assert_eq!(crossbar_time(Kernel::Bcast, A::Chain, 4, 768, 256), 3 * 17 + 2 * 16);
    // Dissemination barrier on 8 tasks: 3 rounds of empty (one-packet) messages.
    assert_eq!(crossbar_time(Kernel::MpiBarrier, A::Dissemination, 8, 0, 8192), 3 * 17);
}

/// The ring allreduce passes blocks on: at every step after the first, a task sends the block
/// it received at the step before (reduced with its own in the reduce-scatter; as it came in
/// the allgather, which starts with the block the reduce-scatter finished). Block sizes that
/// differ (m not a multiple of N) show which block travels.
#[test]
fn the_ring_allreduce_forwards_the_block_it_received() {
    for kernel in [Kernel::Allreduce, Kernel::DeepbenchAllreduce] {
        for (n, m) in [(4usize, 5u64), (5, 7), (6, 3), (7, 1001), (8, 7)] {
            let p = build(kernel, A::Ring, n, m);
            for (i, ops) in p.tasks.iter().enumerate() {
                let sent: Vec<u64> = ops
                    .iter()
                    .filter_map(|op| if let Op::Send { bytes, .. } = op { Some(*bytes) } else { None })
                    .collect();
                let received: Vec<u64> = ops
                    .iter()
                    .filter_map(|op| if let Op::Recv { bytes, .. } = op { Some(*bytes) } else { None })
                    .collect();
                assert_eq!(sent.len(), 2 * (n - 1));
                assert_eq!(sent[0], block(m, n, i), "{kernel:?} of {m} on {n}: task {i} starts with its own block");
                assert_eq!(sent[1..], received[..received.len() - 1], "{kernel:?} of {m} on {n}: task {i}");
            }
        }
    }
}

/// An algorithm that does not implement the operation is refused with the ones that do, as
/// docs/workloads.md's table lists them; each of those builds.
#[test]
fn an_unsupported_algorithm_names_the_ones_that_implement_the_operation() {
    let all = [
        A::Binomial,
        A::Bmtree,
        A::Chain,
        A::ScatterAllgather,
        A::RecursiveDoubling,
        A::Ring,
        A::Rabenseifner,
        A::Bruck,
        A::Pairwise,
        A::NeighborExchange,
        A::Linear,
        A::Dissemination,
    ];
    let table: [(Kernel, &[&str]); 9] = [
        (Kernel::Bcast, &["binomial", "chain", "scatter-allgather", "bmtree"]),
        (Kernel::Reduce, &["binomial"]),
        (Kernel::Gather, &["binomial"]),
        (Kernel::Scatter, &["binomial"]),
        (Kernel::Allreduce, &["recursive-doubling", "rabenseifner", "ring"]),
        (Kernel::Allgather, &["recursive-doubling", "bruck", "ring", "neighbor-exchange", "linear"]),
        (Kernel::Alltoall, &["bruck", "pairwise", "linear"]),
        (Kernel::MpiBarrier, &["recursive-doubling", "dissemination"]),
        (Kernel::DeepbenchAllreduce, &["ring"]),
    ];
    for (kernel, implemented) in table {
        for algorithm in all {
            let name = hpcnetsim_core::config::config_name(&algorithm);
            let w = WorkloadConfig { kernel, algorithm, message_bytes: 64, ..Default::default() };
            match kernels::build(&w, 8) {
                Ok(_) => assert!(implemented.contains(&name.as_str()), "{kernel:?} built with {name}"),
                Err(e) => {
                    assert!(!implemented.contains(&name.as_str()), "{kernel:?} refused {name}: {e}");
                    let line = e.to_string();
                    assert!(line.contains(&format!("workload.algorithm = '{name}' is invalid")), "{line}");
                    assert!(line.contains(&implemented.join(", ")), "{line}");
                }
            }
        }
    }
}

/// `workload.algorithm` names a collective's algorithm: with an application kernel, which has
/// none, a named algorithm would go unread and is refused, naming the collectives.
#[test]
fn an_algorithm_with_an_application_kernel_is_refused() {
    for kernel in [Kernel::Bt, Kernel::Bu, Kernel::W2, Kernel::Barrier] {
        let w = WorkloadConfig { kernel, algorithm: A::Ring, ..Default::default() };
        let line = kernels::build(&w, 4).expect_err("refused").to_string();
        let name = hpcnetsim_core::config::config_name(&kernel);
        assert!(line.contains("workload.algorithm = 'ring' is invalid: auto"), "{line}");
        assert!(line.contains(&format!("'{name}' is an application kernel")), "{line}");
        assert!(line.contains("allreduce") && !line.contains('\n'), "{line}");
        // auto stays accepted.
        kernels::build(&WorkloadConfig { kernel, ..Default::default() }, 4).unwrap();
    }
}

#[test]
fn a_chain_bcast_too_large_to_expand_is_refused_before_its_messages_are_made() {
    // 2^40 bytes in segments of 8 KiB down a chain of 64 tasks: 2^27 segments of 63 messages,
    // about a terabyte of programs. It used to be expanded message by message (a four-line
    // trace with a 344 GB bcast took 40 s and 6 GB before running out of memory).
    let w = WorkloadConfig {
        kernel: Kernel::Bcast,
        algorithm: A::Chain,
        message_bytes: 1 << 40,
        segment_bytes: 8192,
        ..Default::default()
    };
    let e = kernels::build(&w, 64).unwrap_err().to_string();
    assert!(e.contains("message_bytes") && e.contains("memory") && e.contains("segment"), "{e}");
    // A chain that fits is still built.
    let w = WorkloadConfig { message_bytes: 1 << 20, ..w };
    assert_eq!(kernels::build(&w, 64).unwrap().messages().len(), 128 * 63);
}
