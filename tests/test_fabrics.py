"""Generated fabric files: paper 001's fat-tree plane as an edge list that `route` and
`topo describe` load, its counts checked against the text itself."""

import re
from pathlib import Path
from collections import Counter

import pytest

import hpcnetsim
from hpcnetsim.cli import main
from hpcnetsim.inputs.fabrics import paper001_fattree, paper001_spec


def _count(text):
    """Switches, terminals, ports used per switch and links, read naively from the edge list."""
    switches, used, terminals, links = [], Counter(), 0, 0
    for line in text.splitlines():
        w = line.split("#")[0].split()
        if not w:
            continue
        if w[0] == "switch":
            switches.append(w[1])
        elif w[0] == "terminals":
            terminals += int(w[2])
            used[w[1]] += int(w[2])
        elif w[0] == "link":
            links += 1
            used[w[1]] += 1
            used[w[2]] += 1
    return switches, terminals, used, links


def test_paper001_fattree_has_the_papers_counts_and_routes(tmp_path, capsys):
    out = tmp_path / "ft.edges"
    assert main(["topo", "fabric", "paper001-fattree", "-o", str(out)]) == 0
    text = out.read_text()
    switches, terminals, used, links = _count(text)
    assert len(switches) == 204 and terminals == 672
    assert max(used.values()) <= 36
    edges = [s for s in switches if s.startswith("edge")]
    # 24 racks with two edge switches each, at most 15 nodes on any of them.
    assert len(edges) == 48 and all(used[e] - 18 <= 15 for e in edges)
    assert len({re.sub(r"/.*", "", s) for s in switches if s.startswith("dir")}) == 6
    spec = f"edges:{out}"
    d = hpcnetsim.describe(spec)
    assert d["terminals"] == 672 and d["switches"] == 204 and d["radix"] == 36
    assert d["links"] == terminals + links and d["switch_links"] == links
    r = hpcnetsim.route(spec, "ftree", check_deadlock=True)
    assert r["unreachable_pairs"] == 0 and r["deadlock"] == "acyclic"
    assert r["paths"] == 672 * 671 and r["max_hops"] == 4
    # The plane is a full-bisection tree and ftree keeps it so.
    assert r["routed_throughput"] == pytest.approx(d["minimal_spread_throughput"])
    assert d["ideal_throughput"] == pytest.approx(d["minimal_spread_throughput"])
    assert main(["topo", "describe", spec]) == 0
    assert "204" in capsys.readouterr().out


