"""Experiment files: expansion into points, canonical keys, and one-line errors for bad files."""

import copy
import json
import os
import tomllib
from pathlib import Path

import pytest
from hpcnetsim import ConfigError
from hpcnetsim.experiments import experiment
from hpcnetsim.canonical import config_key, default_config
from hpcnetsim.topology import Topology

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small_sweep.toml"


def test_grid_and_list_expand_into_points():
    exp = experiment.load(SMALL)
    grid = [p for p in exp.points if p.group == "grid"]
    nets = [p for p in exp.points if p.group == "networks"]
    assert len(grid) == 3 * 2 and len(nets) == 2 * 2 * 2
    # "=min(1, 0.6 * ideal)" on the 4x4 torus (ideal 1) is 0.6.
    assert sorted({p.config["traffic"]["load"] for p in grid}) == [0.1, 0.3, 0.6]
    assert {p.config["seed"] for p in grid} == {1, 2}
    xbar = [p for p in nets if p.config["topology"] == "crossbar:8"]
    assert {p.config["routing"]["algorithm"] for p in xbar} == {"direct"}
    assert {p.config["switch"]["vcs"] for p in xbar} == {1, 2}
    assert xbar[0].values["point"] == "xbar"
    # Every point has the full canonical config: defaults filled in from the base.
    assert all(p.config["measurement"]["batch_cycles"] == 500 for p in exp.points)
    assert all(p.config["switch"]["queue_packets"] == 4 for p in exp.points)
    assert len({p.key for p in exp.points}) == len(exp.points)


def test_quick_variant_selects_sweeps_and_overrides_base():
    exp = experiment.load(SMALL, quick=True)
    assert {p.group for p in exp.points} == {"grid"} and len(exp.points) == 6
    assert {p.config["measurement"]["batches"] for p in exp.points} == {1}


def test_identical_points_are_one_simulation(tmp_path):
    f = tmp_path / "dup.toml"
    f.write_text(
        'name = "dup"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.traffic.load = [0.5, 0.5, "=0.5 * ideal"]\n'
    )
    assert len(experiment.load(f).points) == 1


def _leaves(d, prefix=()):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from _leaves(v, (*prefix, k))
        else:
            yield (*prefix, k), v


