//! Trace replay: the tagged operations follow MPI's matching and completion rules, a
//! kernel written in the text format replays in exactly the kernel's execution time, the
//! CPU factor scales compute exactly, the sample traces give the call counts and traffic
//! matrices their files contain (counted here independently), and bad traces fail with
//! one line naming the file, the record and the rank.

use crate::common::topo;
use hpcnetsim_core::config::{Config, Kernel, WorkloadConfig};
use hpcnetsim_core::engine::execute::{execute, execute_programs};
use hpcnetsim_core::stats::{ExecutionResult, Status};
use hpcnetsim_core::workload::kernels;
use hpcnetsim_core::workload::traces::{self, text, TrafficMatrix};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn config(spec: &str, edit: impl Fn(&mut WorkloadConfig)) -> Config {
    let mut c = Config::from_toml(&format!("topology = \"{spec}\"\n[workload]\n")).unwrap();
    edit(c.workload.as_mut().unwrap());
    c
}

fn replay_text(cfg: &Config, trace: &str) -> ExecutionResult {
    let w = cfg.workload.as_ref().unwrap();
    let t = traces::read_text("test.trace", trace, traces::scale(w)).unwrap();
    execute_programs(cfg, t.programs, "text").unwrap()
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces").join(rel)
}

#[test]
fn kernels_written_as_text_replay_in_the_same_time() {
    for spec in ["tree:k=4,kp=4,n=2", "torus:4x4"] {
        for (kernel, bytes, compute) in [
            (Kernel::Bt, 640, 50),
            (Kernel::Bu, 200, 30),
            (Kernel::W2, 640, 0),
            (Kernel::Allreduce, 4096, 20),
            (Kernel::Alltoall, 300, 0),
        ] {
            let cfg = config(spec, |w| {
                w.kernel = kernel;
                w.message_bytes = bytes;
                w.compute_cycles = compute;
            });
            let direct = execute(&cfg).unwrap();
            assert_eq!(direct.status, Status::Completed);
            let programs = kernels::build(cfg.workload.as_ref().unwrap(), 16).unwrap();
            let written = text::write(&programs);
            let replayed = replay_text(&cfg, &written);
            assert_eq!(
                replayed.execution_time_cycles, direct.execution_time_cycles,
                "{spec} {kernel:?}: replay of the written kernel"
            );
            assert_eq!(replayed.messages, direct.messages);
            assert_eq!(replayed.tables["traffic"], TrafficMatrix::of(&programs).table());
            let r = replayed.replay.unwrap();
            assert_eq!(r.latency_histogram.iter().sum::<u64>(), direct.messages as u64);
        }
    }
}

#[test]
fn cpu_factor_scales_compute_exactly() {
    let trace = "ranks 2\n0 compute 1000\n0 send 1 64\n1 recv 0 64\n1 compute 333\n";
    let at = |f: f64| replay_text(&config("crossbar:4", |w| w.cpu_factor = f), trace).execution_time_cycles.unwrap();
    let network_only = replay_text(&config("crossbar:4", |_| {}), "ranks 2\n0 send 1 64\n1 recv 0 64\n")
        .execution_time_cycles
        .unwrap();
    assert_eq!(at(0.0), network_only);
    assert_eq!(at(1.0), network_only + 1000 + 333);
    assert_eq!(at(2.0), network_only + 2000 + 666);
    // Rounded to the nearest cycle: 1000 × 0.25 = 250, 333 × 0.25 = 83.25 → 83.
    assert_eq!(at(0.25), network_only + 250 + 83);
    let r = replay_text(&config("crossbar:4", |w| w.cpu_factor = 2.0), trace).replay.unwrap();
    assert_eq!(r.compute_cycles, vec![2000, 666]);
    // Rank 1 waits for the message during rank 0's compute and the flight.
    assert_eq!(r.wait_cycles[1], network_only + 2000);
}

#[test]
fn nonblocking_operations_complete_on_delivery() {
    let cfg = config("crossbar:4", |_| {});
    let one = replay_text(&cfg, "ranks 2\n0 send 1 640\n1 recv 0 640\n").execution_time_cycles.unwrap();
    // Both ranks post their receive first, then send, then wait for both: a symmetric
    // exchange takes one message time, not two.
    let exchange = "ranks 2\n0 irecv 1 640 req=1\n0 isend 1 640 req=2\n0 waitall 1 2\n\
                    1 irecv 0 640 req=1\n1 isend 0 640 req=2\n1 waitall 2 1\n";
    assert_eq!(replay_text(&cfg, exchange).execution_time_cycles.unwrap(), one);
    // A wait on a send returns when the message has arrived: the compute after it starts then.
    let r = replay_text(&cfg, "ranks 2\n0 isend 1 640 req=7\n0 wait 7\n0 compute 100\n1 recv 0 640\n");
    assert_eq!(r.execution_time_cycles.unwrap(), one + 100);
    assert_eq!(r.replay.unwrap().wait_cycles[0], one);
}

