"""Causal workloads through the experiment layer: worker dispatch, metrics, skipped points, reports."""

import json
import math
from pathlib import Path

import pandas
import pytest

import hpcnetsim
from hpcnetsim.experiments import experiment
from hpcnetsim import metrics
from hpcnetsim.reports.causal_report import performance_frames
from hpcnetsim.reports.report import load, write_report
from hpcnetsim.studies.catalog import find
from hpcnetsim.experiments.sweep import run_sweep
from hpcnetsim.experiments.worker import run_point

TINY = Path(__file__).parent / "data" / "tiny_causal.toml"


def test_the_worker_runs_execute_for_workloads_and_simulate_otherwise():
    causal = {"topology": "crossbar:8", "workload": {"kernel": "bt", "message_bytes": 100}}
    result, error = run_point(json.dumps(causal))
    assert error is None and json.loads(result)["execution_time_cycles"] == 3 * 17
    plain = {
        "topology": "crossbar:8",
        "measurement": {"warmup_cycles": 100, "batches": 1, "batch_cycles": 100},
    }
    result, error = run_point(json.dumps(plain))
    assert (
        error is None
        and "accepted_load" in json.loads(result)
        and "execution_time_cycles" not in json.loads(result)
    )


def test_a_kernel_that_cannot_run_on_its_task_count_is_skipped_not_failed():
    result, error = run_point(json.dumps({"topology": "crossbar:8", "workload": {"kernel": "2m"}}))
    doc = json.loads(result)
    assert error is None and doc["status"] == "skipped" and doc["kernel"] == "2m"
    assert "workload.tasks = 8 is invalid: a square number" in doc["message"]
    # Any other error of a workload point is a failure.
    bad = {"topology": "torus:4x4", "routing": {"algorithm": "direct"}, "workload": {"kernel": "bt"}}
    result, error = run_point(json.dumps(bad))
    assert result is None and "direct" in error


def test_phi_and_cost_efficiency_on_hand_made_numbers():
    assert metrics.raw_phi({k: 1.0 for k in "abcdefg"}) == pytest.approx(1 / 7)
    assert metrics.phi({k: 1.0 for k in "abcdefg"}) == pytest.approx(1.0)
    assert metrics.phi({"a": 2.0, "b": 1.0}) == pytest.approx(2 / 3)
    assert metrics.phi({"a": 2.0, "b": 1.0}, {"a": 3}) == pytest.approx(4 / 7)  # (3 + 1) / (3·2 + 1)
    assert metrics.raw_phi({"a": 2.0, "b": 1.0}, {"a": 3}) == pytest.approx(1 / 7)
    # Paper 000 Table 6(a): the 8:1,2-tree (φ 0.4419, S = 9, R = 9) against the 8:8,2-tree (S = R = 16).
    assert metrics.cost_efficiency(0.4419, 9, 1.0, 16) == pytest.approx(0.7857, abs=2e-4)
    assert metrics.cost_efficiency(0.4419, 81, 1.0, 256) == pytest.approx(1.3967, abs=2e-4)
    assert metrics.cost_efficiency(0.4419, 729, 1.0, 4096) == pytest.approx(2.4831, abs=5e-4)
    with pytest.raises(ValueError):
        metrics.phi({})


