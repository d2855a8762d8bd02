"""The hpcnetsim command: describe, export, compare, and one-line errors with exit code 2."""

import csv
import json
import os
import re
import sys
from pathlib import Path

import networkx as nx
import pytest

from hpcnetsim.cost import COST_KEYS
from hpcnetsim.topology import DESCRIBE_KEYS

JSON_KEYS = [
    "spec", "terminals", "planes", "endpoints", "switches", "switches_per_level", "links", "switch_links", "radix",
    "bisection_channels", "bisection_ratio", "bisection_throughput", "ideal_throughput",
    "minimal_spread_throughput", "diameter", "avg_distance", "cost_constant", "cost_linear", "cost_quadratic",
]  # fmt: skip
#: Keys of the physical cost (docs/cost.md), after the properties.
COST_JSON_KEYS = [
    "racks", "cables_electrical", "cables_optical", "cable_m_electrical", "cable_m_optical", "cables_by_length",
    "cost_usd", "cost_switches_usd", "cost_cables_usd", "power_w", "cost_per_endpoint_usd", "power_per_endpoint_w",
]  # fmt: skip


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "hpcnetsim"
    assert script.exists(), script


def test_describe_json_has_exactly_the_documented_keys(cli):
    r = cli("topo", "describe", "tree:k=8,kp=4,n=4", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert list(d) == JSON_KEYS + COST_JSON_KEYS
    assert JSON_KEYS == list(DESCRIBE_KEYS) and COST_JSON_KEYS == list(COST_KEYS)
    assert (d["terminals"], d["switches"], d["links"], d["radix"]) == (4096, 960, 7680, 12)
    assert d["switches_per_level"] == [512, 256, 128, 64]
    assert d["bisection_throughput"] == pytest.approx(0.125)
    assert d["ideal_throughput"] == pytest.approx(0.1428, abs=1e-3)


@pytest.mark.parametrize(
    "spec",
    ["tree:k=4,n=3", "xgft:h=3;m=15,18,18;w=1,18,18", "torus:8x8", "mesh:4x4x4", "twin-torus:4x4x2x2x2",
     "hyperx:12x8,t=7", "hyperx:4x4,t=2,k=2", "crossbar:64"],
)  # fmt: skip
def test_describe_examples_of_the_readme(cli, spec):
    r = cli("topo", "describe", spec)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    by_length = COST_JSON_KEYS.index("cables_by_length")
    printed_cost = COST_JSON_KEYS[:by_length] + ["cables_electrical_by_length", "cables_optical_by_length"]
    assert [ln.split()[0] for ln in lines] == JSON_KEYS + printed_cost + COST_JSON_KEYS[by_length + 1 :]
    d = json.loads(cli("topo", "describe", spec, "--json").stdout)
    assert d["spec"] == spec
    assert d["switches_per_level"] == ([] if not spec.startswith(("tree", "xgft")) else d["switches_per_level"])


def test_describe_says_when_the_bound_of_every_routing_is_not_computed(cli):
    # A faulty 12x12 mesh has no closed form and its program is over the size limit.
    spec = "mesh:12x12|faults:links=0.0"
    r = cli("topo", "describe", spec)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^ideal_throughput +not computed$", r.stdout, re.M)
    d = json.loads(cli("topo", "describe", spec, "--json").stdout)
    assert d["ideal_throughput"] is None and 0 < d["minimal_spread_throughput"] < d["bisection_throughput"]


def test_export_formats_round_trip(cli, tmp_path):
    spec = "torus:4x4,t=2"
    out = tmp_path / "t.graphml"
    r = cli("topo", "export", spec, "--format", "graphml", "-o", str(out))
    assert r.returncode == 0, r.stderr
    g = nx.read_graphml(out)
    assert g.number_of_nodes() == 16 + 32
    assert g.number_of_edges() == 32 + 32
    r = cli("topo", "export", spec, "--format", "json")
    doc = json.loads(r.stdout)
    assert len(doc["switches"]) == 16 and len(doc["terminals"]) == 32 and len(doc["links"]) == 32
    assert doc["switches"][5]["coordinates"] == [1, 1]
    r = cli("topo", "export", spec, "--format", "dot")
    assert r.stdout.startswith('graph "torus:4x4,t=2" {') and r.stdout.count(" -- ") == 64


def test_compare_default_is_the_thin_tree_family(cli, tmp_path):
    r = cli("topo", "compare", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(tmp_path / "compare.csv")))
    assert [row["spec"] for row in rows] == [f"tree:k=8,kp={kp},n=4" for kp in range(8, 0, -1)]
    assert [int(row["switches"]) for row in rows] == [2048, 1695, 1400, 1157, 960, 803, 680, 585]
    costs = [float(row["cost_linear"]) for row in rows]
    assert costs == sorted(costs, reverse=True)
    assert (tmp_path / "compare.png").stat().st_size > 10_000
    assert "| spec |" in (tmp_path / "compare.md").read_text()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")], "temporary files left behind"


