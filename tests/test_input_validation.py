"""Every config, experiment and command-line input is as safe as a topology spec: nonsense is
refused with exit status 2 and one line on stderr naming the field or flag, never a traceback,
a hang or a silent default (docs/reliability.md, "Refused inputs")."""

import json
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hpcnetsim
from hpcnetsim import ConfigError
from sweep_helpers import torus_sweep

BASE = """\
topology = "torus:4x4"
seed = 3
[switch]
vcs = 2
[routing]
algorithm = "dor"
[measurement]
warmup_cycles = 500
window_cycles = 200
convergence_tolerance = 0.5
max_convergence_cycles = 4000
batches = 2
batch_cycles = 500
"""
#: A causal workload whose kernel has no root and whose placement is linear: the root and the
#: placement list are checked anyway.
CAUSAL = """\
topology = "crossbar:8"
[routing]
algorithm = "direct"
[workload]
kernel = "bt"
"""
SWEEP = """\
name = "{name}"
[base]
topology = "torus:4x4"
[[sweep]]
name = "a"
axes.traffic.load = [0.1]
"""
LOADS_5000 = ",".join(["0.1"] * 5000)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    (d / "base.toml").write_text(BASE)
    (d / "causal.toml").write_text(CAUSAL)
    (d / "pie.toml").write_text(SWEEP.format(name="pie") + '[[report.figures]]\nkind = "pie"\n')
    (d / "bogus.toml").write_text(SWEEP.format(name="bogus") + "[report]\nbogus = 1\n")
    (d / "dup.toml").write_text(SWEEP.format(name="dup") + '[[sweep]]\nname = "a"\naxes.traffic.load = [0.2]\n')
    (d / "expr.toml").write_text(SWEEP.format(name="expr") + 'axes.switch.vcs = ["=terminals"]\n')
    for name, text in (("published-bad", "foo = 1\n"), ("published-empty", 'paper = "004"\n')):
        (d / name).mkdir()
        (d / name / "004.toml").write_text(text)
    (d / "one.toml").write_text(SWEEP.format(name="one"))
    (d / "kernel3.toml").write_text(CAUSAL.replace('kernel = "bt"', "kernel = 3"))
    (d / "list-table.toml").write_text('topology = "torus:4x4"\ntraffic = ["tornado", 0.9]\n')
    return d