#[test]
fn matching_follows_tags_sources_and_posting_order() {
    let cfg = config("crossbar:4", |_| {});
    // Rank 0 receives tag 2 first although tag 1 was sent first; rank 2 takes any source.
    let trace = "ranks 3\n\
        1 send 0 64 tag=1\n1 compute 500\n1 send 0 64 tag=2\n\
        0 recv 1 64 tag=2\n0 compute 1\n0 recv 1 64 tag=1\n\
        2 recv any 64 tag=any\n2 recv any 64 tag=9\n\
        0 send 2 64 tag=9\n1 send 2 64\n";
    let r = replay_text(&cfg, trace);
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    // Rank 0 could only proceed after the tag-2 message (sent after 500 cycles of compute).
    assert!(r.replay.unwrap().finish_cycles[0] > 500);
    // Waitany returns on the first completed request.
    let trace = "ranks 3\n0 irecv 1 64 req=1\n0 irecv 2 64 req=2\n0 waitany 1 2\n0 send 2 0 tag=5\n0 wait 1 2\n\
                 1 compute 5000\n1 send 0 64\n2 send 0 64\n2 recv 0 0 tag=5\n";
    let r = replay_text(&cfg, trace);
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    let rp = r.replay.unwrap();
    assert!(rp.finish_cycles[2] < 5000, "rank 2 is released before rank 1's message: {:?}", rp.finish_cycles);
}

/// Call counts and traffic of SimGrid files, counted directly from their lines.
fn simgrid_expectations(dir: &Path) -> (Vec<BTreeMap<String, u64>>, Vec<Vec<u64>>) {
    let index = std::fs::read_to_string(dir.join("trace.index")).unwrap();
    let files: Vec<&str> = index.lines().map(|l| l.trim().trim_start_matches('@')).filter(|l| !l.is_empty()).collect();
    let n = files.len();
    let mut calls = vec![BTreeMap::new(); n];
    let mut bytes = vec![vec![0u64; n]; n];
    for f in files {
        for line in std::fs::read_to_string(dir.join(f)).unwrap().lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            let rank: usize = w[0].parse().unwrap();
            *calls[rank].entry(w[1].to_string()).or_insert(0) += 1;
            if w[1] == "send" || w[1] == "isend" {
                bytes[rank][w[2].parse::<usize>().unwrap()] += w[4].parse::<f64>().unwrap() as u64;
            }
        }
    }
    (calls, bytes)
}

#[test]
fn simgrid_samples_replay_on_a_fat_tree_and_a_torus() {
    for case in ["simple", "concurrent", "nonblocking"] {
        let dir = data(&format!("simgrid_taz_p2p/{case}"));
        let (calls, bytes) = simgrid_expectations(&dir);
        for spec in ["tree:k=2,kp=2,n=2", "torus:2x2"] {
            let mut cfg = config(spec, |w| w.trace = Some(dir.join("trace.index").display().to_string()));
            // Messages of 2 GB: large phits keep the packet count small.
            cfg.switch.phit_bytes = 1 << 20;
            let t = traces::read(
                &dir.join("trace.index"),
                hpcnetsim_core::config::TraceFormat::Auto,
                traces::scale(cfg.workload.as_ref().unwrap()),
            )
            .unwrap();
            assert_eq!(t.summary.format, "simgrid");
            assert_eq!(t.summary.calls, calls, "{case}: call counts");
            let r = execute(&cfg).unwrap();
            assert_eq!(r.status, Status::Completed, "{case} on {spec}: {}", r.message);
            let t = TrafficMatrix::of(&t.programs);
            let replayed: Vec<Vec<u64>> =
                (0..bytes.len() as u32).map(|s| (0..bytes.len() as u32).map(|d| t.get(s, d).0).collect()).collect();
            assert_eq!(replayed, bytes, "{case}: traffic matrix");
            assert_eq!(r.tables["traffic"], t.table(), "{case}: the replay's traffic table");
        }
    }
}

fn error_of(trace: &str) -> String {
    let w = WorkloadConfig::default();
    traces::read_text("bad.trace", trace, traces::scale(&w)).expect_err("an error").to_string()
}

