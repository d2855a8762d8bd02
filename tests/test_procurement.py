"""The procurement study: the sizing rule (hpcnetsim.procurement), the study file and its quick
variant's points, the table of measurements, and the report with its Pareto chart."""

import json
import math

import pytest

from hpcnetsim import ConfigError
from hpcnetsim import procurement as P
from hpcnetsim.reports import procurement_report as R
from hpcnetsim.studies import procurement_study as S
from hpcnetsim.studies.catalog import find
from hpcnetsim.studies.study_all import in_demo
from hpcnetsim.topology import Topology


def fake_pricer(price_of):
    """A pricer from a spec -> cost function; endpoints from the candidates' own formula."""
    counts = {c[0]: c[1] for fam in P.FAMILIES for c in P.candidates(fam, 16, 1000)}

    def pricer(spec):
        return {"endpoints": counts[spec], "switches": 1, "cost_usd": float(price_of(spec)), "power_w": 1.0}

    return pricer


@pytest.mark.parametrize(
    "spec",
    ["tree:k=4,n=3", "xgft:h=3;m=4,4,4;w=1,2,4", "tree:k=6,kp=3,n=2", "dragonfly:a=4,p=2,h=2,g=5",
     "hyperx:4x4,t=3", "slimfly:q=5", "slimfly:q=8", "torus:4x3x3,t=2"],
)  # fmt: skip
def test_candidate_formulas_match_the_built_networks(spec):
    found = {c[0]: c for fam in P.FAMILIES for c in P.candidates(fam, 32, 200)}
    _, endpoints, radix = found[spec]
    topo = Topology.from_spec(spec)
    assert endpoints == topo.num_terminals
    assert radix == max(len(topo.ports(s)) for s in range(topo.num_switches))


def test_every_family_gets_the_nearest_configuration_within_budget():
    # Price: endpoints × a per-family factor, so the tree sets a budget the others fit under.
    factor = {"tree:": 3.0, "xgft:": 2.0, "dragonfly:": 1.5, "hyperx:": 1.4, "slimfly:": 1.2, "torus:": 1.1}
    counts = {c[0]: c[1] for fam in P.FAMILIES for c in P.candidates(fam, 16, 64)}
    pricer = fake_pricer(lambda s: counts[s] * next(v for k, v in factor.items() if s.startswith(k)))
    choices = P.size_class(64, list(P.FAMILIES), 16, pricer=pricer)
    assert [c.family for c in choices] == list(P.FAMILIES)
    budget = choices[0].budget_usd
    assert choices[0].spec.startswith("tree:") and choices[0].endpoints == 64 and budget == 64 * 3.0
    for c in choices:
        assert c.spec is not None and c.cost_usd <= budget, c
        # Brute force: no candidate of the family within budget is nearer the target.
        best = min(abs(math.log(e / 64)) for s, e, _ in P.candidates(c.family, 16, 64) if pricer(s)["cost_usd"] <= budget)
        assert abs(math.log(c.endpoints / 64)) == best
        # Of the equally near ones within budget, the most expensive.
        ties = [s for s, e, _ in P.candidates(c.family, 16, 64) if e == c.endpoints and pricer(s)["cost_usd"] <= budget]
        assert c.cost_usd == max(pricer(s)["cost_usd"] for s in ties)


def test_an_over_budget_configuration_is_passed_over_and_ties_take_the_richest():
    counts = {c[0]: c[1] for c in P.candidates("torus", 16, 100)}
    # The exact 100-endpoint torus (5x5x4) priced over the budget: the next nearest count (96:
    # 6x4x4 and 4x4x3,t=2) must be chosen, and of those the more expensive (here: by spec length).
    exact = [s for s, e in counts.items() if e == 100]
    assert exact

    def price(spec):
        if spec.startswith("tree:"):
            return 1000.0
        return 5000.0 if spec in exact else 100.0 + len(spec)

    c = P.size_class(100, ["fat-tree", "torus"], 16, pricer=fake_pricer(price))[1]
    assert c.spec not in exact and c.cost_usd <= 1000.0
    nearest = min(abs(math.log(e / 100)) for s, e in counts.items() if s not in exact)
    assert abs(math.log(c.endpoints / 100)) == nearest
    ties = [s for s, e in counts.items() if s not in exact and abs(math.log(e / 100)) == nearest]
    assert len({price(s) for s in ties}) > 1, "the ties must differ in price for the check to mean anything"
    assert c.cost_usd == max(price(s) for s in ties) and c.spec == "torus:4x4x3,t=2"


