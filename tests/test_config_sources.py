"""Presets as layers: `hpcnetsim config show` tells where every value comes from, and an
override of `technology` or `switch.preset` on a file fills in the fields the file leaves out,
as if written in the file."""

import json
import subprocess
import sys

import hpcnetsim
from hpcnetsim.config import apply_overrides, load_layer, resolve, sources


def _by_field(rows):
    return {r["field"]: (r["value"], r["source"]) for r in rows}


def test_every_value_names_its_layer(tmp_path):
    path = tmp_path / "q.toml"
    path.write_text('topology = "tree:k=4,n=2"\ntechnology = "qsnet"\n[switch]\nvcs = 2\nqueue_packets = 3\n')
    got = _by_field(sources(load_layer(path)))
    assert got["switch.queue_packets"] == (3, "config")
    assert got["switch.preset"] == ("elite", "technology qsnet")
    assert got["switch.buffer_flits"] == (64, "switch preset elite")
    assert got["link.bandwidth"] == ("400 MB/s", "technology qsnet")
    assert got["seed"] == (1, "default")
    assert got["topology"] == ("tree:k=4,n=2", "config")


def test_link_times_become_cycles_from_the_clock(tmp_path):
    path = tmp_path / "l.toml"
    path.write_text('topology = "torus:4x4"\n[link]\ncycle = "5 ns"\nwire_latency = "15 ns"\n')
    got = _by_field(sources(load_layer(path)))
    assert got["switch.link_delay_cycles"] == (3, "[link] clock")
    assert got["link.wire_latency"] == ("15 ns", "config")
    # An optional field the clock sets was "default" (it is absent, not different, without it).
    path.write_text('topology = "torus:4x4"\n[link]\ncycle = "5 ns"\nnic_wire_latency = "10 ns"\n')
    got = _by_field(sources(load_layer(path)))
    assert got["switch.nic_link_delay_cycles"] == (2, "[link] clock")
    assert got["link.cycle"] == ("5 ns", "config") and got["switch.credit_delay_cycles"] == (0, "default")


def test_a_technology_override_fills_what_the_file_leaves_out(tmp_path):
    plain = tmp_path / "plain.toml"
    plain.write_text('topology = "tree:k=4,n=2"\n[switch]\nvcs = 2\n')
    written = tmp_path / "written.toml"
    written.write_text('topology = "tree:k=4,n=2"\ntechnology = "qsnet"\n[switch]\nvcs = 2\n')
    overridden = resolve(apply_overrides(load_layer(plain), ["technology=qsnet"]))
    assert overridden == hpcnetsim.load_config(written)
    assert overridden["switch"]["switching"] == "wormhole" and overridden["nic"]["enabled"] is True
    back = resolve(apply_overrides(load_layer(written), ["switch.preset=insee"]))
    assert "switching" not in back["switch"] and back["switch"]["vcs"] == 2


