//! The EXTOLL switch's pipeline (`switch.nic_link_delay_cycles` and the stage delays of the
//! `extoll` preset) and the Open MPI collective algorithms paper 003's traces use (the
//! binomial broadcast tree `bmtree`, neighbour exchange): exact message lists on small N and
//! zero-load latencies against hand computations.

use crate::common::accepted;
use hpcnetsim_core::config::{CollectiveAlgorithm as A, Config, Kernel, WorkloadConfig};
use hpcnetsim_core::engine::execute::execute;
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::workload::{kernels, Op, Programs};

fn build(kernel: Kernel, algorithm: A, n: usize, bytes: u64) -> Programs {
    let w = WorkloadConfig { kernel, algorithm, message_bytes: bytes, ..Default::default() };
    kernels::build(&w, n).unwrap_or_else(|e| panic!("{kernel:?} {algorithm:?} on {n}: {e}"))
}

#[test]
fn bmtree_bcast_is_open_mpis_tree() {
    // Open MPI's bmtree on 8 tasks: 0 → 1, 2, 4; 1 → 3, 5; 2 → 6; 3 → 7 (nearest first).
    let m = build(Kernel::Bcast, A::Bmtree, 8, 5).messages();
    assert_eq!(m, vec![(0, 1, 5), (0, 2, 5), (0, 4, 5), (1, 3, 5), (1, 5, 5), (2, 6, 5), (3, 7, 5)]);
    // Any N: every task but the root hears once, from itself minus its highest bit.
    for n in [5, 6, 13, 256] {
        let m = build(Kernel::Bcast, A::Bmtree, n, 1).messages();
        assert_eq!(m.len(), n - 1, "N = {n}");
        for &(from, to, _) in &m {
            let high = 1 << (usize::BITS - 1 - to.leading_zeros());
            assert_eq!(from, to - high, "N = {n}: {from} → {to}");
        }
    }
    // A root other than 0 rotates the tree.
    let w =
        WorkloadConfig { kernel: Kernel::Bcast, algorithm: A::Bmtree, message_bytes: 1, root: 3, ..Default::default() };
    let mut m: Vec<(usize, usize)> = kernels::build(&w, 4).unwrap().messages().iter().map(|x| (x.0, x.1)).collect();
    m.sort();
    assert_eq!(m, vec![(0, 2), (3, 0), (3, 1)]);
}

#[test]
fn linear_allgather_is_a_gather_then_a_bmtree_broadcast() {
    // Open MPI's linear Allgather on 8 tasks: every task sends its block to task 0 (a linear
    // gather), then task 0 broadcasts the 8 blocks on the bmtree (0 → 1, 2, 4; 1 → 3, 5; …).
    let p = build(Kernel::Allgather, A::Linear, 8, 3);
    let mut m = p.messages();
    m.sort();
    let mut want: Vec<(usize, usize, u64)> = (1..8).map(|r| (r, 0, 3)).collect();
    want.extend(build(Kernel::Bcast, A::Bmtree, 8, 24).messages());
    want.sort();
    assert_eq!(m, want);
    // Task 0 receives the blocks in rank order before it sends; the others send theirs first.
    let recv = |from: u32| Op::Recv { from, bytes: 3 };
    assert_eq!(p.tasks[0][..7], (1..8).map(recv).collect::<Vec<_>>()[..]);
    assert_eq!(p.tasks[5][0], Op::Send { to: 0, bytes: 3 });
    assert_eq!(p.tasks[5][1], Op::Recv { from: 1, bytes: 24 });
}