def test_a_family_with_nothing_under_the_budget_is_left_out_with_the_reason():
    pricer = fake_pricer(lambda s: 10.0 if s.startswith("tree:") else 1e9)
    c = P.size_class(64, ["fat-tree", "torus"], 16, pricer=pricer)[1]
    assert c.spec is None and "budget" in c.reason and "16 ports" in c.reason


def test_sizing_input_errors_name_the_field():
    with pytest.raises(ConfigError, match="family = 'ring' is invalid"):
        P.candidates("ring", 16, 64)
    with pytest.raises(ConfigError, match="classes = 1 is invalid"):
        P.size_class(1, ["fat-tree"], 16)
    with pytest.raises(ConfigError, match="max_radix = 2 is invalid"):
        P.size_class(64, ["fat-tree"], 2)
    # With 4-port switches (k = 2) a full fat-tree of at most 4 levels has 2^4 = 16 endpoints:
    # no budget for 1 000 (it once sized every family to the 16-endpoint tree's price).
    with pytest.raises(ConfigError, match=r"classes = 1000 is invalid: .* tree:k=2,n=4, has 16 endpoints"):
        P.size_class(1000, ["fat-tree", "torus"], 4)


def test_real_prices_keep_the_budget_and_the_thin_trees_cost_about_half():
    choices = {c.family: c for c in P.size_class(64, ["fat-tree", "fat-tree-2to1", "thin-tree", "torus"], 16)}
    budget = choices["fat-tree"].budget_usd
    assert all(c.cost_usd <= budget for c in choices.values())
    assert 0.3 < choices["fat-tree-2to1"].cost_usd / budget < 0.7
    assert choices["thin-tree"].cost_usd < budget


def test_study_file_parses_and_the_quick_variant_has_the_points_the_report_needs():
    path = find("procurement")
    full = S.load(path)
    assert full["classes"] == [1000, 8000, 64000] and not in_demo(path)
    quick = S.load(path, quick=True)
    assert quick["classes"] == [1000] and len(quick["loads"]) < len(full["loads"])
    sizing, exp = S.plan(quick)
    assert list(sizing) == [1000] and [c.family for c in sizing[1000]] == list(P.FAMILIES)
    assert all(c.spec is not None and 500 <= c.endpoints <= 2000 for c in sizing[1000])
    for c in sizing[1000]:
        mine = [p for p in exp.points if p.values["family"] == c.family]
        for pattern in quick["patterns"]:
            loads = sorted(p.values["traffic.load"] for p in mine if p.values.get("pattern") == pattern)
            assert loads == sorted(quick["loads"]), (c.family, pattern)
        worst = {p.config["traffic"]["pattern"] for p in mine if p.values.get("pattern") == "worst-case"}
        assert worst == {quick["routing"][c.family]["worst_case"]}
        kernels = {p.config["workload"]["kernel"] for p in mine if "workload" in p.config}
        assert kernels == {"alltoall", "allreduce"}
        assert all(p.config["topology"] == c.spec for p in mine)
        assert {p.config["routing"]["algorithm"] for p in mine} == {quick["routing"][c.family]["algorithm"]}


@pytest.mark.parametrize(
    "key, value, message",
    [("max_radix", "2", "max_radix = 2 is invalid"), ("loads", "[0.5, 1.5]", "loads = [0.5, 1.5] is invalid"),
     ("families", '["torus"]', "must include fat-tree"), ("colour", "1", "key = \"colour\" is invalid"),
     ("patterns", '["bitrev"]', "patterns = [\"bitrev\"] is invalid"), ("seed", "1", "")],
)  # fmt: skip
def test_study_file_errors_name_the_field(tmp_path, key, value, message):
    import re

    text = find("procurement").read_text()
    line = f"{key} = {value}"
    # The top-level setting replaced (or added after the name when the file has none).
    edited, n = re.subn(rf"^{key} = .*$", line, text, count=1, flags=re.M)
    edited = edited if n else text.replace('name = "procurement"', f'name = "procurement"\n{line}', 1)
    bad = tmp_path / "bad.toml"
    bad.write_text(edited)
    if not message:
        assert S.load(bad)["seed"] == 1  # the unchanged file is valid: the others fail for their edit
        return
    with pytest.raises(ConfigError, match=re.escape(message)):
        S.load(bad)


