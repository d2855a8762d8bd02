"""Sweeps on the local executor: the store, resuming, recorded failures, studies and reports."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import hpcnetsim
import pyarrow.parquet as pq
import pytest
from hpcnetsim.experiments import experiment, store
from hpcnetsim.experiments.sweep import run_sweep
from sweep_helpers import SLOW, outcomes, torus_sweep, wait_for_files

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small_sweep.toml"


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory):
    """The slow experiment run once, uninterrupted, on two local processes."""
    folder = tmp_path_factory.mktemp("slow")
    (folder / "slow.toml").write_text(SLOW)
    exp = experiment.load(folder / "slow.toml")
    summary = run_sweep(exp, folder / "out", jobs=2, progress=False)
    assert (summary.total, summary.ran, summary.failed) == (8, 8, [])
    return folder / "slow.toml", outcomes(folder / "out")


def test_sweep_stores_every_point_and_a_rerun_skips_them(tmp_path):
    exp = experiment.load(SMALL)
    summary = run_sweep(exp, tmp_path, jobs=2, progress=False)
    assert (summary.total, summary.stored_before, summary.ran, summary.failed) == (14, 0, 14, [])
    df = hpcnetsim.results(tmp_path)
    assert len(df) == 14 and set(df["state"]) == {"done"}
    assert set(df["key"]) == {p.key for p in exp.points}
    assert {
        "switch.vcs",
        "traffic.load",
        "accepted_load",
        "latency_network_mean",
        "hpcnetsim_version",
    } <= set(df)
    again = run_sweep(exp, tmp_path, jobs=2, progress=False)
    assert (again.stored_before, again.ran) == (14, 0)
    # A stored point is exactly what one direct simulation of its config gives.
    point = exp.points[3]
    direct = hpcnetsim.simulate(point.config).to_dict()
    direct.pop("wall_seconds")
    assert outcomes(tmp_path)[point.key] == direct
    assert not [p for p in (tmp_path / "store").iterdir() if p.name.startswith(".")]


def test_a_routing_the_topology_cannot_use_is_refused_before_any_point_runs(cli, tmp_path):
    f = tmp_path / "f.toml"
    f.write_text(
        SMALL.read_text().replace("axes.seed = [1, 2]", 'axes.routing.algorithm = ["dor", "direct"]')
    )
    r = cli("sweep", str(f), "--out", str(tmp_path / "out"), "--no-progress")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"error: {f}:21: sweep 'grid': routing.algorithm = 'direct' is invalid: for torus")
    assert not (tmp_path / "out").exists()
    f.write_text(SMALL.read_text().replace("axes.seed = [1, 2]", "axes.switch.vcs = [1, 2]"))
    r = cli("sweep", str(f), "--out", str(tmp_path / "out"), "--no-progress")
    assert r.returncode == 2 and "switch.vcs = 1 is invalid: at least 2 for dor on a torus" in r.stderr, r.stderr
    # So is an algorithmic routing on a network with faults (it assumes every link works).
    faulty = 'axes.topology = ["torus:4x4", "torus:4x4|faults:links=0.0"]'
    f.write_text(SMALL.read_text().replace("axes.seed = [1, 2]", faulty))
    r = cli("sweep", str(f), "--out", str(tmp_path / "out"), "--no-progress")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "routing.algorithm = 'dor' on the faulty network torus:4x4|faults:links=0.0 is invalid" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(cli, tmp_path):
    f = tmp_path / "f.toml"
    # Forwarding tables from a damaged file (next to the experiment file) are read when the
    # routing is built.
    (tmp_path / "damaged.lft").write_text("switch 0\n")
    tables = 'axes.routing = [{ algorithm = "dor" }, { algorithm = "table", tables = "damaged.lft" }]'
    f.write_text(SMALL.read_text().replace("axes.seed = [1, 2]", tables))
    r = cli("sweep", str(f), "--out", str(tmp_path / "out"), "--jobs", "2", "--no-progress")
    assert r.returncode == 1, r.stderr
    df = hpcnetsim.results(tmp_path / "out")
    failed = df[df["state"] == "failed"]
    assert len(failed) == 3 and len(df) == 14
    assert failed["error"].str.contains(f"{tmp_path / 'damaged.lft'}:1: ").all()
    assert failed["accepted_load"].isna().all()
    assert "3 failed" in r.stdout and r.stderr.count("failed ") == 3
    # Failed points are run again; finished ones are not.
    r = cli("sweep", str(f), "--out", str(tmp_path / "out"), "--no-progress")
    assert "11 already stored, 3 run, 3 failed" in r.stdout


def test_an_interrupted_local_sweep_keeps_its_points_and_resumes(tmp_path, slow_reference):
    file, reference = slow_reference
    out = tmp_path / "out"
    args = [
        sys.executable,
        "-m",
        "hpcnetsim",
        "sweep",
        str(file),
        "--out",
        str(out),
        "--jobs",
        "1",
        "--no-progress",
    ]
    # Ctrl-C's default action in the child even where the suite runs with SIGINT ignored.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        wait_for_files(out / "store", 2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    kept = outcomes(out)
    assert 2 <= len(kept) < 8
    assert all(reference[k] == v for k, v in kept.items())
    df = hpcnetsim.results(out)
    before = dict(zip(df["key"], df["written_at"]))
    r = subprocess.run(args, check=False, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"{len(kept)} already stored, {8 - len(kept)} run, 0 failed" in r.stdout
    df = hpcnetsim.results(out)
    after = dict(zip(df["key"], df["written_at"]))
    assert all(after[k] == t for k, t in before.items()), "finished points were recomputed"
    assert outcomes(out) == reference


def test_a_finished_sweep_is_compacted_into_one_table(tmp_path):
    exp = experiment.load(SMALL, quick=True)
    run_sweep(exp, tmp_path, jobs=1, progress=False)
    files = sorted((tmp_path / "store").glob("*.parquet"))
    assert [f.name for f in files] == ["part-00000000.parquet"]
    rows = pq.read_table(files[0]).to_pylist()
    assert sorted(r["key"] for r in rows) == sorted(p.key for p in exp.points)
    assert {r["hpcnetsim_version"] for r in rows} == {hpcnetsim.__version__}
    assert {r["build_id"] for r in rows} == {hpcnetsim._core.BUILD_ID}
    assert store.finished(tmp_path) == {p.key for p in exp.points}


def test_builtin_studies_are_listed_and_expand(cli):
    r = cli("study", "list")
    names = [line.split()[0] for line in r.stdout.splitlines()]
    assert r.returncode == 0 and "thin-trees-throughput" in names and "hyperx" in names, r.stdout
    from hpcnetsim.studies.catalog import find

    full = experiment.load(find("thin-trees-throughput"))
    quick = experiment.load(find("thin-trees-throughput"), quick=True)
    # The quick group's points are all points of paper-000 too: one simulation each, kept there.
    assert {p.group for p in full.points} == {"paper-000", "paper-002"}
    assert len([p for p in full.points if p.group == "paper-000"]) == 4 * 3 * 8 - 3 * 2
    assert {p.group for p in quick.points} == {"paper-000-quick"}
    # 4 trees × 3 VC counts × 4 loads, less the load the 8:8,4 tree caps at 1 (1.0 and 1.3 × ideal).
    assert len(quick.points) == 4 * 3 * 4 - 3
    loads = sorted(
        {p.config["traffic"]["load"] for p in quick.points if p.config["topology"] == "tree:k=8,kp=4,n=4"}
    )
    ideal = hpcnetsim.Topology.from_spec("tree:k=8,kp=4,n=4").describe()["ideal_throughput"]
    assert loads == [round(f * ideal, 4) for f in (0.4, 0.8, 1.0, 1.3)]
    assert 0.057 < loads[0] < 0.058 and 0.18 < loads[-1] < 0.19
    assert {p.config["measurement"]["batch_cycles"] for p in quick.points} == {1000}
    torus = [p.config for p in full.points if p.config["topology"] == "torus:8x8"]
    assert {(c["routing"]["algorithm"], c["switch"]["vcs"], c["switch"]["phit_bytes"]) for c in torus} == {
        ("bubble-adaptive", 4, 4)
    }


def test_study_run_writes_a_self_contained_report(cli, tmp_path):
    env_dir = tmp_path / "studies"
    env_dir.mkdir()
    (env_dir / "small.toml").write_text(SMALL.read_text())
    os.environ["HPCNETSIM_STUDIES"] = str(env_dir)
    try:
        r = cli("study", "run", "small", "--quick", "--out", str(tmp_path / "out"), "--no-progress")
        bad = cli("study", "run", "nope")
    finally:
        del os.environ["HPCNETSIM_STUDIES"]
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "out" / "report.html").read_text()
    assert page.count("<svg ") >= 1 and "<table" in page and "data:image/png" not in page
    assert hpcnetsim.__version__ in page and "torus:4x4" in page and "Saturation throughput" in page
    assert bad.returncode == 2 and "study = 'nope' is invalid: one of small, or all (every study" in bad.stderr
    # The base config reads as a config file: bare keys, [switch] rather than ["switch"].
    assert "\n[switch]\n" in page and "\nvcs = " in page and '&quot;vcs&quot;' not in page
    (tmp_path / "out" / "report.html").unlink()
    figures = tmp_path / "out" / "figures"
    drawn = sorted(p.name for p in figures.iterdir())
    # A figure of an earlier report with more figures goes; a file of the user's stays.
    for name in ("figure-99.png", "figure-99.svg", "notes.txt"):
        (figures / name).write_text("x")
    r = cli("report", str(tmp_path / "out"))
    assert r.returncode == 0 and (tmp_path / "out" / "report.html").stat().st_size > 10_000
    assert sorted(p.name for p in figures.iterdir()) == sorted([*drawn, "notes.txt"])
    r = cli("report", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "no experiment.json" in r.stderr and len(r.stderr.splitlines()) == 1


def test_thin_tree_study_format_on_a_small_tree(tmp_path):
    """The Fig. 4 study's format on a 16-node thin-tree: saturates near its ideal bound with 4 VCs."""
    from hpcnetsim.reports.report import load, saturation, write_report
    from hpcnetsim.studies.catalog import find

    text = find("thin-trees-throughput").read_text()
    text = text.replace('"tree:k=8,kp=8,n=4", "tree:k=8,kp=6,n=4", "tree:k=8,kp=4,n=4", "tree:k=8,kp=2,n=4"',
                        '"tree:k=4,kp=2,n=2"').replace("axes.switch.vcs = [1, 2, 4]", "axes.switch.vcs = [1, 4]")  # fmt: skip
    assert text.count("tree:k=4,kp=2,n=2") == 2, "the full and the quick group"
    f = tmp_path / "small-trees.toml"
    f.write_text(text)
    exp = experiment.load(f, quick=True)
    assert len(exp.points) == 2 * 4
    run_sweep(exp, tmp_path / "out", jobs=2, progress=False)
    sat = saturation(load(tmp_path / "out")[1]).set_index("switch.vcs")
    ideal = sat.loc[4, "ideal"]
    assert sat.loc[4, "max_accepted"] > sat.loc[1, "max_accepted"]
    assert 0.8 * ideal < sat.loc[4, "max_accepted"] <= 1.02 * ideal
    page = write_report(tmp_path / "out").read_text()
    assert (
        page.count("<svg ") == 4
    )  # the paper-002 figure has no points in the quick variant
    assert "Published values" in page and "does not reach its ideal" in page


