"""The twin-torus study (paper 003 §4) end to end in its quick variant: sweep with repetitions,
report with confidence bands, the paper's comparisons and Tables II-III beside ours."""

import math
import tomllib

import pytest
from hpcnetsim.studies import catalog as studies
from hpcnetsim.studies import comparisons
from hpcnetsim import confidence
from hpcnetsim.experiments import experiment
from hpcnetsim.reports import report
from hpcnetsim.experiments.sweep import run_sweep


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("twin-torus")
    exp = experiment.load(studies.find("twin-torus"), quick=True)
    summary = run_sweep(exp, out, jobs=2, progress=False)
    return exp, summary, out


def test_the_full_study_is_the_papers():
    path = studies.find("twin-torus")
    assert tomllib.loads(path.read_text())["repetitions"] == 30  # paper 003 §4.1
    exp = experiment.load(path, repetitions=1)  # the points, without expanding 30 seeds each
    tops = {p.config["topology"] for p in exp.points}
    for d3, d5 in (("8x8x4", "4x4x2x2x2"), ("8x8x8", "4x4x2x4x2"), ("16x8x8", "4x4x2x4x4"), ("16x16x8", "4x4x4x4x4")):
        assert f"torus:{d3}" in tops and f"twin-torus:{d5}" in tops  # Table I
    kernels = {(p.config["workload"]["kernel"], p.config["workload"]["message_bytes"])
               for p in exp.points if "workload" in p.config}  # fmt: skip
    assert kernels == {(k, b) for k in ("bcast", "reduce", "allgather", "alltoall") for b in (16, 512)}
    # The quick groups add no simulation to the full run: their points are the full groups' points.
    assert not any(p.group.endswith("-quick") for p in exp.points)


def test_quick_variant_runs_every_point(quick):
    exp, summary, out = quick
    assert exp.repetitions == 2 and summary.failed == [] and summary.troubled == []
    assert summary.ran == len(exp.points) > 0
    assert set(summary.statuses) == {"converged", "completed"}


def test_report_shows_intervals_and_the_papers_values(quick):
    exp, summary, out = quick
    page = report.write_report(out).read_text()
    for heading in ("Fig. 7, 256 PEs", "Means and confidence intervals", "The paper's comparisons and ours",
                    "Table II: average packet network latency", "Table III: execution time"):  # fmt: skip
        assert heading in page
    assert (out / "figures" / "figure-1.svg").is_file()
    doc, df = report.load(out)
    agg = confidence.aggregate(df)
    thr = agg[agg["status"] == "converged"]
    assert (thr["repetitions"] == 2).all() and (thr["accepted_load_ci"] >= 0).all()
    # Accepted load equals offered load well below saturation, on every network.
    low = thr[thr["traffic.load"] == 0.1]
    assert len(low) == 6 and ((low["accepted_load"] - 0.1).abs() < 0.01).all()
    # Paper 003's normalized rates: the EXTOLL links run at the host bandwidth, so a load is
    # the same percentage of it; the adaptive 3D torus is Duato's routing.
    assert ((thr["offered_pct_host"] - 100 * thr["offered_load"]).abs() < 1e-6).all()
    assert ((thr["accepted_pct_host"] - 100 * thr["accepted_load"]).abs() < 1e-6).all()
    assert "accepted load (% of host bandwidth)" in page
    assert set(thr.loc[thr["topology"] == "torus:8x8x4", "routing.algorithm"]) == {"dor", "duato"}


def test_comparisons_are_computed_from_our_runs(quick):
    exp, summary, out = quick
    doc, df = report.load(out)
    agg = confidence.aggregate(df)
    sat = report.saturation(agg)
    comp = comparisons.comparisons_frame(doc, agg, sat)
    mine = comp[comp["paper"].str.startswith("256 PEs")]
    assert len(mine) == 4 and mine["ours (%)"].notna().all()
    for _, r in mine.iterrows():  # the percentage is the one of the two values shown beside it
        kind = "increase" if r["measure"].startswith("increase") else "reduction"
        assert r["ours (%)"] == pytest.approx(comparisons.change(r["baseline (ours)"], r["candidate (ours)"], kind))
    assert comp[comp["paper"].str.startswith("2048")]["ours (%)"].isna().all()  # not simulated in quick
    (title, table), _ = comparisons.pair_frames(doc, agg)
    assert title.startswith("Table II")
    rows = table.set_index(["workload.kernel", "workload.message_bytes"])
    bcast = rows.loc[("bcast", "16")]
    assert bcast["256 PEs 3D paper"] == 89.718 and bcast["256 PEs reduction % paper"] == -2.797
    assert not math.isnan(bcast["256 PEs 3D"]) and not math.isnan(bcast["256 PEs 5DT"])
    assert math.isnan(bcast["512 PEs 3D"])  # the quick variant has only 256 PEs
