"""Repetitions and 95 % confidence intervals: derived seeds, Student-t intervals that shrink with
more repetitions, the same intervals bit for bit on every executor, one-line refusals."""

import json
import math

import hpcnetsim
import pytest
from hpcnetsim import confidence
from hpcnetsim.experiments import experiment
from hpcnetsim.reports import report
from hpcnetsim.experiments.sweep import run_sweep

TINY = {
    "topology": "torus:4x4",
    "switch": {"vcs": 2},
    "routing": {"algorithm": "dor"},
    "traffic": {"load": 0.3},
    "measurement": {"warmup_cycles": 300, "window_cycles": 200, "convergence_tolerance": 0.5,
                    "max_convergence_cycles": 4000, "batches": 2, "batch_cycles": 300},
}  # fmt: skip

EXPERIMENT = """\
name = "reps"
repetitions = {reps}
[base]
topology = "torus:4x4"
switch.vcs = 2
routing.algorithm = "dor"
[base.measurement]
warmup_cycles = 300
window_cycles = 200
convergence_tolerance = 0.5
max_convergence_cycles = 4000
batches = 2
batch_cycles = 300
[[sweep]]
axes.traffic.load = [0.2, 0.5]
"""


def test_seeds_derive_from_the_base_seed():
    seeds = confidence.repetition_seeds(7, 30)
    assert seeds[0] == 7  # repetition 0 is the configuration itself
    assert len(set(seeds)) == 30
    assert seeds == confidence.repetition_seeds(7, 30)  # deterministic
    assert confidence.repetition_seeds(7, 5) == seeds[:5]  # more repetitions keep the first ones
    assert confidence.repetition_seeds(8, 5)[1:] != seeds[1:5]
    assert all(0 <= s < 2**53 for s in seeds)


def test_interval_is_the_student_t_interval():
    s = confidence.interval([1.0, 2.0, 3.0, 4.0, 5.0])
    # Sample sd sqrt(2.5); t(0.975, 4 dof) = 2.7764 (statistical tables).
    assert s["mean"] == 3.0 and s["n"] == 5
    assert s["ci"] == pytest.approx(2.7764 * math.sqrt(2.5 / 5), rel=1e-4)
    assert (s["lo"], s["hi"]) == (s["mean"] - s["ci"], s["mean"] + s["ci"])
    assert math.isnan(confidence.interval([4.0])["ci"])  # one run has no interval
    assert confidence.interval([None, float("nan"), 2.0, 2.0])["n"] == 2


def _widths(reps: int) -> dict[str, float]:
    runs = [hpcnetsim.simulate(c).to_pandas().iloc[0].to_dict() for c in confidence.repeated_configs(TINY, reps)]
    s = confidence.summarise(runs)
    return {m: s[f"{m}_ci"] for m in ("accepted_load", "latency_network_mean")}


def test_intervals_shrink_as_repetitions_grow():
    # Expected half-widths scale as t(R-1)/sqrt(R): 1.59 s for 4 runs, 0.53 s for 16.
    few, many = _widths(4), _widths(16)
    for metric in few:
        assert 0 < many[metric] < few[metric], (metric, few[metric], many[metric])


def _intervals(out) -> list[tuple]:
    doc, df = report.load(out)
    agg = confidence.aggregate(df).sort_values("traffic.load")
    cols = ["traffic.load", "repetitions", "accepted_load", "accepted_load_ci", "latency_network_mean_ci"]
    return [tuple(r) for r in agg[cols].itertuples(index=False)]