def test_compare_given_specs(cli):
    r = cli("topo", "compare", "torus:8x8x4", "twin-torus:4x4x2x2x2")
    assert r.returncode == 0, r.stderr
    assert "twin-torus:4x4x2x2x2" in r.stdout


def test_paths_between_two_terminals(cli):
    r = cli("topo", "paths", "tree:k=4,n=2", "1", "14")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "terminals 1 -> 14: 4 links, 4 minimal paths"


BAD = [
    (["topo", "paths", "torus:4x4", "0", "16"], "terminal b = 16"),
    (["topo", "paths", "torus:4x4", "3", "3"], "terminal b = 3"),
    (["topo", "paths", "torus:4x4", "0", "x"], "argument b: 'x' is not an index"),
    (["topo", "describe", "tree:k=8,kp=9,n=4"], "kp = '9'"),
    (["topo", "describe", "tree:k=8"], "n = missing"),
    (["topo", "describe", "tree:k=-1,n=2"], "k = '-1'"),
    (["topo", "describe", "torus:8x0"], "dimension 1 = 0"),
    (["topo", "describe", "torus:8x8.5"], "dimension 1 = '8.5'"),
    (["topo", "describe", "donut:8"], "family = 'donut'"),
    (["topo", "describe", "torus:100000x100000"], "size"),
    (["topo", "describe", "twin-torus:4x4"], "number of dimensions = 2"),
    (["topo", "describe"], "spec"),
    (["topo", "describe", "torus:8x8", "--jsn"], "--jsn"),
    (["topo", "export", "torus:8x8", "--format", "svg"], "svg"),
    (["topo", "export", "torus:8x8"], "--format"),
    (["topo", "compare", "--k", "0"], "--k = 0"),
    (["topo", "compare", "--n", "x"], "--n"),
    # The family's flags beside specs were silently ignored.
    (["topo", "compare", "torus:4x4", "--k", "4"], "--k = 4 is invalid: not with specs"),
    (["topo", "frobnicate"], "frobnicate"),
    (["study", "tables", "/nonexistent"], "/nonexistent: not the output folder of a study"),
    (["nothing"], "nothing"),
    ([], "command"),
]