def _changed(name, value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2 if value else 0.5
    if isinstance(value, list):
        return [*value, 1]
    return {"topology": "torus:4x8", "algorithm": "dor", "selection": "random", "arbitration": "oldest-first",
            "pattern": "transpose", "injection": "bursty", "output_allocation": "link"}[name]  # fmt: skip


#: The traffic fields read by one pattern or injection only, and the setting that reads each.
_READERS = {"zipf_exponent": {"pattern": "zipf"}, "zipf_ranks": {"pattern": "zipf"},
            "hot_fraction": {"pattern": "hot-spot"}, "hot_region_fraction": {"pattern": "hot-region"},
            "burst_packets": {"injection": "bursty"}}  # fmt: skip


def test_keys_differ_in_any_field_and_agree_on_identical_configs():
    base = copy.deepcopy(default_config())
    base["topology"] = "torus:4x4"
    base["traffic"]["packet_phits_max"] = 32  # so that packet_phits + 1 stays valid
    base["switch"]["vcs"] = 4  # so that every routing a changed field names has its VCs
    key = config_key(base)
    assert config_key(copy.deepcopy(base)) == key
    # Omitted defaults and explicit ones are the same configuration.
    assert config_key({"topology": "torus:4x4"}) == config_key(
        {"topology": "torus:4x4", "seed": 1, "switch": {"vcs": 1}}
    )
    assert config_key({"topology": "torus:4x4", "traffic": {"load": 1}}) == config_key(
        {"topology": "torus:4x4", "traffic": {"load": 1.0}}
    )
    keys = {key}
    for path, value in _leaves(base):
        if path == ("switch", "preset"):
            continue  # a single preset exists: nothing else to change it to
        other = copy.deepcopy(base)
        table = other
        for p in path[:-1]:
            table = table[p]
        table[path[-1]] = _changed(path[-1], value)
        # A pattern's own field is refused beside another pattern: change it beside its reader.
        if path[0] == "traffic" and path[-1] in _READERS:
            other["traffic"].update(_READERS[path[-1]])
        keys.add(config_key(other))
        assert len(keys) == 1 + len([k for k in keys if k != key]), path
    assert len(keys) == len(list(_leaves(base)))  # all leaves but the preset, plus the base
    assert config_key(base, version="0.0.0") != key


BAD = [
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch.vsc = [1, 2]\n',
        "unknown axis or field 'switch.vsc'",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.traffic.load = []\n',
        "traffic.load = [] is invalid",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch.vcs = [1, "two"]\n',
        "switch.vcs[1] = \"two\" is invalid: an integer",
    ),
    # Values as the TOML file writes them, not as Python prints them (True, '1').
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch.vcs = [true]\n',
        "switch.vcs[0] = true is invalid: an integer",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch.vcs = 2\n',
        "switch.vcs = 2 is invalid: a non-empty list",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch.vcs = [1, 99]\n',
        "switch.vcs = 99 is invalid",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.traffic.load = ["=import(os)"]\n',
        'traffic.load = "=import(os)" is invalid',
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.traffic.load = [0.1]\nbogus = 1\n',
        "unknown key 'bogus'",
    ),
    ('name = "x"\n[[sweep]]\naxes.traffic.load = [0.1]\n', "topology = missing"),
    ('name = "x"\nbase.topology = "torus:4x0"\n[[sweep]]\naxes.seed = [1]\n', "dimension 1 = 0"),
    ('name = "x"\nbase.topology = "torus:4x4"\n', "at least one [[sweep]]"),
    ('name = "X Y"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.seed = [1]\n', "name = \"X Y\" is invalid"),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.seed = [1]\n[quick]\nsweeps = ["nope"]\n',
        "quick.sweeps",
    ),
    # Two axes (or an axis and the listed points) setting one field: the values of one would
    # never run, the other's replacing them in every point.
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch.vcs = [2, 3]\naxes."switch.vcs" = [4]\n',
        "axes.switch.vcs is invalid: it sets switch.vcs, which axis switch.vcs sets too",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch = [{ vcs = 2 }, { vcs = 3 }]\n'
        'axes."switch.vcs" = [4]\n',
        "axes.switch.vcs is invalid: it sets switch.vcs, which axis switch sets too",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\npoints = [{ switch.vcs = 2 }]\naxes.switch.vcs = [3, 4]\n',
        "axes.switch.vcs is invalid: it sets switch.vcs, which a listed point sets too",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\nname = 3\naxes.seed = [1]\n',
        "sweep 0 name = 3 is invalid: a non-empty string",
    ),
    ('name = "x"\ntitle = 5\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.seed = [1]\n', "title = 5 is invalid"),
    # An axis of tables and plain values mixed; an expression in a field that is no number.
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.switch = [{ vcs = 2 }, 3]\n',
        "axes.switch[1] = 3 is invalid: a table of fields, as [0] is",
    ),
    (
        'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.topology = ["=1"]\n',
        "axes.topology[0] = \"=1\" is invalid: a string, as topology in docs/config.md (expressions",
    ),
    ('name = "x"\nbase = 3\n', "base = 3 is invalid"),
    ('name = "x"\n[[sweep]\n', "invalid TOML"),
    ("", "name = missing"),
    ('base.topology = "torus:4x4"\n[[sweep]]\naxes.seed = [1]\n', "name = missing"),
]


