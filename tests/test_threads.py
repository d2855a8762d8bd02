"""One simulation on several threads: ``threads=`` in the Python API and ``--threads`` on the
command line give the one-thread results, and bad thread counts are refused in one line."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import hpcnetsim
from hpcnetsim import _core

SHORT = {"warmup_cycles": 500, "window_cycles": 200, "batches": 2, "batch_cycles": 500}


def without_time(result) -> dict:
    d = result.to_dict()
    return {k: v for k, v in d.items() if "seconds" not in k and not k.endswith("_per_s")}


def test_threads_give_the_same_results_through_the_api():
    cfg = {"topology": "tree:k=4,kp=2,n=3", "traffic": {"load": 0.7}, "measurement": SHORT}
    one = without_time(hpcnetsim.simulate(cfg, threads=1))
    for threads in (2, 3, 0):
        assert without_time(hpcnetsim.simulate(cfg, threads=threads)) == one
    work = {"topology": "torus:4x4", "workload": {"kernel": "alltoall", "message_bytes": 4096}}
    assert without_time(hpcnetsim.execute(work, threads=2)) == without_time(hpcnetsim.execute(work, threads=1))


def cli(*args):
    return subprocess.run([sys.executable, "-m", "hpcnetsim", *args], capture_output=True, text=True, check=False)


def test_the_command_line_runs_on_threads_and_refuses_bad_counts(tmp_path):
    config = tmp_path / "torus.toml"
    config.write_text('topology = "torus:6x6"\n[traffic]\nload = 0.5\n[measurement]\nwarmup_cycles = 500\n'
                      "batches = 1\nbatch_cycles = 500\n")  # fmt: skip
    runs = [cli("run", str(config), "--threads", t) for t in ("1", "2")]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    # Identical reports but for the speed line.
    same = [[line for line in r.stdout.splitlines() if not line.startswith("speed")] for r in runs]
    assert same[0] == same[1]
    for bad in ("-1", "two", "1.5"):
        r = cli("run", str(config), "--threads", bad)
        assert r.returncode == 2 and "--threads" in r.stderr and f"'{bad}'" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    r = cli("bench", "--threads", "2")
    assert r.returncode == 2 and "--threads is invalid without --scale" in r.stderr
    r = cli("bench", "--scale", "--threads", "1,2,1")
    assert r.returncode == 2 and "'1,2,1' repeats a thread count" in r.stderr


def test_the_api_refuses_more_threads_than_the_command_line_allows(tmp_path):
    # simulate(threads=100000) ran (the core capped the count without a word) where
    # `run --threads 100000` is refused: both now give one message naming the range.
    from hpcnetsim.cores import max_workers

    config = tmp_path / "crossbar.toml"
    config.write_text('topology = "crossbar:8"\n')
    cfg = {"topology": "crossbar:8"}
    for n in (max_workers() + 1, 100000):
        r = cli("run", str(config), "--threads", str(n))
        assert r.returncode == 2, r.stderr
        reason = r.stderr.strip().split("--threads: ", 1)[1]
        assert reason.startswith(f"{n} is too many threads: 0 (automatic) to {max_workers()} ("), r.stderr
        for run in (hpcnetsim.simulate, hpcnetsim.execute):
            with pytest.raises(hpcnetsim.ConfigError) as e:
                run(cfg, threads=n)
            assert str(e.value) == f"run: threads = {reason}"
            assert isinstance(e.value, ValueError)


def test_the_documented_thread_threshold_is_the_engines():
    """The help, the API docstring and the README name the channel count below which
    ``threads = 0`` runs one thread (and from which it chooses); it must be the engine's own."""
    n = _core.AUTO_MIN_CHANNELS
    help_text = cli("run", "--help").stdout
    assert f"from {n} channels" in " ".join(help_text.split()), help_text
    grouped = f"{n:,}".replace(",", " ")
    assert f"one below {grouped} channels" in " ".join(hpcnetsim.simulate.__doc__.split())
    readme = Path(__file__).resolve().parents[1] / "README.md"
    assert re.search(rf"one thread below {grouped} channels", " ".join(readme.read_text().split()))
