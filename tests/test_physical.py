"""Physical units in results and configs, the NIC model through Python, bench-net and the
quick Quadrics study (paper 004)."""

import math
import re
import subprocess
import sys

import pandas
import pytest

import hpcnetsim
from hpcnetsim.studies import netbench
from hpcnetsim.studies.quadrics import run_study
from hpcnetsim.studies.catalog import find

QSNET = {"topology": "tree:k=4,n=2", "technology": "qsnet"}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "hpcnetsim", *args], capture_output=True, text=True)


def test_results_carry_physical_columns():
    cfg = {**QSNET, "workload": {"kernel": "barrier", "message_bytes": "1 KiB"}}
    r = hpcnetsim.execute(cfg)
    assert r.cycle_ns == pytest.approx(5.0)
    assert r.link_bandwidth_mb_s == pytest.approx(400.0)
    assert r.execution_time_us == pytest.approx(r.execution_time_cycles * 5.0 / 1e3)
    frame = r.to_pandas()
    assert "execution_time_us" in frame.columns and "cycle_ns" in frame.columns
    # Independent traffic: loads in MB/s per node (16-byte phits, 1 ns cycles by default).
    s = hpcnetsim.simulate({"topology": "crossbar:4", "traffic": {"load": 0.1},
                            "measurement": {"warmup_cycles": 200, "batches": 1, "batch_cycles": 1000,
                                            "window_cycles": 100}})  # fmt: skip
    assert s.offered_mb_s_per_node == pytest.approx(0.1 * 16 / 1.0 * 1e3)


