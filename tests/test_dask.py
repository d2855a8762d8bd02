"""The Dask executor on a real LocalCluster (two worker processes on loopback)."""

import os
import signal

import pytest
from hpcnetsim.experiments import experiment
from hpcnetsim.experiments.sweep import run_sweep
from sweep_helpers import SLOW, outcomes

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded worker processes (with nannies that restart them)."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
        silence_logs=50,
    ) as c:  # fmt: skip
        yield c


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    """The slow experiment and its results on the local executor."""
    folder = tmp_path_factory.mktemp("dask")
    (folder / "slow.toml").write_text(SLOW)
    exp = experiment.load(folder / "slow.toml")
    run_sweep(exp, folder / "local", jobs=2, progress=False)
    return exp, outcomes(folder / "local")


def test_dask_results_equal_the_local_executor_bit_for_bit(cluster, slow, tmp_path):
    exp, local = slow
    summary = run_sweep(exp, tmp_path, scheduler=cluster.scheduler_address, progress=False)
    assert (summary.ran, summary.failed) == (8, [])
    assert outcomes(tmp_path) == local


def test_killing_a_worker_mid_sweep_loses_no_finished_point(cluster, slow, tmp_path):
    exp, local = slow
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)
    pids = list(client.run(os.getpid).values())
    client.close()
    killed = []

    def kill_once(key, error):
        if not killed:  # after the first finished point, while others run
            os.kill(pids[0], signal.SIGKILL)
            killed.append(key)

    first = run_sweep(exp, tmp_path, scheduler=cluster.scheduler_address, progress=False, on_point=kill_once)
    assert killed and first.ran == 8
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)  # the worker really died while the sweep went on
    kept = {k: v for k, v in outcomes_or_failed(tmp_path).items() if v is not None}
    assert killed[0] in kept and all(local[k] == v for k, v in kept.items())
    # The re-run computes only what did not finish (the nanny restarts the worker, so usually nothing).
    again = run_sweep(exp, tmp_path, scheduler=cluster.scheduler_address, progress=False)
    assert (again.stored_before, again.ran, again.failed) == (len(kept), 8 - len(kept), [])
    assert outcomes(tmp_path) == local


def test_a_points_files_are_found_by_workers_started_in_another_folder(cluster, tmp_path, monkeypatch):
    """An experiment's fabric file and table dump, named relative to the experiment file and
    read by a sweep started from another folder than the workers': every point runs on Dask,
    with the local executor's results."""
    from hpcnetsim.cli import main

    sub = tmp_path / "sub"
    sub.mkdir()
    assert main(["topo", "export", "tree:k=2,n=2", "--format", "ibnet", "-o", str(sub / "fab.ibnet")]) == 0
    assert main(["route", "tree:k=2,n=2", "--routing", "minhop", "--dump", str(sub / "lft.txt")]) == 0
    (sub / "e.toml").write_text(
        'name = "files"\n[base]\ntopology = "ibnet:fab.ibnet"\nrouting.algorithm = "table"\n'
        'routing.tables = "lft.txt"\n[base.measurement]\nwarmup_cycles = 100\nbatch_cycles = 100\nbatches = 1\n'
        "[[sweep]]\naxes.traffic.load = [0.1, 0.2]\n"
    )  # fmt: skip
    monkeypatch.chdir(tmp_path)  # the workers run in the folder the cluster was started from
    exp = experiment.load("sub/e.toml")
    summary = run_sweep(exp, tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False)
    assert (summary.ran, summary.failed) == (2, [])
    run_sweep(exp, tmp_path / "local", jobs=1, progress=False)
    assert outcomes(tmp_path / "dask") == outcomes(tmp_path / "local")


def outcomes_or_failed(out):
    """Stored results by key; None for points recorded as failed (e.g. on the killed worker)."""
    import json

    import hpcnetsim

    df = hpcnetsim.results(out)
    res = {}
    for key, state, text in zip(df["key"], df["state"], df["result_json"]):
        res[key] = None
        if state == "done":
            res[key] = json.loads(text)
            res[key].pop("wall_seconds")
    return res


def test_an_unreachable_scheduler_is_one_line_exit_2(cli, tmp_path, monkeypatch):
    f = tmp_path / "s.toml"
    f.write_text(SLOW)
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "1s")
    r = cli(
        "sweep", str(f), "--out", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:9", "--no-progress"
    )
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--scheduler = 'tcp://127.0.0.1:9' is invalid" in r.stderr
    assert r.stdout == "", "no header line announcing a sweep that never starts"
    assert not (tmp_path / "o" / "store").exists()


def test_jobs_beside_a_scheduler_is_refused(cli, tmp_path):
    """--jobs sets local processes; with --scheduler the workers run the points, so the flag
    would be ignored: one line, exit 2, before anything is written."""
    f = tmp_path / "s.toml"
    f.write_text(SLOW)
    r = cli("sweep", str(f), "--out", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:9", "--jobs", "2")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--jobs = 2 is invalid: not with --scheduler" in r.stderr
    assert not (tmp_path / "o").exists()



def test_no_memory_check_reaches_the_dask_workers(cluster, tmp_path, monkeypatch):
    """``--no-memory-check`` is an environment variable local workers inherit; Dask workers
    keep their own environment, so the sweep hands it to each point. A fabric file padded with
    comments is estimated at four bytes of memory per byte of text before it is read: under an
    address-space limit set on the workers, between that estimate and what reading it takes,
    its point is refused with the check on and runs with it off."""
    import resource

    fabric = tmp_path / "padded.edges"
    pad = ("#" * 99 + "\n") * 400_000  # 40 MB of comments: a 160 MB estimate
    fabric.write_text("link a b\nterminals a 2\nterminals b 2\n" + pad)
    config = tmp_path / "e.toml"
    config.write_text(
        f'name = "unchecked"\n[base]\ntopology = "edges:{fabric}"\n'
        "[base.measurement]\nwarmup_cycles = 100\nbatch_cycles = 100\nbatches = 1\n"
        "[[sweep]]\naxes.traffic.load = [0.1]\n"
    )  # fmt: skip
    exp = experiment.load(config)
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)

    def tighten():
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
        old = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (vm + 120_000_000, old[1]))  # room for 40 MB, not 160
        return old

    def loosen(old):
        resource.setrlimit(resource.RLIMIT_AS, tuple(old))

    olds = client.run(tighten)
    try:
        monkeypatch.delenv("HPCNETSIM_NO_MEMORY_CHECK", raising=False)
        checked = run_sweep(exp, tmp_path / "checked", scheduler=cluster.scheduler_address, progress=False)
        monkeypatch.setenv("HPCNETSIM_NO_MEMORY_CHECK", "1")
        unchecked = run_sweep(exp, tmp_path / "unchecked", scheduler=cluster.scheduler_address, progress=False)
    finally:
        for worker, old in olds.items():
            client.run(loosen, old, workers=[worker])
        client.close()
    assert checked.ran == 1 and len(checked.failed) == 1, checked
    assert "memory" in str(checked.failed[0]) and "file = 40000" in str(checked.failed[0])
    assert (unchecked.ran, unchecked.failed) == (1, [])
