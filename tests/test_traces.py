"""Trace replay and user programs from Python and the command line: a Program runs like any
workload, replays its own text, `hpcnetsim run` accepts a trace and writes the per-rank table
and traffic matrix, `hpcnetsim trace info` summarises without simulating, bad traces fail in
one line."""

import csv
import json
from pathlib import Path

import pytest

import hpcnetsim as h
import hpcnetsim.inputs.trace

DATA = Path(__file__).parent / "data" / "traces"


def ring_program(n: int = 4) -> h.Program:
    p = h.Program(n)
    for r in range(n):
        p.compute(r, 500)
        p.send(r, (r + 1) % n, 2048)
        p.recv(r, (r - 1) % n, 2048)
    p.allreduce(4096, algorithm="ring")
    req = p.irecv(0, h.ANY, 64, tag=h.ANY)
    p.send(3, 0, 64, tag=4)
    p.wait(0, req)
    return p


def test_program_runs_and_matches_its_saved_text(tmp_path):
    p = ring_program()
    r = p.run({"topology": "torus:2x2"})
    assert r.status == "completed", r.message
    # Ring: 4 messages; ring allreduce: 2 (N - 1) steps of 4 messages; one tagged message.
    assert r.messages == 4 + 2 * 3 * 4 + 1
    traffic = h.inputs.trace.dense(r.tables["traffic"], 4, "messages")
    assert traffic[3][0] == 1 + 1 + 6  # ring send, tagged send, 6 allreduce steps
    assert traffic.sum() == r.messages
    assert "traffic" not in r.replay and "traffic" not in r.to_dict()
    path = p.save(tmp_path / "ring.trace")
    cfg = {"topology": "torus:2x2", "workload": {"trace": str(path)}}
    again = h.execute(cfg)
    assert again.execution_time_cycles == r.execution_time_cycles
    # Network-only replay takes less time, exactly the compute less when nothing else waits.
    fast = p.run({"topology": "torus:2x2", "workload": {"cpu_factor": 0}})
    assert fast.execution_time_cycles < r.execution_time_cycles


def test_program_rejects_bad_calls():
    p = h.Program(2)
    with pytest.raises(h.ConfigError, match="to = 2 is invalid: a rank in 0..1"):
        p.send(0, 2, 10)
    with pytest.raises(h.ConfigError, match="collective = 'scan' is invalid"):
        p.collective("scan", 10)
    # A root on a collective without one was written into the program and left unread.
    with pytest.raises(h.ConfigError, match="allreduce: root = 1 is invalid: allreduce has no root"):
        p.allreduce(10, root=1)
    # A receive nobody sends to is reported with its rank and tag, not waited for forever.
    p.recv(1, 0, 10, tag=3)
    r = p.run({"topology": "crossbar:2", "workload": {"stall_cycles": 100}})
    assert r.status == "deadlock"
    assert r.blocked == ["task 1: receive from task 0 tag 3 comm 0 never matched"]