def test_a_sweep_stores_every_repetition_and_reports_intervals(tmp_path):
    (tmp_path / "r.toml").write_text(EXPERIMENT.format(reps=4))
    exp = experiment.load(tmp_path / "r.toml")
    assert exp.repetitions == 4 and len(exp.points) == 8
    assert [p.repetition for p in exp.points[:4]] == [0, 1, 2, 3]
    assert len({p.family for p in exp.points}) == 2
    first = run_sweep(exp, tmp_path / "a", jobs=2, progress=False)
    assert (first.ran, first.failed) == (8, [])
    df = hpcnetsim.results(tmp_path / "a")
    assert len(df) == 8 and df["seed"].nunique() == 4  # one stored row per repetition
    ivals = _intervals(tmp_path / "a")
    assert [r[1] for r in ivals] == [4, 4] and all(r[3] > 0 for r in ivals)
    # Same seeds, same intervals, bit for bit: another folder, another process count.
    run_sweep(experiment.load(tmp_path / "r.toml"), tmp_path / "b", jobs=1, progress=False)
    assert _intervals(tmp_path / "b") == ivals
    page = report.write_report(tmp_path / "a").read_text()
    assert "Means and confidence intervals" in page and "4 repetitions per point" in page
    doc = json.loads((tmp_path / "a" / "experiment.json").read_text())
    assert doc["repetitions"] == 4 and doc["points"][1]["family"] == doc["points"][0]["key"]


def test_intervals_on_dask_equal_the_local_ones(tmp_path):
    distributed = pytest.importorskip("distributed")
    (tmp_path / "r.toml").write_text(EXPERIMENT.format(reps=3))
    run_sweep(experiment.load(tmp_path / "r.toml"), tmp_path / "local", jobs=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=50) as cluster:  # fmt: skip
        run_sweep(experiment.load(tmp_path / "r.toml"), tmp_path / "dask", scheduler=cluster.scheduler_address,
                  progress=False)  # fmt: skip
    assert _intervals(tmp_path / "dask") == _intervals(tmp_path / "local")