@pytest.mark.parametrize(
    "old, new, message",
    [("samples = 20", "sample = 20", "ebb.sample is not a field: one of samples, max_nodes"),
     ("max_tasks = 8192", "max_task = 8192", "collectives.max_task is not a field"),
     ("max_tasks = 8192", "max_tasks = 1", "collectives.max_tasks = 1 is invalid: an integer >= 2"),
     ('hyperx = { algorithm = "hyperx-dal",', 'hyper-x = { algorithm = "hyperx-dal",', "routing.hyper-x is invalid"),
     ('worst_case = "group-shift" }', 'worst_case = "group-shift", vcs = 2 }', "routing.dragonfly.vcs is not a field"),
     ("switch.vcs = 4", 'switch.vcs = 4\ntopology = "torus:4x4"', "base.topology is invalid: the runner sets"),
     ("switch.vcs = 4", "switch.vcs = 4\nseed = 7", "base.seed is invalid: the runner sets seed"),
     ("switch.vcs = 4", 'switch.vcs = 4\ntraffic.pattern = "uniform"', "base.traffic.pattern is invalid"),
     ("ebb = { samples = 10 }", "ebb = { samples = 10, nodes = 5 }", "quick.ebb.nodes is not a field"),
     ("max_ratio = 2.0", "max_ratio = inf", "max_ratio = inf is invalid: a finite number >= 1"),
     ("demo = false", 'demo = "no"', "demo = \"no\" is invalid: true or false"),
     ("^title = .*$", "title = 5", "title = 5 is invalid: a string"),
     ("loads = [0.1, 0.3, 0.5, 0.7, 1.0]", "loads = [0.1, 3.0]", "loads = [0.1, 3.0] is invalid"),
     ("classes = [1000]", 'classes = ["1000"]', "(in the [quick] variant)")],
)  # fmt: skip
def test_study_file_keys_the_runner_would_not_read_are_refused(tmp_path, old, new, message):
    # A misspelt key of [ebb], [collectives] or [routing], or a [base] field the runner sets
    # itself, was left unread; a title that is no string failed only when the report was written;
    # a bad value of [quick] passed until --quick was tried.
    import re

    text = find("procurement").read_text()
    pattern = old if old.startswith("^") else re.escape(old)
    edited, n = re.subn(pattern, lambda _: new, text, count=1, flags=re.M)
    assert n == 1
    bad = tmp_path / "bad.toml"
    bad.write_text(edited)
    with pytest.raises(ConfigError, match=re.escape(message)):
        S.load(bad)


def _row(label, family, cost, power, sat, **extra):
    row = {"class": 1000, "family": family, "label": label, "spec": f"{family}:x", "routing": "r", "endpoints": 1000,
           "switches": 10, "radix": 20, "budget_usd": 3e6, "cost_usd": cost, "power_w": power, "reason": "",
           "sat_uniform": sat, "sat_random-permutation": sat, "sat_worst-case": sat / 2, "ebb": 0.5,
           "alltoall_cycles": 1000, "allreduce_cycles": 2000, "link_mb_s": 16000.0,
           "uniform_gb_s": sat * 1000 * 16.0, "gb_s_per_kusd": sat * 16000 / (cost / 1e3),
           "gb_s_per_kw": sat * 16000 / (power / 1e3)}  # fmt: skip
    row.update(extra)
    return row


def test_report_gives_the_link_bandwidth_and_cycle_the_points_ran_with():
    # A study whose [base] sets 4-byte phits ran on 4 GB/s links; the assumptions said 16 GB/s.
    rows = [_row("full fat-tree", "fat-tree", 3e6, 20000, 0.9, link_mb_s=4000.0, cycle_ns=1.0),
            _row("thin-tree", "thin-tree", 1.2e6, 8000, 0.5, link_mb_s=4000.0, cycle_ns=1.0)]  # fmt: skip
    study = S.load(find("procurement"), quick=True)
    results = {"study": {k: v for k, v in study.items() if k != "quick"}, "rows": rows, "sizing": {},
               "points": {"total": 2, "failed": 0, "statuses": {"converged": 2}}}  # fmt: skip
    text, _ = R.markdown(results)
    assert "defaults of docs/config.md (4 GB/s links, 1 ns cycles)." in text and "16 GB/s" not in text


