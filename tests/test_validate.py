"""hpcnetsim validate: published values beside ours, verdicts, drift of reproduced rows, bad input."""

import json
import math

import pytest
from hpcnetsim.studies import validate as v


def _quantity(**kw):
    base = {"paper": "900", "where": "Table 1", "quantity": "q", "kind": "time", "published": 10.0,
            "compute": "describe", "args": {}, "tolerance": 0.10}  # fmt: skip
    return v.Quantity(**{**base, **kw})


def test_verdicts_follow_tolerance_ranges_and_bounds():
    q = _quantity()
    assert v.verdict(q, 10.9) == "reproduced"
    assert v.verdict(q, 9.0) == "reproduced"
    assert v.verdict(q, 11.2) == "open"
    assert v.verdict(_quantity(explained_by="study x"), 11.2) == "explained"
    assert v.verdict(_quantity(kind="count", tolerance=0.0, published=7.0), 7.0) == "reproduced"
    assert v.verdict(_quantity(kind="count", tolerance=0.0, published=7.0), 8.0) == "open"
    assert v.verdict(_quantity(published=[5.0, 8.0]), 3.0) == "open"
    assert v.verdict(_quantity(published=[5.0, 8.0]), 6.0) == "reproduced"
    assert v.verdict(_quantity(bound="below", published=1.13), 1.12) == "reproduced"
    assert v.verdict(_quantity(bound="below", published=1.13), 1.15) == "open"
    assert v.verdict(q, math.nan) == "open"


def test_stochastic_rows_carry_the_student_t_interval():
    row = v.evaluate(_quantity(expected="reproduced"), [9.0, 10.0, 11.0, 10.0, 10.0])
    assert row.seeds == 5 and row.ours == pytest.approx(10.0)
    # t(0.975, 4) = 2.776; s = sqrt(0.5)
    assert row.ci == pytest.approx(2.776 * math.sqrt(0.5) / math.sqrt(5), rel=1e-3)
    assert row.verdict == "reproduced" and not row.drift


SYNTHETIC = """
paper = "900"
[[quantity]]
where = "Table 9"
quantity = "terminals of a 4x4 torus, published wrong"
kind = "count"
value = 17
compute = "describe"
args = { spec = "torus:4x4", key = "terminals" }
expected = "reproduced"

[[group]]
where = "Table 9"
kind = "count"
compute = "describe"
columns = ["terminals", "switches"]
rows = [{ spec = "torus:4x4", values = [16, 99], explained = ["switches"] }]
explained_by = "an experiment"
expected = "reproduced"
"""


def test_out_of_tolerance_reproduced_row_is_open_drift_and_exit_1(tmp_path, capsys):
    from hpcnetsim.cli import main

    (tmp_path / "900.toml").write_text(SYNTHETIC)
    status = main(["validate", "--data", str(tmp_path), "--out", str(tmp_path / "out")])
    assert status == 1
    doc = json.loads((tmp_path / "out" / "validate.json").read_text())
    rows = {r["quantity"]: r for r in doc["rows"]}
    wrong = rows["terminals of a 4x4 torus, published wrong"]
    assert (wrong["ours"], wrong["verdict"], wrong["drift"]) == (16, "open", True)
    assert (rows["torus:4x4: terminals"]["verdict"], rows["torus:4x4: terminals"]["drift"]) == (
        "reproduced",
        False,
    )
    assert rows["torus:4x4: switches"]["verdict"] == "explained"
    assert doc["counts"]["900"] == {"reproduced": 1, "explained": 1, "open": 1, "drift": 1}
    out = capsys.readouterr().out
    assert "open (DRIFT)" in out
    assert (tmp_path / "out" / "validate.csv").read_text().count("\n") == 4
    assert "| 900 | 1 | 1 | 1 | 1 |" in (tmp_path / "out" / "validate.md").read_text()


def test_written_files_have_no_nan(tmp_path):
    """A deterministic quantity has no interval: null in validate.json (strict JSON, readable by
    any parser) and an empty cell in validate.csv, not NaN and "nan"."""
    import csv

    from hpcnetsim.cli import main

    (tmp_path / "900.toml").write_text(SYNTHETIC)
    main(["validate", "--data", str(tmp_path), "--out", str(tmp_path / "out")])

    def refuse(constant):
        raise ValueError(f"{constant} in validate.json")

    doc = json.loads((tmp_path / "out" / "validate.json").read_text(), parse_constant=refuse)
    assert [r["ci"] for r in doc["rows"]] == [None, None, None] and doc["rows"][0]["ours"] == 16
    with open(tmp_path / "out" / "validate.csv", newline="") as f:
        assert [r["ci"] for r in csv.DictReader(f)] == ["", "", ""]


