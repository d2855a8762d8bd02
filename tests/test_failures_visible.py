"""Failures are visible everywhere: sweep summary counts, report tables, plots and notes."""

from pathlib import Path

import hpcnetsim
from hpcnetsim.experiments import experiment
from hpcnetsim.reports.report import write_report
from hpcnetsim.experiments.sweep import run_sweep

TROUBLE = Path(__file__).parent / "data" / "trouble_sweep.toml"


def test_every_outcome_is_counted_listed_and_drawn(tmp_path, cli):
    r = cli("sweep", str(TROUBLE), "--out", str(tmp_path), "--jobs", "2", "--no-progress")
    assert r.returncode == 1, r.stderr  # one point failed
    counts = next(line for line in r.stdout.splitlines() if line.startswith("run this time: "))
    assert "1 deadlock" in counts and "1 failed" in counts and "converged" in counts, counts
    assert "deadlock " in r.stderr and "failed " in r.stderr
    assert r.stderr.splitlines()[-1] == "1 of 5 points failed, 1 deadlocked", r.stderr
    df = hpcnetsim.results(tmp_path)
    statuses = set(df["status"].dropna())
    assert "deadlock" in statuses
    page = write_report(tmp_path).read_text()
    assert "Points without a result" in page
    assert "deadlock" in page and "trouble_sweep_tables.lft:2: line = " in page and "header line first" in page
    assert "mean network latency (cycles)" in page or "accepted load (phits/cycle/node)" in page
    assert "(empty" not in page and "topology = &quot;torus:4x4&quot;" in page  # the base config
    figures = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert "figure-1.svg" in figures and "figure-1.png" in figures
    assert (tmp_path / "figures" / "figure-1.svg").read_text().lstrip().startswith("<?xml")


def test_the_saturation_table_says_when_higher_loads_did_not_converge(tmp_path):
    exp = experiment.load(TROUBLE)
    run_sweep(exp, tmp_path, jobs=2, progress=False)
    from hpcnetsim.reports.report import load, saturation

    _, df = load(tmp_path)
    sat = saturation(df)
    loads = sat[sat["group"] == "loads"]
    troubled = df[(df["group"] == "loads") & (df["status"] != "converged")]
    assert 0 < len(troubled) < 3, "the experiment is meant to give both kinds of point"
    assert loads["note"].str.contains("points without a value").all()
    assert int(loads["unconverged_points"].sum()) == len(troubled)
    assert "1 deadlock" not in str(loads["note"].tolist())  # other sweeps are other curves


def test_published_values_get_a_coloured_difference():
    from hpcnetsim.reports.report import difference_cell

    assert "#1a7f37" in difference_cell(1.0, 1.0) and "+0 (0%)" in difference_cell(1.0, 1.0)
    assert "#b54708" in difference_cell(0.9, 1.0)
    assert "#b42318" in difference_cell(0.5, 1.0) and "-0.5 (50%)" in difference_cell(0.5, 1.0)


def test_a_report_draws_the_curves_beside_a_network_cut_in_two(tmp_path):
    """A point whose faults cut the network failed, as it should; its topology cannot be
    described, and the report refused to be written at all for the throughput bounds."""
    (tmp_path / "cut.toml").write_text("""
name = "cut"
[base]
switch.vcs = 8
routing.algorithm = "table"
measurement = { warmup_cycles = 200, batches = 2, batch_cycles = 200 }
[[sweep]]
axes.topology = ["torus:4x4", "torus:4x4|faults:switches=5"]
axes.traffic.load = [0.2, 0.4]
""")
    summary = run_sweep(experiment.load(tmp_path / "cut.toml"), tmp_path / "out", jobs=1, progress=False)
    assert len(summary.failed) == 2 and "disconnect" in summary.failed[0][1], summary.failed
    page = write_report(tmp_path / "out").read_text()
    assert "Points without a result" in page and "torus:4x4|faults:switches=5" in page
    assert "<svg " in page
