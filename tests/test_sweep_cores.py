"""A local sweep hands the cores its finished points leave idle to the points still running
(issue: sweeps use the cores they leave idle), without changing any result."""

import json

import pytest

from hpcnetsim import _core
from hpcnetsim.experiments import executors, worker


@pytest.mark.parametrize(
    "jobs, unfinished, cores",
    [(2, 10, 1), (2, 2, 1), (2, 1, 2), (8, 3, 2), (8, 1, 8), (8, 0, 8), (1, 1, 1), (16, 5, 3)],
)
def test_each_running_point_gets_its_share_of_the_idle_cores(jobs, unfinished, cores):
    assert executors.cores_per_point(jobs, unfinished) == cores


#: Large enough (>= the channels from which the automatic choice tries two threads) and short.
CONFIG = json.dumps(
    {
        "topology": "tree:k=4,kp=4,n=6",
        "seed": 3,
        "traffic": {"load": 0.4},
        "measurement": {"warmup_cycles": 600, "window_cycles": 300, "convergence_windows": 1,
                        "max_convergence_cycles": 300, "batches": 2, "batch_cycles": 400},
    }
)


class Shared:
    """Stands for the shared value of a sweep's worker process."""

    def __init__(self, value):
        self.value = value


def test_a_point_handed_more_cores_gives_the_result_of_one_thread(monkeypatch):
    alone = json.loads(_core.simulate(CONFIG, threads=1))
    monkeypatch.setattr(worker, "_cores", Shared(2))
    result, error = worker.run_point(CONFIG)
    assert error is None
    handed = json.loads(result)
    for key in ("accepted_load", "latency", "packet_hops", "batch_accepted_loads"):
        assert handed[key] == alone[key], key


def test_a_progress_callback_may_answer_with_cores():
    seen = []

    def offer(progress):
        seen.append(progress["cycle"])
        return 2

    handed = json.loads(_core.simulate(CONFIG, progress=offer, threads=1))
    assert seen, "the callback was asked"
    assert handed["packet_hops"] == json.loads(_core.simulate(CONFIG, threads=1))["packet_hops"]


def test_a_sweep_with_fewer_points_than_workers_gives_each_points_result():
    configs = [json.dumps({**json.loads(CONFIG), "seed": s}) for s in (1, 2, 3)]
    got = {key: json.loads(r) for key, r, e in executors.run_local([(str(i), c) for i, c in enumerate(configs)], jobs=2)}
    for i, c in enumerate(configs):
        assert got[str(i)]["packet_hops"] == json.loads(_core.simulate(c, threads=1))["packet_hops"]
