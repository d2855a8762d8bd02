//! Streamed trace replay: a trace replayed as a stream (windows refilled from the files,
//! message slots reused) gives the same execution time, per-rank statistics, messages and
//! traffic as its whole programs, on every sample trace and on generated ones; and what the
//! replay holds at once (messages, window and buffered operations) does not grow with the
//! trace's length.

use hpcnetsim_core::config::{Config, TraceFormat};
use hpcnetsim_core::engine::execute::{execute, execute_programs};
use hpcnetsim_core::engine::{Engine, StreamStats};
use hpcnetsim_core::stats::{ExecutionResult, Status};
use hpcnetsim_core::topology::Topology;
use hpcnetsim_core::workload::traces::{self, stream::BATCH_OPS, text};
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces").join(rel)
}

/// A scratch directory of this test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hpcnetsim-stream-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A replay config on `spec` for the trace at `path`, with `extra` TOML tables.
fn config(spec: &str, path: &Path, workload: &str, extra: &str) -> Config {
    let text =
        format!("topology = \"{spec}\"\n{extra}\n[workload]\ntrace = {:?}\n{workload}\n", path.display().to_string());
    Config::from_toml(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// The replay of the trace's whole programs (the path that holds them in memory).
fn whole(cfg: &Config) -> ExecutionResult {
    let w = cfg.workload.as_ref().unwrap();
    let path = Path::new(w.trace.as_ref().unwrap());
    let t = traces::read(path, w.format, traces::scale(w)).unwrap();
    execute_programs(cfg, t.programs, "whole").unwrap()
}

/// Asserts that the streamed replay of `cfg` equals its whole-program replay, and the first
/// pass's summary and traffic (what `trace info` prints) those of the whole programs.
fn same(cfg: &Config, what: &str) -> ExecutionResult {
    let w = cfg.workload.as_ref().unwrap();
    let path = Path::new(w.trace.as_ref().unwrap());
    let t = traces::read(path, w.format, traces::scale(w)).unwrap();
    let scanned = traces::scan(path, w.format, traces::scale(w)).unwrap();
    assert_eq!(scanned.summary, t.summary, "{what}: summary");
    assert_eq!(scanned.traffic, traces::TrafficMatrix::of(&t.programs), "{what}: traffic");
    let a = whole(cfg);
    let b = execute(cfg).unwrap();
    assert_eq!(a.status, Status::Completed, "{what}: {}", a.message);
    assert_eq!(b.status, Status::Completed, "{what}: {}", b.message);
    assert_eq!(a.execution_time_cycles, b.execution_time_cycles, "{what}: execution time");
    assert_eq!(a.messages, b.messages, "{what}: messages");
    assert_eq!(a.packet_hops, b.packet_hops, "{what}: packet hops");
    assert_eq!(format!("{:?}", a.message_latency), format!("{:?}", b.message_latency), "{what}: latency");
    assert_eq!(a.replay, b.replay, "{what}: per-rank statistics");
    assert_eq!(a.tables["traffic"], b.tables["traffic"], "{what}: traffic");
    assert_eq!(b.tables["traffic"], scanned.traffic.table(), "{what}: traffic of the first pass");
    assert!(a.messages > 0, "{what}: a trace with messages");
    b
}

#[test]
fn sample_traces_replay_the_same_streamed() {
    for meta in ["dumpi_testtrace4/testtrace.meta", "dumpi_testbgp7/testbgp.meta"] {
        for spec in ["tree:k=4,kp=4,n=2", "torus:4x4"] {
            same(&config(spec, &data(meta), "", ""), &format!("{meta} on {spec}"));
        }
    }
    for case in ["simple", "concurrent", "nonblocking"] {
        let index = data(&format!("simgrid_taz_p2p/{case}/trace.index"));
        // Messages of 2 GB: large phits keep the packet count small.
        let mut cfg = config("torus:2x2", &index, "", "");
        cfg.switch.phit_bytes = 1 << 20;
        same(&cfg, case);
        // The same ranks in one file, lines interleaved: one reader hands each rank its lines.
        let dir = scratch(case);
        let files: Vec<Vec<String>> = (0..)
            .map(|r| index.with_file_name(format!("trace.{r}")))
            .take_while(|f| f.exists())
            .map(|f| std::fs::read_to_string(f).unwrap().lines().map(String::from).collect())
            .collect();
        let longest = files.iter().map(|f| f.len()).max().unwrap();
        let mut all = String::new();
        for k in 0..longest {
            for f in &files {
                if let Some(l) = f.get(k) {
                    all += l;
                    all.push('\n');
                }
            }
        }
        std::fs::write(dir.join("all.txt"), all).unwrap();
        let mut one = config("torus:2x2", &dir.join("all.txt"), "format = \"simgrid\"", "");
        one.switch.phit_bytes = 1 << 20;
        let (a, b) = (same(&one, &format!("{case}, one file")), execute(&cfg).unwrap());
        assert_eq!(a.execution_time_cycles, b.execution_time_cycles, "{case}: one file or one per rank");
        std::fs::remove_dir_all(dir).ok();
    }
}

#[test]
fn the_amg_trace_replays_the_same_streamed() {
    let dir = scratch("amg");
    let ok = std::process::Command::new("tar")
        .arg("xzf")
        .arg(data("dumpi_amg27/df_AMG_n27_dumpi.tar.gz"))
        .arg("-C")
        .arg(&dir)
        .arg("--exclude=*/._*")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "tar extracts the AMG sample");
    let meta = std::fs::read_dir(dir.join("df_AMG_n27_dumpi"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "meta"))
        .unwrap();
    same(&config("tree:k=4,kp=4,n=3", &meta, "cpu_factor = 0", ""), "AMG");
    std::fs::remove_dir_all(dir).ok();
}

/// A generated program of `n` ranks and `steps` steps: compute, a ring exchange with
/// non-blocking receives, a wait-any over two receives, collectives on the world and on a
/// sub-communicator (as in the text format's own tests).
fn generated(n: usize, steps: usize) -> String {
    let mut s =
        format!("ranks {n}\ncomm 1 {}\n", (0..n).step_by(2).map(|r| r.to_string()).collect::<Vec<_>>().join(" "));
    for step in 0..steps {
        for r in 0..n {
            let (left, right) = ((r + n - 1) % n, (r + 1) % n);
            let bytes = 512 + 256 * ((r + step) % 5);
            s += &format!("{r} compute {}\n", 50 + (r * 13 + step * 7) % 90);
            s += &format!("{r} irecv {left} {bytes} tag={} req=1\n", step % 3);
            s += &format!("{r} irecv any 64 tag=9 req=2\n");
            s += &format!("{r} send {right} {} tag={}\n", 512 + 256 * ((right + step) % 5), step % 3);
            s += &format!("{r} isend {left} 64 tag=9 req=3\n");
            s += &format!("{r} waitany 1 2\n{r} waitall 1 2 3\n");
            if step % 16 == 15 {
                s += &format!("{r} allreduce 2048\n");
                if r % 2 == 0 {
                    s += &format!("{r} bcast 4096 root=1 comm=1\n");
                }
            }
        }
    }
    s
}

#[test]
fn generated_traces_replay_the_same_streamed_with_and_without_the_nic_model() {
    let dir = scratch("generated");
    let path = dir.join("ring.trace");
    std::fs::write(&path, generated(8, 40)).unwrap();
    same(&config("torus:4x2", &path, "", ""), "generated on a torus");
    same(&config("tree:k=4,kp=4,n=2", &path, "cpu_factor = 0.5", ""), "generated on a fat tree");
    // The NIC model with a rendezvous: control messages take and free slots too.
    let nic = "technology = \"qsnet\"\n[nic]\nsource_buffer = \"nic\"\ndestination_buffer = \"nic\"\nrendezvous_threshold = \"1 KiB\"";
    same(&config("tree:k=4,n=2", &path, "", nic), "generated with the NIC model");
    // Rank after rank (as `text::write` writes programs): the stream reads each rank apart.
    let t = traces::read(&path, TraceFormat::Text, traces::scale(&Default::default())).unwrap();
    let ranked = dir.join("ranked.trace");
    std::fs::write(&ranked, text::write(&t.programs)).unwrap();
    same(&config("torus:4x2", &ranked, "", ""), "generated, rank after rank");
    std::fs::remove_dir_all(dir).ok();
}

/// Peak holdings of the streamed replay of `trace` on a torus, reading ahead at most about
/// `buffer_ops` operations for other ranks.
fn peaks(trace: &str, name: &str, buffer_ops: usize) -> (StreamStats, u64) {
    let dir = scratch(name);
    let path = dir.join(if trace.starts_with("VEF") { "t.vef" } else { "t.trace" });
    std::fs::write(&path, trace).unwrap();
    let cfg = config("torus:4x2", &path, "", "");
    let scale = traces::scale(cfg.workload.as_ref().unwrap());
    let scanned = traces::scan(&path, TraceFormat::Auto, scale).unwrap();
    let source = scanned.source_with(buffer_ops).unwrap().unwrap();
    let topo = Topology::from_spec(&cfg.topology).unwrap();
    let terminals: Vec<u32> = (0..scanned.summary.ranks as u32).collect();
    // Run by hand: the stats are read from the engine afterwards.
    let mut e = Engine::with_source(&cfg, &topo, source, terminals).unwrap();
    while e.execution_time().is_none() && !e.is_quiet() {
        let to = e.now() + 100_000;
        e.run_until(to);
    }
    let stats = e.stream_stats().unwrap();
    let time = e.execution_time().expect("the replay completes");
    std::fs::remove_dir_all(dir).ok();
    (stats, time)
}

#[test]
fn memory_held_does_not_grow_with_the_trace() {
    // Interleaved lines: every rank reads from the one leading cursor.
    let (short, t1) = peaks(&generated(8, 800), "short", traces::stream::BUFFER_OPS);
    let (long, t4) = peaks(&generated(8, 3200), "long", traces::stream::BUFFER_OPS);
    assert!(t4 > 3 * t1, "the long trace runs longer ({t1} → {t4} cycles)");
    // 8 ranks × 3 200 steps × 8 operations: far more than any bound below.
    for s in [short, long] {
        assert!(s.peak_window <= BATCH_OPS + 64, "window {s:?}");
        assert!(s.peak_messages <= 64, "message slots {s:?}");
        assert!(s.slots <= 64, "slot table {s:?}");
        assert!(s.peak_buffered <= 8 * (BATCH_OPS + 64), "buffered {s:?}");
    }
    // A trace four times as long: the table's peak may differ by the odd slot, with the
    // messages that happen to overlap, but does not grow with the trace.
    assert!(long.slots <= short.slots + 2, "the slot table grows: {} -> {}", short.slots, long.slots);
    // Rank after rank: ranks ahead of the reader get cursors of their own once they hold
    // `2 × BATCH_OPS` operations; what is buffered stays bounded all the same.
    let programs = |steps| {
        let t = traces::read_text("g", &generated(8, steps), traces::scale(&Default::default())).unwrap();
        text::write(&t.programs)
    };
    let (a, _) = peaks(&programs(800), "ranked-short", 0);
    let (b, _) = peaks(&programs(3200), "ranked-long", 0);
    for s in [a, b] {
        assert!(s.peak_buffered <= 8 * 3 * BATCH_OPS, "buffered {s:?}");
        // A window takes what the rank held when it got its own cursor.
        assert!(s.peak_messages <= 64 && s.peak_window <= 2 * BATCH_OPS + 64, "{s:?}");
    }
}

/// The error of replaying `trace` (written to a file), streamed and whole: the same line.
fn error_of(trace: &str, name: &str) -> String {
    let dir = scratch(name);
    let path = dir.join("bad.trace");
    std::fs::write(&path, trace).unwrap();
    let streamed = execute(&config("torus:2x2", &path, "", "")).expect_err("an error").to_string();
    let whole = traces::read(&path, TraceFormat::Auto, traces::scale(&Default::default()))
        .and_then(|t| execute_programs(&config("torus:2x2", &path, "", ""), t.programs, "whole"))
        .expect_err("an error")
        .to_string();
    std::fs::remove_dir_all(dir).ok();
    assert_eq!(streamed, whole, "the same error streamed and whole");
    assert!(!streamed.contains('\n'), "one line: {streamed}");
    streamed
}

#[test]
fn bad_traces_fail_before_the_replay_in_one_line() {
    // A bad call near the end of a long trace: found by the first pass, with file, line, rank.
    let good = generated(4, 200);
    let line = good.lines().count() + 1;
    let e = error_of(&format!("{good}2 frobnicate 5\n"), "unknown");
    assert!(e.contains(&format!("bad.trace: line {line} (rank 2): unknown call 'frobnicate'")), "{e}");
    let e = error_of("ranks 4\n0 send 1 64\n1 recv 0 64\n1 send 2 64 tag=77\n", "unmatched");
    assert!(e.contains("line 4 (rank 1): message from rank 1 to rank 2 tag 77 is never received"), "{e}");
    // A collective one member does not call: named with its line.
    let e = error_of("ranks 3\n0 bcast 64\n1 bcast 64\n", "collective");
    assert!(e.contains("line 2 (rank 0): rank 2 never calls this bcast, collective #1 of communicator 0"), "{e}");
    // A communicator keeps its members (the stream knows them from the first pass).
    let e = error_of("ranks 4\ncomm 1 0 1\n0 barrier comm=1\n1 barrier comm=1\ncomm 1 2 3\n", "comm");
    assert!(e.contains("line 5: communicator 1 is defined again with other members"), "{e}");
}

#[test]
fn a_receive_smaller_than_its_message_fails_the_streamed_replay_too() {
    // Found when reading when the receive's message is known then (the lines named) ...
    let e = error_of("ranks 4\n0 send 1 64 tag=2\n1 recv 0 8 tag=2\n", "truncate-read");
    assert!(e.contains("bad.trace: line 3 (rank 1): receive of 8 bytes from rank 0 tag 2 comm 0 matches the message of 64 bytes sent at line 2;"), "{e}");
    // ... else by the replay, streamed as whole: a wildcard receive, and a file written rank
    // after rank whose sends run past what the first pass keeps to pair them.
    let e = error_of("ranks 4\n0 send 1 64 tag=2\n1 recv any 8 tag=2\n", "truncate-any");
    assert_eq!(e, "workload: task 1's receive of the message from task 0 tag 2 comm 0: bytes = 8 is invalid: at least the message's 64 bytes (a smaller receive is MPI_ERR_TRUNCATE)");
    let k = 5000;
    let trace = format!("ranks 4\n{}{}1 recv 0 8\n", "0 send 1 64\n".repeat(k), "1 recv 0 64\n".repeat(k - 1));
    let e = error_of(&trace, "truncate-late");
    assert!(
        e.starts_with("workload: task 1's receive of the message from task 0 tag 0 comm 0: bytes = 8 is invalid"),
        "{e}"
    );
}

/// A generated VEF trace of `n` tasks and `steps` steps: a ring of messages, each sent
/// after receiving the previous step's from the left, and an allreduce every 8 steps after
/// the task's own send.
fn generated_vef(n: usize, steps: usize) -> String {
    let collectives = steps / 8;
    let mut s = format!(
        "VEF {n} {} 1 {collectives} 0 FALSE\nC0 {}\n",
        n * steps,
        (0..n).map(|r| r.to_string()).collect::<Vec<_>>().join(" ")
    );
    for step in 0..steps {
        for r in 0..n {
            let id = step * n + r;
            let bytes = 256 + 128 * ((r + step) % 7);
            match step {
                0 => s += &format!("{id} {r} {} {bytes} 0 {} -1\n", (r + 1) % n, 10 * r),
                _ => {
                    s +=
                        &format!("{id} {r} {} {bytes} 2 {} {}\n", (r + 1) % n, 20 + r, (step - 1) * n + (r + n - 1) % n)
                }
            }
        }
        if step % 8 == 7 {
            for r in 0..n {
                s += &format!("G{} 0 2 {r} 1024 1024 1 5 {}\n", step / 8, step * n + r);
            }
        }
    }
    s
}

#[test]
fn vef_traces_replay_the_same_streamed() {
    let dir = scratch("vef");
    let path = dir.join("ring.vef");
    let trace = generated_vef(6, 64);
    std::fs::write(&path, &trace).unwrap();
    same(&config("torus:3x2", &path, "", ""), "generated VEF");
    // Lines sorted by task (receives are posted where their line is):
    // reading for one task buffers another's until it gets a reader of its own.
    let long = generated_vef(6, 6000);
    let mut lines: Vec<&str> = long.lines().collect();
    let task = |l: &str| {
        let w: Vec<&str> = l.split_whitespace().collect();
        if l.starts_with('G') {
            w[3].parse::<usize>().unwrap()
        } else {
            w[1].parse().unwrap()
        }
    };
    lines[2..].sort_by_key(|l| task(l));
    // Task 0's receptions from task 5 now come from later lines, which VEF does not allow
    // (a line depends only on earlier ones): those messages become independent.
    let mut seen = std::collections::HashSet::new();
    let lines: Vec<String> = lines
        .iter()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if l.starts_with(|c: char| c.is_ascii_digit()) {
                seen.insert(w[0].to_string());
                if w[4] == "2" && !seen.contains(w[6]) {
                    return format!("{} {} {} {} 0 {} -1", w[0], w[1], w[2], w[3], w[5]);
                }
            }
            l.to_string()
        })
        .collect();
    let sorted = lines.join("\n") + "\n";
    std::fs::write(&path, &sorted).unwrap();
    let (stats, time) = peaks(&sorted, "vef-own", 0);
    // `peaks` replays on torus:4x2.
    assert_eq!(Some(time), whole(&config("torus:4x2", &path, "", "")).execution_time_cycles, "{stats:?}");
    assert!(stats.peak_window > BATCH_OPS + 64, "a task took what it held when it got its own reader: {stats:?}");
    assert!(stats.peak_buffered <= 6 * 3 * BATCH_OPS, "{stats:?}");
    std::fs::remove_dir_all(dir).ok();
}