@pytest.mark.parametrize("args,needle", BAD, ids=[" ".join(a) or "no-args" for a, _ in BAD])
def test_bad_input_is_one_line_and_exit_2(cli, args, needle):
    r = cli(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert needle in lines[0] and lines[0].startswith("error:"), lines[0]
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_unwritable_output_leaves_nothing(cli, tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    r = cli("topo", "export", "torus:4x4", "--format", "json", "-o", str(target / "sub" / "t.json"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert target.read_text() == "x"


def test_written_files_get_normal_permissions(cli, tmp_path):
    import stat

    r = cli("topo", "export", "torus:4x4", "--format", "json", "-o", str(tmp_path / "t.json"))
    assert r.returncode == 0, r.stderr
    mode = stat.S_IMODE((tmp_path / "t.json").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_output_into_a_fifo_or_device_writes_into_it(cli, tmp_path):
    """Renaming onto a special file would replace it (as root, /dev/null by a regular file)."""
    import stat
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    r = cli("topo", "export", "torus:4x4", "--format", "json", "-o", str(fifo))
    reader.join(timeout=30)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and json.loads(got[0])["family"] == "torus"
    r = cli("topo", "export", "torus:4x4", "--format", "dot", "-o", "/dev/null")
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_output_through_a_symlink_replaces_its_target_and_keeps_the_link(cli, tmp_path):
    (tmp_path / "real.json").write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    r = cli("topo", "export", "torus:4x4", "--format", "json", "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and json.loads((tmp_path / "real.json").read_text())["family"] == "torus"


@pytest.mark.parametrize("where", ["folder", "proc", "missing parent"])
def test_output_errors_name_the_path_given(cli, tmp_path, where):
    path = {"folder": tmp_path, "proc": Path("/proc/x"), "missing parent": tmp_path / "new" / "t.dot"}[where]
    r = cli("topo", "export", "torus:4x4", "--format", "dot", "-o", str(path))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: "), r.stderr
    assert ".t" not in lines[0].removeprefix(f"error: {path}"), lines[0]  # no temporary name
    assert sorted(tmp_path.iterdir()) == [], "a folder or temporary file was left"


def test_a_single_output_file_does_not_create_its_folder(cli, tmp_path):
    from hpcnetsim.program import Program

    r = cli("route", "torus:4x4", "--dump", str(tmp_path / "new" / "lft.txt"))
    assert r.returncode == 2 and "no folder" in r.stderr, r.stderr
    with pytest.raises(FileNotFoundError, match="no folder"):
        Program(2).send(0, 1, 8).recv(1, 0, 8).save(tmp_path / "new" / "p.trace")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("data, needle", [(bytes(range(256)) * 8, "binary data"), (b'a = "\xff"\n', "not UTF-8")])
def test_a_binary_cost_table_is_one_line(cli, tmp_path, data, needle):
    (tmp_path / "junk.bin").write_bytes(data)
    r = cli("topo", "describe", "torus:4x4", "--cost-table", str(tmp_path / "junk.bin"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"error: {tmp_path / 'junk.bin'}: {needle}") and r.stderr.count("\n") == 1, r.stderr


def test_config_md_shows_overrides_with_the_set_flag():
    """Overrides are `--set PATH=VALUE`; `-o` is the output file of topo export and fabric."""
    text = (Path(__file__).parent.parent / "docs" / "config.md").read_text()
    assert not re.findall(r"-o [a-z_]+\.[a-z_]+=", text)
    assert "--set switch.preset=NAME" in text


def test_config_md_examples_are_the_example_files():
    """The examples of docs/config.md are the files in examples/, but for the shortened
    measurement schedule the files say they have."""
    import tomllib

    root = Path(__file__).parent.parent
    text = (root / "docs" / "config.md").read_text()
    examples = re.findall(r"\n## Example:.*?\(\[examples/([^\]]+)\].*?```toml\n(.*?)```", text, re.S)
    assert len(examples) == 2, examples
    for name, block in examples:
        shown = tomllib.loads(block)
        written = tomllib.loads((root / "examples" / name).read_text())
        shown.pop("measurement"), written.pop("measurement")
        assert shown == written, name


def test_config_md_names_every_table_a_technology_preset_fills():
    import tomllib

    root = Path(__file__).parent.parent
    row = next(line for line in (root / "docs" / "config.md").read_text().splitlines()
               if line.startswith("| `technology` |"))  # fmt: skip
    presets = root / "crates" / "hpcnetsim-core" / "src" / "config" / "presets" / "technology"
    for preset in presets.glob("*.toml"):
        for table in tomllib.loads(preset.read_text()):
            assert f"`[{table}]`" in row, (preset.name, table)