def test_the_saturation_table_of_an_unfinished_sweep_says_so(tmp_path):
    """A report written before every point ran (an interrupted sweep) notes, beside each curve's
    highest accepted load, the points not run yet: that value is of the loads run so far."""
    from hpcnetsim.experiments.sweep import write_experiment
    from hpcnetsim.reports.report import load, saturation

    (tmp_path / "part.toml").write_text(torus_sweep("inc", 500, "axes.traffic.load = [0.1]"))
    (tmp_path / "full.toml").write_text(torus_sweep("inc", 500, "axes.traffic.load = [0.1, 0.3, 0.5]"))
    out = tmp_path / "out"
    run_sweep(experiment.load(tmp_path / "part.toml"), out, jobs=1, progress=False)
    sat = saturation(load(out)[1])
    assert list(sat["note"]) == [""]
    write_experiment(experiment.load(tmp_path / "full.toml"), out)  # as a sweep does before it runs
    sat = saturation(load(out)[1])
    assert list(sat["points"]) == [1]
    assert list(sat["note"]) == ["incomplete: 2 points not run yet (loads 0.3, 0.5); run the sweep again to "
                                 "finish the curve"]  # fmt: skip


def test_a_folder_of_another_experiment_is_refused(cli, tmp_path):
    """A sweep into the output folder of another experiment would replace its record: the
    earlier points would vanish from its report while its store mixed both."""
    out = tmp_path / "out"
    (tmp_path / "one.toml").write_text(torus_sweep("one", 500, "axes.traffic.load = [0.1]"))
    (tmp_path / "two.toml").write_text(torus_sweep("two", 500, "axes.traffic.load = [0.2]"))
    run_sweep(experiment.load(tmp_path / "one.toml"), out, jobs=1, progress=False)
    record = (out / "experiment.json").read_text()
    with pytest.raises(hpcnetsim.ConfigError, match="holds the results of experiment 'one', not 'two'"):
        run_sweep(experiment.load(tmp_path / "two.toml"), out, jobs=1, progress=False)
    r = cli("sweep", str(tmp_path / "two.toml"), "--out", str(out), "--no-progress")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1, (r.stdout, r.stderr)
    assert f"--out = {out} is invalid: it holds the results of experiment 'one'" in r.stderr
    assert (out / "experiment.json").read_text() == record and len(hpcnetsim.results(out)) == 1
    # The same experiment, changed, runs into its folder: only its new points run.
    (tmp_path / "one.toml").write_text(torus_sweep("one", 500, "axes.traffic.load = [0.1, 0.2]"))
    again = run_sweep(experiment.load(tmp_path / "one.toml"), out, jobs=1, progress=False)
    assert (again.stored_before, again.ran) == (1, 1)