#[test]
fn neighbor_exchange_allgather() {
    // N/2 exchanges per task with its ring neighbours, (N − 1) blocks in all: 1 then 2 per step.
    for n in [2, 4, 8, 10] {
        let p = build(Kernel::Allgather, A::NeighborExchange, n, 3);
        let mut sent = vec![(0usize, 0u64); n];
        for (from, to, bytes) in p.messages() {
            assert!(to == (from + 1) % n || from == (to + 1) % n, "N = {n}: {from} → {to}");
            sent[from].0 += 1;
            sent[from].1 += bytes;
        }
        assert_eq!(sent, vec![(n / 2, 3 * (n as u64 - 1)); n], "N = {n}");
    }
    // Task 0's partners alternate right, left, right…; task 1's start on its left (task 0).
    let m = build(Kernel::Allgather, A::NeighborExchange, 6, 1).messages();
    let from0: Vec<usize> = m.iter().filter(|x| x.0 == 0).map(|x| x.1).collect();
    assert_eq!(from0, vec![1, 5, 1]);
    let from1: Vec<usize> = m.iter().filter(|x| x.0 == 1).map(|x| x.1).collect();
    assert_eq!(from1, vec![0, 2, 0]);
    let w = WorkloadConfig { kernel: Kernel::Allgather, algorithm: A::NeighborExchange, ..Default::default() };
    let e = kernels::build(&w, 5).unwrap_err().to_string();
    assert!(e.contains("workload.tasks") && e.contains("even"), "{e}");
}

/// A Reduce of 1-cell messages on `topology` (binomial: no message meets another), with
/// `extra` appended to the config.
fn reduce(topology: &str, routing: &str, vcs: u32, extra: &str) -> (u64, f64) {
    let text = format!(
        "seed = 1\ntopology = \"{topology}\"\ntechnology = \"extoll\"\n\
         [switch]\npreset = \"extoll\"\nvcs = {vcs}\nqueue_packets = 4\n{extra}\n\
         [routing]\nalgorithm = \"{routing}\"\n\
         [workload]\nkernel = \"reduce\"\nmessage_bytes = 16\n"
    );
    let c = Config::from_toml(&text).unwrap();
    let r = execute(&c).unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    (r.execution_time_cycles.unwrap(), r.packet_latency.mean)
}

#[test]
fn extoll_pipeline_latency() {
    // Binomial Reduce on an 8x8x4 torus (tasks along x first): 128 messages of 1 link, 64 of
    // 2, 32 of 4 (x), then 16, 8, 4 (y: 1, 2, 4 links), 2 and 1 (z: 1, 2 links): 436 links
    // over 255 messages. The preset's pipeline: 1 (NIC port) + 20 (last crossbar) + 1 (NIC
    // port) = 22 cycles, plus 20 + 12 = 32 cycles per switch-to-switch link.
    let (time, latency) = reduce("torus:8x8x4", "dor", 2, "");
    let want = 22.0 + 32.0 * 436.0 / 255.0;
    assert!((latency - want).abs() < 1e-9, "mean network latency {latency}, want {want}");
    // Critical path: 255 → 254 → 252 → … → 0, 8 messages over 17 links.
    assert_eq!(time, 8 * 22 + 17 * 32);
    // The 4x4x2x2x2 twin torus (TS-DOR) is a prediction: paper 003 Table II has 60.271.
    let (_, twin) = reduce("twin-torus:4x4x2x2x2", "ts-dor", 4, "");
    assert!((twin - 60.271).abs() < 0.01, "twin torus: {twin}");
    let text = "seed = 1\ntopology = \"torus:4x4\"\n[switch]\npreset = \"extoll\"\nnic_link_delay_cycles = 0\n\
                [workload]\nkernel = \"reduce\"\nmessage_bytes = 16\n";
    let e = Config::from_toml(text).unwrap_err().to_string();
    assert!(e.contains("switch.nic_link_delay_cycles") && e.contains("between 1 and 1000"), "{e}");
}

#[test]
fn nic_link_delay_unset_keeps_the_hop_timing() {
    // Without the field a NIC link costs every stage plus the link, like any hop: a 1-cell
    // message over one link crosses three such delays.
    let base = "seed = 1\ntopology = \"torus:4x4\"\n[switch]\nswitch_delay_cycles = 5\nlink_delay_cycles = 2\n\
                [workload]\nkernel = \"reduce\"\ntasks = 2\nmessage_bytes = 16\n[traffic]\npacket_phits = 1\n";
    let r = execute(&Config::from_toml(base).unwrap()).unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    assert_eq!(r.packet_latency.mean, 3.0 * 7.0);
    // Set to 1: one cycle in, the last switch's 5 stages and one cycle out, 7 across the link.
    let set = base.replace("link_delay_cycles = 2\n", "link_delay_cycles = 2\nnic_link_delay_cycles = 1\n");
    let r = execute(&Config::from_toml(&set).unwrap()).unwrap();
    assert_eq!(r.packet_latency.mean, 1.0 + 7.0 + 5.0 + 1.0);
}

