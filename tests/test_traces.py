"""Trace replay and user programs from Python and the command line: a Program runs like any
workload, replays its own text, `hpcnetsim run` accepts a trace and writes the per-rank table
and traffic matrix, `hpcnetsim trace info` summarises without simulating, bad traces fail in
one line."""

import csv
import json
from pathlib import Path

import pytest

import hpcnetsim as h

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
    traffic = r.replay["traffic"]["messages"]
    assert traffic[3][0] == 1 + 1 + 6  # ring send, tagged send, 6 allreduce steps
    assert sum(map(sum, traffic)) == r.messages
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
    matrix = list(csv.reader(open(tmp_path / "out" / "traffic_bytes.csv")))
    # Ranks 0 <-> 2 and 1 <-> 3 exchange 2e9 bytes each way.
    assert int(matrix[1 + 0][1 + 2]) == 2_000_000_000 and int(matrix[1 + 1][1 + 3]) == 2_000_000_000
    assert (tmp_path / "out" / "traffic.png").stat().st_size > 0


def test_trace_info_without_simulating(cli, tmp_path):
    trace = DATA / "simgrid_taz_p2p" / "concurrent" / "trace.index"
    r = cli("trace", "info", str(trace), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["summary"]["ranks"] == 4
    assert d["summary"]["calls"][0] == {"compute": 2, "finalize": 1, "init": 1, "send": 2}
    assert d["traffic"]["messages"][0][2] == 2
    r = cli("trace", "info", str(trace))
    assert "ranks             4" in r.stdout


def test_bad_traces_fail_in_one_line(cli, tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("ranks 2\n0 send 1 64\n1 recv 0 64\n1 jump 3\n")
    r = cli("trace", "info", str(bad))
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {bad}: line 4 (rank 1): unknown call 'jump'; allowed: " + r.stderr.split(
        "allowed: "
    )[1].strip()
    assert r.stderr.count("\n") == 1
    r = cli("trace", "info", str(bad), "--format", "csv")
    assert r.returncode == 2 and "--format = 'csv' is invalid" in r.stderr