def test_pareto_front():
    # (cost, value): the second is dominated by the first (cheaper and better), the third is not.
    assert R.pareto([(1.0, 2.0), (2.0, 1.0), (3.0, 3.0)]) == [True, False, True]
    assert R.pareto([(1.0, 1.0), (1.0, 1.0)]) == [True, True]


def test_report_renders_with_the_pareto_chart_from_synthetic_results(tmp_path):
    rows = [_row("full fat-tree", "fat-tree", 3e6, 20000, 0.9), _row("thin-tree", "thin-tree", 1.2e6, 8000, 0.5),
            _row("3D torus", "torus", 2e6, 20000, 0.2, ebb=None, ebb_error="no paths"),
            {**_row("Slim Fly", "slimfly", 1, 1, 0), "spec": None, "reason": "nothing under the budget",
             "cost_usd": None, "power_w": None, "sat_uniform": None, "uniform_gb_s": None, "gb_s_per_kusd": None,
             "gb_s_per_kw": None}]  # fmt: skip
    study = S.load(find("procurement"), quick=True)
    results = {"study": {k: v for k, v in study.items() if k != "quick"}, "rows": rows,
               "sizing": {"1000": [{"family": "fat-tree", "spec": "tree:k=10,n=3", "priced": [["tree:k=10,n=3", 1000, 3e6]],
                                    "reason": ""}]},
               "points": {"total": 3, "failed": 0, "statuses": {"converged": 3}}}  # fmt: skip
    page = R.write(results, tmp_path, "name = 'x'\n").read_text()
    assert page.count("<svg") == 1 and "aria-label='Pareto chart'" in page
    assert "cost (million USD)" in page and "power (kW)" in page
    for text in ("unverified defaults", "[sim]", "[table]", "[flow]", "Ranking per workload", "Assumptions",
                 "nothing under the budget", "no eBB: no paths", "Study file"):  # fmt: skip
        assert text in page, text
    assert "None" not in page.replace("NoneType", "") and "nan" not in page
    md = (tmp_path / "report.md").read_text()
    # Ranking: uniform saturation best first, alltoall ties keep the table order.
    ranking = md.split("### ~1000 endpoints", 1)[1]
    first = ranking.split("| 1 |", 1)[1].split("\n", 1)[0]
    assert first.split("|")[0].strip() == "full fat-tree (0.9)"
    assert first.split("|")[6].strip() == "thin-tree (6.667)"  # GB/s per k$: 6.667 against 4.8 and 1.6
    # Against the full fat-tree: cost 1.2e6 of 3e6, power 8000 of 20000, uniform 0.5 of 0.9.
    assert "| thin-tree | 40 % | 40 % | 56 % |" in md and "| 3D torus | 67 % | 100 % | 22 % |" in md
    assert (tmp_path / "pareto.png").stat().st_size > 0 and (tmp_path / "summary.md").exists()
    assert json.loads((tmp_path / "results.json").read_text())["rows"][0]["label"] == "full fat-tree"


def test_measurements_take_the_highest_converged_load():
    from types import SimpleNamespace

    from hpcnetsim.experiments.experiment import Point

    study = S.load(find("procurement"), quick=True)
    study["patterns"] = ["uniform"]
    choice = P.Choice("torus", "3D torus", 1000, 2e6, "torus:10x10x10", 1000, 7, 1e6, 1e4, 1000)
    pts = [Point(i, "n1000", {"class": 1000, "family": "torus", "network": "torus:10x10x10", "pattern": "uniform",
                              "traffic.load": load}, {}, f"k{i}") for i, load in enumerate((0.3, 0.6, 0.9))]  # fmt: skip
    rows = {"k0": {"state": "done", "status": "converged", "accepted_load": 0.3, "link_bandwidth_mb_s": 16000.0},
            "k1": {"state": "done", "status": "converged", "accepted_load": 0.45, "link_bandwidth_mb_s": 16000.0},
            "k2": {"state": "done", "status": "not-converged", "accepted_load": 0.7}}  # fmt: skip
    [row] = S.measurements(study, {1000: [choice]}, SimpleNamespace(points=pts), rows, {})
    assert row["sat_uniform"] == 0.45 and row["unconverged_uniform"] == 1
    assert row["uniform_gb_s"] == pytest.approx(0.45 * 1000 * 16.0)
    assert row["gb_s_per_kusd"] == pytest.approx(0.45 * 1000 * 16.0 / 1e3)
    assert row["alltoall_cycles"] is None