#: (id, command line with {d} for the folder of the files, text the one line must contain).
CASES = [
    ("islip_iterations=0", "run {d}/base.toml --set switch.islip_iterations=0", "switch.islip_iterations"),
    ("burst_packets=1e308", "run {d}/base.toml --set traffic.burst_packets=1e308", "traffic.burst_packets = 1e308"),
    ("hot_nodes=[100000]", "run {d}/base.toml --set traffic.hot_nodes=[100000]", "traffic.hot_nodes"),
    ("hot_nodes twice", "run {d}/base.toml --set traffic.hot_nodes=[3,3]", "traffic.hot_nodes"),
    ("max_payload=1 GB", 'run {d}/base.toml --set nic.max_payload="1 GB"', "nic.max_payload"),
    ("zipf_exponent=1e9", "run {d}/base.toml --set traffic.zipf_exponent=1e9", "traffic.zipf_exponent"),
    ("phit_bytes=1e9", "run {d}/base.toml --set switch.phit_bytes=1000000000", "switch.phit_bytes"),
    ("root=99999", "run {d}/causal.toml --set workload.root=99999", "workload.root"),
    ("placement_list=[99]", "run {d}/causal.toml --set workload.placement_list=[99]", "workload.placement_list"),
    ("placement_list=[0,0,0]", "run {d}/causal.toml --set workload.placement_list=[0,0,0]", "workload.placement_list"),
    ("load=nan", "run {d}/base.toml --set traffic.load=nan", "traffic.load = nan"),
    ("seed=1e400", "run {d}/base.toml --set seed=1e400", "seed = inf"),
    ("loads 5000 times", "run {d}/base.toml --loads " + LOADS_5000, "--loads"),
    ("loads twice", "run {d}/base.toml --loads 0.1,0.2,0.1", "--loads"),
    ("load above 1", "run {d}/base.toml --loads 0.1,1.5", "argument --loads: load = 1.5 is invalid: phits per cycle per node in [0, 1]"),
    ("threads 100000", "run {d}/base.toml --threads 100000", "--threads"),
    ("jobs 1000000", "sweep {d}/dup.toml --jobs 1000000", "--jobs"),
    ("jobs 0", "sweep {d}/dup.toml --jobs 0", "--jobs"),
    ("max-cycles -5", "run {d}/base.toml --max-cycles -5", "--max-cycles"),
    ("max-cycles 1e23", "run {d}/base.toml --max-cycles 1e23", "--max-cycles"),
    ("max-cycles 10^23", "run {d}/base.toml --max-cycles 100000000000000000000000", "--max-cycles"),
    ("max-seconds -1", "run {d}/base.toml --max-seconds -1", "--max-seconds"),
    ("paths -1 3", "topo paths torus:4x4 -1 3", "argument a"),
    ("paths 0 1e20", "topo paths torus:4x4 0 1e20", "argument b"),
    ("paths 0 10^20", "topo paths torus:4x4 0 100000000000000000000", "argument b"),
    ("paths 0 99", "topo paths torus:4x4 0 99", "terminal b"),
    ("route --root -1", "route torus:4x4 --routing updn --root -1", "--root"),
    ("route --root 999 dfsssp", "route torus:4x4 --root 999", "roots"),
    ("route --root 999 updn", "route torus:4x4 --routing updn --root 999", "root"),
    ("route --vcs dfsssp", "route torus:4x4 --routing dfsssp --vcs 2", "vcs = 2"),
    ("route --layering minhop", "route torus:4x4 --routing minhop --layering opensm", "layering = 'opensm'"),
    ("route --vls minhop", "route torus:4x4 --routing minhop --vls 4", "vls = 4"),
    ("route --lmc parx", "route hyperx:4x4,t=2 --routing parx --lmc 1", "lmc = 1"),
    ("route dor --dump", "route torus:4x4 --routing dor --check-deadlock --dump {d}/never.lft", "dump"),
    ("route dor --layering", "route torus:4x4 --routing dor --check-deadlock --layering opensm", "layering"),
    ("route dor --vls", "route torus:4x4 --routing dor --check-deadlock --vls 4", "vls = 4"),
    ("route dor --lmc", "route torus:4x4 --routing dor --check-deadlock --lmc 1", "lmc = 1"),
    ("route dor --root", "route torus:4x4 --routing dor --check-deadlock --root 0", "roots"),
    ("route --load", "route torus:4x4 --load {d}/never.lft --layering opensm", "layering"),
    ("route --load /dev/zero", "route torus:4x4 --load /dev/zero", "/dev/zero: binary data"),
    ("route --demands /dev/urandom", "route torus:4x4 --routing parx --demands /dev/urandom", "/dev/urandom: binary"),
    ("figure kind pie", "sweep {d}/pie.toml", "report.figures[0].kind"),
    ("report bogus key", "sweep {d}/bogus.toml", "bogus"),
    ("two groups one name", "sweep {d}/dup.toml", "sweep name"),
    ("scheduler garbage", "sweep {d}/dup.toml --scheduler garbage", "--scheduler"),
    ("bench-net hops, one terminal per switch", "bench-net hops --quick --topology torus:4x4",
     "no other terminal on terminal 0's switch"),
    ("bench-net hops, one switch", "bench-net hops --quick --topology crossbar:4", "all its terminals on one switch"),
    ("bench-net config and --topology", "bench-net ping {d}/base.toml --topology crossbar:4 --quick",
     "--topology: 'crossbar:4' is not used with a config file"),
    ("bench-net config and --technology", "bench-net ping {d}/base.toml --technology elite --quick",
     "--technology: 'elite' is not used with a config file"),
    ("bench-net --set workload", "bench-net exchange --quick --set workload.algorithm=linear",
     "--set workload.algorithm=linear: bench-net builds its own task programs"),
    ("flow --set workload", "flow ebb torus:4x4 --samples 2 --set workload.kernel=bt",
     "--set workload.kernel=bt: eBB and mpiGraph send their own flows"),
    ("flow --set traffic", "flow mpigraph torus:4x4 --set traffic.pattern=tornado",
     "--set traffic.pattern=tornado: eBB and mpiGraph send their own flows"),
    ("flow spec and --set topology", "flow ebb torus:4x4 --set topology=tree:k=4,n=2",
     "topology is already given by the spec argument"),
    ("flow --seed and --set seed", "flow ebb torus:4x4 --seed 3 --set seed=4", "seed is already given by --seed"),
    ("flow --samples and --set", "flow ebb torus:4x4 --samples 5 --set flow.samples=9",
     "flow.samples is already given by --samples"),
    ("flow --nodes twice", "flow ebb torus:4x4 --nodes 4,8,4", "node count 4 is listed twice"),
    ("flow placement_list=[99] unused", "flow ebb torus:4x4 --samples 2 --set flow.placement_list=[99]",
     "flow.placement_list = 99 is invalid: terminal indices in 0..16"),
    ("flow --paths spread on tables", "flow ebb hyperx:4x4,t=2 --routing table --paths spread --samples 2",
     "flow.paths = 'spread' is invalid: auto, minimal or valiant with routing.algorithm = 'table'"),
    ("flow --paths first on tables", "flow mpigraph hyperx:4x4,t=2 --routing table --paths first",
     "flow.paths = 'first' is invalid: auto, minimal or valiant with routing.algorithm = 'table'"),
    ("flow placement_list=[0,0] unused", "flow mpigraph torus:4x4 --set flow.placement_list=[0,0]",
     "flow.placement_list = terminal 0 listed 2 times is invalid: each terminal at most once"),
    ("validate --data unknown key", "validate --quick --data {d}/published-bad", "004.toml: foo = 1 is invalid"),
    ("message_bytes=-1", "run {d}/causal.toml --set workload.message_bytes=-1",
     "workload.message_bytes: -1 is invalid: a number of bytes (0 or more)"),
    ("message_bytes=64.5", "run {d}/causal.toml --set workload.message_bytes=64.5",
     "workload.message_bytes: 64.5 is invalid: a whole number of bytes"),
    ("kernel=3", "run {d}/causal.toml --set workload.kernel=3", "workload.kernel: expected a name in quotes"),
    ("kernel = 3 in a file", "run {d}/kernel3.toml", "line 5 (in [workload]): expected a name in quotes"),
    # A table written as a list was read field by field: this file ran tornado at 0.9.
    ("table as a list in a file", "run {d}/list-table.toml",
     'config: traffic = ["tornado", 0.9] is invalid: a table ([traffic] with named fields)'),
    ("table as a list in --set", "run {d}/causal.toml --set 'workload=[\"bu\"]'",
     'config: workload = ["bu"] is invalid: a table'),
    ("validate --data no quantities", "validate --quick --data {d}/published-empty", "no [[quantity]] or [[group]]"),
]  # fmt: skip