def test_normalized_times_performance_and_costs_of_a_frame():
    rows = [("ref", "bt", 64, 100), ("ref", "bu", 64, 200), ("ref", "bu", 64, 300),  # two seeds: mean 250
            ("thin", "bt", 64, 150), ("thin", "bu", 64, 500), ("half", "bt", 64, 100)]  # fmt: skip
    df = pandas.DataFrame(rows, columns=["topology", metrics.KERNEL, metrics.BYTES, metrics.TIME])
    norm = metrics.normalized_times(df, "ref").set_index(["topology", metrics.KERNEL])["normalized"]
    assert norm["ref", "bu"] == 1.0 and norm["thin", "bt"] == 1.5 and norm["thin", "bu"] == 2.0
    perf = metrics.performance(metrics.normalized_times(df, "ref"), "ref").set_index("topology")
    assert perf.loc["ref", "phi"] == 1.0 and perf.loc["thin", "phi"] == pytest.approx(2 / 3.5)
    assert math.isnan(perf.loc["half", "phi"])  # bu missing: no φ
    costs = {"ref": {"cost_constant": 4, "cost_linear": 16, "cost_quadratic": 64},
             "thin": {"cost_constant": 2, "cost_linear": 4, "cost_quadratic": 8},
             "half": {"cost_constant": 1, "cost_linear": 1, "cost_quadratic": 1}}  # fmt: skip
    eff = metrics.with_costs(perf.reset_index(), "ref", costs).set_index("topology")
    assert eff.loc["thin", "phi/c_C"] == pytest.approx(2 / 3.5 * 2)
    assert eff.loc["thin", "phi/c_Q"] == pytest.approx(2 / 3.5 * 8) and eff.loc["ref", "phi/c_L"] == 1.0


def test_a_tiny_causal_study_through_the_layer(cli, tmp_path):
    exp = experiment.load(TINY)
    summary = run_sweep(exp, tmp_path, jobs=2, progress=False)
    assert (summary.total, summary.ran, summary.failed, len(summary.skipped)) == (7, 7, [], 1)
    df = hpcnetsim.results(tmp_path)
    assert set(df["state"]) == {"done"} and set(df["status"]) == {"completed", "skipped", "converged"}
    causal = df[df["status"] == "completed"].set_index(["topology", "workload.kernel"])
    assert causal.loc[("crossbar:8", "bt"), "execution_time_cycles"] > 0
    assert df.loc[df["status"] == "converged", "accepted_load"].notna().all()
    # A stored causal point is exactly what one direct execution of its config gives.
    point = next(
        p
        for p in exp.points
        if p.values.get("workload.kernel") == "bu" and p.values["topology"] == "crossbar:16"
    )
    direct = hpcnetsim.execute(point.config).to_dict()
    stored = json.loads(df.set_index("key").loc[point.key, "result_json"])
    assert {k: v for k, v in stored.items() if k != "wall_seconds"} == {
        k: v for k, v in direct.items() if k != "wall_seconds"
    }
    ((_title, note, perf),) = performance_frames(*load(tmp_path))
    assert "workloads: bt, bu." in note  # 2m did not run on the reference (8 tasks is not a square)
    perf = perf.set_index("topology")
    times = causal["execution_time_cycles"]
    expected = 3 / (
        times["crossbar:16", "bt"] / times["crossbar:8", "bt"]
        + 2 * times["crossbar:16", "bu"] / times["crossbar:8", "bu"]
    )
    assert perf.loc["crossbar:16", "phi"] == pytest.approx(expected) and perf.loc["crossbar:8", "phi"] == 1.0
    assert perf.loc["crossbar:16", "phi (paper)"] == 0.5 and perf.loc["crossbar:16", "c_C"] == 1
    page = write_report(tmp_path).read_text()
    assert page.count("<svg ") == 2 and "Saturation throughput" in page
    assert "Skipped points" in page and "a square number" in page and "Performance of the crossbars" in page
    assert "Execution time normalized to crossbar:8" in page
    r = cli("sweep", str(TINY), "--out", str(tmp_path), "--no-progress")
    assert r.returncode == 0 and "7 already stored, 0 run, 0 failed" in r.stdout, r.stdout + r.stderr


