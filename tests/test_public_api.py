"""The public API of the package: the names ``hpcnetsim`` exports, where they come from, and
the console entry point. The modules behind them may move; these names do not."""

import subprocess
import sys
import tomllib
from pathlib import Path

import hpcnetsim
import pytest

#: Every name ``import hpcnetsim`` offers, as documented (README, docs/python.md).
PUBLIC = {
    "ANY", "ConfigError", "Program", "SimulationResult", "Topology", "__version__", "apply_overrides",
    "check_deadlock", "describe", "ebb", "execute", "load_config", "load_curve", "mpigraph", "results",
    "route", "simulate",
}  # fmt: skip


def test_the_exported_names_are_the_public_api():
    assert set(hpcnetsim.__all__) == PUBLIC
    assert set(dir(hpcnetsim)) >= PUBLIC


def test_every_exported_name_resolves_to_a_callable_or_value():
    for name in sorted(PUBLIC - {"__version__", "ANY"}):
        value = getattr(hpcnetsim, name)
        assert callable(value), name
    assert isinstance(hpcnetsim.__version__, str) and hpcnetsim.__version__
    assert hpcnetsim.simulate.__module__ == "hpcnetsim.simulation"
    assert hpcnetsim.results.__module__ == "hpcnetsim.experiments.store"
    assert issubclass(hpcnetsim.ConfigError, Exception)


def test_the_metrics_module_stays_where_it_was():
    from hpcnetsim import metrics

    assert metrics.phi({"a": 2.0, "b": 8.0}) > 0
    assert callable(metrics.normalized_times) and callable(metrics.performance)


def test_an_unknown_name_is_an_attribute_error():
    try:
        hpcnetsim.nope  # noqa: B018
    except AttributeError as e:
        assert "nope" in str(e)
    else:
        raise AssertionError("hpcnetsim.nope resolved")


def test_the_console_entry_point_is_the_cli_main():
    root = Path(__file__).resolve().parent.parent
    target = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]["hpcnetsim"]
    module, _, func = target.partition(":")
    main = getattr(__import__(module, fromlist=[func]), func)
    assert main(["topo", "describe", "torus:4x4", "--json"]) == 0
    out = subprocess.run([sys.executable, "-m", "hpcnetsim", "study", "list"], capture_output=True, text=True)
    assert out.returncode == 0 and "twin-torus" in out.stdout, out.stderr


def test_a_topology_is_built_from_its_spec():
    """``Topology("spec")`` is ``Topology.from_spec("spec")``; anything but a spec is one error."""
    assert hpcnetsim.Topology("torus:4x4").describe() == hpcnetsim.Topology.from_spec("torus:4x4").describe()
    with pytest.raises(hpcnetsim.ConfigError, match="spec = 3 is invalid: a string"):
        hpcnetsim.Topology(3)
    with pytest.raises(hpcnetsim.ConfigError, match="torus"):
        hpcnetsim.Topology("torus:0x4")


def test_a_topology_lists_copies_pickles_and_compares_like_a_value():
    # The core's methods (links, distance, minimal_paths ...) were missing from dir() and so
    # from a notebook's completion; a copy or a pickle (a sweep's worker) failed with "cannot
    # pickle 'hpcnetsim._core.Topology' object"; two topologies of one spec were unequal.
    import copy
    import pickle

    t = hpcnetsim.Topology("torus:4x4")
    names = dir(t)
    for name in ("links", "distance", "minimal_paths", "num_switches", "spec", "describe", "to_networkx"):
        assert name in names
    for other in (copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert isinstance(other, hpcnetsim.Topology) and other is not t
        assert other == t and hash(other) == hash(t)
        assert other.links() == t.links() and other.describe() == t.describe()
    assert t != hpcnetsim.Topology("torus:4x8") and t != "torus:4x4"


def test_a_config_error_pickles_as_the_public_class():
    # The core made ConfigError in a module named "_core": pickling one (an error raised in a
    # multiprocessing or Dask worker, sent back) failed with "Can't pickle <class
    # '_core.ConfigError'>: import of module '_core' failed".
    import pickle

    with pytest.raises(hpcnetsim.ConfigError) as e:
        hpcnetsim.simulate({"topology": "torus:0x4"})
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is hpcnetsim.ConfigError and str(back) == str(e.value)
    assert "dimension 0 = 0 is invalid" in str(back)
    assert hpcnetsim.ConfigError.__module__ == "hpcnetsim"


def test_a_topology_read_from_a_relative_file_pickles_from_anywhere(tmp_path, monkeypatch):
    # A copy or a pickle rebuilds the network from its spec: a fabric file named relative to
    # the folder it was read in was looked for in the folder of the copy instead.
    import copy
    import pickle

    (tmp_path / "t.ibnet").write_text(hpcnetsim.Topology("torus:4x4").export("ibnet"))
    monkeypatch.chdir(tmp_path)
    t = hpcnetsim.Topology("ibnet:t.ibnet")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    for other in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert other == t and other.links() == t.links()
    assert t == hpcnetsim.Topology(f"ibnet:{tmp_path / 't.ibnet'}")