#[test]
fn bad_traces_name_file_record_and_rank() {
    let e = error_of("ranks 2\n0 send 1 64\n1 frobnicate 3\n");
    assert!(e.starts_with("bad.trace: line 3 (rank 1): unknown call 'frobnicate'"), "{e}");
    // A truncated last line.
    let e = error_of("ranks 2\n0 send 1 64\n1 recv 0");
    assert!(e.starts_with("bad.trace: line 3 (rank 1): recv: missing bytes"), "{e}");
    let e = error_of("ranks 2\n0 send 2 64\n");
    assert!(e.contains("line 2 (rank 0)") && e.contains("rank 2 is outside"), "{e}");
    // A message nobody receives names its (last) send.
    let e = error_of("ranks 2\n0 send 1 64 tag=3\n0 send 1 64 tag=4\n1 recv 0 64 tag=3\n");
    assert!(e.starts_with("bad.trace: line 3 (rank 0): message from rank 0 to rank 1 tag 4 is never received"), "{e}");
    assert!(!e.contains('\n'));
    // An unknown collective algorithm lists the known ones.
    let e = error_of("ranks 2\n0 barrier algorithm=tree\n1 barrier algorithm=tree\n");
    assert!(e.starts_with("bad.trace: line 2 (rank 0): algorithm = 'tree' is invalid"), "{e}");
    assert!(e.contains("`auto`") && e.contains("`dissemination`"), "{e}");
}

#[test]
fn a_send_or_receive_on_a_communicator_without_its_rank_is_refused() {
    // Rank 3 is not in communicator 1: its receive could never match, and was reported only
    // as a receive never matched at the end of the replay.
    let e = error_of("ranks 4\ncomm 1 0 2\n0 send 1 64 comm=1\n2 recv 0 64 comm=1\n3 recv 0 64 comm=1\n");
    assert_eq!(
        e,
        "bad.trace: line 5 (rank 3): receive on communicator 1, which rank 3 is not a member of; a rank sends and receives only on communicators that list it (communicator 1: ranks 0, 2)"
    );
    let e = error_of("ranks 4\ncomm 1 0 2\n3 irecv any 64 comm=1 req=1\n");
    assert!(
        e.starts_with("bad.trace: line 3 (rank 3): receive on communicator 1, which rank 3 is not a member"),
        "{e}"
    );
    let e = error_of("ranks 4\ncomm 1 0 2\n3 send 1 64 comm=1\n2 recv any 64 comm=1\n");
    assert!(e.starts_with("bad.trace: line 3 (rank 3): send on communicator 1, which rank 3 is not a member"), "{e}");
    // A long communicator is listed in part.
    let members: Vec<String> = (1..=20).map(|r| r.to_string()).collect();
    let e = error_of(&format!("ranks 21\ncomm 1 {}\n0 recv 0 8 comm=1\n", members.join(" ")));
    assert!(e.ends_with("(communicator 1: ranks 1, 2, 3, 4, 5, 6, 7, 8, … (20 ranks))"), "{e}");
    // Members send and receive as before.
    assert!(traces::read_text(
        "ok.trace",
        "ranks 4\ncomm 1 0 2\n0 send 1 64 comm=1\n2 recv 0 64 comm=1\n",
        traces::scale(&WorkloadConfig::default())
    )
    .is_ok());
}

#[test]
fn a_request_id_still_pending_is_not_started_again() {
    // The second isend took the id of the first while it was pending: one wait was left
    // for two requests.
    let e = error_of("ranks 2\n0 isend 1 8 req=1\n0 isend 1 8 req=1\n1 recv 0 8\n1 recv 0 8\n0 wait 1\n");
    assert_eq!(
        e,
        "bad.trace: line 3 (rank 0): isend: request 1 is still pending (started at line 2, not yet waited for); allowed: an id that no pending request of rank 0 uses"
    );
    let e = error_of("ranks 2\n1 irecv 0 8 req=4\n0 send 1 8\n0 send 1 8\n1 irecv 0 8 req=4\n1 wait 4\n");
    assert!(e.starts_with("bad.trace: line 5 (rank 1): irecv: request 4 is still pending (started at line 2,"), "{e}");
    let e = error_of("ranks 2\n0 irecv 1 8 req=2\n0 isend 1 8 req=2\n1 send 0 8\n1 recv 0 8\n0 wait 2\n");
    assert!(e.starts_with("bad.trace: line 3 (rank 0): isend: request 2 is still pending (started at line 2,"), "{e}");
    // An id completed by a wait (or waitall) is free again; ids are per rank.
    let ok = "ranks 2\n0 isend 1 8 req=1\n0 wait 1\n0 isend 1 8 req=1\n1 irecv 0 8 req=1\n1 recv 0 8\n1 waitall 1\n\
              1 irecv 0 8 req=1\n0 wait 1\n0 send 1 8\n1 wait 1\n";
    let r = replay_text(&config("crossbar:4", |_| {}), ok);
    assert_eq!(r.status, Status::Completed, "{}", r.message);
}