def test_the_causal_tables_show_the_tasks_a_point_ran():
    """workload.tasks = 0 (the default) means one task per terminal × tasks_per_terminal: the
    execution-time and skipped tables show that count (a crossbar:N has N terminals), not 0."""
    from hpcnetsim.reports.causal_report import execution_table, skipped, task_counts
    from hpcnetsim.reports.report import _table

    rows = [  # topology, kernel, workload.tasks, tasks_per_terminal, status, the result's tasks
        ("crossbar:8", "bt", 0, 1, "completed", 8),
        ("crossbar:16", "bt", 0, 2, "completed", 32),
        ("crossbar:8", "2m", 0, 1, "skipped", 0),  # a skipped point's result repeats the config's 0
        ("crossbar:8", "2m", 0, 2, "skipped", 0),
        ("crossbar:16", "bu", 4, 1, "completed", None),
    ]
    df = pandas.DataFrame(rows, columns=["topology", "workload.kernel", "workload.tasks",
                                         "workload.tasks_per_terminal", "status", "tasks"])  # fmt: skip
    df["message"] = "why"
    assert task_counts(df) == [8, 32, 8, 16, 4]
    assert _column(execution_table(df, _table), "tasks") == ["8", "32", "8", "16", "4"]
    assert _column(skipped(df, _table), "tasks") == ["8", "16"]


def _column(page: str, name: str) -> list[str]:
    """The cells of column ``name`` of the one HTML table in ``page``."""
    import re

    head = re.findall(r"<th>(.*?)</th>", page)
    rows = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", page, re.S)]
    return [row[head.index(name)] for row in rows if row]


def test_the_sweep_command_reports_skipped_points(cli, tmp_path):
    r = cli("sweep", str(TINY), "--out", str(tmp_path), "--jobs", "1", "--no-progress")
    assert r.returncode == 0, r.stderr
    assert "1 points skipped" in r.stdout and "skipped 1 × workload.tasks = 8 is invalid" in r.stdout


def test_the_causal_studies_expand_with_their_quick_variants():
    full, quick = experiment.load(find("thin-trees")), experiment.load(find("thin-trees"), quick=True)
    # 3 sizes × (8 same-size + 6 same-radix trees) × 7 kernels, less the 8:4,n trees in both sets.
    assert len(full.points) == 3 * (8 + 6 - 1) * 7
    assert {p.config["workload"]["tasks"] for p in quick.points} == {64, 512}
    cfg = next(p.config for p in full.points if p.config["workload"]["kernel"] == "3w")
    assert cfg["workload"]["return_sweep"] and cfg["workload"]["message_bytes"] == 40960
    assert (cfg["switch"]["vcs"], cfg["switch"]["phit_bytes"], cfg["routing"]["algorithm"]) == (
        1,
        16,
        "tree-adaptive",
    )
    report = full.report
    assert (
        len(report["performance"]) == 6
        and report["performance"][0]["published"]["tree:k=8,kp=1,n=2"]["phi"] == 0.4419
    )
    w = experiment.load(find("workloads"))
    wq = experiment.load(find("workloads"), quick=True)
    assert len(w.points) == 3 * 6 * 3 and {p.config["workload"]["message_bytes"] for p in wq.points} == {
        640,
        3200,
    }
    assert {
        (p.config["topology"], p.config["routing"]["algorithm"], p.config["switch"]["vcs"]) for p in w.points
    } == {
        ("crossbar:64", "direct", 4),
        ("tree:k=2,n=6", "tree-adaptive", 4),
        ("torus:8x8", "bubble-adaptive", 4),
    }