def run_cli(args, timeout=60):
    return subprocess.run([sys.executable, "-m", "hpcnetsim", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)  # fmt: skip


def assert_refused(r, needle):
    lines = r.stderr.splitlines()
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr
    assert len(lines) == 1, r.stderr
    assert needle in lines[0], lines[0]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_nonsense_is_refused_in_one_line(case, files, tmp_path):
    _, command, needle = case
    args = shlex.split(command.format(d=files))
    if args[0] == "sweep":
        args += ["--out", str(tmp_path / "out"), "--no-progress"]
    r = run_cli(args)
    assert_refused(r, needle)
    assert not (tmp_path / "out").exists(), "a refused sweep wrote its folder"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_binary_input_is_refused_within_a_second(device, tmp_path):
    for command in (["run", device], ["sweep", device, "--out", str(tmp_path / "out")]):
        start = time.monotonic()
        r = run_cli(command, timeout=30)
        took = time.monotonic() - start
        assert_refused(r, device)
        assert "binary" in r.stderr
        # Start-up of the interpreter included; reading stops at the first NUL byte.
        assert took < 3.0, f"{command}: {took:.1f} s"


def test_a_large_text_file_is_refused_without_reading_it_all(tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "w") as f:
        f.write("# " + "x" * (17 << 20) + "\n")
    with pytest.raises(ConfigError, match="larger than 16 MiB"):
        hpcnetsim.load_config(big)


def test_the_api_refuses_the_same_configs():
    base = {"topology": "torus:4x4"}
    for patch, field in [
        ({"switch": {"islip_iterations": 0}}, "switch.islip_iterations"),
        ({"traffic": {"burst_packets": 1e308}}, "traffic.burst_packets"),
        ({"traffic": {"hot_nodes": [16]}}, "traffic.hot_nodes"),
        ({"nic": {"max_payload": 65537}}, "nic.max_payload"),
        ({"nic": {"packet_overhead": "1 MB"}}, "nic.packet_overhead"),
        ({"workload": {"root": 16}}, "workload.root"),
        ({"workload": {"tasks": 4, "root": 4}}, "workload.root"),
        ({"workload": {"first_terminal": 16}}, "workload.first_terminal"),
        ({"workload": {"cpu_factor": 1e300}}, "workload.cpu_factor"),
    ]:
        with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
            hpcnetsim.simulate({**base, **patch})
    for patch, shown in [({"traffic": ["tornado", 0.9]}, "traffic = [\"tornado\", 0.9]"),
                         ({"workload": ["bu"]}, "workload = [\"bu\"]"), ({"stats": []}, "stats = []")]:  # fmt: skip
        with pytest.raises(ConfigError, match=re.escape(f"config: {shown} is invalid: a table")):
            hpcnetsim.execute({**base, **patch}) if "workload" in patch else hpcnetsim.simulate({**base, **patch})
    # In range: accepted (a sweep axis may turn the field on later).
    ok = {**base, "traffic": {"hot_nodes": [15]}, "nic": {"max_payload": "64 KiB"}, "workload": {"root": 15}}
    hpcnetsim.load_config(ok)


def test_the_api_refuses_the_same_load_lists():
    from hpcnetsim import simulation
    from hpcnetsim.cli import arguments

    assert arguments.MAX_LOADS == simulation.MAX_LOADS
    for loads, message in (([0.1] * 5000, "at most 1000"), ([0.1, 0.2, 0.1], "listed twice")):
        with pytest.raises(ConfigError, match=message):
            hpcnetsim.load_curve({"topology": "torus:4x4"}, loads)


def test_the_api_refuses_negative_run_options_as_config_errors():
    # The core takes these as unsigned integers: a negative one was a bare OverflowError.
    cfg = {"topology": "crossbar:2"}
    for run in (hpcnetsim.simulate, hpcnetsim.execute):
        for options, field in (({"threads": -1}, "threads = -1"), ({"max_cycles": -1}, "max_cycles = -1"),
                               ({"max_cycles": 2**64}, "max_cycles"), ({"max_seconds": -1}, "max_seconds = -1")):
            with pytest.raises(ConfigError, match=field):
                run(cfg, **options)


def test_route_refuses_options_its_engine_ignores():
    with pytest.raises(ConfigError, match="roots"):
        hpcnetsim.route("torus:4x4", "minhop", roots=[0])
    with pytest.raises(ConfigError, match="root"):
        hpcnetsim.route("torus:4x4", "updn", roots=[-1])
    with pytest.raises(ConfigError, match="demands"):
        hpcnetsim.route("torus:4x4", "dfsssp", demands=[(0, 1, 10.0)])
    # Lanes and addresses: read only by the engines that lay out lanes, parx always on LMC 2,
    # virtual channels only by an algorithmic routing's check, which has no tables at all.
    for engine, options, field in (
        ("dfsssp", {"vcs": 2}, "vcs"), ("minhop", {"layering": "opensm"}, "layering"),
        ("updn", {"vls": 4}, "vls"), ("parx", {"lmc": 0}, "lmc"),
        ("dor", {"check_deadlock": True, "dump": True}, "dump"),
        ("dor", {"check_deadlock": True, "layering": "placement"}, "layering"),
        ("bubble", {"check_deadlock": True, "vls": 8}, "vls"), ("dor", {"check_deadlock": True, "lmc": 0}, "lmc"),
        ("dor", {"check_deadlock": True, "roots": [0]}, "roots"),
        ("dor", {"check_deadlock": True, "demands": [(0, 1, 1.0)]}, "demands"),
    ):  # fmt: skip
        with pytest.raises(ConfigError, match=f"route: {field}.* is invalid with (engine|routing) '{engine}'"):
            hpcnetsim.route("torus:4x4", engine, **options)
    assert hpcnetsim.route("torus:4x4", "updn", roots=[5])["unreachable_pairs"] == 0
    assert hpcnetsim.route("torus:4x4", "dfsssp", vls=8, layering="opensm")["vls_used"] >= 1
    assert hpcnetsim.route("torus:4x4", "dor", check_deadlock=True, vcs=2)["deadlock_free"]


def test_expression_errors_name_the_users_file_and_line(files):
    r = run_cli(["sweep", str(files / "expr.toml"), "--out", str(files / "never")])
    assert_refused(r, f"{files / 'expr.toml'}:7: sweep 'a'")
    assert "switch.vcs = 16" in r.stderr
    bad_kernel = files / "kernel.toml"
    bad_kernel.write_text(SWEEP.format(name="k") + 'axes.workload.kernel = ["bt", "nope"]\n')
    r = run_cli(["sweep", str(bad_kernel), "--out", str(files / "never")])
    # The core reads each point as TOML written internally: its line numbers are not shown.
    assert_refused(r, f"{bad_kernel}:7: sweep 'a': workload.kernel: unknown variant `nope`")


#: A load curve whose runs would never end without a budget.
ENDLESS = BASE.replace("warmup_cycles = 500", "warmup_cycles = 100000000000")


def test_run_loads_honours_the_budgets_on_every_load(tmp_path):
    cfg = tmp_path / "endless.toml"
    cfg.write_text(ENDLESS)
    start = time.monotonic()
    r = run_cli(["run", str(cfg), "--loads", "0.1,0.2", "--max-seconds", "0.5", "--out", str(tmp_path / "s")])
    took = time.monotonic() - start
    assert r.returncode == 0, r.stderr
    results = json.loads((tmp_path / "s" / "curve.json").read_text())["results"]
    assert [x["status"] for x in results] == ["partial", "partial"]
    assert all("wall-clock budget of 0.5 s" in x["message"] for x in results), results
    assert took < 15, f"{took:.1f} s for two loads of half a second"
    r = run_cli(["run", str(cfg), "--loads", "0.1,0.2", "--max-cycles", "2000", "--check", "--threads", "1",
                 "--out", str(tmp_path / "c")])  # fmt: skip
    assert r.returncode == 0, r.stderr
    results = json.loads((tmp_path / "c" / "curve.json").read_text())["results"]
    assert [x["status"] for x in results] == ["partial", "partial"]
    assert all(x["cycles"] <= 2000 for x in results), [x["cycles"] for x in results]


def test_run_loads_shows_progress_per_load(tmp_path):
    cfg = tmp_path / "endless.toml"
    cfg.write_text(ENDLESS)
    r = run_cli(["run", str(cfg), "--loads", "0.1,0.2", "--max-seconds", "1.2", "--progress"])
    assert r.returncode == 0, r.stderr
    assert "load 0.1 (1 of 2)" in r.stderr and "load 0.2 (2 of 2)" in r.stderr, r.stderr


def test_result_and_curve_files_carry_their_provenance(tmp_path, files):
    from hpcnetsim.provenance import build_id, config_hash, package_build_id

    r = run_cli(["run", str(files / "base.toml"), "--out", str(tmp_path / "one")])
    assert r.returncode == 0, r.stderr
    r = run_cli(["run", str(files / "base.toml"), "--loads", "0.1,0.2", "--out", str(tmp_path / "curve")])
    assert r.returncode == 0, r.stderr
    config = hpcnetsim.load_config(files / "base.toml")
    for path in (tmp_path / "one" / "result.json", tmp_path / "curve" / "curve.json"):
        p = json.loads(path.read_text())["provenance"]
        assert p["hpcnetsim_version"] == hpcnetsim.__version__
        assert p["core_build_id"] == hpcnetsim._core.BUILD_ID
        assert p["package_build_id"] == package_build_id() and p["build_id"] == build_id()
        assert p["build_id"] not in (p["core_build_id"], p["package_build_id"])
        assert p["config_hash"] == config_hash(config) and p["seed"] == 3
    # Equal configs written differently hash alike; another seed does not.
    assert config_hash({**config, "switch": {"vcs": 2}}) == config_hash(config)
    assert config_hash({**config, "seed": 4}) != config_hash(config)


def test_package_build_id_covers_the_python_files(tmp_path):
    import shutil

    from hpcnetsim import provenance

    copy = tmp_path / "pkg"
    shutil.copytree(Path(provenance.__file__).parent, copy, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    first = provenance.sources_hash(copy)
    assert first == provenance.package_build_id()
    (copy / "cli" / "run.py").write_text((copy / "cli" / "run.py").read_text() + "\n# changed\n")
    assert provenance.sources_hash(copy) != first


#: Three points of many seconds each on one worker: one runs, two are queued.
LONG_SWEEP = torus_sweep("long", 50000000, "axes.traffic.load = [0.1, 0.2, 0.3]")


def _children(pid: int) -> set[int]:
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out.update(int(x) for x in text)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_ctrl_c_stops_a_sweep_with_queued_points_within_two_seconds(tmp_path):
    file = tmp_path / "long.toml"
    file.write_text(LONG_SWEEP)
    out = tmp_path / "out"
    args = [sys.executable, "-m", "hpcnetsim", "sweep", str(file), "--out", str(out), "--jobs", "1", "--no-progress"]
    # Ctrl-C's default action in the child even where the suite runs with SIGINT ignored.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        workers: set[int] = set()
        while time.monotonic() < deadline and not workers:
            time.sleep(0.2)
            workers = {c for c in _children(proc.pid) if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()}
        assert workers, "no worker process started"
        time.sleep(1.0)  # the worker is inside the first point
        assert proc.poll() is None
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - start
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert took < 2.0, f"took {took:.2f} s to stop"
    assert "Traceback" not in err and "interrupted" in err, err
    time.sleep(0.2)
    assert not [w for w in workers if _alive(w)], "a worker outlived the sweep"
    assert len(hpcnetsim.results(out)) == 0 if (out / "store").is_dir() else True


#: A config whose error only running finds: the kernel's virtual mesh does not hold its tasks.
BAD_MESH = 'topology = "tree:k=4,kp=4,n=3"\n[workload]\nkernel = "2w"\ntasks = 64\nmesh = [8, 9]\n'


def test_checks_made_while_running_name_the_file_too(tmp_path):
    """A kernel's task count is checked when the workload is built, after the file was read:
    the line still names the file, the field, the value and what is allowed."""
    cfg = tmp_path / "mesh.toml"
    cfg.write_text(BAD_MESH)
    r = run_cli(["run", str(cfg)])
    assert_refused(r, f"{cfg}: config: workload.mesh = [8, 9] is invalid: positive sides")


def test_the_python_api_names_the_file_in_checks_made_while_running(tmp_path):
    """`hpcnetsim.execute(path)` says which file as `hpcnetsim run` does; a dict has no file."""
    cfg = tmp_path / "mesh.toml"
    cfg.write_text(BAD_MESH)
    with pytest.raises(hpcnetsim.ConfigError) as err:
        hpcnetsim.execute(cfg)
    assert str(err.value) == f"{cfg}: config: workload.mesh = [8, 9] is invalid: positive sides whose product is the task count 64"
    with pytest.raises(hpcnetsim.ConfigError) as err:
        hpcnetsim.execute(hpcnetsim.load_config(cfg))
    assert str(err.value).startswith("config: workload.mesh = [8, 9] is invalid")


@pytest.mark.parametrize("command", ["run {d}/base.toml", "run {d}/base.toml --loads 0.1,0.2",
                                     "flow ebb torus:4x4 --samples 10", "sweep {d}/one.toml --no-progress",
                                     "validate --quick --paper 002", "topo compare torus:4x4",
                                     "study run hyperx --quick --no-progress", "study run quadrics --quick",
                                     "study run procurement --quick --no-progress",
                                     "study run thin-trees --quick --no-progress"])  # fmt: skip
@pytest.mark.parametrize("out", ["file", "file/sub"])
def test_an_unusable_out_folder_is_refused_before_running(command, out, files, tmp_path):
    (tmp_path / "file").write_text("x")
    args = shlex.split(command.format(d=files)) + ["--out", str(tmp_path / out)]
    r = run_cli(args)
    assert_refused(r, f"--out = {tmp_path / out} is invalid")
    # Nothing ran, nor printed the header of a run: the refusal is all there is.
    assert r.stdout == "", f"ran before refusing --out: {r.stdout[:300]}"
    assert (tmp_path / "file").read_text() == "x"


@pytest.mark.parametrize("text, needle", [("{bad", "not JSON"), ("{}", "name, title, points missing"),
                                          ("[]", "a JSON list, not an object"),
                                          ('{"name": "a", "title": "A", "points": [7]}', "points[0]"),
                                          ('{"name": "a", "title": "A", "points": [{"key": "k", "group": 0, '
                                           '"config": {}, "values": {}}]}', "points[0] has no config with a "
                                           "topology")])  # fmt: skip
def test_a_damaged_experiment_record_is_one_line(text, needle, tmp_path):
    (tmp_path / "experiment.json").write_text(text)
    assert_refused(run_cli(["report", str(tmp_path)]), f"{tmp_path / 'experiment.json'}: {needle}")


_POINT = {"key": "k", "group": "g", "config": {"topology": "torus:4x4"}, "values": {}}


@pytest.mark.parametrize("field, value, needle", [
    ("name", 5, "name = 5 is invalid: text"), ("title", None, "title = null is invalid: text"),
    ("description", [], "description = [] is invalid: text"), ("hpcnetsim_version", {}, "hpcnetsim_version"),
    ("base_toml", 5, "base_toml = 5"), ("source_text", 5, "source_text = 5"),
    ("repetitions", "x", 'repetitions = "x" is invalid: an integer of at least 1'),
    ("repetitions", None, "repetitions = null"), ("report", "x", 'report = "x" is invalid: a table'),
    ("quick", "yes", 'quick = "yes" is invalid: true or false'),
    ("group", [], "points[0].group = [] is invalid: text"), ("key", {}, "points[0].key = {} is invalid: text"),
])  # fmt: skip
def test_a_record_field_of_the_wrong_type_is_one_line(field, value, needle, tmp_path):
    # An experiment.json edited by hand (or by another program) with a field of the wrong
    # type ended `hpcnetsim report` with an AttributeError or TypeError traceback.
    point = dict(_POINT)
    record = {"name": "a", "title": "A", "points": [point]}
    (point if field in ("group", "key") else record)[field] = value
    (tmp_path / "experiment.json").write_text(json.dumps(record))
    assert_refused(run_cli(["report", str(tmp_path)]), f"{tmp_path / 'experiment.json'}: {needle}")


def test_a_record_without_points_has_a_report_that_says_so(tmp_path):
    # A record whose points list is empty (written by hand, or cut short) was a KeyError traceback.
    (tmp_path / "experiment.json").write_text('{"name": "one", "title": "One", "points": []}')
    r = run_cli(["report", str(tmp_path)])
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "points: none;" in (tmp_path / "report.html").read_text()


@pytest.mark.parametrize("command", ["report", "sweep"])
def test_a_damaged_store_file_is_one_line(command, files, tmp_path):
    (tmp_path / "experiment.json").write_text('{"name": "one", "title": "One", "points": []}')
    (tmp_path / "store").mkdir()
    part = tmp_path / "store" / "part-00000000.parquet"
    part.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(500)))
    args = ["report", str(tmp_path)] if command == "report" else \
        ["sweep", str(files / "one.toml"), "--out", str(tmp_path), "--no-progress"]  # fmt: skip
    r = run_cli(args)
    assert_refused(r, f"{part}: not a readable Parquet file")
    # The sweep's header line ("one: 1 points, output ...") came before the refusal.
    assert r.stdout == "", r.stdout
    assert json.loads((tmp_path / "experiment.json").read_text())["points"] == []