#[test]
fn a_receive_smaller_than_its_message_is_refused_naming_both_lines() {
    // MPI: a receive buffer smaller than the message it matches is MPI_ERR_TRUNCATE.
    let e = error_of("ranks 2\n0 send 1 100 tag=3\n1 recv 0 50 tag=3\n");
    assert_eq!(
        e,
        "bad.trace: line 3 (rank 1): receive of 50 bytes from rank 0 tag 3 comm 0 matches the message of 100 bytes sent at line 2; allowed: a receive of at least the bytes of the message it matches (a smaller one is MPI_ERR_TRUNCATE)"
    );
    // The receive read first is still the line named first.
    let e = error_of("ranks 2\n1 irecv 0 50 tag=3 req=1\n0 send 1 100 tag=3\n1 wait 1\n");
    assert!(e.starts_with("bad.trace: line 2 (rank 1): receive of 50 bytes from rank 0 tag 3 comm 0 matches the message of 100 bytes sent at line 3;"), "{e}");
    // The k-th receive of an envelope matches its k-th send; other tags and communicators apart.
    let e = error_of(
        "ranks 3\ncomm 1 1 0\n0 send 1 10\n0 send 1 20\n0 send 1 999 tag=5\n0 send 0 999 comm=1\n0 send 1 30\n\
         1 recv 0 10\n1 recv 0 1000 comm=1\n1 recv 0 15\n1 recv 0 30\n1 recv 0 999 tag=5\n",
    );
    assert!(e.starts_with("bad.trace: line 10 (rank 1): receive of 15 bytes from rank 0 tag 0 comm 0 matches the message of 20 bytes sent at line 4;"), "{e}");
    // Communicator ranks are named as world ranks.
    let e = error_of("ranks 3\ncomm 1 2 1\n1 send 0 64 comm=1\n2 recv 1 8 comm=1\n");
    assert!(e.starts_with("bad.trace: line 4 (rank 2): receive of 8 bytes from rank 1 tag 0 comm 1 matches the message of 64 bytes sent at line 3;"), "{e}");
    // A receive larger than its message is legal MPI; a wildcard receive posted before an exact
    // one may take any of the messages, so which one the exact receive gets is the replay's to
    // say: here the wildcard takes the first (100 bytes), the 10-byte receive the second.
    let cfg = config("crossbar:4", |_| {});
    for ok in [
        "ranks 2\n0 send 1 50 tag=3\n1 recv 0 100 tag=3\n",
        "ranks 2\n0 send 1 100\n0 send 1 10\n1 recv any 100\n1 recv 0 10\n",
        "ranks 2\n0 send 1 100\n0 send 1 10\n1 recv 0 100 tag=any\n1 recv 0 10\n",
    ] {
        let r = replay_text(&cfg, ok);
        assert_eq!(r.status, Status::Completed, "{ok}: {}", r.message);
    }
}

#[test]
fn a_receive_smaller_than_its_message_stops_the_replay_that_matches_them() {
    // With a wildcard only the replay knows the message a receive gets: an error of the run
    // naming the tasks, tag and communicator, whichever comes first, the message or the receive.
    let cfg = config("crossbar:4", |w| w.stall_cycles = 1000);
    let run = |trace: &str| {
        let t = traces::read_text("t.trace", trace, traces::scale(cfg.workload.as_ref().unwrap())).unwrap();
        execute_programs(&cfg, t.programs, "text")
    };
    let expected = "workload: task 1's receive of the message from task 0 tag 3 comm 0: bytes = 50 is invalid: at least the message's 100 bytes (a smaller receive is MPI_ERR_TRUNCATE)";
    for trace in [
        "ranks 2\n0 send 1 100 tag=3\n1 compute 500\n1 recv any 50 tag=any\n",
        "ranks 2\n0 compute 500\n0 send 1 100 tag=3\n1 recv any 50 tag=any\n",
    ] {
        assert_eq!(run(trace).expect_err("truncated").to_string(), expected, "{trace}");
    }
    // The same trace with a receive as large as its message runs.
    let r = run("ranks 2\n0 send 1 100 tag=3\n1 recv any 100 tag=any\n").unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
}