@pytest.mark.parametrize("text,needle", BAD, ids=[n for _, n in BAD])
def test_bad_experiment_file_is_one_line_exit_2_and_writes_nothing(cli, tmp_path, text, needle):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    out = tmp_path / "out"
    r = cli("sweep", str(f), "--out", str(out), "--no-progress")
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in r.stderr, r.stderr
    assert needle in lines[0], lines[0]
    assert str(f) in lines[0]
    assert not out.exists()


FIGURE_SWEEP = """\
name = "f"
base.topology = "torus:4x4"
[[sweep]]
name = "grid"
axes.traffic.load = [0.1, 0.3]
axes.switch.vcs = [2, 3]
[[sweep]]
name = "listed"
points = [{ topology = "torus:4x4", label = "small", switch.vcs = 3 }]
axes.variant = [{ label = "dor", routing.algorithm = "dor" }, { label = "duato", routing.algorithm = "duato" }]
[[report.figures]]
"""


@pytest.mark.parametrize("figure,needle", [
    ('kind = "throughput"\npanels = "nocolumn"', "report.figures[0].panels = \"nocolumn\" is invalid: one of"),
    ('kind = "latency"\ncurves = "switch.vc"', "curves = \"switch.vc\" is invalid: one of the points' columns "
                                               "(did you mean switch.vcs?)"),
    ('kind = "throughput"\nsweep = "grid"\ncurves = "point"', "curves = \"point\" is invalid"),
    ('kind = "heatmap"\nx = "traffic.load"', "x = \"traffic.load\" is invalid: one of the points' config columns"),
    ('kind = "heatmap"\ny = "variant"', "y = \"variant\" is invalid"),
    ('kind = "heatmap"\nvalue = "nope"', "value = \"nope\" is invalid: one of max_over_ideal"),
    # One column on both axes ended the report with "Grouper for 'topology' not 1-dimensional".
    ('kind = "heatmap"\nx = "topology"', 'x = "topology" is invalid: a column other than y = "topology"'),
    ('kind = "heatmap"\nx = "group"\ny = "group"', 'x = "group" is invalid: a column other than y = "group"'),
    ('kind = "cost"\ncurves = "nocolumn"', "curves = \"nocolumn\" is invalid"),
    ('kind = "normalized-time"\nreference = "torus:4x4"\npanels = "nocolumn"', "panels = \"nocolumn\" is invalid"),
    # A key the figure's kind does not read is refused, not ignored.
    ('kind = "cost"\npanels = "topology"', "report.figures[0].panels = \"topology\" is invalid: a figure of kind \"cost\" "
                                          "does not read it; its keys are kind, sweep, title, curves"),
    ('kind = "heatmap"\ncurves = "switch.vcs"', "curves = \"switch.vcs\" is invalid: a figure of kind \"heatmap\""),
    ('kind = "throughput"\nx = "switch.vcs"', "x = \"switch.vcs\" is invalid: a figure of kind \"throughput\""),
    ('kind = "evolution"\nreference = "torus:4x4"', "reference = \"torus:4x4\" is invalid: a figure of kind \"evolution\""),
])  # fmt: skip
def test_figures_name_columns_the_points_have(figure, needle):
    # Refused when the file is read: the report would fail only after the sweep ran.
    doc = tomllib.loads(FIGURE_SWEEP + figure)
    with pytest.raises(ConfigError) as e:
        experiment.parse(doc, "f.toml")
    assert needle in str(e.value) and str(e.value).startswith("f.toml: "), e.value


def test_every_figure_kind_lists_the_keys_it_reads():
    assert set(experiment.FIGURE_KEYS) == set(experiment.PLOT_FIGURE_KINDS + experiment.CAUSAL_FIGURE_KINDS)
    read = {k for keys in experiment.FIGURE_KEYS.values() for k in keys} | {"kind", "sweep", "title"}
    assert read == set(experiment.REPORT_KEYS["figures"])