def test_the_quick_variant_into_the_full_variants_folder_is_refused(cli, tmp_path):
    # `--quick --out` into the full sweep's folder replaced its experiment.json: the report then
    # showed the quick points only, the full ones vanished from it (and the store mixed both).
    out = tmp_path / "out"
    run_sweep(experiment.load(SMALL), out, jobs=1, progress=False)
    record = (out / "experiment.json").read_text()
    full = "holds the results of the full variant of experiment 'small'"
    with pytest.raises(hpcnetsim.ConfigError, match=full):
        run_sweep(experiment.load(SMALL, quick=True), out, jobs=1, progress=False)
    r = cli("sweep", str(SMALL), "--quick", "--out", str(out), "--no-progress")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1, (r.stdout, r.stderr)
    assert f"--out = {out} is invalid: it holds the results of the full variant of experiment 'small', not of " \
        "its --quick variant" in r.stderr  # fmt: skip
    assert (out / "experiment.json").read_text() == record
    quick = tmp_path / "quick"
    run_sweep(experiment.load(SMALL, quick=True), quick, jobs=1, progress=False)
    quick_only = "holds the results of the --quick variant of experiment 'small'"
    with pytest.raises(hpcnetsim.ConfigError, match=quick_only):
        run_sweep(experiment.load(SMALL), quick, jobs=1, progress=False)