def test_bad_units_are_one_line_errors(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('topology = "tree:k=4,n=2"\n[link]\nbandwidth = "fast"\n')
    p = cli("run", str(path))
    assert p.returncode == 2 and "link.bandwidth" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    with pytest.raises(hpcnetsim.ConfigError, match="nic.send_overhead"):
        hpcnetsim.execute({**QSNET, "nic": {"send_overhead": "3 MB"}, "workload": {"kernel": "barrier"}})


def test_one_and_three_switches_differ_by_two_hops():
    f = netbench.hops(QSNET)
    assert f.attrs["per_hop_ns"] == pytest.approx(f.attrs["hop_ns"]) == pytest.approx(50.0)


def test_an_infiniband_host_adapter_is_not_a_switch():
    # QDR preset: 4 B phits at 4 GB/s, 1 ns cycles; a 0-byte message is its 26 B header, 7
    # phits, whose tail arrives 6 cycles behind the head. One switch between the two NICs:
    # overheads 0.5 + 0.5 us, the NIC's cable 5 ns, the switch 100 ns and its cable 5 ns.
    # The adapters once counted as switches too (1.216 us).
    f = netbench.hops({"topology": "hyperx:4x4,t=2", "technology": "qdr-infiniband"})
    near = f.set_index("destination")["latency_us"]["near"]
    assert near * 1e3 == pytest.approx(500 + 500 + 5 + 100 + 5 + 6, abs=0.5)
    assert f.attrs["per_hop_ns"] == pytest.approx(105.0)
    with pytest.raises(hpcnetsim.ConfigError, match=r"link.nic_wire_latency.*'0.2 ns'.*half a cycle"):
        hpcnetsim.simulate({"topology": "crossbar:4", "link": {"nic_wire_latency": "0.2 ns"}})
    with pytest.raises(hpcnetsim.ConfigError, match=r"link.nic_wire_latency.*wormhole"):
        hpcnetsim.simulate({**QSNET, "link": {"nic_wire_latency": "5 ns"}})


def test_ping_reaches_the_host_limit_and_total_exchange_respects_eq_1():
    main = netbench.ping(QSNET, [0, 64, 1 << 20])
    assert main["bandwidth_mb_s"].iloc[-1] == pytest.approx(200.0, rel=0.01)
    ex = netbench.exchange(QSNET, [64, 4096], nodes=8)
    assert (ex["time_us"] >= ex["bound_us"]).all()


def test_bench_net_runs_on_a_multi_plane_network():
    # The benchmarks place their ranks on endpoints; on two planes they once took terminal
    # indices of the second plane (terminal 16 is endpoint 0's other port) and failed.
    two = {**QSNET, "topology": "tree:k=4,n=2|planes:2"}
    hops = netbench.hops(two)
    assert list(hops["terminal"]) == [1, 15] and hops.attrs["per_hop_ns"] == pytest.approx(50.0)
    # One message at a time crosses one plane, a copy of the single network: the same times.
    sizes = [0, 64, 4096]
    assert list(netbench.ping(two, sizes)["latency_us"]) == pytest.approx(list(netbench.ping(QSNET, sizes)["latency_us"]))
    # A node sends on both planes at once: a permutation beats one NIC's rate, and the bound
    # of both NICs still holds, for contention and eq. 1 alike.
    one_nic = netbench.contention(QSNET, messages=2)["nic_mb_s"].iloc[0]
    c = netbench.contention(two, messages=2).set_index("pattern")
    assert (c["nic_mb_s"] == 2 * one_nic).all() and (c["per_node_mb_s"] <= c["nic_mb_s"]).all()
    assert c.loc["permutation", "per_node_mb_s"] > one_nic
    ex = netbench.exchange(two, [1024, 16384], nodes=8)
    assert (ex["time_us"] >= ex["bound_us"]).all()


def test_bench_net_cli_writes_tables_and_figures(tmp_path):
    p = cli("bench-net", "hops", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert "per_hop_ns = 50" in p.stdout and (tmp_path / "hops.csv").exists()


def test_bench_net_progress_names_each_benchmark_and_its_time():
    # A total exchange of a 4-ary 4-tree ran for over 15 minutes without a word on stderr.
    p = cli("bench-net", "hops", "--progress")
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert lines[0] == "bench-net: hops ..." and re.fullmatch(r"bench-net: hops took \d+\.\d s", lines[1]), lines
    assert cli("bench-net", "hops", "--no-progress").stderr == ""


def test_bench_net_all_leaves_out_hops_where_it_cannot_run():
    """On a torus with one terminal per switch ``hops`` has no neighbour to ping: ``all`` says
    so first and runs the others, where it once ran them all and then failed without a table."""
    from hpcnetsim.studies import netbench_run

    p = cli("bench-net", "all", "--quick", "--topology", "torus:2x2")
    assert p.returncode == 0, p.stderr
    assert p.stderr.startswith("hops: not run: topology = torus:2x2 has no other terminal"), p.stderr
    assert "== ping ==" in p.stdout and "== barrier ==" in p.stdout and "== hops ==\nnot run:" in p.stdout
    assert netbench_run.skipped("all", QSNET) == {}
    with pytest.raises(hpcnetsim.ConfigError, match="bench-net hops: topology = crossbar:4 has all its terminals"):
        netbench_run.run("hops", {**QSNET, "topology": "crossbar:4"})


def test_bench_net_takes_empty_flags_as_given():
    """An empty --topology is a bad spec and an empty --technology no preset (as in a config);
    both once fell back to the defaults (the QsNET 4-ary 2-tree) without a word."""
    p = cli("bench-net", "hops", "--topology", "")
    assert p.returncode == 2 and "spec = ''" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    p = cli("bench-net", "hops", "--technology", "")
    assert p.returncode == 0, p.stderr
    assert "hop_ns = 1\n" in p.stdout  # 1 ns cycles, one cycle per hop: no QsNET preset (50 ns)


def test_quadrics_quick_study_end_to_end(tmp_path):
    out, md = run_study(find("quadrics"), tmp_path, quick=True)
    table = pandas.read_csv(out / "summary.csv")
    assert table["ours"].map(math.isfinite).all(), table
    ours = dict(zip(table["quantity"], table["ours"]))
    assert ours["latency per hop (1 vs 3 switches)"] == pytest.approx(50.0)
    assert ours["1024 nodes (4-ary 5-tree): switches on the longest route"] == 9
    for name in ("report.html", "ping-bandwidth.svg", "exchange.png", "summary.md"):
        assert (out / name).exists(), name
    assert "| published |" in md


def test_experiments_sweep_technology_link_and_nic_fields(tmp_path):
    from hpcnetsim.experiments import experiment

    path = tmp_path / "e.toml"
    path.write_text('name = "nic"\n[base]\ntopology = "tree:k=4,n=2"\nworkload.kernel = "alltoall"\n'
                    '[[sweep]]\naxes.technology = ["qsnet", "qdr-infiniband"]\n'
                    'axes.workload.message_bytes = [64, "4 KiB"]\naxes.nic.source_buffer = ["host", "nic"]\n')  # fmt: skip
    exp = experiment.load(path)
    assert len(exp.points) == 8
    cfg = exp.points[-1].config
    assert cfg["technology"] == "qdr-infiniband" and cfg["workload"]["message_bytes"] == 4096
    assert cfg["nic"]["source_buffer"] == "nic" and cfg["switch"]["phit_bytes"] == 4


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda cfg: netbench.hotspot(cfg, processes=[0]), "hotspot: processes = 0 is invalid: counts of writers"),
        (lambda cfg: netbench.exchange(cfg, nodes=1), "exchange: nodes = 1 is invalid: a number of nodes from 2 to 8"),
        (lambda cfg: netbench.exchange(cfg, nodes=99), "exchange: nodes = 99 is invalid"),
        (lambda cfg: netbench.barrier(cfg, nodes=[1]), "barrier: nodes = 1 is invalid"),
        (lambda cfg: netbench.contention(cfg, messages=0), "contention: messages = 0 is invalid"),
        (lambda cfg: netbench.ping(cfg, sizes=[2**40]), "ping: sizes = 1099511627776 is invalid"),
        (lambda cfg: netbench.ping(cfg, sizes=[0.5]), "ping: sizes = 0.5 is invalid"),
        (lambda cfg: netbench.bidirectional(cfg, src=3, dst=3), "bidirectional: dst = 3 is invalid"),
        # hops named an internal distance() argument or "terminal a" for a bad src.
        (lambda cfg: netbench.hops({"topology": "tree:k=4,n=2"}, src=-1), "hops: src = -1 is invalid: an endpoint"),
        (lambda cfg: netbench.hops({"topology": "tree:k=4,n=2"}, src=16), "hops: src = 16 is invalid: an endpoint"),
        # An empty list ran every count (processes, nodes) or returned an empty table (sizes).
        (lambda cfg: netbench.hotspot(cfg, processes=[]), "hotspot: processes = [] is invalid"),
        (lambda cfg: netbench.barrier(cfg, nodes=[]), "barrier: nodes = [] is invalid"),
        (lambda cfg: netbench.ping(cfg, sizes=[]), "ping: sizes = [] is invalid"),
        (lambda cfg: netbench.exchange(cfg, sizes=[]), "exchange: sizes = [] is invalid"),
    ],
)
def test_microbenchmark_arguments_are_named_when_out_of_range(call, message):
    """Counts below range ran empty programs ("trace: no MPI call to replay"), a node count
    above the network named an internal field, and a 2^40-byte ping ran for hours."""
    with pytest.raises(hpcnetsim.ConfigError) as e:
        call({"topology": "crossbar:8"})
    assert str(e.value).startswith(message) and "\n" not in str(e.value), str(e.value)


def test_a_clear_to_send_does_not_wait_behind_the_nics_outgoing_data():
    """Rendezvous: the receiver's NIC answers a request at once (docs/physical.md). The answer
    once queued behind everything that NIC was sending, so a node that received a long message
    from another switch while sending one to its neighbour finished both in twice the time of
    one: the 1 MiB ring allreduce on 28 nodes of a two-switch fat-tree took 1.5x its steps."""
    cfg = {"topology": "tree:k=4,n=3", "technology": "qdr-infiniband"}
    size = 37449  # above the preset's 12 KiB rendezvous threshold

    def time(placement):
        # Task 1 sends to task 0 (its switch) and receives from task 2.
        p = hpcnetsim.Program(3)
        p.send(1, 0, size).send(2, 1, size).recv(0, 1, size).recv(1, 2, size)
        run = {**cfg, "workload": {"placement": "list", "placement_list": placement}}
        return p.run(run).execution_time_cycles

    alone = netbench.ping(cfg, sizes=[size], src=0, dst=4)["latency_us"][0] * 1e3  # 1 ns cycles
    far = time([0, 1, 4])  # task 2 behind two more switches
    assert far < 1.1 * alone, (far, alone)
    assert far >= alone