#[test]
fn an_unknown_call_is_named_whatever_its_arguments() {
    for line in ["0 foo 1 10", "0 foo", "0 foo x=1", "0 foo comm=7"] {
        let e = error_of(&format!("ranks 2\n{line}\n"));
        assert!(e.starts_with("bad.trace: line 2 (rank 0): unknown call 'foo'; allowed: compute,"), "{line}: {e}");
    }
}

#[test]
fn a_communicator_listing_a_rank_twice_is_refused() {
    let e = error_of("ranks 3\ncomm 1 2 0 2\n0 barrier comm=1\n");
    assert!(e.starts_with("bad.trace: line 2: communicator 1 lists rank 2 twice"), "{e}");
}

#[test]
fn a_wait_on_a_request_never_started_is_refused() {
    let e = error_of("ranks 2\n0 wait 5\n0 compute 5\n");
    assert!(e.starts_with("bad.trace: line 2 (rank 0): wait: request 5 is not pending"), "{e}");
    // A request already completed by a wait, and one of a waitall.
    let e = error_of("ranks 2\n0 isend 1 8 req=1\n1 recv 0 8\n0 wait 1\n0 wait 1\n");
    assert!(e.starts_with("bad.trace: line 5 (rank 0): wait: request 1 is not pending"), "{e}");
    let e = error_of("ranks 2\n0 isend 1 8 req=1\n1 recv 0 8\n0 waitall 1 2\n");
    assert!(e.starts_with("bad.trace: line 4 (rank 0): waitall: request 2 is not pending"), "{e}");
    // Another rank's request of the same id does not count.
    let e = error_of("ranks 2\n0 isend 1 8 req=1\n1 recv 0 8\n0 wait 1\n1 wait 1\n");
    assert!(e.starts_with("bad.trace: line 5 (rank 1): wait: request 1 is not pending"), "{e}");
}

#[test]
fn a_collective_some_member_never_calls_is_named_with_its_line() {
    let e = error_of("ranks 2\n0 bcast 10\n");
    assert_eq!(e, "bad.trace: line 2 (rank 0): rank 1 never calls this bcast, collective #1 of communicator 0");
    // The first call not made by every member, on its communicator, with the ranks missing it.
    let e = error_of(
        "ranks 4\ncomm 1 3 1 2\n0 barrier\n1 barrier\n2 barrier\n3 barrier\n\
         3 allreduce 8 comm=1\n3 allreduce 8 comm=1\n1 allreduce 8 comm=1\n2 allreduce 8 comm=1\n",
    );
    assert_eq!(e, "bad.trace: line 8 (rank 3): ranks 1, 2 never call this allreduce, collective #2 of communicator 1");
    // Another operation, or another root, in the same place.
    let e = error_of("ranks 2\n0 bcast 10 root=1\n0 reduce 10\n1 bcast 10 root=1\n1 allreduce 10\n");
    assert_eq!(
        e,
        "bad.trace: line 5 (rank 1): allreduce is collective #2 of communicator 0, where rank 0 calls reduce root=0 at line 3; every member makes the same collectives in the same order"
    );
    let e = error_of("ranks 2\n0 bcast 10 root=1\n1 bcast 10\n");
    assert!(e.starts_with("bad.trace: line 3 (rank 1): bcast root=0 is collective #1 of communicator 0, where rank 0 calls bcast root=1 at line 2;"), "{e}");
    // A rank far ahead (a file written rank after rank): its first 256 calls past the others'
    // are kept, later ones counted, and the counts still tell.
    let ahead = |behind: usize| format!("ranks 2\n{}{}", "0 barrier\n".repeat(300), "1 barrier\n".repeat(behind));
    let e = error_of(&ahead(1));
    assert!(e.starts_with("bad.trace: line 3 (rank 0): rank 1 never calls this barrier, collective #2 "), "{e}");
    let e = error_of(&ahead(290));
    assert!(
        e.starts_with("bad.trace: line 301 (rank 0): rank 1 makes 290 collective calls on communicator 0, this rank 300 (its last here)"),
        "{e}"
    );
    // Point-to-point: a send no receive matches names its rank and line.
    let e = error_of("ranks 2\n0 compute 5\n0 send 1 10\n");
    assert!(e.starts_with("bad.trace: line 3 (rank 0): message from rank 0 to rank 1 tag 0 is never received"), "{e}");
}