def test_a_store_folder_that_cannot_be_written_is_refused_before_any_point_runs(cli, tmp_path):
    # A file named store in the output folder was found only when the first finished point
    # was written: that point's simulation was lost, and the header claimed the sweep started.
    out = tmp_path / "out"
    out.mkdir()
    (out / "store").write_text("not a folder")
    (tmp_path / "one.toml").write_text(torus_sweep("one", 500, "axes.traffic.load = [0.1, 0.2]"))
    r = cli("sweep", str(tmp_path / "one.toml"), "--out", str(out), "--no-progress")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1, (r.stdout, r.stderr)
    assert f"--out = {out / 'store'} is invalid: a file, not a folder" in r.stderr, r.stderr
    ran = []
    with pytest.raises(hpcnetsim.ConfigError, match="store is invalid: a file, not a folder"):
        run_sweep(experiment.load(tmp_path / "one.toml"), out, jobs=1, progress=False,
                  on_point=lambda key, error: ran.append(key))  # fmt: skip
    assert ran == [] and not (out / "experiment.json").exists()


def test_results_refuses_a_folder_that_is_no_store(tmp_path):
    # results("results") for a sweep written to results/mine is an error, not an empty frame.
    out = tmp_path / "results" / "mine"
    exp = experiment.load(SMALL)
    run_sweep(exp, out, jobs=1, progress=False)
    assert len(hpcnetsim.results(out)) == len(exp.points) == len(hpcnetsim.results(out / "store"))
    for folder in (tmp_path / "results", tmp_path):
        with pytest.raises(hpcnetsim.ConfigError, match="no result store"):
            hpcnetsim.results(folder)
    # An output folder whose sweep has stored nothing yet is an empty store.
    started = tmp_path / "started"
    started.mkdir()
    (started / "experiment.json").write_text("{}")
    assert hpcnetsim.results(started).empty