def test_figures_may_name_config_columns_and_labels():
    for figure in ('kind = "throughput"\npanels = "variant"\ncurves = "point"\nsweep = "listed"',
                   'kind = "latency"\npanels = "group"\ncurves = "routing.algorithm"\nmetric = "anything"',
                   'kind = "heatmap"\nx = "switch.vcs"\ny = "topology"\nvalue = "max_accepted"',
                   'kind = "cost"\ncurves = "switch.vcs"'):  # fmt: skip
        experiment.parse(tomllib.loads(FIGURE_SWEEP + figure), "f.toml")
    # A group the quick variant leaves out draws nothing: its figure is not judged by the others.
    quick = '\n[quick]\nsweeps = ["grid"]\n'
    figure = 'kind = "throughput"\nsweep = "listed"\ncurves = "point"'
    experiment.parse(tomllib.loads(FIGURE_SWEEP + figure + quick), "f.toml", quick=True)


CAUSAL_SWEEP = """\
name = "c"
base.topology = "torus:4x4"
base.switch.vcs = 2
base.workload.tasks = 16
[[sweep]]
axes.workload.kernel = ["bu", "2m"]
"""


@pytest.mark.parametrize("section,needle", [
    # Each of these passed the sweep and ended `hpcnetsim report` with a traceback.
    ('[[report.performance]]\nreference = "torus:4x4"\nweights = { bu = "x" }',
     'report.performance[0].weights.bu = "x" is invalid: a number >= 0'),
    ('[[report.performance]]\nreference = "torus:4x4"\nweights = { bu = -2 }',
     "report.performance[0].weights.bu = -2 is invalid: a number >= 0"),
    ('[[report.performance]]\nreference = "torus:4x4"\nweights = 3',
     "report.performance[0].weights = 3 is invalid: a table of weights by kernel or kernel@bytes"),
    ('[[report.performance]]\nreference = "torus:4x4"\ncost = "yes"',
     'report.performance[0].cost = "yes" is invalid: true or false'),
    ('[[report.performance]]\nreference = "torus:4x4"\ntopologies = "torus:4x4"',
     'report.performance[0].topologies = "torus:4x4" is invalid: a list of topology specs'),
    ('[[report.performance]]\ntitle = "phi"', "report.performance[0].reference = (missing) is invalid: "
                                                "the topology spec of the reference network"),
    # A misspelt published value was left out of the table without a word.
    ('[[report.performance]]\nreference = "torus:4x4"\n[report.performance.published]\n'
     '"torus:4x4" = { phi = 1.0, phi_CL = 2.0 }',
     'report.performance[0].published."torus:4x4".phi_CL = 2.0 is invalid: a value of phi, phi_cC, phi_cL, phi_cQ'),
    ('[[report.performance]]\nreference = "torus:4x4"\n[report.performance.published]\n'
     '"torus:4x4" = { phi = "high" }',
     'report.performance[0].published."torus:4x4".phi = "high" is invalid: a value of phi, phi_cC, phi_cL, phi_cQ'),
    ('[[report.figures]]\nkind = "evolution"\nkernels = "bu"', 'report.figures[0].kernels = "bu" is invalid: '
                                                               "a list of kernel names"),
    ('[[report.figures]]\nkind = "evolution"\nmessage_bytes = "big"',
     'report.figures[0].message_bytes = "big" is invalid: a positive whole number of bytes'),
    ('[[report.figures]]\nkind = "normalized-time"\nreference = "torus:4x4"\ncap = "x"',
     'report.figures[0].cap = "x" is invalid: a number > 0'),
    ('[[report.figures]]\nkind = "normalized-time"\nreference = 4', "report.figures[0].reference = 4 is invalid: "
                                                                    "the topology spec of the reference network"),
])  # fmt: skip
def test_report_values_of_the_wrong_type_are_refused_when_read(section, needle):
    doc = tomllib.loads(CAUSAL_SWEEP + section)
    with pytest.raises(ConfigError) as e:
        experiment.parse(doc, "c.toml")
    assert str(e.value) == f"c.toml: {needle}", e.value