def test_fabric_parameters_are_checked(capsys):
    with pytest.raises(hpcnetsim.ConfigError, match="nodes = 900"):
        paper001_fattree(nodes=900)
    with pytest.raises(hpcnetsim.ConfigError, match="directors = 7"):
        paper001_fattree(directors=7)
    assert main(["topo", "fabric", "nope"]) == 2
    assert "paper001-fattree" in capsys.readouterr().err
    # The nodes given are named, not the director-tree spec built from them, with the limit
    # the ports set (a bound of 1 048 576 was named above it).
    assert main(["topo", "fabric", "paper001-fattree", "--nodes", "2000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: fabric: nodes = 2000000 is invalid: at most 864 (18 per edge switch"), err


def test_director_tree_spec_is_the_generated_fabric(tmp_path, capsys):
    # The spec and the file `topo fabric` writes are one network: same properties and routes.
    spec = paper001_spec()
    assert spec == "director-tree:nodes=672,edges=48,directors=6,uplinks=18,spines=18"
    out = tmp_path / "ft.edges"
    out.write_text(paper001_fattree())
    a, b = hpcnetsim.describe(spec), hpcnetsim.describe(f"edges:{out}")
    assert {k: v for k, v in a.items() if k != "spec"} == {k: v for k, v in b.items() if k != "spec"}
    assert a["switches"] == 204 and a["switch_links"] == 1728
    ra, rb = (hpcnetsim.route(s, "ftree") for s in (spec, f"edges:{out}"))
    assert ra["max_routes_per_link"] == rb["max_routes_per_link"] and ra["mean_hops"] == rb["mean_hops"]
    # Smaller planes follow the same rules: 2 directors of 1 line chip and 18 spines.
    small = hpcnetsim.describe("director-tree:nodes=20,edges=2,directors=2")
    assert (small["terminals"], small["switches"], small["switch_links"]) == (20, 2 + 2 * (1 + 18), 36 + 36)
    assert main(["topo", "describe", "director-tree:nodes=672,edges=48,directors=5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "directors = 5" in err[0]


def test_a_configs_fabric_files_and_tables_are_relative_to_the_config_file(cli, tmp_path, monkeypatch):
    """A config names its fabric files and table dump relative to its own folder, like its
    trace, so the same file runs from any working directory, from Python and the CLI."""
    sub = tmp_path / "sub"
    sub.mkdir()
    assert main(["topo", "export", "tree:k=2,n=2", "--format", "ibnet", "-o", str(sub / "fab.ibnet")]) == 0
    assert main(["topo", "export", "tree:k=2,n=2", "--format", "anynet", "-o", str(sub / "fab.anynet")]) == 0
    assert main(["route", "tree:k=2,n=2", "--routing", "minhop", "--dump", str(sub / "lft.txt")]) == 0
    body = '[routing]\nalgorithm = "table"\ntables = "lft.txt"\n[traffic]\nload = 0.2\n'
    body += "[measurement]\nwarmup_cycles = 100\nbatch_cycles = 100\nbatches = 1\n"
    (sub / "ib.toml").write_text('topology = "ibnet: fab.ibnet"\n' + body)
    (sub / "any.toml").write_text('topology = "anynet:fab.anynet"\n' + body.replace('tables = "lft.txt"\n', ""))
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    cfg = hpcnetsim.load_config("../sub/ib.toml")
    assert cfg["topology"] == "ibnet:" + str(Path("..", "sub", "fab.ibnet"))
    assert cfg["routing"]["tables"] == str(Path("..", "sub", "lft.txt"))
    assert hpcnetsim.load_config("../sub/any.toml")["topology"] == "anynet:" + str(Path("..", "sub", "fab.anynet"))
    for name in ("ib.toml", "any.toml"):
        r = cli("run", f"../sub/{name}", "--out", str(tmp_path / name), cwd=tmp_path / "elsewhere")
        assert r.returncode == 0, r.stderr
    assert hpcnetsim.simulate("../sub/ib.toml").packets_delivered > 0
    # An absolute path is left as written; CODES' two files are both relative to the config.
    (sub / "abs.toml").write_text(f'topology = "edges:{sub / "none.txt"},t=2"\n')
    with pytest.raises(hpcnetsim.ConfigError, match=f"file = '{sub / 'none.txt'}' is invalid"):
        hpcnetsim.load_config("../sub/abs.toml")
    (sub / "codes.toml").write_text('topology = "codes-dragonfly:a.csv, b.csv,p=2"\n')
    with pytest.raises(hpcnetsim.ConfigError, match=f"file = '{Path('..', 'sub', 'a.csv')}' is invalid"):
        hpcnetsim.load_config("../sub/codes.toml")
    (sub / "a.csv").write_text("0,1,0\n1,0,0\n")
    with pytest.raises(hpcnetsim.ConfigError, match=f"file = '{Path('..', 'sub', 'b.csv')}' is invalid"):
        hpcnetsim.load_config("../sub/codes.toml")


def test_an_experiments_file_names_are_relative_to_the_experiment_file(cli, tmp_path):
    """An experiment's points name fabric files, table dumps and traces relative to the
    experiment file's folder, as a config file does; an expression's network is found there
    too."""
    sub = tmp_path / "sub"
    sub.mkdir()
    assert main(["topo", "export", "tree:k=2,n=2", "--format", "ibnet", "-o", str(sub / "fab.ibnet")]) == 0
    assert main(["route", "tree:k=2,n=2", "--routing", "minhop", "--dump", str(sub / "lft.txt")]) == 0
    (sub / "ring.trace").write_text("ranks 2\n0 send 1 64\n1 recv 0 64\n")
    (sub / "e.toml").write_text(
        'name = "files"\n[base]\ntopology = "ibnet:fab.ibnet"\nrouting.algorithm = "table"\nrouting.tables = "lft.txt"\n'
        "[base.measurement]\nwarmup_cycles = 100\nbatch_cycles = 100\nbatches = 1\n"
        '[[sweep]]\nname = "loads"\naxes.traffic.load = [0.1, "=0.5 * ideal"]\n'
        '[[sweep]]\nname = "replay"\npoints = [{ workload.trace = "ring.trace" }]\n'
    )  # fmt: skip
    (tmp_path / "elsewhere").mkdir()
    keys = []
    for name, cwd in (("../sub/e.toml", tmp_path / "elsewhere"), ("sub/e.toml", tmp_path)):
        out = tmp_path / f"out-{cwd.name}"
        r = cli("sweep", name, "--out", str(out), "--no-progress", cwd=cwd)
        assert r.returncode == 0, r.stderr
        df = hpcnetsim.results(out)
        assert len(df) == 3 and (df["state"] == "done").all(), df[["state", "error"]]
        # The joined name is absolute: the same file from any folder, so the same points.
        assert set(df["topology"]) == {"ibnet:" + str(sub.resolve() / "fab.ibnet")}, name
        keys.append(sorted(df["key"]))
    assert keys[0] == keys[1]
    from hpcnetsim.experiments.experiment import load

    exp = load(sub / "e.toml")
    assert {p.config["topology"] for p in exp.points} == {f"ibnet:{sub / 'fab.ibnet'}"}
    assert {p.config["routing"]["tables"] for p in exp.points} == {str(sub / "lft.txt")}


@pytest.mark.parametrize(
    ("field", "value"),
    [("workload.trace", "missing.otf2"), ("routing.tables", "missing.lft")],
)
def test_an_experiment_naming_a_missing_file_is_refused_before_anything_runs(cli, tmp_path, field, value):
    """A missing fabric file was refused when the file was read, but a missing trace or table
    dump ran every point, stored each one as failed (ConfigError: no such OTF2 archive) and
    exited 1, leaving an output folder of failures."""
    extra = 'routing.algorithm = "table"\n' if field == "routing.tables" else ""
    (tmp_path / "e.toml").write_text(
        f'name = "files"\n[base]\ntopology = "torus:4x4"\n{extra}{field} = "{value}"\n'
        '[[sweep]]\naxes.seed = [1, 2]\n'
    )  # fmt: skip
    out = tmp_path / "out"
    r = cli("sweep", str(tmp_path / "e.toml"), "--out", str(out), "--no-progress")
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert f'{field} = "{tmp_path / value}" is invalid: an existing file' in r.stderr
    assert not out.exists()
