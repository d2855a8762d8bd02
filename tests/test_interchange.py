"""The new families, their routings and the BookSim2 / CODES formats from the command line:
describe, export, read back, deadlock checks, and one-line errors with exit status 2."""

import json
from pathlib import Path

from hpcnetsim.cli import main

FABRICS = Path(__file__).parent / "data" / "fabrics"
DALLY = FABRICS / "codes_dragonfly_dally72" / "dfdally-72"


def _describe(spec, capsys):
    assert main(["topo", "describe", spec, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _body(text):
    return [line for line in text.splitlines() if not line.startswith("#")]


def test_codes_files_are_the_relative_dragonfly(tmp_path, capsys):
    ours = _describe("dragonfly:a=4,p=2,h=2,arrangement=relative", capsys)
    codes = _describe(f"codes-dragonfly:{DALLY}-intra.csv,{DALLY}-inter.csv,p=2", capsys)
    for key in ("switches", "terminals", "links", "radix", "diameter", "avg_distance", "ideal_throughput"):
        assert ours[key] == codes[key], key
    assert (ours["switches"], ours["radix"], ours["terminals"]) == (36, 7, 72)
    for kind in ("intra", "inter"):
        out = tmp_path / f"{kind}.csv"
        spec = "dragonfly:a=4,p=2,h=2,arrangement=relative"
        assert main(["topo", "export", spec, "--format", f"codes-{kind}", "-o", str(out)]) == 0
        assert _body(out.read_text()) == _body(Path(f"{DALLY}-{kind}.csv").read_text())


def test_anynet_export_reads_back(tmp_path, capsys):
    out = tmp_path / "sf.anynet"
    assert main(["topo", "export", "slimfly:q=5", "--format", "anynet", "-o", str(out)]) == 0
    capsys.readouterr()
    a, b = _describe("slimfly:q=5", capsys), _describe(f"anynet:{out}", capsys)
    for key in ("switches", "terminals", "switch_links", "diameter", "avg_distance"):
        assert a[key] == b[key], key
    assert (a["switches"], a["radix"] - 4, a["diameter"]) == (50, 7, 4)


def test_bad_files_and_specs_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.anynet"
    bad.write_text("router 0 node 0 node 1\nrouter 1 node 1\n")
    inter = tmp_path / "inter.csv"
    inter.write_text("0,5\n")
    for spec, words in [
        (f"anynet:{bad}", [f"{bad}:2", "node"]),
        (f"codes-dragonfly:{DALLY}-intra.csv,{inter},p=2", [f"{inter}:line 1", "link"]),
        (f"codes-dragonfly:{DALLY}-intra.csv,{inter}", ["p=N"]),
        ("dragonfly:a=4,p=2,h=2,g=4", ["g = 4", "2, 3, 5, 9"]),
        ("slimfly:q=6", ["q = 6", "prime power"]),
        ("jellyfish:n=5,k=3,p=1", ["k = 3", "even"]),
    ]:
        assert main(["topo", "describe", spec]) == 2, spec
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and all(w in err for w in words), (spec, err)
    assert main(["topo", "export", "hyperx:3x3,k=2", "--format", "anynet"]) == 2
    assert "parallel links" in capsys.readouterr().err


def test_dragonfly_routings_check_deadlock(capsys):
    spec = "dragonfly:a=4,p=2,h=2"
    for routing, vcs in [("dragonfly-minimal", 2), ("dragonfly-valiant", 3), ("dragonfly-ugal", 3)]:
        assert main(["route", spec, "--routing", routing, "--check-deadlock", "--json"]) == 0, routing
        rep = json.loads(capsys.readouterr().out)
        assert rep["deadlock_free"] and rep["vcs"] == vcs and rep["verdict"] == "acyclic", rep
        # The control: the same routes on one VC close a cycle (exit status 3).
        assert main(["route", spec, "--routing", routing, "--vcs", "1", "--check-deadlock", "--json"]) == 3
        rep = json.loads(capsys.readouterr().out)
        assert not rep["deadlock_free"] and rep["merged"] and len(rep["verdict"]["cycle"]) >= 2, rep


def test_ibnet_export_read_back_exports_the_same_hosts(tmp_path, capsys):
    # The reader names port 1 of host H3 `H3[1]`; the export wrote that as a host of its own,
    # so each round trip renamed every host (H3 -> H3[1] -> H3[1][1]).
    first, second, third = (tmp_path / f"{n}.ibnet" for n in "abc")
    assert main(["topo", "export", "tree:k=4,n=2", "--format", "ibnet", "-o", str(first)]) == 0
    assert main(["topo", "export", f"ibnet:{first}", "--format", "ibnet", "-o", str(second)]) == 0
    assert main(["topo", "export", f"ibnet:{second}", "--format", "ibnet", "-o", str(third)]) == 0
    capsys.readouterr()
    body = _body(first.read_text())
    assert 'Ca\t1 "H15"' in first.read_text()
    assert _body(second.read_text()) == body
    assert _body(third.read_text()) == body