def test_report_values_of_the_right_type_pass():
    for section in ('[[report.performance]]\nreference = "torus:4x4"\nweights = { bu = 2, "2m@1024" = 0.5 }\n'
                    'cost = true\ntopologies = ["torus:4x4"]\n[report.performance.published]\n'
                    '"torus:4x4" = { phi = 1, phi_cC = 0.5, phi_cL = 0.25, phi_cQ = 0.125 }',
                    '[[report.figures]]\nkind = "evolution"\nkernels = ["bu"]\nmessage_bytes = 640',
                    '[[report.figures]]\nkind = "normalized-time"\nreference = "torus:4x4"\ncap = 10'):  # fmt: skip
        experiment.parse(tomllib.loads(CAUSAL_SWEEP + section), "c.toml")
    from hpcnetsim.reports.causal_report import PUBLISHED_KEYS

    assert set(PUBLISHED_KEYS) == set(experiment.PUBLISHED_PERFORMANCE_KEYS)


@pytest.mark.parametrize("section,needle", [
    # The figure drew nothing and its table was empty; φ was an em dash for every network.
    ('[[report.figures]]\nkind = "normalized-time"\nreference = "torus:4x5"',
     'report.figures[0].reference = "torus:4x5" is invalid: the topology of a point the figure draws: torus:4x4'),
    ('[[report.performance]]\nreference = "crossbar:16"',
     'report.performance[0].reference = "crossbar:16" is invalid: the topology of a point the table reads: '
     "torus:4x4"),
    ('[[report.performance]]\nreference = "torus:4x4"\ntopologies = ["crossbar:16"]',
     'report.performance[0].reference = "torus:4x4" is invalid: one of its topologies: crossbar:16'),
    # A misspelt network was left out of the table and the bars without a word.
    ('[[report.performance]]\nreference = "torus:4x4"\ntopologies = ["torus:4x4", "torus:4x5"]',
     'report.performance[0].topologies = ["torus:4x4", "torus:4x5"] is invalid: topologies of its points: '
     'torus:4x4 ("torus:4x5" is none)'),
    ('[[report.figures]]\nkind = "evolution"\ntopologies = ["torus:4x4", "torus:4x5"]',
     'report.figures[0].topologies = ["torus:4x4", "torus:4x5"] is invalid: topologies of its points: '
     'torus:4x4 ("torus:4x5" is none)'),
])  # fmt: skip
def test_a_reference_no_point_runs_is_refused(section, needle):
    with pytest.raises(ConfigError) as e:
        experiment.parse(tomllib.loads(CAUSAL_SWEEP + section), "c.toml")
    assert str(e.value) == f"c.toml: {needle}", e.value


@pytest.mark.parametrize("figure,needle", [
    # No run of that size: the report ended with "Number of columns must be a positive integer".
    ('kind = "evolution"\nmessage_bytes = 999',
     "report.figures[0].message_bytes = 999 is invalid: a workload.message_bytes of the points the figure draws: 1024"),
    # No run of that kernel: the figure was left out of the report without a word.
    ('kind = "evolution"\nkernels = ["bu", "zz"]',
     'report.figures[0].kernels = ["bu", "zz"] is invalid: kernels of the points the figure draws: 2m, bu ("zz" is none)'),
])  # fmt: skip
def test_evolution_figures_name_kernels_and_sizes_the_points_run(figure, needle):
    sized = CAUSAL_SWEEP.replace("[[sweep]]", "base.workload.message_bytes = 1024\n[[sweep]]")
    doc = tomllib.loads(sized + "[[report.figures]]\n" + figure)
    with pytest.raises(ConfigError) as e:
        experiment.parse(doc, "c.toml")
    assert str(e.value) == f"c.toml: {needle}", e.value
    ok = 'kind = "evolution"\nkernels = ["2m"]\nmessage_bytes = 1024'
    experiment.parse(tomllib.loads(sized + "[[report.figures]]\n" + ok), "c.toml")