#[test]
fn an_unmatched_receive_is_reported_not_run_forever() {
    let cfg = config("crossbar:4", |w| w.stall_cycles = 1000);
    let r = replay_text(&cfg, "ranks 2\n0 send 1 64 tag=1\n1 recv 0 64 tag=1\n1 recv 0 64 tag=7\n");
    assert_eq!(r.status, Status::Deadlock);
    assert!(r.blocked.iter().any(|b| b == "task 1: receive from task 0 tag 7 comm 0 never matched"), "{:?}", r.blocked);
}

#[test]
fn topologies_used_here_exist() {
    for spec in ["tree:k=4,kp=4,n=2", "torus:4x4", "tree:k=2,kp=2,n=2", "torus:2x2", "crossbar:4"] {
        topo(spec);
    }
}

/// A three-task VEF trace: a ring of messages with dependencies and a collective.
pub(crate) const VEF: &str = "VEF 3 3 1 1 3 FALSE
C0 0 1 2
0 0 1 640 0 0 -1
1 1 2 640 2 500 0
2 2 0 640 2 300 1
G0 0 0 0 4096 0 2 0 2
G0 0 0 1 0 4096 3 0 G0
G0 0 0 2 0 4096 1 0 2
";

fn vef_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hpcnetsim-vef-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn vef_dependencies_replay_like_the_equivalent_program() {
    let path = vef_file("ring.vef", VEF);
    let cfg = config("torus:2x2", |w| w.trace = Some(path.display().to_string()));
    let r = execute(&cfg).unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    // The same causality written by hand: each message leaves `time` ns (= cycles here)
    // after the reception it depends on; the bcast starts at the root after message 2.
    let text = "ranks 3\n0 send 1 640 tag=0\n1 recv 0 640 tag=0\n1 compute 500\n1 send 2 640 tag=1\n\
                2 recv 1 640 tag=1\n2 compute 300\n2 send 0 640 tag=2\n0 recv 2 640 tag=2\n\
                0 bcast 4096\n1 bcast 4096\n2 bcast 4096\n";
    let by_hand = replay_text(&config("torus:2x2", |_| {}), text);
    assert_eq!(r.execution_time_cycles, by_hand.execution_time_cycles);
    let t = traces::read(&path, hpcnetsim_core::config::TraceFormat::Auto, traces::scale(&WorkloadConfig::default()))
        .unwrap();
    assert_eq!(t.summary.format, "vef");
    assert_eq!(t.summary.p2p_sent.get(1, 2), (640, 1));
    assert_eq!(t.summary.p2p_sent.get(2, 1), (0, 0));
    assert_eq!(t.summary.calls[0]["send"], 1);
    assert_eq!(t.summary.calls[0]["collective"], 1);
}

#[test]
fn bad_vef_traces_name_file_line_and_rank() {
    let err = |name: &str, text: &str| {
        let p = vef_file(name, text);
        traces::read(&p, hpcnetsim_core::config::TraceFormat::Vef, traces::scale(&WorkloadConfig::default()))
            .expect_err("an error")
            .to_string()
    };
    // Truncated: the header announces more messages than the file has.
    let e = err("short.vef", &VEF.replace("VEF 3 3", "VEF 3 4"));
    assert!(e.contains("short.vef: end of file") && e.contains("announces 4 point-to-point messages"), "{e}");
    let e = err("cut.vef", "VEF 3 1 1 0 0 FALSE\nC0 0 1 2\n0 0 1 640 0");
    assert!(e.contains("cut.vef: line 3 (rank 0): missing time"), "{e}");
    let e = err("ranks.vef", "VEF 3 1 1 0 0 FALSE\nC0 0 1\n");
    assert!(e.contains("ranks.vef: line 2: rank count mismatch"), "{e}");
    let e = err("op.vef", "VEF 2 0 1 1 2 FALSE\nC0 0 1\nG0 0 9 1 0 0 0 0 -1\n");
    assert!(e.contains("op.vef: line 3 (rank 1): collective op 9"), "{e}");
    // A negative or non-finite time was taken as 0.
    let e = err("time.vef", "VEF 2 1 1 0 0 FALSE\nC0 0 1\n0 0 1 640 0 -5 0\n");
    assert!(e.ends_with("time.vef: line 3 (rank 0): time = -5 is invalid: a number of ns >= 0"), "{e}");
    let e = err("nan.vef", "VEF 2 1 1 0 0 FALSE\nC0 0 1\nG0 0 6 1 0 0 1 NaN 0\n");
    assert!(e.ends_with("line 3 (rank 1): time = NaN is invalid: a number of ns >= 0"), "{e}");
}