def test_too_few_vcs_for_a_routing_name_the_vcs_the_config_wrote(tmp_path):
    """With traffic classes the routing judges one class's VCs: the refusal names the
    `switch.vcs` written and the share per class; a routing that needs more VCs than a
    switch can have says so instead of asking for the impossible."""
    cfg = tmp_path / "classes.toml"
    cfg.write_text('topology = "dragonfly:a=4,p=2,h=2"\n[switch]\nvcs = 4\ntraffic_classes = 2\n'
                   '[routing]\nalgorithm = "dragonfly-ugal"\n')  # fmt: skip
    r = run_cli(["run", str(cfg)])
    per_class = "2 VCs per traffic class (switch.traffic_classes = 2) are too few"
    assert_refused(r, f"switch.vcs = 4 is invalid: {per_class}")
    assert "at least 3 for non-minimal dragonfly routing" in r.stderr
    # One VC a class is said in the singular ("1 VCs per traffic class" before).
    with pytest.raises(ConfigError, match=r"switch.vcs = 4 is invalid: 1 VC per traffic class \(switch.traffic_classes = 4\) is too few"):
        hpcnetsim.simulate({"topology": "torus:4x4", "switch": {"vcs": 4, "traffic_classes": 4}, "routing": {"algorithm": "dor"}})
    ring = {"topology": "jellyfish:n=20,k=2,p=1", "switch": {"vcs": 8}}
    beyond = 'at least 10 .*more than the 8 a switch has: use routing.algorithm = "table"'
    with pytest.raises(ConfigError, match=beyond):
        hpcnetsim.simulate({**ring, "routing": {"algorithm": "graph-minimal"}})