#: One point at 90 % whose load cannot settle in 400 cycles: stored, but not converged.
NOT_CONVERGED = """\
name = "nc"
[base]
topology = "torus:4x4"
switch.vcs = 2
routing.algorithm = "dor"
measurement = { warmup_cycles = 200, window_cycles = 100, convergence_tolerance = 0.0001, max_convergence_cycles = 400, batches = 2, batch_cycles = 200 }
[[sweep]]
axes.traffic.load = [0.9]
[[report.figures]]
kind = "latency"
metric = "latency_network_p9"
"""  # noqa: E501


def test_report_checks_its_figures_without_a_converged_point(cli, tmp_path):
    # No point converged, so no figure is drawn: the figures are checked all the same.
    (tmp_path / "nc.toml").write_text(NOT_CONVERGED)
    out = tmp_path / "out"
    r = cli("sweep", str(tmp_path / "nc.toml"), "--out", str(out), "--jobs", "1", "--no-progress")
    assert r.returncode == 0 and "not-converged" in r.stdout, r.stderr
    r = cli("report", str(out))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == [f"error: {out / 'experiment.json'}: report.figures[0].metric = "
                                     '"latency_network_p9" is invalid: a numeric field of the results (did you mean '
                                     "latency_network_p99?) such as accepted_load, latency_network_mean, "
                                     "latency_end_to_end_mean, latency_network_p99"]  # fmt: skip
    # A record written before the columns were checked when the file is read.
    record = json.loads((out / "experiment.json").read_text())
    record["report"]["figures"] = [{"kind": "throughput", "panels": "nocolumn"}]
    (out / "experiment.json").write_text(json.dumps(record))
    r = cli("report", str(out))
    assert r.returncode == 2 and "report.figures[0].panels = \"nocolumn\" is invalid" in r.stderr, r.stderr
    # A heatmap over a column no point varies (one VC count) draws one column of cells.
    record["report"]["figures"] = [{"kind": "heatmap", "value": "points"}]
    (out / "experiment.json").write_text(json.dumps(record))
    r = cli("report", str(out))
    assert r.returncode == 0, r.stderr


