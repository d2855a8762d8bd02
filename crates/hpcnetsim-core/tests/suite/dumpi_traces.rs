//! DUMPI traces: the call counts read from the records equal the per-function counts the
//! files keep in their footers (read here directly), rank 0 of the sst-dumpi test trace
//! matches its ASCII dump, every point-to-point byte sent is received (two files, two
//! views), the traces replay on a fat tree and a torus, and broken files fail with one
//! line naming the file, the record and the rank.

use hpcnetsim_core::config::{Config, TraceFormat};
use hpcnetsim_core::engine::execute::execute;
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::workload::traces;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces").join(rel)
}

fn read(meta: &Path) -> hpcnetsim_core::Result<traces::Trace> {
    traces::read(meta, TraceFormat::Auto, traces::scale(&Default::default()))
}

/// Per-function counts of the calls a DUMPI file recorded, from its footer: the index (last
/// 64 bytes) gives the footer offset; the footer is a magic word, 291 call counts, then 291
/// counts of calls that were not recorded.
fn footer_counts(file: &Path) -> BTreeMap<u16, u32> {
    let b = std::fs::read(file).unwrap();
    let word = |at: usize| u64::from_be_bytes(b[at..at + 8].try_into().unwrap());
    let footer = word(b.len() - 64 + 6 * 8) as usize;
    assert_eq!(word(footer), 0xf007fee7, "footer magic");
    let count = |i: usize| u32::from_be_bytes(b[footer + 8 + 4 * i..][..4].try_into().unwrap());
    (0..282u16).map(|id| (id, count(id as usize) - count(291 + id as usize))).filter(|&(_, c)| c > 0).collect()
}

/// Our counts keyed by function id, through the MPI names of the functions involved.
fn by_id(calls: &BTreeMap<String, u64>) -> BTreeMap<u16, u32> {
    let ids: BTreeMap<&str, u16> = [
        ("MPI_Recv", 1),
        ("MPI_Isend", 8),
        ("MPI_Irecv", 12),
        ("MPI_Wait", 13),
        ("MPI_Waitall", 18),
        ("MPI_Barrier", 52),
        ("MPI_Alltoall", 60),
        ("MPI_Allreduce", 65),
        ("MPI_Comm_group", 72),
        ("MPI_Group_incl", 76),
        ("MPI_Comm_size", 81),
        ("MPI_Comm_rank", 82),
        ("MPI_Comm_create", 85),
        ("MPI_Init", 124),
        ("MPI_Finalize", 125),
    ]
    .into_iter()
    .collect();
    calls.iter().map(|(k, &v)| (*ids.get(k.as_str()).unwrap_or_else(|| panic!("{k}")), v as u32)).collect()
}

#[test]
fn call_counts_match_the_footers() {
    for (meta, prefix, n) in
        [("dumpi_testtrace4/testtrace.meta", "testtrace", 4), ("dumpi_testbgp7/testbgp.meta", "testbgp", 7)]
    {
        let t = read(&data(meta)).unwrap();
        assert_eq!(t.summary.ranks, n);
        for r in 0..n {
            let file = data(meta).parent().unwrap().join(format!("{prefix}-{r:04}.bin"));
            assert_eq!(by_id(&t.summary.calls[r]), footer_counts(&file), "{meta} rank {r}");
        }
        // Point-to-point: what each sender sends is what its receivers post.
        assert_eq!(t.summary.p2p_sent, t.summary.p2p_received, "{meta}");
    }
}

#[test]
fn rank_0_matches_its_ascii_dump() {
    let t = read(&data("dumpi_testtrace4/testtrace.meta")).unwrap();
    let dump = std::fs::read_to_string(data("dumpi_testtrace4/testtrace-0000.txt")).unwrap();
    let mut calls: BTreeMap<String, u64> = BTreeMap::new();
    for line in dump.lines().filter(|l| l.contains(" entering at walltime")) {
        *calls.entry(line.split_whitespace().next().unwrap().to_string()).or_insert(0) += 1;
    }
    assert_eq!(t.summary.calls[0], calls);
    // Rank 0's only send: one MPI_INT (4 bytes) to rank 1.
    let dests: Vec<usize> =
        dump.lines().filter_map(|l| l.strip_prefix("int dest=")).map(|d| d.parse().unwrap()).collect();
    assert_eq!(dests, vec![1]);
    let row: Vec<u64> = (0..4).map(|d| t.summary.p2p_sent.get(0, d).0).collect();
    assert_eq!(row, vec![0, 4, 0, 0]);
}

/// Nanoseconds since the epoch of an ASCII dump's `walltime 1296777956.737669000`.
fn dump_ns(stamp: &str) -> u64 {
    let (sec, frac) = stamp.split_once('.').unwrap();
    sec.parse::<u64>().unwrap() * 1_000_000_000 + format!("{frac:0<9}")[..9].parse::<u64>().unwrap()
}