def test_a_network_chosen_for_two_classes_is_measured_in_both():
    # 1 000 and 1 100 endpoints: the dragonfly and the Slim Fly nearest both are the same
    # networks, simulated once; the second class's rows once showed no measurement at all.
    study = S.load(find("procurement"), quick=True)
    study["classes"] = [1000, 1100]
    sizing, exp = S.plan(study)
    shared = {c.spec for c in sizing[1000] if c.spec} & {c.spec for c in sizing[1100] if c.spec}
    assert shared, "the two classes share no network: the test needs closer classes"
    rows = {p.key: {"state": "done", "status": "completed" if "workload" in p.config else "converged",
                    "accepted_load": p.values.get("traffic.load"), "execution_time_cycles": 1000,
                    "link_bandwidth_mb_s": 16000.0} for p in exp.points}  # fmt: skip
    table = S.measurements(study, sizing, exp, rows, {})
    assert len(table) == 2 * len(P.FAMILIES)
    for row in table:
        assert row["spec"] is not None
        for pattern in study["patterns"]:
            assert row[f"sat_{pattern}"] == max(study["loads"]), (row["class"], row["spec"], pattern)
        assert row["alltoall_cycles"] == row["allreduce_cycles"] == 1000, (row["class"], row["spec"])


def test_a_network_chosen_for_two_classes_has_its_ebb_measured_once(monkeypatch):
    study = S.load(find("procurement"), quick=True)
    study["classes"] = [1000, 1100]
    sizing, _ = S.plan(study)
    calls = []
    monkeypatch.setattr(S, "_ebb", lambda study, spec, family, endpoints: calls.append(spec) or {"ebb": len(calls)})
    ebbs = S.measure_ebbs(study, sizing, lambda text: None)
    specs = [c.spec for cs in sizing.values() for c in cs if c.spec]
    assert sorted(calls) == sorted(set(specs)) and len(calls) < len(specs)
    for target, cs in sizing.items():
        for c in cs:
            if c.spec:
                assert ebbs[(target, c.family)] == {"ebb": calls.index(c.spec) + 1}


TINY = """
name = "tiny-procurement"
runner = "procurement"
classes = [16]
max_radix = 8
families = ["fat-tree", "thin-tree", "torus"]
patterns = ["uniform", "random-permutation", "worst-case"]
loads = [0.4]
[routing]
fat-tree = { algorithm = "tree-adaptive", worst_case = "tornado" }
thin-tree = { algorithm = "tree-adaptive", worst_case = "tornado" }
# Tornado on the 2-ary torus this class gets would send every terminal to itself (refused).
torus = { algorithm = "duato", worst_case = "bit-complement" }
[base]
switch.vcs = 4
[base.measurement]
warmup_cycles = 300
window_cycles = 100
convergence_windows = 2
convergence_tolerance = 0.5
max_convergence_cycles = 600
batches = 1
batch_cycles = 300
[ebb]
samples = 2
[collectives]
alltoall_bytes = 64
allreduce_bytes = 256
max_tasks = 16
"""