def test_api_errors_are_config_errors(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.routing.algo = ["dor"]\n')
    with pytest.raises(ConfigError, match="did you mean routing.algorithm"):
        experiment.load(f)
    assert not [p for p in os.listdir(tmp_path) if p != "bad.toml"]


def test_fields_added_later_keep_the_canonical_form_of_existing_configs():
    """A field added with a default leaves every existing config's canonical form as it was (the
    default is left out) and changes the key when set to anything else; it stays settable."""
    base = copy.deepcopy(default_config())
    base["topology"] = "torus:4x4"
    key = config_key(base)
    assert "zipf_ranks" not in base["traffic"]
    assert config_key({**base, "traffic": {**base["traffic"], "zipf_ranks": "index"}}) == key
    zipf = {**base["traffic"], "pattern": "zipf"}
    shuffled = {**base, "traffic": {**zipf, "zipf_ranks": "shuffled"}}
    assert config_key(shuffled) != config_key({**base, "traffic": zipf})
    assert experiment.valid_paths()["traffic.zipf_ranks"] == "index"


def test_quick_variant_values_are_checked_when_not_used(tmp_path):
    # The quick variant's base is completed and validated with the file, with or without
    # --quick, and the message points to the [quick] table's line.
    text = ('name = "x"\n[base]\ntopology = "torus:4x4"\nswitch.vcs = 2\n[[sweep]]\naxes.traffic.load = [0.1]\n'
            '[quick]\nbase.switch.vcs = 0\n')  # fmt: skip
    for quick in (False, True):
        with pytest.raises(ConfigError) as e:
            experiment.parse(tomllib.loads(text), "f.toml", quick=quick, text=text)
        assert str(e.value).startswith("f.toml:8: sweep '0'"), e.value
        assert "switch.vcs = 0 is invalid" in str(e.value), e.value
    bad_topology = 'name = "x"\nbase.topology = "torus:4x4"\n[[sweep]]\naxes.seed = [1]\n[quick.base]\ntopology = "torus:4x0"\n'
    with pytest.raises(ConfigError, match="quick variant.*dimension 1 = 0"):
        experiment.parse(tomllib.loads(bad_topology), "f.toml")
    # A valid quick variant changes nothing of the full one.
    good = text.replace("base.switch.vcs = 0", "base.switch.vcs = 3")
    full = experiment.parse(tomllib.loads(good), "f.toml", text=good)
    assert [p.config["switch"]["vcs"] for p in full.points] == [2]
    assert [p.config["switch"]["vcs"] for p in experiment.parse(tomllib.loads(good), "f.toml", quick=True).points] == [3]


@pytest.mark.parametrize("topology,setting,line,needle", [
    ("torus:4x4", "axes.traffic.load = []", 7, "sweep 'g'.axes.traffic.load = [] is invalid"),
    ("torus:4x4", "axes.switch.vcs = [1.5]", 7, "sweep 'g'.axes.switch.vcs[0] = 1.5 is invalid"),
    ("torus:4x4", 'axes."switch.vcs" = [2, "two"]', 7, "sweep 'g'.axes.switch.vcs[1] = \"two\" is invalid"),
    ("torus:4x4", "axes.traffic.lod = [0.1]", 7, "unknown axis or field 'traffic.lod'"),
    ("torus:4x4", "points = [{ switch.vsc = 2 }]", 7, "sweep 'g'.points[0].switch.vsc: unknown axis or field"),
    ("torus:4x4", 'axes.topology = ["torus:4x4", "torus:4x0"]', 7, "sweep 'g': torus:4x0: dimension 1 = 0"),
    ("torus:4x", "axes.traffic.load = [0.1]", 4, "sweep 'g': torus:4x: dimension 1"),
])  # fmt: skip
def test_errors_of_one_setting_name_its_line(topology, setting, line, needle):
    """An error about one axis, listed point or spec names the line that sets it (7 in the
    group, 4 in [base]), not the line of its group's [[sweep]] header (5)."""
    text = f'name = "x"\n[base]\nseed = 1\ntopology = "{topology}"\n[[sweep]]\nname = "g"\n{setting}\n'
    with pytest.raises(ConfigError) as e:
        experiment.parse(tomllib.loads(text), "f.toml", text=text)
    assert str(e.value).startswith(f"f.toml:{line}: "), e.value
    assert needle in str(e.value), e.value


def test_expressions_in_base_are_computed_for_each_point():
    # "=0.5 * ideal" in [base] (and in [quick]'s base) is evaluated for every point's topology,
    # as an axis value is; the core used to receive the string.
    text = ('name = "x"\n[base]\ntopology = "torus:4x4"\ntraffic.load = "=0.5 * ideal"\n[[sweep]]\n'
            'axes.topology = ["torus:8x8", "mesh:8x8"]\naxes.routing.algorithm = ["dor"]\naxes.switch.vcs = [2]\n'
            '[quick]\nbase.traffic.load = "=0.25 * ideal"\n')  # fmt: skip
    ideal = {s: Topology.from_spec(s).describe()["ideal_throughput"] for s in ("torus:8x8", "mesh:8x8")}
    for quick, factor in ((False, 0.5), (True, 0.25)):
        exp = experiment.parse(tomllib.loads(text), "f.toml", quick=quick, text=text)
        loads = {p.config["topology"]: p.config["traffic"]["load"] for p in exp.points}
        assert loads == pytest.approx({s: factor * v for s, v in ideal.items()}), loads
    # An axis value replaces the base's expression; a bad one names the [base] line.
    over = text.replace('axes.routing.algorithm = ["dor"]', 'axes.routing.algorithm = ["dor"]\naxes.traffic.load = [0.1]')
    assert {p.config["traffic"]["load"] for p in experiment.parse(tomllib.loads(over), "f.toml").points} == {0.1}
    bad = text.replace("0.5 * ideal", "0.5 * idel")
    with pytest.raises(ConfigError, match=r"^f.toml:4: sweep '0'.traffic.load = \"=0.5 \* idel\" is invalid"):
        experiment.parse(tomllib.loads(bad), "f.toml", text=bad)


RING = "link a b\nlink b c\nlink c d\nlink d a\nterminals a 2\nterminals b 2\nterminals c 2\nterminals d 2\n"


def _keys(path: Path) -> list[str]:
    return [p.key for p in experiment.load(path).points]


def test_a_changed_input_file_changes_the_keys_of_the_points_that_read_it(tmp_path):
    # A point's key covered the name of the fabric file, forwarding tables or trace it reads,
    # not their content: after a file was edited, `hpcnetsim sweep` reused the results of the
    # old network or trace ("2 already stored, 0 run"), which a fresh run no longer gives.
    import shutil

    (tmp_path / "net.edges").write_text(RING)
    fabric = tmp_path / "fabric.toml"
    fabric.write_text('name = "fabric"\n[base]\ntopology = "edges:net.edges"\nrouting.algorithm = "table"\n'
                      "switch.vcs = 2\n[[sweep]]\naxes.traffic.load = [0.1, 0.3]\n")  # fmt: skip
    first = _keys(fabric)
    assert _keys(fabric) == first
    (tmp_path / "net.edges").write_text(RING + "link a c\n")
    changed = _keys(fabric)
    assert set(changed).isdisjoint(first)
    (tmp_path / "net.edges").write_text(RING)
    assert _keys(fabric) == first  # the content decides, not when the file was written

    shutil.copy(DATA / "trouble_sweep_tables.lft", tmp_path / "t.lft")
    tables = tmp_path / "tables.toml"
    tables.write_text('name = "tables"\n[base]\ntopology = "torus:4x4"\nrouting.algorithm = "table"\n'
                      'routing.tables = "t.lft"\n[[sweep]]\naxes.traffic.load = [0.1]\n')  # fmt: skip
    first = _keys(tables)
    (tmp_path / "t.lft").write_text((tmp_path / "t.lft").read_text() + "\n")
    assert set(_keys(tables)).isdisjoint(first)

    # A DUMPI trace is its .meta file and one .bin file per rank: a changed rank file counts.
    shutil.copytree(DATA / "traces" / "dumpi_testtrace4", tmp_path / "tr")
    trace = tmp_path / "trace.toml"
    trace.write_text('name = "trace"\n[base]\ntopology = "crossbar:4"\nworkload.trace = "tr/testtrace.meta"\n'
                     "[[sweep]]\naxes.seed = [1]\n")  # fmt: skip
    first = _keys(trace)
    rank = tmp_path / "tr" / "testtrace-0001.bin"
    rank.write_bytes(rank.read_bytes() + b"\0")
    assert set(_keys(trace)).isdisjoint(first)

    # A point that reads no file keeps the key of its config alone (stored results stay valid),
    # a director-based tree too: a fabric, but made from its spec.
    exp = experiment.load(SMALL)
    assert all(p.key == config_key(p.config) for p in exp.points)
    director = tmp_path / "director.toml"
    director.write_text('name = "director"\n[base]\ntopology = "director-tree:nodes=24,edges=4,directors=2,'
                        'uplinks=4,spines=2,radix=12"\n[[sweep]]\naxes.traffic.load = [0.1]\n')  # fmt: skip
    assert all(p.key == config_key(p.config) for p in experiment.load(director).points)