@pytest.mark.parametrize(
    "spec,routing",
    [("tree:k=2,n=2", "dor"), ("torus:4x4", "tree-adaptive"), ("mesh:3x3", "direct"), ("hyperx:3x3", "dor"),
     ("crossbar:4", "dor"), ("twin-torus:2x2x2", "dor"), ("dragonfly:a=2,p=1,h=1", "dor"), ("slimfly:q=3", "dor")],
)  # fmt: skip
def test_a_routing_the_family_cannot_take_lists_table_routing_among_those_it_can(spec, routing):
    """Table routing takes any network: the list of what is allowed names it on every family."""
    allowed = r"routing.algorithm = .* is invalid: for [\w-]+ topologies one of: auto, .*, table$"
    with pytest.raises(ConfigError, match=allowed):
        hpcnetsim.simulate({"topology": spec, "switch": {"vcs": 4}, "routing": {"algorithm": routing}})


@pytest.mark.parametrize("command", ["report", "sweep"])
def test_a_store_file_damaged_inside_is_one_line(command, files, tmp_path):
    # Parquet's magic bytes intact at both ends, its metadata overwritten (a disk error): pyarrow
    # raises OSError ("Couldn't deserialize thrift"), which printed ": Couldn't ..." on two lines
    # without the file's name, and was an OSError from hpcnetsim.results.
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "experiment.json").write_text('{"name": "one", "title": "One", "points": []}')
    (tmp_path / "store").mkdir()
    part = tmp_path / "store" / "part-00000000.parquet"
    pq.write_table(pa.table({"key": [f"k{i}" for i in range(100)], "state": ["done"] * 100}), part)
    data = bytearray(part.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    junk = random.Random(2)
    for i in range(len(data) - 8 - footer, len(data) - 8):
        data[i] = junk.randrange(256)
    part.write_bytes(bytes(data))
    args = ["report", str(tmp_path)] if command == "report" else \
        ["sweep", str(files / "one.toml"), "--out", str(tmp_path), "--no-progress"]  # fmt: skip
    r = run_cli(args)
    assert_refused(r, f"{part}: not a readable Parquet file")
    # The sweep's header line ("one: 1 points, output ...") came before the refusal.
    assert r.stdout == "", r.stdout
    assert json.loads((tmp_path / "experiment.json").read_text())["points"] == []
    with pytest.raises(hpcnetsim.ConfigError, match="not a readable Parquet file"):
        hpcnetsim.results(tmp_path)