#[test]
fn vef_dependencies_on_later_lines_are_refused() {
    // Message 1 waits for the reception of message 2, defined on the next line: it used to be
    // dropped (17 cycles, as without it); with line 4 depending back on message 1, a cycle.
    let forward = "VEF 2 2 1 0 0 0\nC0 0 1\n1 0 1 100 2 0 2\n2 1 0 100 0 0 0\n";
    let cycle = forward.replace("2 1 0 100 0 0 0", "2 1 0 100 2 0 1");
    for (name, text) in [("forward.vef", forward.to_string()), ("cycle.vef", cycle)] {
        let p = vef_file(name, &text);
        let e = traces::read(&p, hpcnetsim_core::config::TraceFormat::Vef, traces::scale(&WorkloadConfig::default()))
            .expect_err("an error")
            .to_string();
        assert!(e.contains(&format!("{name}: line 3 (rank 0): dependency 2 on message 2 refers to line 4")), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        let cfg = config("crossbar:4", |w| w.trace = Some(p.display().to_string()));
        let e = execute(&cfg).expect_err("refused before the run").to_string();
        assert!(e.contains(&format!("{name}: line 3 (rank 0)")) && e.contains("message 2"), "{e}");
    }
    // Depending on the earlier line instead replays, one message after the other.
    let p = vef_file("backward.vef", "VEF 2 2 1 0 0 0\nC0 0 1\n2 1 0 100 0 0 0\n1 0 1 100 2 0 2\n");
    let r = execute(&config("crossbar:4", |w| w.trace = Some(p.display().to_string()))).unwrap();
    assert_eq!(r.status, Status::Completed, "{}", r.message);
    let p = vef_file("alone.vef", "VEF 2 2 1 0 0 0\nC0 0 1\n2 1 0 100 0 0 0\n1 0 1 100 0 0 0\n");
    let alone = execute(&config("crossbar:4", |w| w.trace = Some(p.display().to_string()))).unwrap();
    assert_eq!(r.execution_time_cycles.map(|t| t / 2), alone.execution_time_cycles);
}

#[test]
fn vef_world_listing_a_task_twice_is_refused() {
    // C0 of the right size that names task 0 twice leaves task 1 out of the world.
    let p = vef_file("twice.vef", "VEF 2 1 1 0 0 0\nC0 0 0\n1 0 0 100 0 0 0\n");
    let e = traces::read(&p, hpcnetsim_core::config::TraceFormat::Vef, traces::scale(&WorkloadConfig::default()))
        .expect_err("an error")
        .to_string();
    assert!(e.contains("twice.vef: line 2") && e.contains("lists rank 0 twice"), "{e}");
    let cfg = config("crossbar:4", |w| w.trace = Some(p.display().to_string()));
    let e = execute(&cfg).expect_err("refused before the run").to_string();
    assert!(e.contains("twice.vef: line 2") && e.contains("lists rank 0 twice"), "{e}");
}

#[test]
fn an_option_the_call_does_not_read_or_given_twice_is_refused() {
    // Each was accepted and dropped: the root of a send, the tag of a bcast (collectives have
    // their own context), a blocking send's request, the first of two tags.
    let e = error_of("ranks 2\n0 send 1 8 root=1\n1 recv 0 8\n");
    assert_eq!(e, "bad.trace: line 2 (rank 0): send: option root=1 is invalid: send takes only tag, comm");
    let e = error_of("ranks 2\n0 bcast 8 tag=3\n1 bcast 8 tag=3\n");
    assert_eq!(e, "bad.trace: line 2 (rank 0): bcast: option tag=3 is invalid: bcast takes only root, comm, algorithm");
    let e = error_of("ranks 2\n0 allreduce 8 root=1\n1 allreduce 8 root=1\n");
    assert!(e.ends_with("allreduce: option root=1 is invalid: allreduce takes only comm, algorithm"), "{e}");
    let e = error_of("ranks 2\n0 compute 5 tag=1\n");
    assert!(e.ends_with("compute: option tag=1 is invalid: compute takes no options"), "{e}");
    let e = error_of("ranks 2\n0 send 1 8 req=1\n1 recv 0 8\n");
    assert!(e.ends_with("send: option req=1 is invalid: send takes only tag, comm"), "{e}");
    let e = error_of("ranks 2\n0 send 1 8 tag=3 tag=4\n1 recv 0 8 tag=4\n");
    assert_eq!(
        e,
        "bad.trace: line 2 (rank 0): send: option tag=4 is invalid: each option once (tag=3 is given before it)"
    );
    // The options each call reads are still accepted.
    let ok = "ranks 2\ncomm 1 0 1\n0 isend 1 8 tag=2 comm=1 req=1\n1 irecv 0 8 tag=any comm=1 req=3\n0 wait 1\n\
              1 wait 3\n0 bcast 8 root=1 comm=1 algorithm=binomial\n1 bcast 8 root=1 comm=1 algorithm=binomial\n\
              0 allreduce 8 comm=1 algorithm=ring\n1 allreduce 8 comm=1 algorithm=ring\n0 barrier comm=1\n1 barrier comm=1\n\
              0 barrier\n1 barrier\n";
    let r = replay_text(&config("crossbar:4", |_| {}), ok);
    assert_eq!(r.status, Status::Completed, "{}", r.message);
}

#[test]
fn the_checks_over_the_whole_trace_name_its_file() {
    // They said "trace: ..." and named no file (trace info, run, and the config's trace alike).
    let empty = "ranks 2\ncomm 1 0 1\n";
    assert!(error_of(empty).starts_with("bad.trace: no MPI call to replay"), "{}", error_of(empty));
    let scale = traces::scale(&WorkloadConfig::default());
    let scan = |name: &str, text: &str| {
        let path = vef_file(name, text);
        let e = traces::scan(&path, hpcnetsim_core::config::TraceFormat::Auto, scale).err().expect("refused");
        (path.display().to_string(), e.to_string())
    };
    let (path, e) = scan("empty.trace", empty);
    assert_eq!(
        e,
        format!("{path}: no MPI call to replay: no rank sends, receives or computes (a collective of one rank sends nothing)")
    );
    let e = traces::read(Path::new(&path), hpcnetsim_core::config::TraceFormat::Auto, scale).expect_err("refused");
    assert!(e.to_string().starts_with(&format!("{path}: no MPI call")), "{e}");
    let (path, e) = scan("sizes.trace", "ranks 2\n0 allreduce 100\n1 allreduce 200\n");
    assert!(e.starts_with(&format!("{path}: the collectives' messages from rank 0 to rank 1 do not match")), "{e}");
}

#[test]
fn a_binary_file_read_as_a_text_trace_names_the_files_to_give() {
    // A DUMPI rank file (`NAME-0000.bin`) or a tar archive of a trace was read as a text trace
    // and failed with "line 1: cannot read: stream did not contain valid UTF-8".
    let dir = std::env::temp_dir().join(format!("hpcnetsim-binary-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dumpi-0000.bin");
    std::fs::write(&path, [0xff_u8, 0xfe, 0x00, 0x01, 0x80, 0x0a]).unwrap();
    let e = traces::read(&path, hpcnetsim_core::config::TraceFormat::Auto, traces::scale(&WorkloadConfig::default()))
        .expect_err("an error")
        .to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(e.starts_with(&format!("{}: not a text trace (binary data)", path.display())), "{e}");
    assert!(e.contains(".meta") && e.contains("workload.format") && !e.contains('\n'), "{e}");
}

/// `flops_per_second` scales only SimGrid's compute, counted in flops: beside a DUMPI trace
/// (traced seconds) it went unread and the replay took the same time. It is refused there,
/// and still changes a SimGrid replay.
#[test]
fn flops_per_second_beside_a_trace_without_flops_is_refused() {
    let run = |trace: &Path, flops: f64| {
        let toml = format!(
            "topology = \"crossbar:4\"\n[workload]\ntrace = \"{}\"\nflops_per_second = {flops:e}\n",
            trace.display()
        );
        execute(&Config::from_toml(&toml).unwrap())
    };
    let dumpi = data("dumpi_testtrace4/testtrace.meta");
    let e = run(&dumpi, 2e9).unwrap_err().to_string();
    assert!(
        e.starts_with("config: workload.flops_per_second = 2000000000 is invalid: left out beside a dumpi trace"),
        "{e}"
    );
    assert!(run(&dumpi, 1e9).is_ok(), "the default is no choice");
    let simgrid = data("simgrid_taz_p2p/simple/trace.index");
    let (slow, fast) = (run(&simgrid, 1e9).unwrap(), run(&simgrid, 1e12).unwrap());
    assert!(fast.execution_time_cycles < slow.execution_time_cycles, "{fast:?} against {slow:?}");
}