def test_run_trace_writes_ranks_and_traffic(cli, tmp_path):
    trace = DATA / "simgrid_taz_p2p" / "nonblocking" / "trace.index"
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'topology = "torus:2x2"\n[switch]\nphit_bytes = 1048576\n[workload]\ntrace = "{trace}"\n')
    r = cli("run", str(cfg), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "execution time" in r.stdout and "wait time" in r.stdout
    rows = list(csv.DictReader(open(tmp_path / "out" / "ranks.csv")))
    assert [int(x["rank"]) for x in rows] == [0, 1, 2, 3]
    # Ranks 0 <-> 2 and 1 <-> 3 exchange 2e9 bytes each way: four pairs, no other.
    import pandas as pd

    pairs = pd.read_parquet(tmp_path / "out" / "traffic.parquet")
    assert list(pairs.columns) == ["source", "destination", "bytes", "messages"]
    assert {(s, d): b for s, d, b in zip(pairs.source, pairs.destination, pairs.bytes)} == \
        {(0, 2): 2_000_000_000, (2, 0): 2_000_000_000, (1, 3): 2_000_000_000, (3, 1): 2_000_000_000}
    assert (tmp_path / "out" / "traffic.png").stat().st_size > 0
    # The matrix is its own file, not a field of the result.
    assert "traffic" not in json.loads((tmp_path / "out" / "result.json").read_text())["result"]["replay"]


def test_a_config_trace_is_relative_to_the_config_file_from_python_and_cli(cli, tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "rep.toml").write_text('topology = "crossbar:4"\n[workload]\ntrace = "ok.vef"\n')
    (tmp_path / "sub" / "ok.vef").write_text("VEF 2 1 1 0 0 0\nC0 0 1\n1 0 1 100 0 0 0\n")
    monkeypatch.chdir(tmp_path)
    assert h.execute("sub/rep.toml").status == "completed"
    assert h.load_config("sub/rep.toml")["workload"]["trace"] == str(Path("sub") / "ok.vef")
    r = cli("run", "sub/rep.toml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "completed" in r.stdout


def test_trace_info_without_simulating(cli, tmp_path):
    trace = DATA / "simgrid_taz_p2p" / "concurrent" / "trace.index"
    r = cli("trace", "info", str(trace), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["summary"]["ranks"] == 4
    assert d["summary"]["calls"][0] == {"compute": 2, "finalize": 1, "init": 1, "send": 2}
    t = d["traffic"]
    assert h.inputs.trace.dense(t, 4, "messages")[0][2] == 2
    # One entry per pair that exchanged messages, in source then destination order.
    assert sorted(zip(t["source"], t["destination"])) == list(zip(t["source"], t["destination"]))
    assert all(m > 0 for m in t["messages"])
    r = cli("trace", "info", str(trace))
    assert "ranks             4" in r.stdout


def test_bad_traces_fail_in_one_line(cli, tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("ranks 2\n0 send 1 64\n1 recv 0 64\n1 jump 3\n")
    r = cli("trace", "info", str(bad))
    assert r.returncode == 2
    assert r.stderr.startswith(f"error: {bad}: line 4 (rank 1): unknown call 'jump'; allowed: compute, send")
    assert r.stderr.count("\n") == 1
    r = cli("trace", "info", str(bad), "--format", "csv")
    assert r.returncode == 2 and "--format = 'csv' is invalid" in r.stderr



def test_a_receive_smaller_than_its_message_fails_the_run_in_one_line(cli, tmp_path):
    # MPI_ERR_TRUNCATE: refused when reading pairs the receive with its send (both lines
    # named), else by the replay, which alone knows what a wildcard receive gets.
    bad = tmp_path / "short.trace"
    bad.write_text("ranks 2\n0 send 1 100 tag=3\n1 recv 0 50 tag=3\n")
    r = cli("trace", "info", str(bad))
    assert r.returncode == 2
    assert r.stderr == (
        f"error: {bad}: line 3 (rank 1): receive of 50 bytes from rank 0 tag 3 comm 0 matches the message of"
        " 100 bytes sent at line 2; allowed: a receive of at least the bytes of the message it matches"
        " (a smaller one is MPI_ERR_TRUNCATE)\n"
    )
    bad.write_text("ranks 2\n0 send 1 100 tag=3\n1 recv any 50 tag=any\n")
    cfg = tmp_path / "short.toml"
    cfg.write_text(f'topology = "crossbar:2"\n[workload]\ntrace = "{bad}"\n')
    r = cli("run", str(cfg))
    assert r.returncode == 2
    assert r.stderr == (
        "error: workload: task 1's receive of the message from task 0 tag 3 comm 0: bytes = 50 is invalid:"
        " at least the message's 100 bytes (a smaller receive is MPI_ERR_TRUNCATE)\n"
    )
    # From Python, a Program's receive is checked the same way; a larger receive is legal.
    p = h.Program(2)
    p.send(0, 1, 100)
    p.recv(1, 0, 50)
    with pytest.raises(h.ConfigError, match="receive of 50 bytes from rank 0 tag 0 comm 0 matches the message of 100"):
        p.run({"topology": "crossbar:2"})
    p = h.Program(2)
    p.send(0, 1, 100)
    p.recv(1, 0, 200)
    assert p.run({"topology": "crossbar:2"}).status == "completed"

def _reference_calls(path: Path) -> tuple[list, list]:
    """Per-rank MPI calls and Isend bytes from sst-macro's listing of the same archive."""
    import gzip
    import re
    from collections import Counter

    calls = [Counter() for _ in range(10)]
    sent = [0] * 10
    for line in gzip.open(path, "rt"):
        m = re.match(r"MPI Rank (\d+)\s+:\s+(MPI_\w+)(\(.*)?$", line.strip())
        if not m or "finished" in line:
            continue
        rank, name = int(m.group(1)), m.group(2)
        calls[rank][name] += 1
        if name == "MPI_Isend":
            sent[rank] += int(m.group(3)[1:].split(",")[0])
    return calls, sent


def test_otf2_archive_calls_and_traffic_match_an_independent_listing():
    pytest.importorskip("otf2")
    d = h.inputs.trace.info(DATA / "otf2_coverage10" / "traces.otf2")
    s = d["summary"]
    assert s["format"] == "otf2" and s["ranks"] == 10
    ref_calls, ref_sent = _reference_calls(DATA / "otf2_coverage10" / "sst-macro_test_otf2.ref-out.gz")
    compared = ["MPI_Isend", "MPI_Irecv", "MPI_Bcast", "MPI_Gather", "MPI_Scatter", "MPI_Reduce",
                "MPI_Allgather", "MPI_Allreduce", "MPI_Alltoall", "MPI_Init"]  # fmt: skip
    for r in range(10):
        assert {k: s["calls"][r].get(k, 0) for k in compared} == {k: ref_calls[r][k] for k in compared}, r
    # Point-to-point bytes per sender (every communicator), and every byte sent is received.
    assert list(h.inputs.trace.dense(s["p2p_sent"], 10).sum(axis=1)) == ref_sent
    assert s["p2p_sent"] == s["p2p_received"]


@pytest.mark.parametrize("spec", ["tree:k=4,kp=4,n=2", "torus:4x4"])
def test_otf2_archives_replay(spec):
    pytest.importorskip("otf2")
    for name in ("otf2_bcast4", "otf2_coverage10"):
        cfg = {"topology": spec, "workload": {"trace": str(DATA / name / "traces.otf2")}}
        r = h.execute(cfg)
        assert r.status == "completed", r.message
        fast = h.execute({**cfg, "workload": {**cfg["workload"], "cpu_factor": 0}})
        assert fast.execution_time_cycles < r.execution_time_cycles
    # The bcast: 4 ranks, 4096 bytes, a binomial tree of 3 messages.
    assert r.messages > 0
    b = h.inputs.trace.dense(h.inputs.trace.info(DATA / "otf2_bcast4" / "traces.otf2")["traffic"], 4, "messages")
    assert b.sum() == 3 and b[0][2] == 1 and b[0][1] == 1 and b[2][3] == 1


def _footer_counts(path: Path) -> dict[int, int]:
    """Per-function counts of the calls a DUMPI file recorded, from its footer (the index at
    the end of the file gives the footer offset as its seventh word; the footer is a magic
    word, then 291 call counts and 291 counts of calls not recorded)."""
    import struct

    b = path.read_bytes()
    footer = struct.unpack(">Q", b[len(b) - 64 + 48 : len(b) - 64 + 56])[0]
    assert struct.unpack(">Q", b[footer : footer + 8])[0] == 0xF007FEE7
    counts = struct.unpack(">582I", b[footer + 8 : footer + 8 + 4 * 582])
    recorded = [c - i for c, i in zip(counts[:291], counts[291:])]
    return {i: c for i, c in enumerate(recorded[:282]) if c}


def test_amg_dumpi_trace_counts_traffic_and_replay(tmp_path):
    import tarfile

    with tarfile.open(DATA / "dumpi_amg27" / "df_AMG_n27_dumpi.tar.gz") as tar:
        tar.extractall(tmp_path, members=[m for m in tar.getmembers() if "/._" not in m.name], filter="data")
    meta = next((tmp_path / "df_AMG_n27_dumpi").glob("*.meta"))
    d = h.inputs.trace.info(meta)
    s = d["summary"]
    assert s["format"] == "dumpi" and s["ranks"] == 27
    ids = {"MPI_Init": 124, "MPI_Comm_rank": 82, "MPI_Comm_size": 81, "MPI_Isend": 8, "MPI_Irecv": 12,
           "MPI_Waitall": 18, "MPI_Allreduce": 65, "MPI_Barrier": 52, "MPI_Finalize": 125}  # fmt: skip
    for r, f in enumerate(sorted(meta.parent.glob("*.bin"))):
        ours = {ids[k]: v for k, v in s["calls"][r].items()}
        assert ours == _footer_counts(f), f.name
    # Every byte an Isend sends, an Irecv of its destination posts for.
    assert s["p2p_sent"] == s["p2p_received"]
    assert sum(s["p2p_sent"]["messages"]) == sum(c.get("MPI_Isend", 0) for c in s["calls"])
    r = h.execute({"topology": "tree:k=4,kp=4,n=3", "workload": {"trace": str(meta), "cpu_factor": 0}})
    assert r.status == "completed", r.message
    assert r.messages == s["messages"]
    assert r.tables["traffic"].to_dict("list") == d["traffic"]


def test_otf2_archives_replay_the_same_from_their_streamed_text(tmp_path):
    # OTF2 archives are converted in memory and replayed whole; written out as a text trace
    # they replay as a stream, with the same result.
    pytest.importorskip("otf2")
    from hpcnetsim.inputs.otf2_trace import to_text

    for name in ("otf2_bcast4", "otf2_coverage10"):
        archive = DATA / name / "traces.otf2"
        path = tmp_path / f"{name}.trace"
        path.write_text(to_text(archive)[0])
        whole = h.execute({"topology": "torus:4x4", "workload": {"trace": str(archive)}})
        streamed = h.execute({"topology": "torus:4x4", "workload": {"trace": str(path)}})
        assert whole.status == streamed.status == "completed", streamed.message
        assert streamed.execution_time_cycles == whole.execution_time_cycles, name
        assert streamed.messages == whole.messages and streamed.replay == whole.replay, name
        assert h.inputs.trace.info(path)["traffic"] == h.inputs.trace.info(archive)["traffic"], name


@pytest.mark.parametrize("value", [0, "4 ns"])
def test_a_bad_cycle_ns_is_named_before_seconds_are_converted(value):
    # Seconds of a program's compute and of an OTF2 archive's events are turned into cycles
    # with workload.cycle_ns: a bad value is a config error naming it, not a failed division.
    p = h.Program(2)
    p.compute(0, seconds=1e-6)
    cfg = {"topology": "crossbar:2", "workload": {"cycle_ns": value}}
    with pytest.raises(h.ConfigError, match="workload.cycle_ns"):
        p.run(cfg)
    pytest.importorskip("otf2")
    archive = str(DATA / "otf2_bcast4" / "traces.otf2")
    with pytest.raises(h.ConfigError, match="workload.cycle_ns") as e:
        h.execute({"topology": "crossbar:4", "workload": {"trace": archive, "cycle_ns": value}})
    assert "OTF2" not in str(e.value)


def test_otf2_replays_stop_at_a_budget_like_other_traces():
    # An OTF2 archive is converted in Python and replayed as a program: max_cycles and
    # max_seconds apply to it as to every workload (the run was not stopped).
    pytest.importorskip("otf2")
    cfg = {"topology": "tree:k=4,n=2", "workload": {"trace": str(DATA / "otf2_coverage10" / "traces.otf2")}}
    whole = h.execute(cfg)
    assert whole.status == "completed" and whole.execution_time_cycles > 1000
    r = h.execute(cfg, max_cycles=1000)
    assert r.status == "partial", r.message
    assert r.execution_time_cycles is None and "cycle budget of 1000 cycles" in r.message
    seen = []
    h.execute(cfg, progress=seen.append)
    assert seen and seen[-1]["cycle"] > 0


def test_a_replay_takes_the_bins_of_its_consumed_load_without_a_convergence_schedule(tmp_path):
    # docs/traces.md: raise measurement.window_cycles for a trace with seconds of compute. A
    # workload has no convergence phase, so max_convergence_cycles need not follow.
    path = tmp_path / "long.trace"
    path.write_text("ranks 2\n0 compute 3000000\n0 send 1 64\n1 recv 0 64\n")
    cfg = {"topology": "crossbar:2", "workload": {"trace": str(path)}, "measurement": {"window_cycles": 10**6}}
    r = h.execute(cfg)
    assert r.status == "completed", r.message
    assert r.consumed_load_bin_cycles == 10**6 and len(r.consumed_load) == 4
    # Independent traffic still needs its convergence windows.
    with pytest.raises(h.ConfigError, match="measurement.max_convergence_cycles"):
        h.simulate({"topology": "crossbar:2", "measurement": {"window_cycles": 10**6}})


def test_trace_info_of_thousands_of_ranks_leaves_the_matrices_out_of_the_table(tmp_path):
    # A ring of 2048 ranks: the traffic matrices hold a pair per message route (2048 of the
    # 4.2 million pairs). The table of ranks does without them (peak memory is measured, not
    # asserted: CHANGELOG.md has the figures).
    n = 2048
    lines = [f"ranks {n}"]
    for r in range(n):
        lines += [f"{r} isend {(r + 1) % n} 1024 req=1", f"{r} recv {(r - 1) % n} 1024", f"{r} wait 1"]
    path = tmp_path / "ring.trace"
    path.write_text("\n".join(lines) + "\n")
    brief = h.inputs.trace.info(path, matrices=False)
    assert "traffic" not in brief and "p2p_sent" not in brief["summary"]
    full = h.inputs.trace.info(path)
    assert {k: v for k, v in full["summary"].items() if not k.startswith("p2p_")} == brief["summary"]
    t = full["traffic"]
    assert len(t["source"]) == n and sum(t["messages"]) == n
    assert h.inputs.trace.dense(t, n)[n - 1][0] == 1024
    # In blocks of 4 ranks (512 cells a side) the ring's n - 1 → 0 pair lands in the corner.
    assert h.inputs.trace.dense(t, n, cells=512)[511][0] == 1024


def test_a_stopped_replay_counts_compute_and_waits_up_to_where_it_stopped(tmp_path):
    # Rank 0 computes 5000 cycles before it sends; rank 1 waits for the message from cycle 0.
    path = tmp_path / "late.trace"
    path.write_text("ranks 2\n0 compute 5000\n0 send 1 64\n1 recv 0 64\n")
    cfg = {"topology": "crossbar:2", "workload": {"trace": str(path)}}
    whole = h.execute(cfg).replay
    assert whole["compute_cycles"] == [5000, 0] and whole["wait_cycles"][1] == whole["finish_cycles"][1] > 5000
    r = h.execute(cfg, max_cycles=1000)
    assert r.status == "partial", r.message
    # Stopped at cycle 1000: 1000 cycles of the compute interval done, 1000 waited.
    assert r.cycles == 1000
    assert r.replay["compute_cycles"] == [1000, 0] and r.replay["wait_cycles"] == [0, 1000]
    # A deadlock: both ranks wait from cycle 0 until the run gives up.
    path.write_text("ranks 2\n0 recv 1 64\n1 recv 0 64\n0 send 1 64\n1 send 0 64\n")
    r = h.execute({**cfg, "workload": {**cfg["workload"], "stall_cycles": 100}})
    assert r.status == "deadlock"
    assert r.replay["wait_cycles"] == [r.cycles, r.cycles] and r.cycles >= 100


def test_kernel_fields_beside_a_trace_are_refused(cli, tmp_path):
    """A trace gives the ranks and messages: a kernel's field written beside it (or set with
    --set) would be silently unread, so it is refused naming the field and its value."""
    (tmp_path / "ok.vef").write_text("VEF 2 1 1 0 0 0\nC0 0 1\n1 0 1 100 0 0 0\n")
    cfg = tmp_path / "rep.toml"
    cfg.write_text('topology = "crossbar:4"\n[workload]\ntrace = "ok.vef"\n')
    assert cli("run", str(cfg)).returncode == 0
    for setting, needle in (("workload.tasks=8", "workload.tasks = 8 is invalid: left out with workload.trace"),
                            ("workload.kernel=bu", "workload.kernel = 'bu' is invalid: left out with workload.trace")):
        r = cli("run", str(cfg), "--set", setting)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr
    # What a replay does read stays allowed.
    assert cli("run", str(cfg), "--set", "workload.placement=random").returncode == 0


def test_workload_cycle_ns_is_the_clock_of_the_results_without_a_link_clock(tmp_path):
    """workload.cycle_ns is the length of a network cycle: traced seconds become cycles of it,
    so the results' times (cycle_ns, execution_time_us) use it too; they were printed at the
    default 1 ns, a quarter of the traced time at cycle_ns = 4."""
    p = h.Program(2)
    p.compute(0, seconds=4e-6)
    p.send(0, 1, 64)
    p.recv(1, 0, 64)
    r = p.run({"topology": "crossbar:2", "workload": {"cycle_ns": 4.0}})
    assert r.replay["compute_cycles"] == [1000, 0]
    assert r.cycle_ns == pytest.approx(4.0)
    assert r.execution_time_us == pytest.approx(r.execution_time_cycles * 4.0 / 1e3)
    assert r.execution_time_us >= 4.0
    # A trace file run the same way (SimGrid sleep is traced seconds).
    trace = tmp_path / "t.txt"
    trace.write_text("0 init\n1 init\n0 sleep 4e-6\n0 send 1 64\n1 recv 0 64\n")
    r = h.execute({"topology": "crossbar:2", "workload": {"trace": str(trace), "format": "simgrid", "cycle_ns": 4.0}})
    assert r.replay["compute_cycles"] == [1000, 0] and r.cycle_ns == pytest.approx(4.0)
    # With a [link] clock the link sets the cycle, as before.
    r = p.run({"topology": "crossbar:2", "link": {"bandwidth": "4 GB/s"}})
    assert r.cycle_ns == pytest.approx(4.0) and r.replay["compute_cycles"] == [1000, 0]


def test_a_simgrid_index_listing_a_rank_twice_is_refused(cli, tmp_path):
    """An index lists one file per rank: a file listed twice gave its rank every call twice
    and left the last rank empty (its replay then deadlocked on the doubled receive)."""
    (tmp_path / "t0").write_text("0 init\n0 send 1 22 64\n")
    (tmp_path / "t1").write_text("1 init\n1 recv 0 22 64\n")
    (tmp_path / "ok.index").write_text("t0\nt1\n")
    assert cli("trace", "info", str(tmp_path / "ok.index")).returncode == 0
    (tmp_path / "twice.index").write_text("t0\nt1\nt1\n")
    r = cli("trace", "info", str(tmp_path / "twice.index"))
    needle = f"error: {tmp_path / 't1'}: line 1 (rank 1): rank 1's lines are also in {tmp_path / 't1'} (index entry 2)"
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith(needle), r.stderr


def test_a_directory_given_as_a_trace_is_named_as_one(cli, tmp_path):
    # It was read as a text trace and failed at "line 1: cannot read: Is a directory".
    r = cli("trace", "info", str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"error: {tmp_path}: a directory, not a trace file"), r.stderr


def test_a_simgrid_index_entry_that_is_no_file_names_the_index_line(cli, tmp_path):
    # A DUMPI .meta read as an index (--format simgrid) failed as "DIR/hostname=x: cannot
    # read", a path that appears nowhere; the index's line is named instead.
    (tmp_path / "t0").write_text("0 init\n")
    (tmp_path / "x.index").write_text("t0\nhostname=x\n")
    r = cli("trace", "info", str(tmp_path / "x.index"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"error: {tmp_path / 'x.index'}: line 2: 'hostname=x' is not a readable file"), r.stderr


def test_an_empty_trace_path_is_refused_naming_the_field(cli, tmp_path):
    """`trace = ""` (or `--set workload.trace=`) names no file: refused as the field's value,
    not as an unreadable file without a name."""
    cfg = tmp_path / "rep.toml"
    cfg.write_text('topology = "crossbar:4"\n[workload]\ntrace = ""\n')
    needle = "workload.trace = '' is invalid: the path of a trace file"
    for args in ((str(cfg),), (str(cfg), "--set", "workload.trace=")):
        r = cli("run", *args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr
    with pytest.raises(h.ConfigError, match="workload.trace = ' ' is invalid: the path of a trace file"):
        h.execute({"topology": "crossbar:4", "workload": {"trace": " "}})


def test_a_program_refuses_the_kernel_fields_it_would_leave_unread(tmp_path):
    # The program gives the ranks and their messages: a kernel, its sizes or jobs in the
    # [workload] table are named, as beside a trace; placement and the algorithm are read.
    p = h.Program(4).barrier()
    for workload, field in [
        ({"kernel": "bu"}, "workload.kernel = 'bu'"),
        ({"message_bytes": "1 KiB"}, "workload.message_bytes = 1024"),
        ({"jobs": [{"kernel": "bu", "tasks": 2}]}, "workload.jobs = 1 [[workload.jobs]] table(s)"),
    ]:
        with pytest.raises(h.ConfigError, match="left out when a Program runs") as e:
            p.run({"topology": "crossbar:8", "workload": workload})
        assert field in str(e.value) and "\n" not in str(e.value)
    # A config file of a kernel run: its kernel (bt, the default) is no obstacle, its size is.
    cfg = tmp_path / "k.toml"
    cfg.write_text('topology = "crossbar:8"\n[workload]\nkernel = "bt"\nplacement = "random"\n')
    assert p.run(cfg).status == "completed"
    cfg.write_text('topology = "crossbar:8"\n[workload]\nmessage_bytes = 64\n')
    with pytest.raises(h.ConfigError, match="workload.message_bytes = 64 is invalid"):
        p.run(cfg)


@pytest.mark.parametrize("call", ["send", "isend"])
def test_a_send_with_the_wildcard_tag_is_named(call):
    # ANY matches on the receiving side only; a send names its tag.
    with pytest.raises(h.ConfigError, match=f"{call}: tag = 'any' is invalid: an integer ≥ 0"):
        getattr(h.Program(2), call)(0, 1, 8, tag=h.ANY)


@pytest.mark.parametrize("event", ["NonBlockingCollectiveRequest", "MpiMrecv", "RmaPut"])
def test_otf2_events_that_move_data_and_are_not_replayed_are_refused(monkeypatch, event):
    # A non-blocking collective (OTF2 3's request/complete events), a matched-probe receive or
    # a one-sided put was skipped: its traffic was missing from the replay without a word.
    otf2 = pytest.importorskip("otf2")
    from contextlib import contextmanager

    from hpcnetsim.inputs import otf2_trace

    real_open = otf2_trace._open
    args = {"NonBlockingCollectiveRequest": (7,), "MpiMrecv": (3, 64), "RmaPut": (None, 1, 64, 0)}[event]

    @contextmanager
    def with_event(path):
        with real_open(path) as tr:
            events = list(tr.events)
            loc, first = events[0]
            events.insert(1, (loc, getattr(otf2.events, event)(first.time, *args)))

            class Reader:
                definitions = tr.definitions

            Reader.events = events
            yield Reader

    monkeypatch.setattr(otf2_trace, "_open", with_event)
    archive = DATA / "otf2_bcast4" / "traces.otf2"
    with pytest.raises(h.ConfigError) as e:
        h.inputs.trace.info(archive)
    message = str(e.value)
    assert message.startswith(f"{archive}: rank ") and f"event {event} is invalid: not replayed" in message
    assert "\n" not in message


def test_a_program_takes_numpy_integers_and_floats():
    # Ranks and sizes often come from numpy (np.arange, an array of sizes): numpy integers are
    # integers, as a Python int of the same value is, and a float32 of seconds is a number.
    np = pytest.importorskip("numpy")
    p, q = h.Program(np.int64(4)), h.Program(4)
    for r in np.arange(4):
        p.compute(r, np.int64(500)).send(r, (r + 1) % 4, np.int32(2048))
        p.recv(r, (r - 1) % 4, np.uint16(2048))
    for r in range(4):
        q.compute(r, 500).send(r, (r + 1) % 4, 2048).recv(r, (r - 1) % 4, 2048)
    p.bcast(np.int64(64), root=np.int64(1))
    q.bcast(64, root=1)
    p.compute(0, seconds=np.float32(0.5))
    q.compute(0, seconds=0.5)
    assert p.text() == q.text()
    # Whole-valued floats and booleans stay refused: a rank or a size is an integer.
    for bad in (1.0, True, np.float64(1.0)):
        with pytest.raises(h.ConfigError, match=r"rank = .* is invalid: a rank in 0\.\.3"):
            h.Program(4).compute(bad, 1)


def test_a_program_refuses_an_algorithm_or_communicator_that_is_not_one_word():
    # The program is kept as text lines: an algorithm or a communicator with spaces or a line
    # break became other calls (here a send of rank 0 written after every allreduce).
    bad = r"allreduce: algorithm = 'ring\\n0 send 1 5' is invalid: a name such as"
    with pytest.raises(h.ConfigError, match=bad):
        h.Program(4).allreduce(64, algorithm="ring\n0 send 1 5")
    with pytest.raises(h.ConfigError, match="algorithm = 3 is invalid"):
        h.Program(4).allreduce(64, algorithm=3)
    for call in ("send", "recv"):
        with pytest.raises(h.ConfigError, match=r"comm = '1 tag=5' is invalid: an integer ≥ 0"):
            getattr(h.Program(4), call)(0, 1, 8, comm="1 tag=5")
    p = h.Program(4)
    assert p.allreduce(64, algorithm="ring").text().count("algorithm=ring") == 4


@pytest.mark.parametrize("workload", ["bu", 3])
def test_a_workload_that_is_not_a_table_is_named(workload):
    # execute() and Program.run() read the [workload] table before the core checks it: a
    # string or a number failed as "'str' object has no attribute 'get'".
    cfg = {"topology": "crossbar:4", "workload": workload}
    for run in (h.execute, h.Program(4).barrier().run):
        with pytest.raises(h.ConfigError, match="config: workload: invalid type: .*, expected a table") as e:
            run(cfg)
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("cycle_ns", [0, -1.0, float("nan"), "1"])
def test_a_program_text_needs_a_positive_cycle(cycle_ns, tmp_path):
    # Compute given in seconds becomes cycles of cycle_ns: 0 raised ZeroDivisionError and a
    # negative clock wrote negative compute times.
    p = h.Program(2).compute(0, seconds=1e-6)
    for write in (p.text, lambda c: p.save(tmp_path / "p.trace", c)):
        with pytest.raises(h.ConfigError, match=r"cycle_ns = .* is invalid: a positive number of ns"):
            write(cycle_ns)
    assert not (tmp_path / "p.trace").exists()
    assert "0 compute 2000" in p.text(0.5)


def test_a_config_dict_takes_pathlib_paths(tmp_path):
    # A trace named by a pathlib.Path (as scripts build them) was refused: "config is invalid:
    # PosixPath('...') is not a number, string, boolean, list or table".
    p = h.Program(2).send(0, 1, 64)
    p.recv(1, 0, 64)
    trace = p.save(tmp_path / "two.trace")
    by_path = h.execute({"topology": "crossbar:2", "workload": {"trace": trace}})
    assert by_path == h.execute({"topology": "crossbar:2", "workload": {"trace": str(trace)}})
    # Other objects are named with their field.
    bad = r"config: workload.kernel = <object object at .*> is invalid: a number"
    with pytest.raises(h.ConfigError, match=bad):
        h.execute({"topology": "crossbar:2", "workload": {"kernel": object()}})


def test_a_program_runs_under_the_budgets_of_execute():
    # Program.run took no budget: a long program could not be stopped after max_cycles or
    # max_seconds, nor run with check or threads, as execute() and workload.trace can.
    p = h.Program(2).compute(0, 100_000).send(0, 1, 64)
    p.recv(1, 0, 64)
    whole = p.run({"topology": "crossbar:2"})
    assert whole.status == "completed" and whole.execution_time_cycles > 100_000
    cut = p.run({"topology": "crossbar:2"}, max_cycles=1000)
    assert cut.status == "partial" and cut.replay["compute_cycles"][0] == 1000
    assert p.run({"topology": "crossbar:2"}, check=True, threads=1) == whole
    seen = []
    p.run({"topology": "crossbar:2"}, progress=seen.append)
    with pytest.raises(h.ConfigError, match="max_cycles = 0 is invalid"):
        p.run({"topology": "crossbar:2"}, max_cycles=0)


def test_programs_compare_by_their_calls():
    # Two programs built alike were unequal (compared as objects); a copy is equal until changed.
    import copy

    a, b = ring_program(), ring_program()
    assert a == b and a != ring_program(8) and a != a.text()
    c = copy.deepcopy(a)
    assert c == a
    c.compute(0, 1)
    assert c != a and a == b
    # Compute given in seconds compares by its seconds, as the program keeps them.
    assert h.Program(2).compute(0, seconds=1e-6) != h.Program(2).compute(0, 1000)


def test_trace_info_names_an_argument_of_the_wrong_type(tmp_path):
    # info(3) was read as a file named "3" ("3: cannot read: No such file or directory (os
    # error 2)"); a format or flag of the wrong type was the core's TypeError.
    path = tmp_path / "two.trace"
    path.write_text("ranks 2\n0 send 1 64\n1 recv 0 64\n")
    assert h.inputs.trace.info(str(path))["summary"]["ranks"] == 2
    for kwargs, message in (
        ({"path": 3}, "trace: path = 3 is invalid: the path of a trace file (a str or os.PathLike)"),
        ({"path": None}, "trace: path = None is invalid: the path of a trace file (a str or os.PathLike)"),
        ({"path": path, "format": 3}, "trace: format = 3 is invalid: auto, text, simgrid, dumpi, vef or otf2"),
        ({"path": path, "matrices": "x"}, "trace: matrices = 'x' is invalid: True or False"),
    ):
        with pytest.raises(h.ConfigError) as e:
            h.inputs.trace.info(**kwargs)
        assert str(e.value) == message