def test_within_tolerance_exits_0_and_prints_markdown(tmp_path, capsys):
    from hpcnetsim.cli import main

    (tmp_path / "900.toml").write_text(SYNTHETIC.replace("value = 17", "value = 16"))
    assert main(["validate", "--data", str(tmp_path), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| paper | reproduced | explained | open | drift |")
    assert (
        "| 900 | Table 9 | terminals of a 4x4 torus, published wrong |  | 16 | 16 | 1 | exact | reproduced |"
        in out
    )


@pytest.mark.parametrize(
    "args, field",
    [
        (["--paper", "005"], "--paper = '005'"),
        (["--seeds", "0"], "--seeds = '0'"),
        (["--jobs", "x"], "--jobs = 'x'"),
    ],
)
def test_bad_options_are_one_line_exit_2(cli, args, field):
    r = cli("validate", *args)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and field in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_jobs_are_bounded_as_sweep_jobs_are(cli):
    """validate took up to 256 processes on any machine; sweep --jobs allows 4 per core."""
    from hpcnetsim.cli.arguments import max_workers

    r = cli("validate", "--jobs", str(max_workers() + 1))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"--jobs = '{max_workers() + 1}' is invalid: an integer from 1 to {max_workers()} (4 per core" in r.stderr


@pytest.mark.parametrize(
    "old, new, message",
    [
        ('kind = "count"\nvalue = 17', 'kind = "size"\nvalue = 17', "kind = 'size' is invalid"),
        ("values = [16, 99]", "values = [16]", "values = [16] is invalid"),
        ('compute = "describe"\nargs', 'compute = "guess"\nargs', "compute = 'guess' is invalid"),
    ],
)
def test_bad_data_file_names_the_field(tmp_path, cli, old, new, message):
    assert old in SYNTHETIC
    (tmp_path / "900.toml").write_text(SYNTHETIC.replace(old, new))
    r = cli("validate", "--data", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr


def test_large_rows_run_only_with_large(tmp_path, capsys):
    from hpcnetsim.cli import main

    large = '\n[[quantity]]\nwhere = "Table 9"\nquantity = "switches of a 4x4 torus, large"\nkind = "count"\n' \
        'value = 16\ncompute = "describe"\nlarge = true\nargs = { spec = "torus:4x4", key = "switches" }\n'
    (tmp_path / "900.toml").write_text(SYNTHETIC.replace("value = 17", "value = 16") + large)
    assert main(["validate", "--data", str(tmp_path), "--out", str(tmp_path / "a")]) == 0
    rows = json.loads((tmp_path / "a" / "validate.json").read_text())["rows"]
    assert "switches of a 4x4 torus, large" not in {r["quantity"] for r in rows}
    assert "1 more with --large" in capsys.readouterr().err
    assert main(["validate", "--data", str(tmp_path), "--large", "--out", str(tmp_path / "b")]) == 0
    rows = json.loads((tmp_path / "b" / "validate.json").read_text())["rows"]
    assert {r["quantity"]: r["verdict"] for r in rows}["switches of a 4x4 torus, large"] == "reproduced"
    assert not [q for q in v.load(None, tmp_path) if q.large and q.quick]


def test_large_with_quick_is_one_line_exit_2(cli):
    r = cli("validate", "--quick", "--large")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--large is invalid" in r.stderr


def test_phi_per_cost_divides_by_the_cost_of_the_built_graphs():
    from hpcnetsim.topology import describe

    ctx = v.Context(1, 1, True)
    a = {"network": "tree:k=8,kp=1,n=2", "reference": "tree:k=8,kp=8,n=2"}
    q = v.Quantity(paper="900", where="", quantity="", kind="phi", published=1.0, compute="phi_cost",
                   args={**a, "cost": "cost_linear", "study": "thin-trees", "sweep": "same-size-64"})  # fmt: skip
    phis = v._phi(q, ctx)
    ours = v._phi_cost(q, ctx)
    c, c_ref = (describe(n)["cost_linear"] for n in (a["network"], a["reference"]))
    assert c < c_ref
    assert ours == pytest.approx([p * c_ref / c for p in phis])


def test_time_ratio_over_network_max_is_the_largest_slowdown_of_the_sweep():
    # A paper's "slowdowns of up to N": per seed, the largest time ratio over every network of
    # the sweep but the reference and over every kernel.
    ctx = v.Context(2, 1, True)
    a = {"study": "thin-trees", "sweep": "same-size-64", "reference": "tree:k=8,kp=8,n=2", "kernel": "max"}

    def q(network):
        return v.Quantity(paper="900", where="", quantity="", kind="time", published=1.0,
                          compute="time_ratio", args={**a, "network": network})  # fmt: skip

    ours = v._time_ratio(q("max"), ctx)
    each = {f"tree:k=8,kp={kp},n=2": v._time_ratio(q(f"tree:k=8,kp={kp},n=2"), ctx) for kp in range(1, 8)}
    assert len(ours) == 2
    assert ours == [max(values[seed] for values in each.values()) for seed in range(2)]
    # the thinnest tree is the slowest, and the largest is not the reference against itself
    assert ours == each["tree:k=8,kp=1,n=2"] and min(ours) > 1.5


def test_every_published_file_loads_and_references_study_values():
    qs = v.load()
    assert {q.paper for q in qs} == set(v.PAPERS)
    # Values held by a study file come from it (one home per published number).
    by = {(q.paper, q.quantity): q for q in qs}
    assert by[("004", "barrier, 2 nodes (events to one host, hardware broadcast)")].published == 6.2
    assert by[("000", "φ, 8:1,2")].published == pytest.approx(0.4419)
    assert by[("000", "φ/c_L, 8:1,2")].published == pytest.approx(1.3967)
    assert by[("001", "lanes, PARX on the faulty HyperX")].published == [5.0, 8.0]
    assert by[("003", "256 PEs: 5DT reduction of alltoall 512 B execution time")].published == pytest.approx(
        56.309
    )


def test_quick_validation_has_no_drift(tmp_path):
    """The quick subset (about a minute on two cores): every row recorded as reproduced still is."""
    from hpcnetsim.cli import main

    status = main(["validate", "--quick", "--out", str(tmp_path)])
    doc = json.loads((tmp_path / "validate.json").read_text())
    drifted = [f"{r['paper']} {r['where']} {r['quantity']}: {r['ours']} vs {r['published']}"
               for r in doc["rows"] if r["drift"]]  # fmt: skip
    assert not drifted and status == 0, drifted
    assert set(doc["counts"]) == set(v.PAPERS)
    assert sum(c["reproduced"] for c in doc["counts"].values()) > 200
    stochastic = [r for r in doc["rows"] if r["seeds"] >= 5]
    assert stochastic and all(not math.isnan(r["ci"]) for r in stochastic)
