"""benchmarks/cache_profile.py: a packet-hop's cache misses by source file and line, from two
cachegrind runs of the warm-up. Valgrind itself is not run here (it takes minutes on the networks
worth profiling): a stand-in on PATH writes cachegrind files whose counts grow linearly with the
warm-up, so the per-hop figures the script must find are known exactly."""

import importlib.util
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks/cache_profile.py"
_spec = importlib.util.spec_from_file_location("cache_profile", SCRIPT)
cache_profile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cache_profile)

BUFFERS = ROOT / "crates/hpcnetsim-core/src/switch/buffers.rs"

#: A stand-in for valgrind: per warm-up cycle w, the FIFO line costs 7 instructions, one L1d
#: read miss and 0.75 L2 misses (0.5 read, 0.25 write); a start-up line costs the same in every
#: run; the run makes 2 packet-hops per cycle. So per packet-hop: 3.5 instructions, 0.5 L1d
#: misses, 0.375 L2 misses, all on the FIFO line.
FAKE_VALGRIND = textwrap.dedent(
    f"""\
    #!{sys.executable}
    import os, sys, tomllib
    args = sys.argv[1:]
    if os.environ.get("HPCNETSIM_COUNTERS") != "1" or os.environ.get("HPCNETSIM_THREADS") != "1":
        sys.exit("counters mode on one thread expected")
    assert "--tool=cachegrind" in args and "--cache-sim=yes" in args, args
    with open(os.environ["FAKE_VALGRIND_LOG"], "a") as log:
        log.write(" ".join(a for a in args if a.startswith("--D1") or a.startswith("--LL")) + "\\n")
    out = next(a.split("=", 1)[1] for a in args if a.startswith("--cachegrind-out-file="))
    with open(args[-1], "rb") as f:
        w = tomllib.load(f)["measurement"]["warmup_cycles"]
    with open(out, "w") as f:
        f.write("desc: fake\\ncmd: simulate\\nevents: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\\n")
        f.write("fl=./csu/../csu/libc-start.c\\nfn=__libc_start_main\\n128 500 0 0 9 4 3 0 0 0\\n")
        f.write("fl={BUFFERS}\\nfn=hpcnetsim_core::switch::buffers::Fifos<D>::push\\n")
        f.write(f"204 {{7 * w}} 0 0 {{w}} {{w}} {{w // 2}} {{w}} 0 {{w // 4}}\\n")
        f.write("204 1 0 0 0 0 0 0 0 0\\n")
    print("Counters {{ generated: 9, packet_hops: %d, phit_hops: 0 }}" % (2 * w))
    """
)


