"""Traces and fabric files are as safe as topology specs: absurd sizes, binary data, damaged
OTF2 archives and references to nothing are refused in one line with exit status 2 (no
Traceback, no out-of-memory abort); OTF2 replays and Programs use the [link] clock; collectives
on a sub-communicator apply to its ranks; every algorithmic routing has a static deadlock check."""

import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

import pytest

import hpcnetsim as h
from hpcnetsim.cli import main

DATA = Path(__file__).parent / "data" / "traces"


def refused(proc, *words):
    """Exit 2, one stderr line naming `words`, no Traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("error:") and all(w in proc.stderr for w in words), proc.stderr


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text) if isinstance(text, bytes) else p.write_text(text)
    return p


@pytest.mark.parametrize(
    "name, text, words",
    [
        ("ranks.trace", "ranks 99999999999\n0 compute 10\n", ["line 1", "ranks = 99999999999"]),
        ("big.trace", f"ranks 2\n0 send 1 {2**40 + 1}\n1 recv 0 {2**40 + 1}\n", ["line 2", "2^40"]),
        ("compute.trace", "ranks 2\n0 compute 99999999999999999999\n1 compute 5\n", ["line 2", "10^12"]),
        ("option.trace", "ranks 2\n0 send 1 100 tag3\n1 recv 0 100 tag=3\n", ["line 2", "'tag3'"]),
    ],
)
def test_bad_text_traces_are_refused_by_trace_info_and_run(cli, tmp_path, name, text, words):
    trace = write(tmp_path, name, text)
    start = time.monotonic()
    refused(cli("trace", "info", str(trace)), name, *words)
    cfg = write(tmp_path, "run.toml", f'topology = "torus:2x2"\n[workload]\ntrace = "{name}"\n')
    refused(cli("run", str(cfg)), name, *words)
    assert time.monotonic() - start < 20


def test_dumpi_numprocs_and_vef_dependencies_are_checked(cli, tmp_path):
    meta = write(tmp_path, "big.meta", "hostname=x\nnumprocs=99999999999\nfileprefix=big\n")
    refused(cli("trace", "info", str(meta)), "big.meta: line 2", "numprocs = 99999999999")
    vef = "VEF 3 3 1 1 3 FALSE\nC0 0 1 2\n0 0 1 640 0 0 -1\n1 1 2 640 2 500 {dep}\n2 2 0 640 2 300 1\n"
    ok = write(tmp_path, "ok.vef", vef.format(dep=0))
    assert cli("trace", "info", str(ok)).returncode == 0
    bad = write(tmp_path, "bad.vef", vef.format(dep=7))
    refused(cli("trace", "info", str(bad)), "bad.vef: line 4", "dependency 2 on message 7")


def test_a_replay_whose_time_series_would_not_fit_is_refused(cli, tmp_path):
    write(tmp_path, "long.trace", "ranks 2\n0 compute 999999999999\n0 send 1 8\n1 recv 0 8\n")
    cfg = write(tmp_path, "run.toml", 'topology = "torus:2x2"\n[workload]\ntrace = "long.trace"\n')
    # 10^9 bins of 1000 cycles: tens of GB, refused with the field to change.
    refused(cli("run", str(cfg)), "long.trace", "measurement.window_cycles = 1000")


@pytest.mark.parametrize(
    "name, text, words",
    [
        ("huge.edges", "link a b\nterminals a 999999999999\n", ["huge.edges:2", "999999999999"]),
        ("dup.edges", "link a b\nterminal h1 a\nterminal h1 b\n", ["dup.edges:3", "'h1'"]),
        ("random.edges", os.urandom(1 << 16), ["random.edges", "binary data"]),
        (
            "radix.topo",
            "MTS800 S1\n   P1 -> MTS800 S2 P1\n   P99999 -> HCA h1 P1\nMTS800 S2\n   P1 -> MTS800 S1 P1\n",
            ["radix.topo:3", "P99999", "8 ports"],
        ),
    ],
)
def test_bad_fabric_files_are_refused(cli, tmp_path, name, text, words):
    path = write(tmp_path, name, text)
    kind = "ibdm" if name.endswith(".topo") else "edges"
    refused(cli("topo", "describe", f"{kind}:{path}"), *words)


def test_a_character_device_is_refused_within_a_second(cli):
    start = time.monotonic()
    refused(cli("topo", "describe", "edges:/dev/urandom"), "binary data")
    assert time.monotonic() - start < 5  # interpreter start-up included; 26 s and 2.1 GB before


# 14 damaged OTF2 archives: every rank file missing, four rank files of random bytes, two empty.
OTF2_DAMAGE = [(f"traces/{r}.{k}", "missing") for r in range(4) for k in ("def", "evt")]
OTF2_DAMAGE += [(f, "random") for f in ("traces/0.def", "traces/1.evt", "traces/2.def", "traces/3.evt")]
OTF2_DAMAGE += [("traces.def", "empty"), ("traces/2.def", "empty")]


@pytest.mark.parametrize("file, damage", OTF2_DAMAGE)
def test_damaged_otf2_archives_are_one_line(tmp_path, capfd, file, damage):
    pytest.importorskip("otf2")
    archive = tmp_path / "a"
    shutil.copytree(DATA / "otf2_bcast4", archive)
    target = archive / file
    if damage == "missing":
        target.unlink()
    else:
        # Seeded, so that a failure can be repeated.
        target.write_bytes(b"" if damage == "empty" else random.Random(file).randbytes(3000))
    assert main(["trace", "info", str(archive / "traces.otf2")]) == 2
    err = capfd.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1 and "Traceback" not in err, err
    assert "traces.otf2" in err


def test_an_otf2_archive_whose_calls_do_not_match_is_named_not_its_conversion(tmp_path, capfd, monkeypatch):
    # `trace info` checks an archive's calls on its conversion to a text trace, written to a
    # temporary folder: the error named that file (/tmp/tmp…/otf2.trace: line 2 (rank 0): …).
    archive = tmp_path / "a"
    shutil.copytree(DATA / "otf2_bcast4", archive)
    monkeypatch.setattr("hpcnetsim.inputs.otf2_trace.to_text", lambda path, cycle_ns=1.0: ("ranks 2\n0 send 1 8\n", []))
    assert main(["trace", "info", str(archive / "traces.otf2")]) == 2
    err = capfd.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1, err
    assert str(archive / "traces.otf2") in err and "otf2.trace" not in err and "never received" in err, err


def test_otf2_callback_tracebacks_stay_out_of_the_output(capsys):
    """The otf2 package's callbacks print a traceback to ``sys.stderr`` when a damaged record
    names no definition; where that is not the process's stderr (Jupyter, pytest) it must be
    captured too, so that the damaged archive stays one line of ours."""
    from hpcnetsim.inputs.otf2_trace import _library_errors

    reported: list[str] = []
    with _library_errors(reported):
        sys.stderr.write("An unhandled python exception has occurred in an OTF2_GlobalEvtReaderCallback:\n")
        sys.stderr.write("Traceback (most recent call last):\nKeyError: 0\n")
    assert "KeyError: 0" in "".join(reported)
    assert capsys.readouterr().err == ""


def test_otf2_replays_and_programs_use_the_link_clock():
    pytest.importorskip("otf2")
    trace = str(DATA / "otf2_coverage10" / "traces.otf2")
    base = {"topology": "tree:k=4,n=2", "workload": {"trace": trace}}
    slow = {**base, "link": {"bandwidth": "4 GB/s"}}
    a, b = h.execute(base), h.execute(slow)
    assert a.status == b.status == "completed"
    # The traced compute becomes more cycles of a faster clock: 1 phit per 0.25 ns at 4 GB/s.
    assert b.execution_time_cycles != a.execution_time_cycles
    assert b.execution_time_us == pytest.approx(b.execution_time_cycles * b.cycle_ns / 1e3)
    p = h.Program(4)
    for r in range(4):
        p.compute(r, 100)
        p.send(r, (r + 1) % 4, 512)
        p.recv(r, (r - 1) % 4, 512)
    run = p.run({"topology": "torus:2x2", "link": {"bandwidth": "4 GB/s"}})
    assert run.cycle_ns == pytest.approx(4.0)
    assert run.execution_time_us == pytest.approx(run.execution_time_cycles * 4.0 / 1e3)
    # Compute given in seconds follows the clock: 4 µs is 4000 cycles of 1 ns, 1000 of 4 ns.
    timed = h.Program(2).compute(0, seconds=4e-6).send(0, 1, 64).recv(1, 0, 64)
    ns1 = timed.run({"topology": "torus:2x2"}).replay["compute_cycles"]
    ns4 = timed.run({"topology": "torus:2x2", "link": {"bandwidth": "4 GB/s"}}).replay["compute_cycles"]
    assert (ns1, ns4) == ([4000, 0], [1000, 0])
    with pytest.raises(h.ConfigError, match="exactly one"):
        timed.compute(0, 5, seconds=1.0)


def test_collectives_on_a_communicator_apply_to_its_ranks():
    p = h.Program(4)
    c = p.communicator([1, 3])
    p.bcast(4096, comm=c)
    p.allreduce(1024, comm=c)
    assert [line.split()[0] for line in p.text().splitlines() if "bcast" in line] == ["1", "3"]
    r = p.run({"topology": "torus:2x2"})
    assert r.status == "completed" and r.messages == 1 + 2
    with pytest.raises(h.ConfigError, match="comm = 9"):
        p.bcast(8, comm=9)
    with pytest.raises(h.ConfigError, match="cycles"):
        p.compute(0, 10**13)
    with pytest.raises(h.ConfigError, match="ranks"):
        h.Program(99999999999)


def test_every_algorithmic_routing_has_a_deadlock_check(cli):
    for spec, routing in [
        ("torus:4x4", "dor"),
        ("torus:4x4", "bubble"),
        ("torus:4x4", "duato"),
        ("tree:k=2,n=3", "tree"),
        ("hyperx:3x3", "hyperx-adaptive"),
        ("twin-torus:3x2x2", "ts-dor"),
    ]:
        r = h.check_deadlock(spec, routing)
        assert r["deadlock_free"] and r["verdict"] == "acyclic", (spec, routing, r)
    assert h.check_deadlock("torus:4x4", "bubble")["basis"] == "bubble-condition"
    assert h.check_deadlock("torus:4x4", "duato")["basis"] == "escape-sub-network"
    ok = cli("route", "torus:8x8", "--routing", "dor", "--check-deadlock")
    assert ok.returncode == 0 and "deadlock-free" in ok.stdout, ok.stderr
    bubble = cli("route", "torus:4x4", "--routing", "bubble", "--check-deadlock")
    assert bubble.returncode == 0 and "bubble flow control" in bubble.stdout
    # The control: DOR on a torus with its two VCs merged into one has a cycle (exit 3).
    bad = cli("route", "torus:4x4", "--routing", "dor", "--vcs", "1", "--check-deadlock", "--json")
    assert bad.returncode == 3, bad.stderr
    rep = json.loads(bad.stdout)
    assert not rep["deadlock_free"] and rep["merged"] and len(rep["verdict"]["cycle"]) >= 2
    refused(cli("route", "torus:4x4", "--routing", "dor"), "--check-deadlock")
    few = cli("route", "torus:4x4", "--routing", "duato", "--vcs", "2", "--check-deadlock")
    refused(few, "switch.vcs = 2")
    cyclic_tables = cli("route", "torus:5x5", "--routing", "minhop", "--check-deadlock")
    assert cyclic_tables.returncode == 3 and "POSSIBLE" in cyclic_tables.stdout


# Found by `make fuzz` (tests/fuzzing.py).


def test_describe_counts_the_channel_loads_in_its_memory_estimate():
    # 94 million ports: twice the graph (3.8 GB) let it pass a 4 GiB address-space limit, and the
    # per-thread channel-load vectors then aborted the process out of memory (3.7 GB peak).
    import subprocess
    import sys

    command = f"ulimit -v {4 << 20}; exec {sys.executable} -m hpcnetsim topo describe hyperx:63x63x63x2"
    start = time.monotonic()
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    refused(proc, "hyperx:63x63x63x2", "memory", "ulimit -v")
    assert time.monotonic() - start < 10


def test_a_trace_of_more_ranks_than_memory_holds_is_refused_before_reading_on(tmp_path):
    # 60 million ranks of about 200 bytes of reader state each (12 GB) under a 4 GiB
    # address-space limit: refused at the `ranks` line, not an out-of-memory abort.
    import subprocess
    import sys

    (tmp_path / "big.trace").write_text("ranks 60000000\n0 compute 10\n")
    command = f"ulimit -v {4 << 20}; exec {sys.executable} -m hpcnetsim trace info {tmp_path / 'big.trace'}"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    refused(proc, "big.trace: line 1", "ranks = 60000000", "memory", "ulimit -v")


@pytest.mark.parametrize(
    "args, words",
    [
        (["topo", "describe", "torus:40x40x40|faults:random=1"], ["64000 switches with terminals", "2^32"]),
        (["topo", "describe", "twin-torus:60x60x60|faults:random=1"], ["2^32"]),
        (["flow", "mpigraph", "mesh:22x30x32"], ["flow.nodes = 21120", "at most 4096 ranks"]),
        (["flow", "ebb", "mesh:20x20x20", "--samples", "10000"], ["flow.samples = 10000 x 8000 nodes", "2^24"]),
    ],
)
def test_work_of_hours_is_refused_at_once(cli, args, words):
    start = time.monotonic()
    refused(cli(*args), *words)
    assert time.monotonic() - start < 10  # minutes to hours before


def test_large_intact_trees_are_still_described():
    """The work bound applies to searches: an intact tree's distances and loads are closed
    forms, so the scale benchmark's 4-ary 8-tree (65 536 terminals) is described."""
    d = h.Topology.from_spec("tree:k=4,kp=4,n=8").describe()
    assert d["terminals"] == 65536 and d["diameter"] == 16


