"""Causal workloads from Python and the command line."""

import json

import pytest

import hpcnetsim
from hpcnetsim import ConfigError


def bt(bytes_=100, **workload):
    return {"topology": "crossbar:8", "workload": {"kernel": "bt", "message_bytes": bytes_, **workload}}


def test_execution_time_of_a_binary_tree_on_a_crossbar():
    # Three stages of one uncontended one-packet message: 3 x (2 links x 1 cycle + 16 - 1).
    r = hpcnetsim.execute(bt())
    assert r.status == "completed"
    assert r.execution_time_cycles == 3 * 17
    assert r.messages == 7
    assert r.to_pandas().loc[0, "execution_time_cycles"] == 3 * 17


def test_collectives_and_placements_run():
    r = hpcnetsim.execute({"topology": "torus:4x4", "switch": {"vcs": 2},
                           "workload": {"kernel": "allreduce", "algorithm": "ring", "message_bytes": 4096,
                                        "placement": "random", "tasks_per_terminal": 2}})  # fmt: skip
    assert r.status == "completed" and r.tasks == 32 and r.messages == 32 * 2 * 31


def test_bad_workloads_are_config_errors():
    with pytest.raises(ConfigError, match="workload.tasks = 8"):
        hpcnetsim.execute({"topology": "torus:2x4", "switch": {"vcs": 2}, "workload": {"kernel": "2w"}})
    with pytest.raises(ConfigError, match="kernel"):
        hpcnetsim.execute({"topology": "crossbar:8", "workload": {"kernel": "zz"}})
    with pytest.raises(ConfigError, match="workload"):
        hpcnetsim.simulate(bt())


def test_run_command_with_a_workload(cli, tmp_path):
    cfg = tmp_path / "bt.toml"
    cfg.write_text('topology = "crossbar:8"\n[workload]\nkernel = "bt"\nmessage_bytes = 100\n')
    r = cli("run", str(cfg), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "execution time    51 cycles" in r.stdout
    doc = json.loads((tmp_path / "out" / "result.json").read_text())
    assert doc["result"]["execution_time_cycles"] == 3 * 17
    r = cli("run", str(cfg), "--loads", "0.1,0.2")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--loads" in r.stderr
