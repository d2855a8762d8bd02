//! Messages between tasks placed on one terminal (`workload.tasks_per_terminal` above 1) are
//! copied in memory: they take one cycle per phit of their size and never enter the network,
//! while messages to other terminals cross it as before.

use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::execute::execute_programs;
use hpcnetsim_core::stats::{ExecutionResult, Status};
use hpcnetsim_core::workload::traces;

/// `trace` (hpcnetsim's text format) replayed on a crossbar of `terminals`, two tasks per
/// terminal in rank order (ranks 0 and 1 share terminal 0).
fn replay(terminals: usize, trace: &str, nic: bool) -> ExecutionResult {
    let extra = if nic { "technology = \"qdr-infiniband\"\n" } else { "" };
    let toml = format!("topology = \"crossbar:{terminals}\"\n{extra}[workload]\ntasks_per_terminal = 2\n");
    let cfg = Config::from_toml(&toml).unwrap();
    let t = traces::read_text("t.trace", trace, traces::scale(cfg.workload.as_ref().unwrap())).unwrap();
    let r = execute_programs(&cfg, t.programs, "t").unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    r
}

#[test]
fn a_message_within_a_terminal_is_a_copy_of_one_cycle_per_phit() {
    let cfg = Config::from_toml("topology = \"crossbar:2\"\n").unwrap();
    let phit = cfg.switch.phit_bytes as u64;
    for bytes in [1u64, 1024, 100_000] {
        let r = replay(2, &format!("ranks 4\n0 send 1 {bytes}\n1 recv 0 {bytes}\n"), false);
        assert_eq!(r.packet_hops, 0, "{bytes} B: no packet entered the network");
        assert_eq!(r.execution_time_cycles, Some(bytes.div_ceil(phit)), "{bytes} B");
        assert_eq!(r.messages, 1);
        assert_eq!(r.replay.unwrap().latency_histogram.iter().sum::<u64>(), 1, "its latency is recorded");
    }
    // The same message to a task of the other terminal crosses the network, and takes longer.
    let local = replay(2, "ranks 4\n0 send 1 1024\n1 recv 0 1024\n", false);
    let remote = replay(2, "ranks 4\n0 send 2 1024\n2 recv 0 1024\n", false);
    assert!(remote.packet_hops > 0);
    assert!(remote.execution_time_cycles > local.execution_time_cycles);
}

#[test]
fn nonblocking_and_collective_messages_within_a_terminal_complete() {
    // Tagged isend/irecv both ways, then a barrier and an allreduce over all four ranks.
    let trace = "ranks 4\n0 isend 1 4096 tag=7 req=1\n0 irecv 1 64 tag=8 req=2\n0 wait 1\n0 wait 2\n\
                 1 irecv 0 4096 tag=7 req=1\n1 isend 0 64 tag=8 req=2\n1 wait 1\n1 wait 2\n\
                 0 allreduce 8192\n1 allreduce 8192\n2 allreduce 8192\n3 allreduce 8192\n";
    for nic in [false, true] {
        let r = replay(2, trace, nic);
        assert!(r.messages > 2, "nic {nic}: {}", r.messages);
        assert!(r.packet_hops > 0, "nic {nic}: the allreduce crosses between the terminals");
    }
    // Two ranks, both on terminal 0: nothing enters the network, with or without the NIC model.
    for nic in [false, true] {
        let trace = "ranks 2\n0 isend 1 4096 tag=7 req=1\n0 wait 1\n1 recv 0 4096 tag=7\n\
                     0 allreduce 8192\n1 allreduce 8192\n";
        let r = replay(2, trace, nic);
        assert_eq!(r.packet_hops, 0, "nic {nic}");
    }
}