def test_an_argument_with_a_newline_is_one_error_line(capfd):
    assert main(["run", "bad\narg.toml"]) == 2
    err = capfd.readouterr().err
    assert err == "error: bad\\narg.toml: cannot read a TOML config (docs/config.md): No such file or directory\n", err
    assert main(["topo", "describe", "torus:4x4\nx"]) == 2
    err = capfd.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1, err


def test_a_collective_root_outside_its_communicator_is_named_with_what_is_allowed():
    p = h.Program(4)
    for root, where in ((-1, "the world in 0..3"), (4, "the world in 0..3"), ("1", "the world in 0..3"), (True, "the world in 0..3")):
        with pytest.raises(h.ConfigError, match=f"bcast: root = {root!r} is invalid: a rank of {where}"):
            p.bcast(64, root=root)
    c = p.communicator([3, 1, 2])
    with pytest.raises(h.ConfigError, match="reduce: root = 3 is invalid: a rank of communicator 1 in 0..2"):
        p.reduce(64, root=3, comm=c)
    # Nothing was added by the refused calls: the program still runs.
    p.bcast(64, root=2, comm=c)
    assert p.run({"topology": "torus:2x2"}).messages == 2


def test_a_program_of_one_rank_collectives_says_why_nothing_runs():
    """A collective of one rank expands to no message: the run named no reason."""
    with pytest.raises(h.ConfigError) as e:
        h.Program(1).allreduce(100).run({"topology": "crossbar:8"})
    assert str(e.value).endswith("(a collective of one rank sends nothing)"), str(e.value)


def test_a_rank_listed_twice_in_a_collective_is_named():
    """It made the rank call the collective twice; the run then said the others never call it."""
    with pytest.raises(h.ConfigError, match=r"allreduce: ranks = \[0, 0, 1, 2, 3\] is invalid: each rank at most once"):
        h.Program(4).allreduce(100, ranks=[0, 0, 1, 2, 3])