@pytest.fixture
def fake_valgrind(tmp_path):
    """A directory with the stand-in valgrind and a stand-in binary; returns (env, binary, log)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    valgrind = bin_dir / "valgrind"
    valgrind.write_text(FAKE_VALGRIND)
    valgrind.chmod(0o755)
    binary = tmp_path / "simulate"
    binary.write_text("not run: the stand-in valgrind reads the config itself\n")
    log = tmp_path / "valgrind.log"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_VALGRIND_LOG": str(log)}
    return env, binary, log


def run(args, env=None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env or os.environ, timeout=120
    )


def test_the_difference_of_two_warm_ups_per_packet_hop_lands_on_its_source_line(fake_valgrind, tmp_path):
    env, binary, log = fake_valgrind
    out = tmp_path / "lines.json"
    r = run(["--spec", "torus:8x8", "--load", "0.1", "--warmups", "400,800", "--binary", str(binary),
             "--json", str(out), "--l2", "1048576,16,64"], env)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "packet-hops between the two warm-ups: 800" in r.stdout
    assert "per packet-hop: 4 instructions, 0.50 L1d misses, 0.38 L2 misses" in r.stdout
    # The start-up line is the same in both runs and cancels; the FIFO file carries it all.
    files = [line for line in r.stdout.splitlines() if line.endswith("switch/buffers.rs")]
    assert files and files[0].split()[:3] == ["0.38", "0.50", "4"], files
    assert "C library" not in r.stdout
    # By function: the FIFO push, shown without its module path and generic arguments.
    functions = [line for line in r.stdout.splitlines() if line.endswith("  Fifos::push")]
    assert [f.split()[:3] for f in functions] == [["0.38", "0.50", "4"]], r.stdout
    # The top lines quote the source line from the file.
    source = BUFFERS.read_text().splitlines()[203].strip()[:70]
    assert f"switch/buffers.rs:204 (Fifos::push): {source}" in r.stdout
    data = __import__("json").loads(out.read_text())
    assert data["packet_hops"] == 800
    [line] = data["lines"]
    assert (line["file"], line["line"]) == ("crates/hpcnetsim-core/src/switch/buffers.rs", 204)
    assert line["instructions"] == pytest.approx(3.5)
    assert line["l1d_misses"] == pytest.approx(0.5)
    assert line["l2_misses"] == pytest.approx(0.375)
    # Both runs simulated the caches asked for.
    assert log.read_text().splitlines() == ["--D1=49152,12,64 --LL=1048576,16,64"] * 2


def test_a_config_file_runs_with_the_warm_ups_given(fake_valgrind, tmp_path):
    env, binary, _ = fake_valgrind
    cfg = tmp_path / "my.toml"
    cfg.write_text('topology = "torus:4x4"\n[measurement]\nwarmup_cycles = 99999\n')
    keep = tmp_path / "keep"
    r = run(["--config", str(cfg), "--warmups", "10,30", "--binary", str(binary), "--keep", str(keep)], env)
    assert r.returncode == 0, r.stderr
    assert "packet-hops between the two warm-ups: 40" in r.stdout
    kept = tomllib.loads((keep / "warmup-30.toml").read_text())
    assert kept == {"topology": "torus:4x4", "measurement": {"warmup_cycles": 30}}
    assert (keep / "cachegrind-10.out").is_file()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--warmups", "500,300"], "--warmups: '500,300' must be two cycle counts with 0 < A < B"),
        (["--warmups", "300"], "--warmups: '300' is not two cycle counts A,B"),
        (["--l2", "2MiB"], "--l2: '2MiB' is not SIZE,WAYS,LINE"),
        (["--l1", "0,12,64"], "--l1: '0,12,64' is not SIZE,WAYS,LINE"),
        (["--top", "-1"], "--top: -1 is negative"),
        (["--spec", "tree:k=4,kp=4,n=9"], "--spec: 'tree:k=4,kp=4,n=9' is not a row of bench --scale"),
        (["--spec", "torus:8x8", "--load", "0.3"], "--load: 0.3 is not a load of bench --scale's row torus:8x8"),
        (["--config", "/nonexistent/x.toml"], "--config: cannot read '/nonexistent/x.toml'"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(fake_valgrind, args, message):
    env, binary, _ = fake_valgrind
    r = run([*args, "--binary", str(binary)], env)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.startswith(f"cache_profile: {message}"), r.stderr
    assert r.stderr.count("\n") == 1


def test_bad_toml_and_a_missing_valgrind_are_named(tmp_path, fake_valgrind):
    env, binary, _ = fake_valgrind
    bad = tmp_path / "bad.toml"
    bad.write_text("topology = \n")
    r = run(["--config", str(bad), "--binary", str(binary)], env)
    assert (r.returncode, r.stderr.split(":")[:2]) == (2, ["cache_profile", " --config"]), r.stderr
    assert "is not valid TOML" in r.stderr
    no_valgrind = {**env, "PATH": str(Path(sys.executable).parent)}
    r = run(["--binary", str(binary)], no_valgrind)
    assert r.returncode == 2
    assert r.stderr.startswith("cache_profile: valgrind: not found on PATH"), r.stderr


def test_a_failed_cachegrind_run_names_its_log(fake_valgrind, tmp_path):
    env, binary, _ = fake_valgrind
    # The stand-in refuses to run on more than one thread: the script sets one whatever the caller's.
    r = run(["--spec", "torus:8x8", "--load", "0.1", "--binary", str(binary)], {**env, "HPCNETSIM_THREADS": "2"})
    assert r.returncode == 0, r.stderr
    # A cachegrind run that fails is named with its log, in one line.
    failing = f"#!{sys.executable}\nimport sys\nprint('==1== the error', file=sys.stderr)\nsys.exit(3)\n"
    (Path(env["PATH"].split(os.pathsep)[0]) / "valgrind").write_text(failing)
    r = run(["--spec", "torus:8x8", "--load", "0.1", "--binary", str(binary)], env)
    assert r.returncode == 1
    expected = "cache_profile: cachegrind of the 300-cycle warm-up failed (exit code 3): ==1== the error"
    assert r.stderr.startswith(expected), r.stderr
    assert r.stderr.count("\n") == 1


def test_reading_cachegrind_sums_repeated_lines_and_names_sources():
    assert cache_profile.source_name(str(BUFFERS)) == "crates/hpcnetsim-core/src/switch/buffers.rs"
    assert cache_profile.source_name("/rustc/abc/library/core/src/ptr/mod.rs") == "Rust library core/src/ptr/mod.rs"
    assert (
        cache_profile.source_name("/home/u/.cargo/registry/src/index.crates.io-1/rand-0.9.5/src/rng.rs")
        == "crate rand-0.9.5"
    )
    assert cache_profile.function_name("hpcnetsim_core::switch::buffers::Fifos<D>::push") == "Fifos::push"
    with pytest.raises(ValueError, match="no packet_hops"):
        cache_profile.packet_hops("Counters { generated: 1 }")
    short = cache_profile.Profile({("f", "g", 1): {"Ir": 10, "DLmr": 1}})
    long = cache_profile.Profile({("f", "g", 1): {"Ir": 30, "DLmr": 5, "DLmw": 1}, ("f", "h", 2): {"Ir": 4}})
    lines = cache_profile.per_hop(short, long, 2)
    assert lines[("f", "g", 1)] == {"instructions": 10.0, "l1d_misses": 0.0, "l2_misses": 2.5}
    assert lines[("f", "h", 2)]["instructions"] == 2.0
    with pytest.raises(ValueError, match="0 more packet-hops"):
        cache_profile.per_hop(short, long, 0)
