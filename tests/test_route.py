"""`hpcnetsim route` and `hpcnetsim.route`: engines, dumps read back, deadlock verdicts, faults
and the one-line errors."""

import json
import re

import pytest

import hpcnetsim
from hpcnetsim.cli import main


def test_route_api_reports_engines():
    r = hpcnetsim.route("hyperx:4x4,t=2", "dfsssp", check_deadlock=True)
    assert r["deadlock"] == "acyclic"
    assert r["vls_used"] >= 1 and r["unreachable_pairs"] == 0
    assert r["paths"] == 32 * 31
    assert 0 < r["routed_throughput"] <= r["ideal_throughput"] + 1e-12
    m = hpcnetsim.route("torus:5x5", "minhop", check_deadlock=True)
    assert set(m["deadlock"]) == {"cycle"} and len(m["deadlock"]["cycle"]) >= 2


def test_route_cli_dump_and_load(tmp_path, capsys):
    out = tmp_path / "lft.txt"
    assert main(["route", "tree:k=4,n=2", "--routing", "ftree", "--dump", str(out), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert out.read_text().startswith("# hpcnetsim forwarding tables")
    assert main(["route", "tree:k=4,n=2", "--load", str(out), "--json", "--check-deadlock"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert back["engine"] == "loaded" and back["deadlock"] == "acyclic"
    for k in ("max_routes_per_link", "mean_hops", "paths", "routed_throughput"):
        assert back[k] == first[k]
    # An engine beside --load was not read: the dump's tables were reported under it.
    assert main(["route", "tree:k=4,n=2", "--routing", "minhop", "--load", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: route: engine = 'minhop' is invalid with the tables loaded from --load: the dump is the routing "
        "(leave the engine out)\n"
    )
    with pytest.raises(hpcnetsim.ConfigError, match="engine = 'dfsssp' is invalid with the tables loaded"):
        hpcnetsim.route("tree:k=4,n=2", "dfsssp", tables=out)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["route", "torus:4x4", "--routing", "parx"], ["parx", "HyperX"]),
        (["route", "torus:5x5", "--routing", "dfsssp", "--vls", "1"], ["vls = 1", "virtual lanes"]),
        (["route", "torus:4x4", "--routing", "bogus"], ["engine", "minhop"]),
        (["route", "torus:4x4", "--lmc", "9"], ["lmc"]),
    ],
)
def test_route_errors_are_one_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1
    assert all(w in err for w in words), err


def test_malformed_dump_names_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("# lmc: 0\nUnicast lids [0x1-0x10] of switch 0:\n0x0001 zz\n")
    assert main(["route", "torus:4x4", "--load", str(bad)]) == 2
    assert f"{bad}:3" in capsys.readouterr().err


def test_faults_in_the_spec_are_routed_around_and_cut_pairs_listed(capsys):
    r = hpcnetsim.route("hyperx:4x4,t=2|faults:random=5,seed=3", "dfsssp", check_deadlock=True)
    assert r["deadlock"] == "acyclic" and r["unreachable_pairs"] == 0
    assert main(["route", "torus:4|faults:switches=1", "--routing", "updn"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^unreachable_pairs +6$", out, re.M) and "0->1" in out
    assert main(["route", "torus:4|faults:switches=9"]) == 2
    assert "faults.switches" in capsys.readouterr().err


def test_parx_demand_file_and_its_errors(tmp_path, capsys):
    prof = tmp_path / "profile.txt"
    prof.write_text("# src dst bytes\n0 6 1000000\n1 7 5e6\n")
    r = hpcnetsim.route("hyperx:4x4,t=2", "parx", demands=prof, check_deadlock=True)
    assert r["lmc"] == 2 and r["deadlock"] == "acyclic"
    prof.write_text("0 6 1000\n0 x 3\n")
    assert main(["route", "hyperx:4x4,t=2", "--routing", "parx", "--demands", str(prof)]) == 2
    assert f"{prof}:2" in capsys.readouterr().err


def test_table_routing_simulates_and_reports_the_routed_bound(tmp_path):
    cfg = {
        "topology": "hyperx:4x4,t=2|faults:random=3,seed=2",
        "switch": {"vcs": 4},
        "routing": {"algorithm": "table", "engine": "dfsssp", "lmc": 1},
        "traffic": {"load": 0.2},
        "measurement": {"warmup_cycles": 500, "batches": 1, "batch_cycles": 500},
    }
    r = hpcnetsim.simulate(cfg).to_dict()
    assert r["routing"] == "table" and r["status"] == "converged"
    assert 0 < r["routed_throughput"] <= r["ideal_throughput"] + 1e-12


def test_opensm_tables_of_an_ibdm_fabric_load(capsys):
    d = "tests/data/fabrics/ib_flit_sim"
    theirs = hpcnetsim.route(f"ibdm:{d}/is1_3l_32n.topo", tables=f"{d}/is1_3l_32n.fdbs", check_deadlock=True)
    ours = hpcnetsim.route(f"ibdm:{d}/is1_3l_32n.topo", "ftree")
    assert theirs["engine"] == "opensm" and theirs["unreachable_pairs"] == 0
    assert theirs["deadlock"] == "acyclic"
    assert ours["max_routes_per_link"] <= theirs["max_routes_per_link"]
    assert main(["route", f"ibdm:{d}/is1_3l_32n.topo", "--load", f"{d}/missing.fdbs"]) == 2
    assert "missing.fdbs" in capsys.readouterr().err
    # A config names a dump: the .fdbs was read as one and refused on its first row; the error
    # gives the command that converts it, whose dump then runs.
    spec = f"ibdm:{d}/is1_3l_32n.topo"
    cfg = {"topology": spec, "routing": {"algorithm": "table", "tables": f"{d}/is1_3l_32n.fdbs"},
           "traffic": {"load": 0.1}, "measurement": {"warmup_cycles": 500, "batches": 1, "batch_cycles": 1000}}  # fmt: skip
    with pytest.raises(hpcnetsim.ConfigError, match=r"routing.tables = .*--load .*is1_3l_32n.fdbs --dump FILE"):
        hpcnetsim.simulate(cfg)


def test_opensm_table_errors_name_the_files_read(tmp_path, capsys):
    # The switch index file of NAME.fdbs.gz is NAME.fdbs.ini and the host list may be
    # ftree.hcas: errors named NAME.fdbs.gz.ini and NAME.fdbs.gz.hcas, files that do not exist.
    import gzip
    import shutil

    d = "tests/data/fabrics/ib_flit_sim"
    shutil.copy(f"{d}/is1_3l_32n.topo", tmp_path)
    (tmp_path / "is1_3l_32n.fdbs.gz").write_bytes(gzip.compress(open(f"{d}/is1_3l_32n.fdbs", "rb").read()))
    ini = open(f"{d}/is1_3l_32n.fdbs.ini").read()
    (tmp_path / "is1_3l_32n.fdbs.ini").write_text(ini)
    (tmp_path / "ftree.hcas").write_text("nohost 1\n" + open(f"{d}/is1_3l_32n.hcas").read())
    args = ["route", f"ibdm:{tmp_path}/is1_3l_32n.topo", "--load", f"{tmp_path}/is1_3l_32n.fdbs.gz"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'ftree.hcas'}:1: host = 'nohost 1' is invalid"), err
    (tmp_path / "ftree.hcas").write_text(open(f"{d}/is1_3l_32n.hcas").read())
    (tmp_path / "is1_3l_32n.fdbs.ini").write_text(ini.replace("[General]", "bogus = 7", 1))
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path}/is1_3l_32n.fdbs.ini:1: switch = 'bogus = 7' is invalid"), err


def test_run_prints_the_routed_bound_beside_the_ideal(tmp_path, capsys):
    cfg = tmp_path / "t.toml"
    cfg.write_text(
        'topology = "hyperx:4x4,t=2"\n[switch]\nvcs = 8\n[routing]\nalgorithm = "table"\nengine = "parx"\n'
        'address = "parx"\n[traffic]\nload = 0.2\n[measurement]\nwarmup_cycles = 500\nbatches = 1\nbatch_cycles = 500\n'
    )
    assert main(["run", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "uniform bound" in out and "any routing: 1" in out


@pytest.mark.parametrize("bytes_", ["inf", "1e400"])
def test_parx_refuses_an_infinite_demand(tmp_path, cli, bytes_):
    """An infinite byte count scaled every other demand to nothing, so PARX weighed them all
    alike without a word."""
    with pytest.raises(hpcnetsim.ConfigError, match="finite byte count"):
        hpcnetsim.route("hyperx:4x4,t=2", "parx", demands=[(0, 5, 1000.0), (1, 6, float(bytes_))])
    path = tmp_path / "demands.txt"
    path.write_text(f"0 5 1000\n1 6 {bytes_}\n")
    r = cli("route", "hyperx:4x4,t=2", "--routing", "parx", "--demands", str(path))
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert f"demands.txt:2: line = '1 6 {bytes_}' is invalid" in r.stderr and "finite" in r.stderr


@pytest.mark.parametrize("field", ["lmc", "vls"])
def test_a_boolean_is_no_lmc_or_vl_count(field):
    with pytest.raises(hpcnetsim.ConfigError, match=f"route: {field} = True is invalid: an integer between"):
        hpcnetsim.route("torus:4x4", "dfsssp", **{field: True})


def test_a_damaged_gzip_dump_is_refused_in_one_line(tmp_path, cli):
    """A gzip stream cut short raised EOFError, and compressed binary data UnicodeDecodeError:
    tracebacks with exit status 1."""
    import gzip

    whole = gzip.compress(hpcnetsim.route("hyperx:2x2,t=1", "minhop", dump=True)["dump"].encode())
    cut = tmp_path / "cut.lft.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    binary = tmp_path / "binary.lft.gz"
    binary.write_bytes(gzip.compress(b"# lmc: 0\n\xff\xfe\n"))
    for path, words in ((cut, "a damaged gzip file"), (binary, "not UTF-8 text once decompressed (byte 9)")):
        r = cli("route", "hyperx:2x2,t=1", "--load", str(path))
        assert r.returncode == 2 and r.stdout == "", r.stderr
        assert r.stderr.startswith(f"error: {path}: cannot read the table dump: {words}"), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_demand_lines_are_read_strictly_and_named_by_line(tmp_path, cli):
    """A terminal index past a machine word raised OverflowError (a traceback); ``1_0`` was read
    as terminal 10 (Python's int() takes underscores); an index beyond the network was refused
    without the file and line."""
    path = tmp_path / "demands.txt"
    for body, bad, allowed in (
        ("0 5 10\n99999999999999999999999 1 5\n", "99999999999999999999999 1 5", "terminal indices"),
        ("# profile\n1_0 1 5\n", "1_0 1 5", "terminal indices"),
        ("0 1 1_000\n", "0 1 1_000", "finite byte count"),
        ("0 5 10\n\n3 32 7  # one past the last terminal\n", "3 32 7  # one past the last terminal",
         "terminals below 32"),
    ):  # fmt: skip
        path.write_text(body)
        r = cli("route", "hyperx:4x4,t=2", "--routing", "parx", "--demands", str(path))
        line = body.splitlines().index(bad) + 1
        assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stderr.startswith(f"error: {path}:{line}: line = {bad.strip()!r} is invalid: "), r.stderr
        assert allowed in r.stderr


@pytest.mark.parametrize(
    "demands", [[(0, 1)], [(0.7, 1, 2.0)], [(True, 1, 2.0)], [(0, 1, "5")], [(-1, 1, 2.0)], [(2**70, 1, 2.0)], 5]
)
def test_a_malformed_demand_list_is_a_config_error(demands):
    """Short entries, strings, huge or negative indices raised ValueError, TypeError or
    OverflowError; a float terminal (0.7) was cut to terminal 0 without a word."""
    with pytest.raises(hpcnetsim.ConfigError, match=r"route: demands(\[0\])? = .* is invalid: "):
        hpcnetsim.route("hyperx:4x4,t=2", "parx", demands=demands)


def test_a_demand_list_takes_numpy_numbers():
    import numpy as np

    demands = [(np.int64(0), np.int32(5), np.float32(1e6)), (1, 6, 5e6)]
    assert hpcnetsim.route("hyperx:4x4,t=2", "parx", demands=demands, dump=True)["dump"] == hpcnetsim.route(
        "hyperx:4x4,t=2", "parx", demands=[(0, 5, 1e6), (1, 6, 5e6)], dump=True
    )["dump"]


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"engine": 3}, "engine = 3 is invalid: a name, one of minhop"),
        ({"engine": "updn", "roots": 5}, "roots = 5 is invalid: a list of switch indices"),
        ({"layering": 3}, "layering = 3 is invalid: 'placement' or 'opensm'"),
        ({"tables": 5}, "tables = 5 is invalid: the path of a table dump"),
    ],
)
def test_arguments_of_the_wrong_type_are_config_errors(kwargs, needle):
    """Not the binding's TypeError, nor (``tables=5``) a read of file descriptor 5."""
    with pytest.raises(hpcnetsim.ConfigError, match=re.escape(needle)):
        hpcnetsim.route("hyperx:2x2,t=1", **kwargs)


@pytest.mark.parametrize(
    "spec", ["mesh:4|faults:links=1.0", "tree:k=4,n=2|faults:switches=0", "mesh:4x4|faults:switches=5"]
)
def test_a_network_cut_in_two_has_no_uniform_traffic_bounds(spec, capsys):
    # Uniform traffic between terminals the faults separate cannot be delivered: `topo describe`
    # refuses, and the route report gave 1.0 (mesh:4 cut in halves, a tree's leaf cut off) or
    # 0.595 as if the network carried it.
    with pytest.raises(hpcnetsim.ConfigError, match="disconnected"):
        hpcnetsim.describe(spec)
    r = hpcnetsim.route(spec, "updn")
    assert r["unreachable_pairs"] > 0
    keys = ("routed_throughput", "ideal_throughput", "minimal_spread_throughput")
    assert [r[key] for key in keys] == [None, None, None], r
    assert main(["route", spec, "--routing", "updn"]) == 0
    out = capsys.readouterr().out
    for key in keys:
        assert re.search(rf"^{key} +not computed$", out, re.M), out
    # The intact line: the middle channel carries 2 x 2 / 3 of every terminal's unit.
    whole = hpcnetsim.route("mesh:4", "updn")
    bounds = (whole["routed_throughput"], whole["ideal_throughput"], whole["minimal_spread_throughput"])
    assert bounds == pytest.approx((0.75, 0.75, 0.75))


@pytest.mark.parametrize("routing", ["DOR", "", "bubbles"])
def test_an_unknown_routing_with_check_deadlock_lists_the_algorithmic_ones(routing, capsys):
    # The error listed the table engines only, though --check-deadlock takes dor, duato...
    assert main(["route", "torus:4x4", "--routing", routing, "--check-deadlock"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"routing = {routing!r} is invalid" in err, err
    assert "a table engine (minhop, sssp, dfsssp, updn, ftree, parx, ksp)" in err
    assert "an algorithmic routing (auto, dor, dor-upper-lower, bubble-adaptive, duato," in err
    assert err.endswith("graph-ugal, bubble, tree)\n")
    # Without --check-deadlock only a table engine is allowed, and the error says so.
    engines = "is invalid: one of minhop, sssp, dfsssp, updn, ftree, parx, ksp$"
    with pytest.raises(hpcnetsim.ConfigError, match=engines):
        hpcnetsim.route("torus:4x4", routing)


def test_route_and_check_deadlock_take_numpy_integers():
    # lmc, vls, vcs, roots and queue_packets from numpy were refused as "lmc = np.int64(1) is
    # invalid: an integer between 0 and 7", and queue_packets failed in json.dumps.
    np = pytest.importorskip("numpy")
    i = np.int64
    assert hpcnetsim.route("tree:k=2,n=3", lmc=i(1), vls=i(2)) == hpcnetsim.route("tree:k=2,n=3", lmc=1, vls=2)
    assert hpcnetsim.route("tree:k=2,n=3", "updn", roots=[i(4)]) == hpcnetsim.route("tree:k=2,n=3", "updn", roots=[4])
    numpy_check = hpcnetsim.check_deadlock("torus:4x4", "dor", vcs=i(2), queue_packets=np.int32(4))
    assert numpy_check == hpcnetsim.check_deadlock("torus:4x4", "dor", vcs=2, queue_packets=4)
    for bad in ({"lmc": 1.0}, {"vls": True}):
        with pytest.raises(hpcnetsim.ConfigError, match=f"route: {next(iter(bad))} = .* is invalid: an integer"):
            hpcnetsim.route("tree:k=2,n=3", **bad)
    with pytest.raises(hpcnetsim.ConfigError, match="route: vcs = 2.0 is invalid: an integer between 1 and 8"):
        hpcnetsim.check_deadlock("torus:4x4", "dor", vcs=2.0)


def test_an_engine_refusing_the_network_is_a_config_error_naming_the_file(tmp_path, capsys):
    # ftree on a HyperX was refused as `routing: engine = ...`, without the file's name
    # that a bad `routing.algorithm` in the same file gets.
    cfg = tmp_path / "hx.toml"
    cfg.write_text(
        'topology = "hyperx:3x3,t=2"\n[routing]\nalgorithm = "table"\nengine = "ftree"\n[traffic]\nload = 0.3\n'
    )
    assert main(["run", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    expected = f"error: {cfg}: config: routing.engine = 'ftree' on hyperx:3x3,t=2 is invalid: a fat-tree"
    assert err.startswith(expected), err


@pytest.mark.parametrize(
    "spec, kwargs, needle",
    [
        (None, {}, "spec = None is invalid: a topology spec (a string)"),
        (5, {}, "spec = 5 is invalid: a topology spec (a string)"),
        ("hyperx:2x2,t=1", {"dump": "lft.txt"}, "dump = 'lft.txt' is invalid: True or False"),
        ("hyperx:2x2,t=1", {"check_deadlock": 1}, "check_deadlock = 1 is invalid: True or False"),
        ("hyperx:2x2,t=1", {"check_deadlock": "yes"}, "check_deadlock = 'yes' is invalid: True or False"),
    ],
)
def test_spec_and_flags_of_the_wrong_type_are_config_errors(spec, kwargs, needle):
    """A file name given to ``dump`` (the CLI's ``--dump FILE``), a spec that is not a string
    or a flag that is not a boolean is named in one line, not the binding's TypeError."""
    with pytest.raises(hpcnetsim.ConfigError, match=re.escape(needle)):
        hpcnetsim.route(spec, **kwargs)


def test_numpy_booleans_are_flags():
    import numpy as np

    r = hpcnetsim.route("hyperx:2x2,t=1", check_deadlock=np.bool_(True), dump=np.bool_(True))
    assert r["deadlock"] == "acyclic" and r["dump"].startswith("# hpcnetsim forwarding tables")


@pytest.mark.parametrize("where", ["missing folder", "inside a file", "a folder"])
def test_an_unusable_dump_path_is_refused_before_routing(tmp_path, capsys, monkeypatch, where):
    """The tables of a large fabric take minutes (DFSSSP on Edison's 1 440 switches): a
    --dump that cannot be written is refused before they are computed, not after."""
    import hpcnetsim.routing

    (tmp_path / "afile").write_text("x")
    path = {"missing folder": tmp_path / "new" / "lft.txt", "inside a file": tmp_path / "afile" / "lft.txt",
            "a folder": tmp_path}[where]  # fmt: skip
    calls = []
    monkeypatch.setattr(hpcnetsim.routing, "route", lambda *a, **k: calls.append(a) or {})
    assert main(["route", "torus:4x4", "--dump", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {path}: "), err
    assert calls == [], "the tables were computed before the dump path was checked"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize(
    "spec, routing",
    [("torus:4x4|faults:random=1", "dor"), ("hyperx:4x4,t=2", "dor"), ("tree:k=4,n=2", "dragonfly-minimal")],
)
def test_an_algorithmic_routing_the_network_refuses_names_the_route_flag(spec, routing, capsys):
    """`route --routing X --check-deadlock` on a network X cannot route names --routing and
    offers the table engines, which route accepts, not the config's `table`, which it refuses."""
    assert main(["route", spec, "--routing", routing, "--check-deadlock"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"error: route: routing = '{routing}'"), err
    assert "routing.algorithm" not in err and "table engine (minhop, sssp, dfsssp" in err, err
    assert not re.search(r"\btable\b(?! engine)", err), err
    # The advice works: a table engine's tables are checked on the same network.
    assert main(["route", spec, "--routing", "dfsssp", "--check-deadlock"]) == 0


def test_a_routing_with_no_path_has_no_path_lengths(capsys):
    # Every link failed: no pair has a path, so the shortest, longest and mean path lengths
    # are undefined (the report gave 0 hops, as if every path were one switch long).
    spec = "torus:4x4|faults:fraction=1"
    assert main(["route", spec, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["paths"] == 0 and r["unreachable_pairs"] == 16 * 15
    assert [r[k] for k in ("min_hops", "max_hops", "mean_hops")] == [None, None, None], r
    assert main(["route", spec]) == 0
    out = capsys.readouterr().out
    for k in ("min_hops", "max_hops", "mean_hops"):
        assert re.search(rf"^{k} +-$", out, re.M), out
    # A plane of a multi-plane network with no path adds no lengths to the others'.
    two = hpcnetsim.route("torus:4x4|planes:2|faults:fraction=1")
    assert [two[k] for k in ("paths", "min_hops", "max_hops", "mean_hops")] == [0, None, None, None], two


def test_an_empty_dump_path_is_named_as_such(capsys):
    # `--dump ""` was taken as the current folder: "error: .: is a folder".
    assert main(["route", "torus:4x4", "--dump", ""]) == 2
    err = capsys.readouterr().err
    assert err == "error: route: dump = '' is invalid: the path of a file to write the tables to\n"
    assert main(["route", "torus:4x4", "--load", ""]) == 2
    assert capsys.readouterr().err == "error: route: load = '' is invalid: the path of a table dump to read\n"


def test_a_dump_of_a_faulty_multi_plane_network_names_the_spec(tmp_path, capsys):
    # The refusal comes from the network, not the file: it named the spec as the dump's value.
    spec = "tree:k=4,n=3|planes:2|faults:random=3"
    assert main(["route", spec, "--dump", str(tmp_path / "z.lft")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: route: spec = '{spec}' is invalid: ") and err.count("\n") == 1, err
    assert "for a dump" in err and "dump =" not in err
    assert list(tmp_path.iterdir()) == []