#[test]
fn rank_0_compute_intervals_are_the_gaps_of_its_ascii_dump() {
    // The time from one call's return to the next call's entry, to the nanosecond (a cycle
    // is 1 ns by default): the time stamps are seconds since the epoch, which a double
    // holds only to about 240 ns.
    let dump = std::fs::read_to_string(data("dumpi_testtrace4/testtrace-0000.txt")).unwrap();
    let mut gaps = Vec::new();
    let mut last_return = None;
    for line in dump.lines() {
        let Some((head, rest)) = line.split_once(" at walltime ") else { continue };
        let t = dump_ns(rest.split(',').next().unwrap());
        if head.ends_with(" entering") {
            if let Some(prev) = last_return {
                gaps.push(t - prev);
            }
        } else {
            last_return = Some(t);
        }
    }
    assert_eq!(gaps.len(), 8, "calls after the first");
    let t = read(&data("dumpi_testtrace4/testtrace.meta")).unwrap();
    let compute: Vec<u64> = t.programs.tasks[0]
        .iter()
        .filter_map(|op| match op {
            hpcnetsim_core::workload::Op::Compute { cycles } => Some(*cycles),
            _ => None,
        })
        .collect();
    assert_eq!(compute, gaps.into_iter().filter(|&g| g > 0).collect::<Vec<_>>());
}

#[test]
fn dumpi_traces_replay_on_a_fat_tree_and_a_torus() {
    for meta in ["dumpi_testtrace4/testtrace.meta", "dumpi_testbgp7/testbgp.meta"] {
        for spec in ["tree:k=4,kp=4,n=2", "torus:3x3"] {
            let mut cfg = Config::from_toml(&format!("topology = \"{spec}\"\n[workload]\n")).unwrap();
            cfg.workload.as_mut().unwrap().trace = Some(data(meta).display().to_string());
            let r = execute(&cfg).unwrap();
            assert_eq!(r.status, Status::Completed, "{meta} on {spec}: {}", r.message);
            let t = read(&data(meta)).unwrap();
            assert_eq!(r.messages as u64, t.summary.messages);
            // Network-only replay is faster than replay with the traced compute gaps.
            cfg.workload.as_mut().unwrap().cpu_factor = 0.0;
            let fast = execute(&cfg).unwrap();
            assert!(fast.execution_time_cycles < r.execution_time_cycles);
        }
    }
}

#[test]
fn broken_dumpi_traces_name_file_record_and_rank() {
    let dir = std::env::temp_dir().join(format!("hpcnetsim-dumpi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = data("dumpi_testtrace4");
    let copy = |meta: &str| {
        std::fs::write(dir.join("t.meta"), meta).unwrap();
        for r in 0..4 {
            std::fs::copy(src.join(format!("testtrace-{r:04}.bin")), dir.join(format!("t-{r:04}.bin"))).unwrap();
        }
    };
    // The streamed replay's first pass stops with the same error before simulating.
    let err = || {
        let whole = read(&dir.join("t.meta")).expect_err("an error").to_string();
        let toml =
            format!("topology = \"torus:2x2\"\n[workload]\ntrace = {:?}\n", dir.join("t.meta").display().to_string());
        let streamed = execute(&Config::from_toml(&toml).unwrap()).expect_err("an error").to_string();
        assert_eq!(whole, streamed);
        whole
    };
    // The meta file says 3 ranks, there are 4 files.
    copy("numprocs=3\nfileprefix=t\n");
    let e = err();
    assert!(e.contains("t.meta: rank count mismatch: numprocs=3") && e.contains("rank 3"), "{e}");
    copy("numprocs=5\nfileprefix=t\n");
    assert!(err().contains("the file of rank 4"), "{}", err());
    // A key given twice: the second line was left unread.
    copy("numprocs=4\nfileprefix=t\nnumprocs=5\n");
    assert!(
        err().ends_with("t.meta: line 3: numprocs = '5' is invalid: one 'numprocs=' line (line 1 gives '4')"),
        "{}",
        err()
    );
    copy("numprocs=4\nfileprefix=t\nfileprefix=u\n");
    assert!(
        err().contains("line 3: fileprefix = 'u' is invalid: one 'fileprefix=' line (line 2 gives 't')"),
        "{}",
        err()
    );
    // A truncated file.
    copy("numprocs=4\nfileprefix=t\n");
    let f = dir.join("t-0002.bin");
    let b = std::fs::read(&f).unwrap();
    std::fs::write(&f, &b[..200]).unwrap();
    assert!(err().contains("t-0002.bin: truncated file"), "{}", err());
    // An unknown record type: rank 1's third record (MPI_Comm_size at byte 0x3a) becomes id 999.
    copy("numprocs=4\nfileprefix=t\n");
    let f = dir.join("t-0001.bin");
    let mut b = std::fs::read(&f).unwrap();
    let at = find_record(&b, 81);
    b[at..at + 2].copy_from_slice(&999u16.to_be_bytes());
    std::fs::write(&f, &b).unwrap();
    let e = err();
    assert!(e.contains("t-0001.bin: record 3") && e.contains("unknown or unsupported record type 999"), "{e}");
    assert!(!e.contains('\n'));
    std::fs::remove_dir_all(&dir).ok();
}

/// Byte offset of the first record with function id `id` (after MPI_Init's record), found
/// by its id followed by a mask byte with the wall-time bit.
fn find_record(b: &[u8], id: u16) -> usize {
    let want = id.to_be_bytes();
    (8..b.len() - 3).find(|&i| b[i..i + 2] == want && b[i + 2] & 0x08 != 0).unwrap()
}