def test_a_misspelt_workload_axis_is_a_one_line_error(cli, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(TINY.read_text().replace("axes.workload.kernel", "axes.workload.kernal"))
    r = cli("sweep", str(f), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and not (tmp_path / "out").exists()
    assert "unknown axis or field 'workload.kernal' (did you mean workload.kernel?)" in r.stderr


def test_the_quick_causal_studies_run_end_to_end(cli, tmp_path):
    """Both built-in causal studies, quick variants, through the CLI: no failed point, a report,
    and φ of the 64-node same-size trees ordered by slimming as paper 000 Table 4(a)."""
    for name in ("workloads", "thin-trees"):
        out = tmp_path / name
        r = cli("study", "run", name, "--quick", "--out", str(out), "--no-progress")
        assert r.returncode == 0, r.stderr
        assert (out / "report.html").stat().st_size > 50_000
        df = hpcnetsim.results(out)
        assert set(df["status"]) <= {"completed", "skipped"} and (df["status"] == "completed").sum() > 30
    df = hpcnetsim.results(tmp_path / "thin-trees")
    small = df[
        (df["status"] == "completed") & (df["workload.tasks"] == 64) & df["topology"].str.endswith(",n=2")
    ]
    small = small[small["topology"].str.startswith("tree:k=8,")]
    perf = metrics.performance(metrics.normalized_times(small, "tree:k=8,kp=8,n=2"), "tree:k=8,kp=8,n=2")
    phi = perf.set_index("topology")["phi"]
    order = [phi[f"tree:k=8,kp={kp},n=2"] for kp in (1, 2, 4, 8)]
    assert order == sorted(order) and order[-1] == 1.0, phi


def test_normalized_times_refuse_runs_that_differ_in_more_than_the_seed():
    """Runs of one network, kernel and size are averaged over seeds only: two placements (or
    routings, variants ...) of one network would be averaged into one T without a word."""
    rows = [("ref", "bu", 64, "linear", 1, 100), ("ref", "bu", 64, "linear", 2, 300),  # seeds: mean 200
            ("thin", "bu", 64, "linear", 1, 150), ("thin", "bu", 64, "random", 1, 450)]  # fmt: skip
    cols = ["topology", metrics.KERNEL, metrics.BYTES, "workload.placement", "seed", metrics.TIME]
    df = pandas.DataFrame(rows, columns=cols)
    with pytest.raises(hpcnetsim.ConfigError) as e:
        metrics.normalized_times(df, "ref")
    assert str(e.value) == (
        "thin ran bu with 64 bytes under several workload.placement values ('linear', 'random'): "
        "T would average them; keep one (topologies, sweep) or make it the figure's panels"
    )
    linear = metrics.normalized_times(df[df["workload.placement"] == "linear"], "ref")
    assert linear.set_index("topology").loc["thin", "normalized"] == 0.75  # 150 / mean(100, 300)


def test_a_report_of_two_placements_per_network_is_refused_unless_they_are_panels(cli, tmp_path):
    f = tmp_path / "placements.toml"
    f.write_text(
        TINY.read_text().split("[[sweep]]")[0]
        + """
[[sweep]]
name = "causal"
axes.topology = ["crossbar:8", "crossbar:16"]
axes.workload.kernel = ["bt"]
axes.workload.placement = ["linear", "random"]
axes."workload.tasks" = [8]

[[report.figures]]
kind = "normalized-time"
reference = "crossbar:8"
"""
    )
    r = cli("sweep", str(f), "--out", str(tmp_path / "out"), "--jobs", "1", "--no-progress")
    assert r.returncode == 0, r.stderr
    r = cli("report", str(tmp_path / "out"))
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stdout + r.stderr
    assert r.stderr.startswith(
        "error: report.figures (normalized-time): crossbar:8 ran bt with 640 bytes under "
        "several workload.placement values ('linear', 'random')"
    )
    text = f.read_text()
    # The consumed load over time draws one line per network: the placements would overwrite each other.
    f.write_text(text.replace("[[report.figures]]\nkind = \"normalized-time\"\nreference = \"crossbar:8\"\n", "")
                 + '[[report.figures]]\nkind = "evolution"\ntitle = "Load"\n')  # fmt: skip
    assert (
        cli("sweep", str(f), "--out", str(tmp_path / "evolution"), "--jobs", "1", "--no-progress").returncode
        == 0
    )
    r = cli("report", str(tmp_path / "evolution"))
    assert r.returncode == 2 and r.stderr.startswith("error: report.figures (Load): crossbar:8 ran bt"), (
        r.stderr
    )
    f.write_text(text + 'panels = "workload.placement"\n')
    r = cli("sweep", str(f), "--out", str(tmp_path / "panels"), "--jobs", "1", "--no-progress")
    assert r.returncode == 0, r.stderr
    r = cli("report", str(tmp_path / "panels"))
    assert (
        r.returncode == 0
        and "workload.placement = random" in (tmp_path / "panels" / "report.html").read_text()
    )


def test_the_execution_table_shows_every_field_the_points_vary(tmp_path):
    """Two placements of one network read as one row twice: the table showed the topology,
    kernel and message size only, not workload.placement."""
    f = tmp_path / "placements.toml"
    f.write_text("""name = "placements"
title = "Two placements"
[base]
measurement.window_cycles = 10
[[sweep]]
name = "causal"
axes.topology = ["torus:4x4"]
axes.workload.kernel = ["alltoall"]
axes.workload.placement = ["linear", "random"]
axes."workload.tasks" = [8]
""")
    run_sweep(experiment.load(f), tmp_path / "out", jobs=1, progress=False)
    page = write_report(tmp_path / "out").read_text()
    table = page[page.index("<h2>Execution times</h2>") : page.index("<h2>Configuration</h2>")]
    assert sorted(_column(table, "workload.placement")) == ["linear", "random"]
    # A field every point shares stays out (workload.tasks = 8).
    assert "workload.tasks" not in table and _column(table, "topology") == ["torus:4x4", "torus:4x4"]


def test_the_points_of_a_workload_have_no_offered_load(tmp_path):
    """A causal point ran no offered load: the list of points showed the default traffic.load
    (0.1) beside its execution time as if it had been measured at that load."""
    f = tmp_path / "mixed.toml"
    f.write_text("""name = "mixed"
[base]
topology = "torus:4x4"
measurement = { warmup_cycles = 100, window_cycles = 100, batches = 1, batch_cycles = 100 }
[[sweep]]
name = "causal"
axes.workload.kernel = ["alltoall"]
axes."workload.tasks" = [8]
[[sweep]]
name = "load"
axes.traffic.load = [0.2]
""")
    run_sweep(experiment.load(f), tmp_path / "out", jobs=1, progress=False)
    page = write_report(tmp_path / "out").read_text()
    table = page[page.index("<h2>Points</h2>") :]
    groups = _column(table, "group")
    loads = dict(zip(groups, _column(table, "traffic.load (phits/cycle/node)"), strict=True))
    assert loads == {"causal": "\u2014", "load": "0.2"}


def test_a_capped_bar_is_labelled_with_its_value_not_the_cap(tmp_path):
    """Bars above the cap were labelled with their value rounded to a whole number: 10.4 read
    "10", the cap itself, and 11.63 read "12" (paper 000 Fig. 5(b), 8:1,3 under 2m)."""
    from hpcnetsim.reports.causal_plots import plot_normalized_bars

    path = tmp_path / "bars.svg"
    import re

    plot_normalized_bars(
        {"64 tasks": {"a": {"2m": 10.4, "bu": 11.63}, "b": {"2m": 1.0, "bu": 1.0}}}, path, "", cap=10
    )
    # Text is a <text> element, or a comment above its glyphs when fonts are drawn as paths.
    svg = path.read_text()
    texts = set(re.findall(r"<!-- (.*?) -->", svg)) | set(re.findall(r"<text[^>]*>([^<]*)<", svg))
    assert {"10.4", "11.6"} <= {t.strip() for t in texts}, texts


def test_the_saturation_tables_leave_out_the_workload_columns_no_curve_has(tmp_path):
    # twin-torus --quick: workload.kernel, workload.message_bytes (and workload.algorithm) were
    # columns of the saturation table, "-" on every row: they vary only between causal points.
    import re

    from hpcnetsim.studies.validation import tables

    run_sweep(experiment.load(TINY), tmp_path, jobs=1, progress=False)
    page = write_report(tmp_path).read_text()
    section = page[page.index("<h2>Saturation throughput</h2>") :]
    heads = re.findall(r"<th>([^<]*)</th>", section[: section.index("</table>")])
    assert "topology" in heads and any("max" in h for h in heads) and not any("workload" in h for h in heads), heads
    text = tables(tmp_path)
    head = next(line for line in text.splitlines() if line.startswith("| topology"))
    assert "max_accepted" in head and "workload" not in head, head