def test_command_line_repetitions(cli, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('topology = "torus:4x4"\nswitch.vcs = 2\n[measurement]\nwarmup_cycles = 300\n'
                   "window_cycles = 200\nconvergence_tolerance = 0.5\nbatches = 2\nbatch_cycles = 300\n")  # fmt: skip
    r = cli("run", str(cfg), "--repetitions", "3", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "3 repetitions" in r.stdout and "±" in r.stdout
    rows = (tmp_path / "o" / "repetitions.csv").read_text().splitlines()
    assert len(rows) == 4  # header and one row per repetition
    doc = json.loads((tmp_path / "o" / "repetitions.json").read_text())
    assert doc["seeds"] == confidence.repetition_seeds(1, 3)
    r = cli("run", str(cfg), "--repetitions", "2", "--loads", "0.1,0.3", "--out", str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "c" / "curve_summary.csv").is_file() and (tmp_path / "c" / "curve.png").is_file()


def test_command_line_repetitions_write_every_repetitions_stats_tables(cli, tmp_path):
    """`--repetitions --out` wrote no [stats] tables (one run and a load curve both do): each
    repetition's rows now follow one another, led by its repetition and seed (and load)."""
    import pandas

    cfg = tmp_path / "c.toml"
    cfg.write_text('topology = "torus:4x4"\n[traffic]\nload = 0.1\n[measurement]\nwarmup_cycles = 100\n'
                   "batch_cycles = 100\nbatches = 1\n[stats]\nlatency_percentiles = true\n")  # fmt: skip
    out = tmp_path / "o"
    out.mkdir()
    (out / "link_utilisation.parquet").write_text("an earlier run's")
    r = cli("run", str(cfg), "--repetitions", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    table = pandas.read_parquet(out / "latency_percentiles.parquet")
    assert list(table.columns[:3]) == ["repetition", "seed", "class"]
    assert list(table["repetition"]) == [0, 1, 2]
    assert list(table["seed"]) == confidence.repetition_seeds(1, 3)
    counts = [r["latency"]["network"]["count"] for r in json.loads((out / "repetitions.json").read_text())["results"]]
    assert list(table["count"]) == counts
    assert not (out / "link_utilisation.parquet").exists(), "a table this run did not write is removed"
    r = cli("run", str(cfg), "--repetitions", "2", "--loads", "0.1,0.2", "--out", str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    table = pandas.read_parquet(tmp_path / "c" / "latency_percentiles.parquet")
    assert list(table.columns[:3]) == ["repetition", "seed", "offered_load"]
    assert list(zip(table["repetition"], table["offered_load"])) == [(0, 0.1), (0, 0.2), (1, 0.1), (1, 0.2)]


def test_repeated_load_curve_with_a_deadlock_exits_3(cli, tmp_path):
    """A deadlock at one load of a repeated curve exits with status 3, as the curve run once does."""
    cfg = tmp_path / "d.toml"
    cfg.write_text('topology = "torus:8"\nswitch.queue_packets = 1\n[routing]\nalgorithm = "table"\n'
                   'engine = "minhop"\n[measurement]\nwarmup_cycles = 20000\ndeadlock_cycles = 2000\n')  # fmt: skip
    r = cli("run", str(cfg), "--repetitions", "2", "--loads", "1.0")
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert r.stderr.strip() == "2 of 2 runs (loads × repetitions) deadlocked", r.stderr


def test_bad_repetitions_are_refused_in_one_line(cli, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('topology = "torus:4x4"\n')
    r = cli("run", str(cfg), "--repetitions", "0")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "--repetitions = 0 is invalid" in r.stderr
    # Text that is no whole number says what is allowed too, on both commands.
    for command in (["run", str(cfg)], ["sweep", str(tmp_path / "none.toml")]):
        r = cli(*command, "--repetitions", "2.5")
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "--repetitions: '2.5' is not a number of runs (a whole number from 1 to 10000" in r.stderr
    (tmp_path / "r.toml").write_text(EXPERIMENT.format(reps=0))
    r = cli("sweep", str(tmp_path / "r.toml"), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "r.toml: repetitions = 0 is invalid" in r.stderr
    assert not (tmp_path / "o").exists()  # refused before anything is written


@pytest.mark.parametrize("value", ["0", "-2", "100000", "2.5", '"3"', "true"])
def test_bad_repetitions_values(tmp_path, value):
    (tmp_path / "r.toml").write_text(EXPERIMENT.replace("{reps}", value))
    with pytest.raises(hpcnetsim.ConfigError, match=r"r.toml: repetitions = .* is invalid: an integer from 1"):
        experiment.load(tmp_path / "r.toml")
    (tmp_path / "q.toml").write_text(EXPERIMENT.format(reps=2) + f"[quick]\nrepetitions = {value}\n")
    with pytest.raises(hpcnetsim.ConfigError, match="quick.repetitions"):
        experiment.load(tmp_path / "q.toml")
    (tmp_path / "ok.toml").write_text(EXPERIMENT.format(reps=2))
    if value.lstrip("-").isdigit():  # the command line's --repetitions is an integer
        with pytest.raises(hpcnetsim.ConfigError, match="--repetitions"):
            experiment.load(tmp_path / "ok.toml", repetitions=int(value))


def test_study_tables_give_the_reports_saturation_the_mean_over_repetitions(tmp_path):
    # `hpcnetsim study tables` took the highest single repetition (twin-torus --quick: 0.6880
    # for the 3D DOR torus under uniform traffic) while the report showed the mean (0.6852).
    from hpcnetsim.studies.validation import tables

    (tmp_path / "r.toml").write_text(EXPERIMENT.format(reps=3))
    run_sweep(experiment.load(tmp_path / "r.toml"), tmp_path / "a", jobs=1, progress=False)
    doc, df = report.load(tmp_path / "a")
    means = confidence.aggregate(df).groupby("traffic.load")["accepted_load"].first()
    assert df.groupby("traffic.load")["accepted_load"].max().max() > means.max()  # else the test tells nothing
    row = [line for line in tables(tmp_path / "a").splitlines() if line.startswith("| torus:4x4")]
    assert len(row) == 1
    head = [line for line in tables(tmp_path / "a").splitlines() if line.startswith("| topology")][0]
    cells = dict(zip(head.strip("|").split("|"), row[0].strip("|").split("|"), strict=True))
    assert float(cells[" max_accepted "]) == pytest.approx(means.max(), abs=5e-5)


def test_study_tables_match_a_curve_to_its_earlier_run_by_its_config_columns(monkeypatch, tmp_path):
    # The curve's key took in every column but max_accepted and the bounds, so a curve whose
    # percentage of the host bandwidth, count of unconverged points or note had changed found
    # no earlier value: `--before` showed "-" for every curve of the twin-torus studies.
    import pandas
    from hpcnetsim.studies import validation

    def frame(value, pct, unconverged, note):
        return pandas.DataFrame([{"topology": "torus:8x8x4", "switch.vcs": 2, "max_accepted": value,
                                  "max_accepted_pct_host": pct, "unconverged_points": unconverged, "note": note,
                                  "ideal": 1.0, "theta": 1.0, "max_over_ideal": value}])  # fmt: skip

    frames = {"now": frame(0.70, 70.0, 0, ""), "before": frame(0.65, 65.0, 1, "from converged points only")}
    monkeypatch.setattr(validation, "_saturation", lambda out: frames[out.name])
    monkeypatch.setattr(validation, "_performance", lambda out: [])
    monkeypatch.setattr(validation, "_normalized", lambda out: {})
    lines = validation.tables(tmp_path / "now", tmp_path / "before").splitlines()
    head = [c.strip() for c in lines[2].strip("|").split("|")]
    row = [c.strip() for c in lines[4].strip("|").split("|")]
    cells = dict(zip(head, row, strict=True))
    assert cells["max_accepted"] == "0.7" and cells["max_accepted (before)"] == "0.65"


def test_the_table_of_means_labels_its_units_and_gives_workloads_no_offered_load(tmp_path):
    # twin-torus --quick: the collectives' rows showed traffic.load = 0.1, a load they never
    # offered, and five headings had no unit (latency_end_to_end_mean, accepted_load ±95 %...).
    import re

    (tmp_path / "m.toml").write_text(
        EXPERIMENT.format(reps=2).replace("axes.traffic.load = [0.2, 0.5]", "axes.traffic.load = [0.2]")
        + '[[sweep]]\nname = "coll"\naxes.workload.kernel = ["allgather"]\naxes."workload.tasks" = [8]\n'
    )
    run_sweep(experiment.load(tmp_path / "m.toml"), tmp_path / "out", jobs=1, progress=False)
    page = report.write_report(tmp_path / "out").read_text()
    table = page[page.index("<h2>Means and confidence intervals</h2>") :]
    table = table[: table.index("</table>")]
    head = re.findall(r"<th>(.*?)</th>", table)
    rows = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
    rows = [dict(zip(head, r, strict=True)) for r in rows if r]
    loads = {r["group"]: r["traffic.load (phits/cycle/node)"] for r in rows}
    assert loads == {"0": "0.2", "coll": "\u2014"}
    metrics = [h for h in head if h not in ("group", "topology", "workload.kernel", "repetitions")]
    metrics = [h for h in metrics if not h.startswith(("traffic.", "workload.", "switch.", "routing."))]
    assert metrics and all(re.search(r"\((cycles|phits/cycle/node)\)$", h) for h in metrics), metrics


def test_study_tables_write_numbers_as_the_report_does(monkeypatch, tmp_path):
    # `study tables` wrote φ/c to 4 decimals ("0.0034", "256.0000") where the report's table
    # showed "0.00343" and "256".
    import pandas
    from hpcnetsim.reports.report import cell
    from hpcnetsim.studies import validation

    perf = pandas.DataFrame([{"topology": "torus:8x8", "network": "2D torus", "phi": 1.0, "phi/c_C": 256.0},
                             {"topology": "mesh:8x8", "network": "2D mesh", "phi": 0.00343, "phi/c_C": None}])  # fmt: skip
    monkeypatch.setattr(validation, "_saturation", lambda out: None)
    frames = [("Performance", "Reference 2D torus.", perf)]
    monkeypatch.setattr(validation, "_performance", lambda out: frames)
    monkeypatch.setattr(validation, "_normalized", lambda out: {})
    lines = validation.tables(tmp_path).splitlines()
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith("| 2D")]
    assert rows == [["2D torus", "1", "256"], ["2D mesh", "0.00343", "-"]]
    assert [cell(v) for v in (0.00343, 256.0)] == ["0.00343", "256"]
