"""Loads as percentages of the host bandwidth (paper 003's normalized injection rate and
throughput): the `link.host_bandwidth` field, the extoll technology preset that carries it,
and the conversion both ways."""

import json
import subprocess
import sys

import pytest

import hpcnetsim
from hpcnetsim.units import load_to_pct_host, pct_host_to_load, physical

SHORT = {"warmup_cycles": 500, "window_cycles": 200, "batches": 1, "batch_cycles": 1000}


def run(**link):
    cfg = {"topology": "torus:4x4", "technology": "extoll", "switch": {"vcs": 3},
           "routing": {"algorithm": "duato"},
           "traffic": {"load": 0.3, "packet_phits": 1, "packet_phits_max": 8},
           "measurement": SHORT, **({"link": link} if link else {})}  # fmt: skip
    return hpcnetsim.simulate(cfg), cfg


def test_extoll_preset_carries_the_host_bandwidth_and_results_give_percentages():
    r, cfg = run()
    assert r.host_bandwidth_mb_s == pytest.approx(10_400.0)
    # The links run at the host rate: one phit per cycle is 100 % of the host bandwidth.
    assert r.offered_pct_host == pytest.approx(100 * r.offered_load)
    assert r.accepted_pct_host == pytest.approx(100 * r.accepted_load)
    # The same figure reached through the bytes per second of the result.
    assert r.accepted_pct_host == pytest.approx(r.accepted_mb_s_per_node / r.host_bandwidth_mb_s * 100)


def test_conversion_round_trip_with_a_slower_host():
    fast, _ = run()
    slow, cfg = run(host_bandwidth="5.2 GB/s")
    # Half the host bandwidth, the same simulation: twice the percentage.
    assert slow.accepted_load == fast.accepted_load
    assert slow.accepted_pct_host == pytest.approx(2 * fast.accepted_pct_host)
    clock = physical(json.dumps(cfg))
    assert clock["host_bytes_per_s"] == pytest.approx(5.2e9)
    for load in (0.0, 0.25, slow.accepted_load, 1.0):
        assert pct_host_to_load(load_to_pct_host(load, clock), clock) == pytest.approx(load)
    assert load_to_pct_host(slow.accepted_load, clock) == pytest.approx(slow.accepted_pct_host)


def test_no_host_bandwidth_no_percentages():
    r = hpcnetsim.simulate({"topology": "torus:4x4", "switch": {"vcs": 2}, "traffic": {"load": 0.2},
                            "measurement": SHORT})  # fmt: skip
    assert "accepted_pct_host" not in r.to_dict() and r.accepted_mb_s_per_node > 0


def test_bad_host_bandwidth_is_a_one_line_error(tmp_path):
    with pytest.raises(hpcnetsim.ConfigError, match="link.host_bandwidth"):
        hpcnetsim.simulate({"topology": "torus:4x4", "link": {"host_bandwidth": "fast"}})
    path = tmp_path / "c.toml"
    path.write_text('topology = "torus:4x4"\n[link]\nhost_bandwidth = "0 GB/s"\n')
    p = subprocess.run([sys.executable, "-m", "hpcnetsim", "run", str(path)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "link.host_bandwidth" in p.stderr, p.stderr
