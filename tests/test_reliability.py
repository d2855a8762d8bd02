"""Reliability under real use: Ctrl-C, budgets, memory refusal, deadlock evidence, bounds."""

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time

import pytest

import hpcnetsim
from hpcnetsim import ConfigError

LONG = {"topology": "torus:8x8", "traffic": {"load": 0.3}, "measurement": {"warmup_cycles": 10**11}}
#: Min-hop forwarding tables on a ring with one VC and one-packet queues: a cyclic channel
#: dependency; the network stops within a few thousand cycles.
DEADLOCK = {
    "topology": "torus:8",
    "switch": {"queue_packets": 1},
    "routing": {"algorithm": "table", "engine": "minhop"},
    "traffic": {"load": 1.0},
    "measurement": {"warmup_cycles": 20000, "deadlock_cycles": 2000},
}


def write_toml(path, cfg):
    from hpcnetsim.canonical import to_toml

    path.write_text(to_toml(cfg))
    return path


def test_sigint_stops_a_cli_run_within_two_seconds_and_writes_nothing(tmp_path):
    cfg = write_toml(tmp_path / "long.toml", LONG)
    out = tmp_path / "out"
    # The child gets Ctrl-C's default action even when the suite runs where SIGINT is
    # ignored (a background job, nohup): Python then installs no handler of its own.
    proc = subprocess.Popen([sys.executable, "-m", "hpcnetsim", "run", str(cfg), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    time.sleep(2.5)  # start-up and well into the warm-up
    assert proc.poll() is None, proc.communicate()
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    took = time.monotonic() - start
    assert proc.returncode == 130, err
    assert took < 2.0, f"took {took:.2f} s to stop"
    assert "Traceback" not in err and "interrupted" in err
    assert not out.exists()


def test_sigterm_stops_a_run_and_a_sweep_as_ctrl_c_does(tmp_path):
    # A batch scheduler ends a job at its time limit with SIGTERM: the command died at once
    # (status -15), a sweep with "leaked semaphore objects" warnings and no word of what it
    # kept. It now stops as on Ctrl-C, with the same message, and exits with 143.
    cfg = write_toml(tmp_path / "long.toml", LONG)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "hpcnetsim", "run", str(cfg), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    time.sleep(2.5)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert err.strip() == "interrupted: nothing written", err
    assert not out.exists()

    exp = tmp_path / "slow.toml"
    exp.write_text(
        'name = "slow"\n[base]\ntopology = "torus:8x8"\nmeasurement.warmup_cycles = 100000000000\n'
        "[[sweep]]\naxes.traffic.load = [0.1, 0.2, 0.3]\n"
    )
    proc = subprocess.Popen([sys.executable, "-m", "hpcnetsim", "sweep", str(exp), "--out", str(tmp_path / "s"),
                             "--jobs", "2", "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    time.sleep(4)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "interrupted (finished points are kept in the store: run again to resume)" in err, err
    assert "Traceback" not in err and "leaked" not in err, err


def test_simulate_raises_keyboard_interrupt_promptly():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    # Python's own handler, even where the suite was started with SIGINT ignored (without
    # it the signal would be dropped and the run would go on for 10^11 cycles).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            hpcnetsim.simulate(LONG)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 2.0


def test_progress_and_budget():
    seen = []
    r = hpcnetsim.simulate(LONG, progress=seen.append, max_seconds=0.5)
    assert r.status == "partial" and "wall-clock budget" in r.message
    assert r.accepted_load is None
    assert seen and {p["phase"] for p in seen} == {"warm-up"}
    assert all(a["cycle"] <= b["cycle"] for a, b in zip(seen, seen[1:]))
    r = hpcnetsim.simulate(LONG, max_cycles=3000)
    assert r.status == "partial" and r.cycles == 3000
    with pytest.raises(ConfigError, match="max_seconds"):
        hpcnetsim.simulate(LONG, max_seconds=-1)


def test_a_config_needing_more_than_the_address_space_limit_is_refused(tmp_path):
    cfg = write_toml(tmp_path / "big.toml", {**LONG, "topology": "torus:3000x3000"})
    limit = 3 << 30

    def small_limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "hpcnetsim", "run", str(cfg)], capture_output=True, text=True,
                       preexec_fn=small_limit, timeout=120)  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "memory" in r.stderr and "--no-memory-check" in r.stderr, r.stderr
    assert "address-space limit" in r.stderr
    assert time.monotonic() - start < 30, "refused from the estimate, before building"
    r = subprocess.run([sys.executable, "-m", "hpcnetsim", "topo", "describe", "torus:6000x6000"],
                       capture_output=True, text=True, preexec_fn=small_limit, timeout=120)  # fmt: skip
    assert r.returncode == 2 and "memory" in r.stderr, r.stderr


def test_the_memory_estimate_covers_a_saturated_run(tmp_path):
    # At saturation every queue is full and the packet store and the event wheel have grown
    # by doubling: the estimate that counted each packet once (9.6 MiB for this torus) was
    # below the 11.5 MiB the run added to the process's peak.
    from hpcnetsim._core import memory_estimate

    def peak(cfg: dict) -> int:
        path = write_toml(tmp_path / "c.toml", cfg)
        code = ("import resource, subprocess, sys; "
                f"subprocess.run([sys.executable, '-m', 'hpcnetsim', 'run', {str(path)!r}], check=True, capture_output=True); "
                "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")  # fmt: skip
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
        return int(r.stdout) * 1024

    short = {"warmup_cycles": 1500, "batch_cycles": 500, "batches": 2}
    base = peak({"topology": "torus:4x4", "traffic": {"load": 1.0}, "measurement": short})
    cfg = {"topology": "torus:64x64", "traffic": {"load": 1.0}, "measurement": short}
    grew = peak(cfg) - base
    estimate = memory_estimate(json.dumps(cfg))[0]
    assert grew > 8 << 20, f"a saturated torus:64x64 added only {grew} bytes"
    assert grew <= estimate, f"the run added {grew >> 20} MiB, the estimate was {estimate >> 20} MiB"


def test_an_allocation_the_system_refuses_ends_the_run_with_one_line(tmp_path):
    # With the check overridden, building torus:2000x2000 under a 1.5 GB address-space limit
    # fails inside the engine: it used to abort (status 134) with the standard library's
    # "memory allocation of 400000000 bytes failed" and, with RUST_BACKTRACE set, a backtrace.
    cfg = write_toml(tmp_path / "big.toml", {"topology": "torus:2000x2000", "traffic": {"load": 0.1}})
    limit = 1500 << 20

    def small_limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "RUST_BACKTRACE": "1"}
    r = subprocess.run([sys.executable, "-m", "hpcnetsim", "--no-memory-check", "run", str(cfg)],
                       capture_output=True, text=True, preexec_fn=small_limit, timeout=300, env=env)  # fmt: skip
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: out of memory"), r.stderr[-2000:]
    assert "MB" in r.stderr and "ulimit -v" in r.stderr, r.stderr


def test_a_deadlock_is_reported_with_evidence_and_exit_status_3(cli, tmp_path):
    r = hpcnetsim.simulate(DEADLOCK)
    assert r.status == "deadlock"
    assert r.blocked_channels, r.message
    for b in r.blocked_channels:
        assert b["need_phits"] > b["room_phits"]
    cfg = write_toml(tmp_path / "dl.toml", DEADLOCK)
    p = cli("run", str(cfg), "--out", str(tmp_path / "out"))
    assert p.returncode == 3, p.stderr
    assert "blocked channels" in p.stdout and "switch " in p.stdout
    stored = json.loads((tmp_path / "out" / "result.json").read_text())["result"]
    assert stored["blocked_channels"] == r.blocked_channels


def test_unbounded_values_are_refused_in_one_line(cli, tmp_path):
    cfg = write_toml(tmp_path / "c.toml", {"topology": "torus:4x4"})
    p = cli("run", str(cfg), "--set", "measurement.warmup_cycles=18446744073709551615")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "measurement.warmup_cycles" in p.stderr
    p = cli("run", str(cfg), "--set", "switch.vcs=\"two\"")
    assert p.returncode == 2 and "u32" not in p.stderr and "struct" not in p.stderr, p.stderr


def test_expressions_are_bounded():
    from hpcnetsim.expressions import evaluate

    start = time.monotonic()
    for text in ("=9**9**9**9", "=10**400", "=(2**1000)*(2**1000)", "=" + "(" * 300 + "1" + ")" * 300):
        with pytest.raises(ConfigError):
            evaluate(text, "torus:4x4", "traffic.load")
    assert time.monotonic() - start < 1.0
    assert evaluate("=2**10", "torus:4x4", "x") == 1024


def test_expressions_name_the_bounds():
    from hpcnetsim.expressions import evaluate

    # 8x8 mesh: the bound of every routing 63/128, the even spread over minimal paths below.
    assert evaluate("=ideal", "mesh:8x8", "traffic.load") == pytest.approx(63 / 128)
    assert evaluate("=spread", "mesh:8x8", "traffic.load") < 0.4
    with pytest.raises(ConfigError, match="'ideal' is not available for mesh:12x12"):
        evaluate("=0.5 * ideal", "mesh:12x12|faults:links=0.0", "traffic.load")


def test_version(cli):
    p = cli("--version")
    assert p.returncode == 0 and p.stdout.startswith(f"hpcnetsim {hpcnetsim.__version__} (build ")


def test_results_render_as_html():
    r = hpcnetsim.simulate(DEADLOCK)
    html = r._repr_html_()
    assert "<table" in html and "deadlock" in html and "#b42318" in html


def test_a_run_whose_stdout_is_closed_still_writes_its_results_and_status(tmp_path):
    # `hpcnetsim run ... | head -1`, or a job whose reader went away: the summary is lost, the
    # result files and the exit status are not.
    cfg = write_toml(tmp_path / "dl.toml", DEADLOCK)
    out = tmp_path / "out"
    r, w = os.pipe()
    os.close(r)  # nobody reads: the first print raises BrokenPipeError
    proc = subprocess.run([sys.executable, "-m", "hpcnetsim", "run", str(cfg), "--out", str(out)],
                          stdout=w, stderr=subprocess.PIPE, text=True, timeout=300)  # fmt: skip
    os.close(w)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert json.loads((out / "result.json").read_text())["result"]["status"] == "deadlock"


def test_running_out_of_memory_past_the_estimate_is_one_line():
    # Describing torus:1000x1000 passes the estimate under a 700 MiB address-space limit, but
    # its cost and layout step (Python lists of every link) then ran out: a MemoryError
    # traceback, status 1.
    limit = 700 << 20

    def small_limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    r = subprocess.run([sys.executable, "-m", "hpcnetsim", "topo", "describe", "torus:1000x1000"],
                       capture_output=True, text=True, preexec_fn=small_limit, timeout=300)  # fmt: skip
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr[-2000:]
    assert "memory" in r.stderr, r.stderr
