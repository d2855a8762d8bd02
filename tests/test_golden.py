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
    # twin-torus (paper 003): the extoll technology and switch presets (virtual output queues,
    # iSLIP, one-cell credits, 1-32-cell packets) on a 5D twin torus and a 3D torus, and a
    # collective on them.
    **{f"extoll {a} {t} 0.5": {"topology": t, "seed": 1, "technology": "extoll",
                               "switch": {"preset": "extoll", "vcs": vcs, "phit_bytes": 16, "queue_packets": 4},
                               "routing": {"algorithm": a},
                               "traffic": {"load": 0.5, "packet_phits": 1, "packet_phits_max": 32}, "measurement": SHORT}
       for t, a, vcs in (("twin-torus:4x4x2x2x2", "ts-dor", 4), ("torus:4x4x4", "duato", 3))},
    "extoll alltoall 512 twin-torus:4x2x2x2x2": {
        "topology": "twin-torus:4x2x2x2x2", "seed": 1, "technology": "extoll",
        "switch": {"preset": "extoll", "vcs": 4, "phit_bytes": 16, "queue_packets": 4},
        "routing": {"algorithm": "ts-dor"}, "workload": {"kernel": "alltoall", "message_bytes": 512}},
    # quadrics (paper 004): the elite wormhole switch under uniform traffic, and a kernel on the
    # qsnet technology (Elan3 host path, 400 MB/s links).
    "elite tree:k=4,n=3 0.6": {"topology": "tree:k=4,n=3", "seed": 1, "switch": {"preset": "elite"},
                               "traffic": {"load": 0.6}, "measurement": SHORT},
    "qsnet bu 4096 tree:k=4,n=2": {"topology": "tree:k=4,n=2", "seed": 1, "technology": "qsnet",
                                   "workload": {"kernel": "bu", "message_bytes": 4096}},
}  # fmt: skip

#: name -> (kind, config): the flow-level model (paper 001's eBB and mpiGraph).
FLOW_CASES = {
    "flow ebb hyperx:4x4,t=2 hyperx-dor": ("ebb", {"topology": "hyperx:4x4,t=2", "seed": 1,
                                                   "routing": {"algorithm": "hyperx-dor"}, "flow": {"samples": 20}}),
    "flow ebb hyperx:4x4,t=2 dfsssp": ("ebb", {"topology": "hyperx:4x4,t=2", "seed": 1, "switch": {"vcs": 8},
                                               "routing": {"algorithm": "table", "engine": "dfsssp"},
                                               "flow": {"samples": 20}}),
    "flow ebb tree:k=4,kp=2,n=3 spread": ("ebb", {"topology": "tree:k=4,kp=2,n=3", "seed": 1,
                                                  "routing": {"algorithm": "tree-adaptive"}, "flow": {"samples": 20}}),
    "flow mpigraph tree:k=4,kp=2,n=2": ("mpigraph", {"topology": "tree:k=4,kp=2,n=2", "seed": 1,
                                                     "routing": {"algorithm": "tree-adaptive"}}),
}  # fmt: skip


def _result(cfg):
    if "workload" in cfg:
        r = hpcnetsim.execute(cfg)
        return {"status": r.status, "execution_time_cycles": r.execution_time_cycles, "messages": r.messages}
    r = hpcnetsim.simulate(cfg)
    return {"status": r.status, "accepted_load": r.accepted_load, "latency_mean": r.latency["network"]["mean"],
            "packets_generated": r.packets_generated}  # fmt: skip


def _flow_result(kind, cfg):
    if kind == "ebb":
        r = hpcnetsim.ebb(cfg).to_dict()
        return {"ebb": r["ebb"], "p5": r["distribution"]["p5"], "p95": r["distribution"]["p95"]}
    r = hpcnetsim.mpigraph(cfg).to_dict()
    return {"pair_bandwidth": r["pair_bandwidth"], "worst_streams_per_cable": r["worst_streams_per_cable"],
            "row_sums": [sum(row) for row in r["bandwidth"]]}


def test_golden_results_do_not_move():
    got = {name: _result(cfg) for name, cfg in CASES.items()}
    got |= {name: _flow_result(kind, cfg) for name, (kind, cfg) in FLOW_CASES.items()}
    if os.environ.get("HPCNETSIM_REGENERATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        pytest.skip("golden results regenerated")
    want = json.loads(GOLDEN.read_text())
    assert set(got) == set(want), "the golden cases changed: regenerate on purpose"
    moved = {name: (want[name], got[name]) for name in got if got[name] != want[name]}
    assert not moved, f"golden results moved (before, after): {moved}"