def test_tiny_study_runs_end_to_end_from_the_command_line(cli, tmp_path, monkeypatch):
    studies = tmp_path / "studies"
    studies.mkdir()
    (studies / "tiny.toml").write_text(TINY)
    monkeypatch.setenv("HPCNETSIM_STUDIES", str(studies))
    r = cli("study", "run", "tiny", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    rows = {row["family"]: row for row in res["rows"]}
    assert set(rows) == {"fat-tree", "thin-tree", "torus"}
    assert rows["fat-tree"]["endpoints"] == rows["thin-tree"]["endpoints"] == 16
    for row in rows.values():
        assert 8 <= row["endpoints"] <= 32 and row["cost_usd"] <= row["budget_usd"]
        assert 0 < row["ebb"] <= 1 + 1e-9 and row["alltoall_cycles"] > 0 and row["allreduce_cycles"] > 0
        assert row["sat_uniform"] is not None and 0 < row["sat_uniform"] <= 0.4 * 1.3  # short batches: noisy
    assert "<svg" in (tmp_path / "out" / "report.html").read_text()
    (studies / "tiny.toml").write_text(TINY.replace("loads = [0.4]", "loads = [2.0]"))
    r = cli("study", "run", "tiny", "--out", str(tmp_path / "bad"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "loads = [2.0] is invalid" in r.stderr


def test_study_run_all_leaves_out_a_study_with_demo_false(tmp_path, monkeypatch):
    import argparse

    from hpcnetsim.studies.study_all import run_all

    studies = tmp_path / "studies"
    studies.mkdir()
    (studies / "kept.toml").write_text('name = "kept"\n')
    (studies / "slow.toml").write_text('name = "slow"\ndemo = false\n')
    monkeypatch.setenv("HPCNETSIM_STUDIES", str(studies))
    ran = []
    args = argparse.Namespace(out=tmp_path / "out", quick=True)
    assert run_all(args, lambda a: ran.append(a.name) or 0) == 0
    assert ran == ["kept"] and "slow" not in (tmp_path / "out" / "index.html").read_text()


def test_report_and_study_tables_rewrite_the_procurement_page(cli, tmp_path):
    rows = [_row("full fat-tree", "fat-tree", 3e6, 20000, 0.9), _row("HyperX", "hyperx", 1.2e6, 8000, 0.6)]
    study = S.load(find("procurement"), quick=True)
    results = {"study": {k: v for k, v in study.items() if k != "quick"}, "rows": rows, "sizing": {},
               "points": {"total": 2, "failed": 0, "statuses": {"converged": 2}}}  # fmt: skip
    R.write(results, tmp_path, "name = 'procurement'\n")
    (tmp_path / "experiment.json").write_text("{}")  # as a run leaves it: the generic report must not replace ours
    (tmp_path / "report.html").unlink()
    r = cli("report", str(tmp_path))
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "report.html").read_text()
    assert "aria-label='Pareto chart'" in page and "name = &#x27;procurement&#x27;" in page
    t = cli("study", "tables", str(tmp_path))
    assert t.returncode == 0 and "| HyperX |" in t.stdout and "budget" in t.stdout


@pytest.mark.parametrize(
    "damage, message",
    [(lambda text: text[:100], "not readable JSON"), (lambda text: "[1]", "a JSON list, not an object"),
     (lambda text: text.replace('"rows"', '"rowz"'), "rows is missing"),
     (lambda text: text.replace('"collectives"', '"collectivez"'), "collectives is missing")],
)  # fmt: skip
def test_report_of_a_damaged_procurement_results_file_is_one_line_and_keeps_the_page(cli, tmp_path, damage,
                                                                                     message):  # fmt: skip
    # A results.json missing a field gave a traceback; a truncated one made `hpcnetsim report`
    # replace the procurement page (cost, power, Pareto chart) with the generic sweep page.
    rows = [_row("full fat-tree", "fat-tree", 3e6, 20000, 0.9), _row("HyperX", "hyperx", 1.2e6, 8000, 0.6)]
    study = S.load(find("procurement"), quick=True)
    results = {"study": {k: v for k, v in study.items() if k != "quick"}, "rows": rows, "sizing": {},
               "points": {"total": 2, "failed": 0, "statuses": {"converged": 2}}}  # fmt: skip
    R.write(results, tmp_path, "name = 'procurement'\n")
    (tmp_path / "experiment.json").write_text("{}")
    path = tmp_path / "results.json"
    path.write_text(damage(path.read_text()))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    r = cli("report", str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert str(path) in r.stderr and message in r.stderr and "run the study again" in r.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_second_run_reports_the_points_the_first_computed(cli, tmp_path, monkeypatch):
    # Every point stored: the second run ran none, and its report said "32 simulations (; 0 failed)".
    studies = tmp_path / "studies"
    studies.mkdir()
    (studies / "tiny.toml").write_text(TINY.replace('"random-permutation", ', ""))
    monkeypatch.setenv("HPCNETSIM_STUDIES", str(studies))
    lines = []
    for _ in range(2):
        r = cli("study", "run", "tiny", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "out"))
        assert r.returncode == 0, r.stderr
        report = (tmp_path / "out" / "report.md").read_text().splitlines()
        lines.append(next(s for s in report if s.startswith("Points")))
        res = json.loads((tmp_path / "out" / "results.json").read_text())
        assert sum(res["points"]["statuses"].values()) + res["points"]["failed"] == res["points"]["total"] > 0
    assert lines[0] == lines[1] and "completed" in lines[1], lines