def _workers() -> list[int]:
    """Process ids of this process's local sweep workers."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"spawn_main" in cmdline:
            pids.append(int(stat.parent.name))
    return pids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads worker processes from /proc")
def test_a_dead_worker_fails_only_its_own_point(slow_reference):
    # A worker process killed from outside (as the system does when memory runs out) broke the
    # whole pool: every point not yet finished was recorded as failed (BrokenProcessPool). Its
    # points now run again, and the results are those of an undisturbed sweep.
    from hpcnetsim.experiments.executors import run_local
    from hpcnetsim.config import to_json

    file, reference = slow_reference
    exp = experiment.load(file)
    tasks = [(p.key, to_json(p.config)) for p in exp.points]
    got = {}
    killed = None
    for key, result, error in run_local(tasks, jobs=2):
        assert error is None, error
        got[key] = json.loads(result)
        got[key].pop("wall_seconds")
        if killed is None:
            killed = _workers()[0]
            os.kill(killed, signal.SIGKILL)
    assert killed is not None and got == reference


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads worker processes from /proc")
def test_a_point_that_kills_its_worker_is_the_only_failure(slow_reference, tmp_path, monkeypatch):
    # Whenever one chosen point runs, its worker is killed: the point runs again alone, is
    # recorded as failed with how its process ended, and every other point completes.
    import tempfile
    import threading

    from hpcnetsim.config import to_json
    from hpcnetsim.experiments.executors import run_local

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    file, reference = slow_reference
    tasks = [(p.key, to_json(p.config)) for p in experiment.load(file).points]
    target = tasks[3][0]
    done = threading.Event()

    def killer():
        while not done.is_set():
            for note in tmp_path.glob("hpcnetsim-sweep-*/*"):
                try:
                    if note.read_text() == target:
                        os.kill(int(note.name), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            time.sleep(0.005)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        outcomes_ = {key: (result, error) for key, result, error in run_local(tasks, jobs=2)}
    finally:
        done.set()
        thread.join()
    assert set(outcomes_) == set(reference)
    assert outcomes_[target][0] is None and "WorkerDied" in outcomes_[target][1] and "signal 9" in outcomes_[target][1]
    for key, (result, error) in outcomes_.items():
        if key != target:
            assert error is None, error
            got = json.loads(result)
            got.pop("wall_seconds")
            assert got == reference[key]


def test_failures_are_listed_in_point_order_whatever_finishes_first(tmp_path, monkeypatch):
    """A sweep listed its failed points as they finished: the slow first point came second on
    two processes and first on one. The points here finish last first."""
    from hpcnetsim.experiments import executors

    real = executors.run_local

    def last_first(tasks, jobs=None):
        yield from reversed(list(real(tasks, 1)))

    monkeypatch.setattr(executors, "run_local", last_first)
    (tmp_path / "bad.toml").write_text("""
name = "bad"
[base]
topology = "torus:4x4"
switch.vcs = 8
measurement = { warmup_cycles = 200, batches = 1, batch_cycles = 200 }
[[sweep]]
axes.topology = ["torus:5x5|faults:switches=3", "torus:4x4", "torus:4x4|faults:switches=5"]
axes.routing.algorithm = ["table"]
""")
    exp = experiment.load(tmp_path / "bad.toml")
    summary = run_sweep(exp, tmp_path / "out", jobs=2, progress=False)
    keys = [p.key for p in exp.points]
    assert [key for key, _ in summary.failed] == [keys[0], keys[2]], summary.failed
    assert "torus:5x5" in summary.failed[0][1] and "torus:4x4|faults" in summary.failed[1][1]


def test_ctrl_c_while_the_workers_start_prints_no_traceback(tmp_path):
    # A terminal's Ctrl-C reaches the sweep's whole process group. Workers ignore it once set
    # up, but one still importing (the first second of a sweep) raised KeyboardInterrupt and
    # printed a traceback per worker. A sitecustomize holds each worker in that start-up phase.
    hold = tmp_path / "site"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(
        "import os, sys, time\n"
        "if '--multiprocessing-fork' in sys.argv:\n"
        f"    open(os.path.join({str(tmp_path)!r}, 'starting-' + str(os.getpid())), 'w').close()\n"
        "    while True:\n"
        "        time.sleep(0.05)\n"
    )
    file = tmp_path / "slow.toml"
    file.write_text(SLOW)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hold), os.environ.get("PYTHONPATH", "")]))
    args = [sys.executable, "-m", "hpcnetsim", "sweep", str(file), "--out", str(tmp_path / "out"), "--jobs", "2",
            "--no-progress"]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("starting-*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(list(tmp_path.glob("starting-*"))) == 2
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal does
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    kept = "finished points are kept in the store: run again to resume"
    assert err.strip().splitlines() == [f"interrupted ({kept})"]