#[test]
fn linear_alltoall_posts_sends_in_open_mpis_reverse_order() {
    // Open MPI's basic linear Alltoall: task i sends to i − 1, i − 2, … (then receives).
    let m = build(Kernel::Alltoall, A::Linear, 4, 2).messages();
    let from1: Vec<usize> = m.iter().filter(|x| x.0 == 1).map(|x| x.1).collect();
    assert_eq!(from1, vec![0, 3, 2]);
    assert_eq!(m.len(), 12);
}

/// A 1-cell Bcast (Open MPI's bmtree) on the 256-PE networks, with `extra` in `[switch]`:
/// (execution time, mean network latency).
fn bcast(topology: &str, routing: &str, vcs: u32, extra: &str) -> (u64, f64) {
    let text = format!(
        "seed = 1\ntopology = \"{topology}\"\ntechnology = \"extoll\"\n\
         [switch]\npreset = \"extoll\"\nvcs = {vcs}\nqueue_packets = 4\n{extra}\n\
         [routing]\nalgorithm = \"{routing}\"\n\
         [workload]\nkernel = \"bcast\"\nalgorithm = \"bmtree\"\nmessage_bytes = 16\n"
    );
    let r = execute(&Config::from_toml(&text).unwrap()).unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    (r.execution_time_cycles.unwrap(), r.packet_latency.mean)
}

/// Paper 003's 1-cell Bcast latencies (Table II) are 3.84 cycles above ours on both networks.
/// A crossbar input that spends at least 5 cycles on each packet (`input_packet_cycles`,
/// e.g. a routing unit per port) delays each packet a NIC sends behind others by 4 cycles
/// per earlier one (its NIC feeds one cell per cycle): that closes the latencies (the
/// bmtree's messages are on average 0.97th in their sender's list) and leaves the execution
/// times, whose critical path is every sender's first child, where they were.
#[test]
fn per_packet_input_time_isolates_the_bcast_latency_gap() {
    let (t3, l3) = bcast("torus:8x8x4", "dor", 2, "");
    let (t5, l5) = bcast("twin-torus:4x4x2x2x2", "ts-dor", 4, "");
    let (u3, m3) = bcast("torus:8x8x4", "dor", 2, "input_packet_cycles = 5");
    let (u5, m5) = bcast("twin-torus:4x4x2x2x2", "ts-dor", 4, "input_packet_cycles = 5");
    // 247 earlier packets over 255 messages, 4 cycles each (3.87), and a little more where
    // packets of different senders meet at an input.
    for (before, after) in [(l3, m3), (l5, m5)] {
        assert!((3.87..4.0).contains(&(after - before)), "{before} → {after}");
    }
    assert!((m3 - 89.718).abs() < 0.2 && (m5 - 92.227).abs() < 0.2, "{m3} {m5}");
    assert_eq!((u3, u5), (t3, t5));
    assert_eq!((t3, t5), (720, 784));
    // Only iSLIP's crossbar inputs take one packet at a time.
    let text = "topology = \"torus:4x4\"\n[switch]\ninput_packet_cycles = 5\n";
    let e = Config::from_toml(text).unwrap_err().to_string();
    assert!(e.contains("switch.input_packet_cycles") && e.contains("islip"), "{e}");
}

/// Under saturating uniform traffic of 1-cell packets on one iSLIP crossbar, a crossbar input
/// that spends 5 cycles on every packet passes at most a fifth of a cell per cycle; with 2
/// cycles, half. Its wake-ups keep the switch running between tails.
#[test]
fn input_packet_cycles_bound_small_packet_throughput() {
    let base = "topology = \"crossbar:8\"\n[traffic]\nload = 1.0\npacket_phits = 1\n\
                [switch]\npreset = \"extoll\"\nqueue_packets = 16\n";
    let free = accepted(base);
    let five = accepted(&format!("{base}input_packet_cycles = 5\n"));
    let two = accepted(&format!("{base}input_packet_cycles = 2\n"));
    assert!(free > 0.6, "no per-packet time: {free}");
    assert!((0.17..=0.201).contains(&five), "5 cycles per packet: {five}");
    assert!((0.4..=0.501).contains(&two), "2 cycles per packet: {two}");
}
