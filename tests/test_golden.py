"""Golden results: seeded runs of small configurations drawn from the built-in studies, stored
in tests/golden/results.json, must not move. They change only on purpose: regenerate with
``HPCNETSIM_REGENERATE_GOLDEN=1 pytest tests/test_golden.py`` in a commit that says why, with
the before/after in docs/validation.md."""

import json
import os
from pathlib import Path

import pytest

import hpcnetsim

GOLDEN = Path(__file__).parent / "golden" / "results.json"
SHORT = {"warmup_cycles": 2000, "window_cycles": 500, "batches": 2, "batch_cycles": 2000}

#: name -> config: one or two points of every built-in study, small enough for the suite.
CASES = {
    # thin-trees (paper 000 §5.2): kernels on a 64-node thin-tree and its complete tree.
    **{f"thin-trees {k} {t}": {"topology": t, "seed": 1, "switch": {"vcs": 1, "phit_bytes": 16},
                               "routing": {"algorithm": "tree-adaptive", "selection": "least-occupied"},
                               "workload": {"kernel": k, "message_bytes": 40960, "placement": "linear",
                                            **({"return_sweep": True} if k == "2w" else {})}}
       for k in ("bu", "2w", "bt") for t in ("tree:k=8,kp=4,n=2", "tree:k=8,n=2")},
    # workloads (paper 002 §4): 640-byte kernels on the three networks (the crossbar with
    # virtual output queues: the paper's perfect crossbar).
    **{f"workloads {k} {t}": {"topology": t, "seed": 1,
                              "switch": {"vcs": 4, "phit_bytes": 4, **({"buffers": "voq"} if a == "direct" else {})},
                              "routing": {"algorithm": a},
                              "workload": {"kernel": k, "message_bytes": 640, "tasks": 64, "placement": "linear"}}
       for k in ("bu", "2m") for t, a in (("crossbar:64", "direct"), ("tree:k=2,n=6", "tree-adaptive"),
                                            ("torus:8x8", "bubble-adaptive"))},
    # thin-trees-throughput (paper 000 Fig. 4): uniform traffic below and beyond saturation.
    **{f"throughput {t} {vcs}vc {load}": {"topology": t, "seed": 1, "switch": {"vcs": vcs},
                                          "routing": {"algorithm": "tree-adaptive", "selection": "least-occupied"},
                                          "traffic": {"load": load}, "measurement": SHORT}
       for t in ("tree:k=8,kp=4,n=2",) for vcs in (1, 2) for load in (0.2, 1.0)},
    # the torus of the engine comparisons: DOR beyond saturation.
    "torus 8x8 dor 1.0": {"topology": "torus:8x8", "seed": 1, "switch": {"vcs": 2}, "routing": {"algorithm": "dor"},
                          "traffic": {"load": 1.0}, "measurement": SHORT},
}  # fmt: skip


def _result(cfg):
    if "workload" in cfg:
        r = hpcnetsim.execute(cfg)
        return {"status": r.status, "execution_time_cycles": r.execution_time_cycles, "messages": r.messages}
    r = hpcnetsim.simulate(cfg)
    return {"status": r.status, "accepted_load": r.accepted_load, "latency_mean": r.latency["network"]["mean"],
            "packets_generated": r.packets_generated}  # fmt: skip


def test_golden_results_do_not_move():
    got = {name: _result(cfg) for name, cfg in CASES.items()}
    if os.environ.get("HPCNETSIM_REGENERATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        pytest.skip("golden results regenerated")
    want = json.loads(GOLDEN.read_text())
    assert set(got) == set(want), "the golden cases changed: regenerate on purpose"
    moved = {name: (want[name], got[name]) for name in got if got[name] != want[name]}
    assert not moved, f"golden results moved (before, after): {moved}"