def test_config_show_from_the_command_line(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('topology = "crossbar:4"\n[switch]\npreset = "output-queued"\n')
    cmd = [sys.executable, "-m", "hpcnetsim", "config", "show", str(path), "--set", "switch.vcs=2", "--json"]
    rows = _by_field(json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout))
    assert rows["switch.speedup"] == (2, "switch preset output-queued")
    assert rows["switch.vcs"] == (2, "config")
    text = subprocess.run(cmd[:-1], capture_output=True, text=True, check=True).stdout
    assert "switch.speedup = 2" in text and "# switch preset output-queued" in text
    bad = tmp_path / "bad.toml"
    bad.write_text('topology = "crossbar:4"\n[switch]\npreset = "nope"\n')
    p = subprocess.run([sys.executable, "-m", "hpcnetsim", "config", "show", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and "preset = 'nope'" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_config_show_names_the_file_when_an_override_is_refused(tmp_path):
    # As `hpcnetsim run` does: the bad value came with the file's config.
    path = tmp_path / "c.toml"
    path.write_text('topology = "crossbar:4"\n')
    for command in ("config", "run"):
        args = ["show", str(path)] if command == "config" else [str(path)]
        p = subprocess.run([sys.executable, "-m", "hpcnetsim", command, *args, "--set", "switch.vcs=99"],
                           capture_output=True, text=True)  # fmt: skip
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert p.stderr.startswith(f"error: {path}: config: switch.vcs = 99 is invalid"), (command, p.stderr)


def test_an_override_completes_a_file_that_is_not_valid_alone(tmp_path, capsys):
    """`--set` overrides a value of the file: a routing that needs more VCs than the file
    gives it is run with the VCs the override gives, not refused on the file's value."""
    from hpcnetsim.cli import main

    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "par.toml"
    path.write_text('topology = "dragonfly:a=2,p=1,h=1"\nseed = 1\n[switch]\nvcs = 3\n[routing]\n'
                    'algorithm = "dragonfly-par"\n[traffic]\nload = 0.2\n'
                    '[measurement]\nwarmup_cycles = 100\nbatches = 1\nbatch_cycles = 100\n')  # fmt: skip
    layer = apply_overrides(load_layer(path, ["switch.vcs=4"]), ["switch.vcs=4"])
    assert resolve(layer)["switch"]["vcs"] == 4
    assert main(["run", str(path), "--set", "switch.vcs=4"]) == 0
    assert "accepted load" in capsys.readouterr().out
    # Overrides that do not repair the file: the error of the config that would run, naming the file.
    for vcs in (3, 2):
        assert main(["run", str(path), "--set", f"switch.vcs={vcs}", "traffic.load=0.3"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {path}: config: switch.vcs = {vcs} is invalid: at least 4 for dragonfly-par"), err
    # Files the config names stay relative to its folder when an override completes it.
    (tmp_path / "sub" / "lft.txt").write_text(hpcnetsim.route("torus:4x4", "minhop", dump=True)["dump"])
    tables = tmp_path / "sub" / "t.toml"
    tables.write_text('topology = "torus:4x4"\n[switch]\nvcs = 1\nqueue_packets = 0\n[routing]\n'
                      'algorithm = "table"\ntables = "lft.txt"\n')  # fmt: skip
    fixed = load_layer(tables, ["switch.queue_packets=4"])
    assert fixed["routing"]["tables"] == str(tmp_path / "sub" / "lft.txt")


def test_config_show_lists_every_field_of_every_job(tmp_path):
    # [[workload.jobs]] tables were one line of JSON, and every other line was padded to its
    # width (about 1000 columns); the top level's kernel fields, which jobs do not read, were
    # listed as if they ran.
    path = tmp_path / "j.toml"
    path.write_text(
        'topology = "torus:4x4"\n[workload]\nstall_cycles = 5000\n'
        '[[workload.jobs]]\nkernel = "alltoall"\ntasks = 8\n'
        '[[workload.jobs]]\nkernel = "allgather"\ntasks = 8\nplacement = "random"\n'
    )
    rows = _by_field(sources(apply_overrides(load_layer(path), ["workload.jobs[1].tasks=4"])))
    assert rows["workload.jobs[0].kernel"] == ("alltoall", "config")
    assert rows["workload.jobs[1].tasks"] == (4, "config")
    assert rows["workload.jobs[1].placement"] == ("random", "config")
    assert rows["workload.jobs[0].message_bytes"] == (640, "default")
    assert rows["workload.stall_cycles"] == (5000, "config")
    assert "workload.jobs" not in rows and "workload.kernel" not in rows and "workload.tasks" not in rows
    cmd = [sys.executable, "-m", "hpcnetsim", "config", "show", str(path)]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    lines = text.splitlines()
    assert 'workload.jobs[1].kernel = "allgather"' in text
    assert max(len(line) for line in lines) < 100, max(lines, key=len)
    # A long list is one long line; the others keep their own width.
    long_list = f"workload.jobs[0].placement_list={list(range(0, 1024, 2))}"
    sets = [
        long_list,
        "workload.jobs[0].tasks=512",
        "workload.jobs[0].placement=list",
        "topology=torus:32x32",
    ]
    p = subprocess.run([*cmd, "--set", *sets], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    widths = sorted(len(line) for line in p.stdout.splitlines())
    assert widths[-1] > 1000 and widths[-2] < 100
    # A job's own stall limit and trace settings are refused, so they are not listed as defaults.
    assert "workload.jobs[0].stall_cycles" not in rows and "workload.jobs[0].cpu_factor" not in rows
