"""The hyperx study (paper 001), quick variant end to end: lanes, the Fig. 1 mpiGraph, eBB per
combination and the collectives, recomputed and compared with the paper's statements."""

import json

import pytest

from hpcnetsim import ConfigError
from hpcnetsim.studies.benchmark_study import load
from hpcnetsim.studies.catalog import find


def test_quick_hyperx_study_runs_end_to_end(cli, tmp_path):
    r = cli("study", "run", "hyperx", "--quick", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "results.json").read_text())
    # DFSSSP needs a few lanes on the faulty HyperX; PARX's four addresses at least as many.
    assert 2 <= res["lanes"]["hyperx/dfsssp"] <= 4
    assert res["lanes"]["hyperx/dfsssp"] <= res["lanes"]["hyperx/parx"] <= 8
    assert res["lanes"]["fat-tree/ftree"] == 1
    mg = {k: v["pair_bandwidth"]["mean"] for k, v in res["mpigraph"].items()}
    # Fig. 1's ordering: fat-tree > PARX > minimal HyperX, whose rack switches share one cable
    # among all seven nodes of a switch.
    assert mg["Fat-Tree"] > mg["HyperX (PARX)"] > 1.3 * mg["HyperX (minimal)"]
    assert res["mpigraph"]["HyperX (minimal)"]["worst_streams_per_cable"] == 7
    ebb = {label: {row["nodes"]: row["ebb"] for row in rows} for label, rows in res["ebb"].items()}
    # 7 nodes share one switch (HyperX) or one edge switch (fat-tree): the full link each.
    assert all(rows[7] == pytest.approx(1.0) for rows in ebb.values())
    # 14 dense nodes: two HyperX switches joined by one cable; PARX detours around it.
    assert ebb["HyperX / PARX / clustered"][14] > 1.2 * ebb["HyperX / DFSSSP / linear"][14]
    assert all(0 < v <= 1.0 + 1e-9 for rows in ebb.values() for v in rows.values())
    assert res["collectives"] and all(
        isinstance(row[label], int) for row in res["collectives"] for label in ebb
    ), "every collective completed"
    report = (tmp_path / "report.md").read_text()
    assert "| HyperX (minimal) |" in report and "0.84" in report and (tmp_path / "mpigraph.png").exists()
    # study tables takes the study's output folder, as for every other study: its report's tables.
    t = cli("study", "tables", str(tmp_path))
    assert t.returncode == 0, t.stderr
    assert t.stdout.startswith("#### Lanes per routing engine") and "| HyperX (minimal) |" in t.stdout


def test_study_file_errors_are_one_line(tmp_path):
    bad = tmp_path / "x.toml"
    bad.write_text(find("hyperx").read_text().replace('network = "hyperx"', 'network = "dragonfly"', 1))
    with pytest.raises(ConfigError, match="combinations.network"):
        load(bad)
    bad.write_text('runner = "static-routing-benchmarks"\nbogus = 1\n')
    with pytest.raises(ConfigError, match="bogus"):
        load(bad)


def test_the_description_counts_the_cables_the_faults_are_drawn_from():
    # It said "15 of its 684 cables missing": 684 are the paper's optical cables, but the 15
    # failed links are drawn from all the HyperX's switch-to-switch links.
    import re
    import tomllib

    import hpcnetsim

    study = tomllib.loads(find("hyperx").read_text())
    spec = study["networks"]["hyperx"]
    faults = int(re.search(r"random=(\d+)", spec).group(1))
    whole = hpcnetsim.Topology.from_spec(spec.split("|")[0]).describe()["switch_links"]
    text = " ".join(study["description"].split())
    assert f"{faults} of its {whole} switch-to-switch cables missing" in text, text
