"""Property-based fuzzing of every input parser: topology specs, configs (parsed, and mostly
valid ones simulated briefly), experiment files, the five trace formats (text, SimGrid, DUMPI,
VEF, OTF2), the three fabric formats (edge lists, IBDM ``.topo``, ibnetdiscover) and the
command line.

The contract (docs/reliability.md): whatever the input, a parser returns a value or raises
``ConfigError`` with a one-line message (the command prints it as ``error: ...`` and exits
with status 2). Never a traceback, an abort, a hang or an out-of-memory kill. Aborts and hangs
cannot be caught in the process that suffers them, so the cases run in a child process under
an address-space limit, which writes the case it is on to a heartbeat file; the parent kills a
child whose case runs longer than the bound, and names the input of a child that died.

    python tests/fuzzing.py --cases 1000            # make fuzz: every target
    python tests/fuzzing.py --cases 200 --target spec --target edges

``tests/test_fuzz.py`` runs 50 cases of each target (fixed seed) inside ``make test``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

DATA = Path(__file__).resolve().parent / "data"

# ---- building blocks ----

#: Numbers as text that parsers get wrong: signs, overflow, floats for integers, non-numbers.
NUMBER_WORDS = ["0", "1", "2", "3", "4", "7", "8", "16", "-1", "-5", "1.5", "1e3", "1e23", "1e308", "nan", "inf",
                "-inf", "99999999999", "18446744073709551616", "99999999999999999999", "0x10", "", "abc", "4k",
                " 4", "+3", "2^40", "1_000"]  # fmt: skip


def number_words() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(NUMBER_WORDS),
        st.integers(-(10**20), 10**20).map(str),
        st.integers(0, 64).map(str),
    )


def junk(max_size: int = 12) -> st.SearchStrategy[str]:
    return st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=max_size)


def lines_of(line: st.SearchStrategy[str], max_lines: int = 12) -> st.SearchStrategy[str]:
    return st.lists(line, max_size=max_lines).map("\n".join)


def mutated(text: bytes, max_edits: int = 6) -> st.SearchStrategy[bytes]:
    """``text`` with a few byte edits: deletions, insertions of junk or of its own slices,
    overwrites, truncation."""

    @st.composite
    def edit(draw):
        data = bytearray(text)
        for _ in range(draw(st.integers(1, max_edits))):
            kind = draw(st.sampled_from(["delete", "insert", "overwrite", "truncate", "copy"]))
            i = draw(st.integers(0, max(len(data) - 1, 0)))
            if kind == "delete":
                del data[i : i + draw(st.integers(1, 16))]
            elif kind == "insert":
                data[i:i] = draw(st.binary(max_size=16))
            elif kind == "overwrite" and data:
                data[i] = draw(st.integers(0, 255))
            elif kind == "truncate":
                del data[i:]
            elif kind == "copy" and data:
                j = draw(st.integers(0, len(data) - 1))
                data[i:i] = data[j : j + draw(st.integers(1, 64))]
        return bytes(data)

    return edit()


def mutated_text(text: str, pieces: list[str], max_edits: int = 4) -> st.SearchStrategy[str]:
    """``text`` with a few edits: characters deleted, or one of ``pieces`` (or a number) inserted."""

    @st.composite
    def edit(draw):
        s = text
        for _ in range(draw(st.integers(1, max_edits))):
            i = draw(st.integers(0, len(s)))
            if draw(st.booleans()):
                s = s[:i] + s[i + draw(st.integers(1, 8)) :]
            else:
                s = s[:i] + draw(st.one_of(st.sampled_from(pieces), number_words())) + s[i:]
        return s

    return edit()


# ---- the targets ----

FAMILIES = ["tree", "xgft", "torus", "mesh", "twin-torus", "hyperx", "crossbar", "ring", "thin-tree", "dragonfly",
            "cascade", "megafly", "edges", "ibdm", "ibnet", ""]  # fmt: skip
SPEC_KEYS = ["k", "kp", "n", "t", "m", "w", "h", "p", "a", "g", "seed", "random", "links", "switches", "x", "groups",
             "rows", "cols", "global", "black", "cable", "leaves", "spines"]  # fmt: skip


@st.composite
def spec_text(draw) -> str:
    family = draw(st.sampled_from(FAMILIES))
    if draw(st.booleans()):
        body = draw(st.lists(number_words(), min_size=1, max_size=4)).__iter__()
        body = "x".join(body)
    else:
        pairs = draw(st.lists(st.tuples(st.sampled_from(SPEC_KEYS), number_words()), max_size=4))
        body = ",".join(f"{k}={v}" for k, v in pairs)
    spec = f"{family}:{body}"
    if draw(st.integers(0, 4)) == 0:
        faults = draw(st.lists(st.tuples(st.sampled_from(["random", "seed", "links", "switches", "x"]),
                                         number_words()), max_size=3))  # fmt: skip
        spec += "|faults:" + ",".join(f"{k}={v}" for k, v in faults)
    if draw(st.integers(0, 5)) == 0:
        spec = draw(mutated_text(spec, [":", ",", "=", "x", "|", "-", " "]))
    return spec


CONFIG_FIELDS = {
    "": ["topology", "seed", "technology"],
    "switch": ["preset", "queue_packets", "vcs", "injection_queue_packets", "injection_vcs", "arbitration",
               "output_allocation", "switch_delay_cycles", "link_delay_cycles", "phit_bytes", "islip_iterations",
               "cell_bytes", "routing_delay_cycles", "crossbar_delay_cycles"],
    "routing": ["algorithm", "selection", "engine", "lmc", "vls", "roots", "tables"],
    "traffic": ["pattern", "load", "injection", "packet_phits", "packet_phits_max", "burst_packets", "hot_nodes",
                "hot_fraction", "hot_region_fraction", "zipf_exponent", "zipf_ranks"],
    "measurement": ["warmup_cycles", "window_cycles", "convergence_windows", "convergence_tolerance",
                    "max_convergence_cycles", "batches", "batch_cycles", "deadlock_cycles"],
    "workload": ["kernel", "trace", "format", "message_bytes", "root", "placement", "placement_list", "tasks",
                 "iterations", "compute_cycles"],
    "nic": ["max_payload", "source_buffer", "injection_rate"],
    "link": ["bandwidth", "latency", "length_m"],
    "stats": ["link_utilisation", "latency_percentiles"],
}  # fmt: skip


def toml_value() -> st.SearchStrategy[str]:
    return st.one_of(
        number_words().filter(lambda w: w and w.lstrip("+-").replace(".", "").replace("e", "").isdigit()),
        st.sampled_from(['"torus:4x4"', '"tree:k=2,n=2"', '"auto"', '"dor"', '"uniform"', '"bt"', '"insee"',
                         '"qsnet"', '"4 GB/s"', '"1 GB"', '"64 KiB"', '"x"', '""', "true", "false", "[]", "[0, 0, 0]",
                         "[99]", "[100000]", "{ a = 1 }", "nan", "inf", "1e308", "-1", "0", '"99999999999"']),
        number_words().map(json.dumps),
    )  # fmt: skip


@st.composite
def config_text(draw) -> str:
    lines = ["topology = " + draw(st.sampled_from(['"torus:4x4"', '"crossbar:4"', '"tree:k=2,n=2"']))]
    for section in draw(st.lists(st.sampled_from(sorted(CONFIG_FIELDS)), max_size=4, unique=True)):
        keys = CONFIG_FIELDS[section]
        if section:
            lines.append(f"[{section}]")
        for key in draw(st.lists(st.sampled_from(keys + ["bogus"]), max_size=4, unique=True)):
            lines.append(f"{key} = {draw(toml_value())}")
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 4)) == 0:
        text = draw(mutated_text(text, ["=", "[", "]", '"', "\n", "[[a]]", ".", "{", "}"]))
    return text


SMALL_SWEEP = (DATA / "small_sweep.toml").read_text()
TINY_CAUSAL = (DATA / "tiny_causal.toml").read_text()
EXPERIMENT_PIECES = ["=", "[", "]", "{", "}", '"', ",", "0", "-1", "1e999", "=9**9**9", "=ideal*", "axes.", "[[sweep]]",
                     "\n", "nan", "true", "points = 3", "axes.traffic.load = []", "x" * 40, "repetitions = 100000",
                     "axes.seed = [1, 1]", 'name = "grid"', "[[report.figures]]\nkind = \"pie\"", "[report]\nbogus = 1",
                     "axes.seed = [" + ", ".join(map(str, range(200))) + "]", "sweeps = [\"nope\"]"]  # fmt: skip


def experiment_text() -> st.SearchStrategy[str]:
    return st.one_of(mutated_text(SMALL_SWEEP, EXPERIMENT_PIECES), mutated_text(TINY_CAUSAL, EXPERIMENT_PIECES))


RANK = st.one_of(st.integers(0, 4).map(str), number_words(), st.just("any"))
OPTION = st.one_of(
    st.tuples(st.sampled_from(["tag", "comm", "req", "root", "algorithm", "x"]),
              st.one_of(number_words(), st.sampled_from(["any", "binomial", "ring", "linear"]))).map("=".join),
    st.sampled_from(["tag3", "=", "tag=", "=3"]),
)  # fmt: skip
CALLS = ["compute", "send", "recv", "isend", "irecv", "wait", "waitall", "waitany", "barrier", "bcast", "reduce",
         "gather", "scatter", "allreduce", "allgather", "alltoall", "init", "finalize", "nope"]  # fmt: skip


@st.composite
def valid_text_line(draw, ranks: int) -> str:
    """A line that parses: a rank of the trace, a call, arguments and options in range (which
    may still not match: a receive without its send, a wait on an unknown request)."""
    rank = st.integers(0, ranks - 1).map(str)
    size = st.sampled_from(["0", "1", "64", "4096", "100000"])
    call = draw(st.sampled_from(["compute", "send", "recv", "isend", "irecv", "wait", "waitall", "waitany",
                                 "barrier", "bcast", "reduce", "gather", "scatter", "allreduce", "allgather",
                                 "alltoall"]))  # fmt: skip
    args: list[str] = []
    if call == "compute":
        args = [draw(st.sampled_from(["0", "1", "1000", "999999999"]))]
    elif call in ("send", "isend"):
        args = [draw(rank), draw(size)] + (["req=" + draw(st.sampled_from(["1", "2"]))] if call == "isend" else [])
    elif call in ("recv", "irecv"):
        args = [draw(st.one_of(rank, st.just("any"))), draw(size)]
        args += ["req=" + draw(st.sampled_from(["1", "2"]))] if call == "irecv" else []
    elif call.startswith("wait"):
        args = draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=1, max_size=2))
    elif call != "barrier":
        args = [draw(size)] + ([f"root={draw(rank)}"] if call in ("bcast", "reduce", "gather", "scatter") else [])
    if draw(st.integers(0, 3)) == 0:
        args.append(draw(st.sampled_from(["tag=1", "tag=any", "comm=0", "algorithm=binomial", "algorithm=ring"])))
    return " ".join([draw(rank), call, *args])


@st.composite
def text_trace(draw) -> str:
    if draw(st.booleans()):
        n = draw(st.integers(1, 4))
        lines = draw(st.lists(valid_text_line(n), max_size=16))
        return f"ranks {n}\n" + "\n".join(lines) + "\n"
    ranks = draw(st.one_of(st.integers(1, 4).map(str), number_words()))
    body = draw(lines_of(st.builds(
        lambda r, call, args, opts: " ".join([r, call, *args, *opts]),
        RANK, st.sampled_from(CALLS), st.lists(number_words(), max_size=3), st.lists(OPTION, max_size=2),
    ), max_lines=16))  # fmt: skip
    text = f"ranks {ranks}\n{body}\n"
    return draw(mutated_text(text, ["\n", "#", " ", "ranks 2\n"])) if draw(st.integers(0, 5)) == 0 else text


@st.composite
def simgrid_trace(draw) -> dict[str, str]:
    """A SimGrid time-independent trace: an index naming per-rank files, or one file."""
    line = st.builds(
        lambda r, call, args: " ".join([r, call, *args]),
        RANK,
        st.sampled_from(["init", "finalize", "compute", "send", "recv", "Isend", "Irecv", "wait", "bcast", "reduce",
                         "allReduce", "barrier", "nope"]),
        st.lists(number_words(), max_size=4),
    )  # fmt: skip
    files = {f"trace.{r}": draw(lines_of(line)) for r in range(draw(st.integers(1, 3)))}
    index = "\n".join(f"@{name}" for name in files)
    if draw(st.booleans()):
        index = draw(mutated_text(index, ["@", "@../x", "@trace.9", "\n", "@/dev/zero"]))
    return {"trace.index": index, **files}


def dumpi_trace() -> st.SearchStrategy[dict[str, bytes]]:
    """The 4-rank DUMPI test trace with its ``.meta`` or one rank file mutated."""
    folder = DATA / "traces" / "dumpi_testtrace4"
    files = {p.name: p.read_bytes() for p in sorted(folder.glob("testtrace*")) if p.suffix in (".meta", ".bin")}
    meta = files["testtrace.meta"].decode()

    @st.composite
    def build(draw):
        out = dict(files)
        which = draw(st.sampled_from(sorted(out)))
        if which.endswith(".meta"):
            out[which] = draw(mutated_text(meta, ["numprocs=", "numprocs=99999999999", "fileprefix=", "\n", "=",
                                                  "fileprefix=../x", "numprocs=0", "numprocs=-1"])).encode()  # fmt: skip
        else:
            out[which] = draw(mutated(out[which]))
        return out

    return build()


VEF_HEADER = st.builds(lambda ws: "VEF " + " ".join(ws), st.lists(number_words(), min_size=0, max_size=7))


@st.composite
def vef_trace(draw) -> str:
    head = draw(st.one_of(st.just("VEF 3 3 1 1 3 FALSE"), VEF_HEADER))
    comm = draw(st.one_of(st.just("C0 0 1 2"), st.builds(lambda ws: "C" + " ".join(ws),
                                                         st.lists(number_words(), max_size=4))))  # fmt: skip
    message = st.builds(" ".join, st.lists(number_words(), min_size=5, max_size=8))
    collective = st.builds(lambda ws: "G" + " ".join(ws), st.lists(number_words(), min_size=6, max_size=9))
    body = draw(lines_of(st.one_of(message, collective), max_lines=10))
    return f"{head}\n{comm}\n{body}\n"


def otf2_archive() -> st.SearchStrategy[dict[str, bytes]]:
    """The 4-rank OTF2 bcast archive with one of its files mutated, emptied or missing."""
    folder = DATA / "traces" / "otf2_bcast4"
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
             if p.is_file() and not p.name.endswith(".out")}  # fmt: skip

    @st.composite
    def build(draw):
        out = dict(files)
        which = draw(st.sampled_from(sorted(out)))
        damage = draw(st.sampled_from(["mutate", "mutate", "mutate", "empty", "missing"]))
        if damage == "missing":
            del out[which]
        else:
            out[which] = b"" if damage == "empty" else draw(mutated(out[which]))
        return out

    return build()


NAME = st.sampled_from(["a", "b", "c", "h1", "h2", "s 1", "", "x" * 300])


def terminal_counts() -> st.SearchStrategy[str]:
    """Counts of `terminals A N`, not between 10^5 and 10^9: a valid fabric of millions of
    terminals is read at about three seconds per million (3 764 354 took 12 s), which would be
    size, not a hang; above 10^9 the port budget refuses the line at once."""
    return number_words().filter(lambda w: not (w.strip().isdigit() and 10**5 < int(w) < 10**9))


@st.composite
def edge_list(draw) -> str:
    line = st.one_of(
        st.builds(lambda a, b: f"link {a} {b}", NAME, NAME),
        st.builds(lambda h, a: f"terminal {h} {a}", NAME, NAME),
        st.builds(lambda a, n: f"terminals {a} {n}", NAME, terminal_counts()),
        st.builds(lambda ws: " ".join(ws), st.lists(st.one_of(NAME, terminal_counts(), st.just("link")), max_size=4)),
        st.just("# comment"),
        junk(),
    )
    return "link a b\nlink b c\n" * draw(st.integers(0, 1)) + draw(lines_of(line, max_lines=16)) + "\n"


IBDM = (DATA / "fabrics" / "ib_flit_sim" / "is1_3l_32n.topo").read_text()


@st.composite
def ibdm_topo(draw) -> str:
    record = st.builds(
        lambda kind, name, ports: f"{kind} {name}\n" + "\n".join(ports),
        st.sampled_from(["MTS800", "MTS3600", "Cougar", "HCA", "Switch", "x"]),
        st.sampled_from(["S1", "S2", "H-1", "H-2", "SW-L1-0-0"]),
        st.lists(st.builds(lambda p, kind, name, q: f"\tP{p} -> {kind} {name} P{q}", number_words(),
                           st.sampled_from(["MTS800", "Cougar", "HCA"]), st.sampled_from(["S1", "S2", "H-1", "H-2"]),
                           number_words()), max_size=6),
    )  # fmt: skip
    return draw(st.one_of(
        st.lists(record, max_size=5).map("\n\n".join),
        mutated_text(IBDM[:1200], ["P", "->", "P99999", "\n", "MTS800 ", "Cougar ", " ", "\t"]),
    ))  # fmt: skip


IBNET = (DATA / "fabrics" / "ibsim_net.2sw2path4hca").read_text()


def ibnet_text() -> st.SearchStrategy[str]:
    return mutated_text(IBNET, ["Switch\t", "Hca\t", '"Switch1"', '"Hca1"', "[1]", "[999]", "[0]", "\n", " 300 ",
                                "99999999999", '"', "[", "]", "\t"], max_edits=6)  # fmt: skip


#: The tiny config of the command-line target: a few hundred cycles on 4 terminals.
TINY = """topology = "torus:2x2"
[measurement]
warmup_cycles = 100
window_cycles = 100
max_convergence_cycles = 1000
batches = 1
batch_cycles = 200
"""

SET_VALUES = ["switch.vcs=0", "switch.vcs=2", "traffic.load=2", "traffic.load=0.5", "topology=torus:99999x99999",
              "measurement.batches=-1", "nonsense", "=", "switch.vcs", "seed=1e23", "traffic.pattern=nope",
              "technology=qsnet", "technology=nope", "routing.algorithm=bogus", "workload.kernel=bt"]  # fmt: skip
ROUTINGS = ["dfsssp", "minhop", "sssp", "updn", "ftree", "parx", "dor", "bubble", "duato", "tree", "hyperx-dor",
            "dort", "ts-dor", "nope"]  # fmt: skip
SMALL_SPECS = ["torus:4x4", "torus:2x2", "tree:k=2,n=2", "crossbar:4", "hyperx:4x4", "mesh:3x3", "torus:0x4"]


@st.composite
def cli_args(draw) -> list[str]:
    """An argument list of a cheap command, its flags and values drawn from valid and invalid ones."""
    spec = draw(st.one_of(st.sampled_from(SMALL_SPECS), spec_text()))
    num = number_words()
    flags: list[tuple[str, st.SearchStrategy]] = []
    command = draw(st.sampled_from(["describe", "paths", "export", "route", "run", "trace", "flow", "study", "sweep",
                                    "report", "junk"]))  # fmt: skip
    if command == "describe":
        args, flags = ["topo", "describe", spec], [("--json", st.none())]
    elif command == "paths":
        args = ["topo", "paths", spec, draw(num), draw(num)]
    elif command == "export":
        args = ["topo", "export", spec, "--format", draw(st.sampled_from(["graphml", "dot", "json", "ibnet", "x"]))]
    elif command == "route":
        # Small networks: the table engines take their time on large valid ones (dfsssp on
        # hyperx:57x64, 15 s), and the spec parser has its own target.
        small = draw(st.sampled_from(SMALL_SPECS + ["hyperx:4x4|faults:random=99", "nope:1", "torus:4x4|faults:x"]))
        args = ["route", small, "--routing", draw(st.sampled_from(ROUTINGS))]
        flags = [("--vcs", num), ("--lmc", num), ("--vls", num), ("--root", num), ("--check-deadlock", st.none()),
                 ("--layering", st.sampled_from(["placement", "opensm", "x"])), ("--json", st.none())]  # fmt: skip
    elif command == "run":
        args = ["run", "@tiny.toml", "--no-progress"]
        flags = [("--max-seconds", num), ("--max-cycles", num), ("--threads", num), ("--repetitions", num),
                 ("--loads", st.lists(num, min_size=1, max_size=4).map(",".join)), ("--check", st.none()),
                 ("--set", st.sampled_from(SET_VALUES)), ("--out", st.just("@out"))]  # fmt: skip
    elif command == "trace":
        args = ["trace", "info", draw(st.sampled_from(["@tiny.trace", "@missing.trace", "/dev/null"]))]
        flags = [("--format", st.sampled_from(["auto", "text", "vef", "dumpi", "simgrid", "otf2", "x"])),
                 ("--json", st.none())]  # fmt: skip
    elif command == "flow":
        args = ["flow", draw(st.sampled_from(["ebb", "mpigraph"])), spec]
        flags = [("--nodes", num), ("--samples", num), ("--message-bytes", num), ("--seed", num),
                 ("--link-bandwidth", num), ("--paths", st.sampled_from(["auto", "first", "x"]))]  # fmt: skip
    elif command == "study":
        args = ["study", draw(st.sampled_from(["list", "tables", "x"]))]
        if args[1] == "tables":
            args.append(draw(st.sampled_from(["@", "@missing", "/dev/null"])))
    elif command == "sweep":
        # An experiment file with an error: the flags are checked, nothing runs.
        args = ["sweep", draw(st.sampled_from(["@bad_experiment.toml", "@missing.toml", "/dev/zero"]))]
        flags = [("--jobs", num), ("--repetitions", num), ("--quick", st.none()), ("--no-progress", st.none()),
                 ("--scheduler", st.sampled_from(["garbage", "tcp://", "tcp://host:99999", "tcp://[::1]:8786",
                                                  "tcp://127.0.0.1:0", "x:1:2"])), ("--out", st.just("@out"))]  # fmt: skip
    elif command == "report":
        args = ["report", draw(st.sampled_from(["@", "@missing", "/dev/null", "@tiny.toml"]))]
    else:
        args = draw(st.lists(st.one_of(junk(), st.sampled_from(["--max-cycles", "-5", "run", "topo", "--"])),
                             max_size=4))  # fmt: skip
    for name, value in draw(st.lists(st.sampled_from(flags), max_size=4)) if flags else []:
        args.append(name)
        v = draw(value)
        if v is not None:
            args.append(v)
    return args


# ---- the checks ----


class Violation(Exception):
    """An input broke the contract; the message says how."""


def _one_line_config_error(call) -> None:
    from hpcnetsim import ConfigError

    try:
        call()
    except ConfigError as e:
        message = str(e)
        if not message.strip() or "\n" in message.strip():
            raise Violation(f"ConfigError not one line: {message!r}") from None


def _write(tmp: Path, files: dict[str, str | bytes]) -> None:
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, content in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, errors="surrogatepass")


def check_spec(text: str, tmp: Path) -> None:
    from hpcnetsim import Topology

    _one_line_config_error(lambda: Topology.from_spec(text))


def check_config(text: str, tmp: Path) -> None:
    import hpcnetsim

    _write(tmp, {"c.toml": text})
    _one_line_config_error(lambda: hpcnetsim.load_config(tmp / "c.toml"))


#: Valid values of the fields a simulation reads (docs/config.md), so that most generated
#: configs run and reach the engine; an invalid value or combination now and then.
RUN_FIELDS = {
    "switch": {"vcs": [1, 2, 3, 4, 8], "queue_packets": [1, 2, 4, 64], "arbitration": ["random", "round-robin",
               "oldest-first", "islip"], "output_allocation": ["vc", "link"], "preset": ["insee", "extoll", "elite"],
               "buffers": ["fifo", "voq"], "switching": ["cut-through", "wormhole"], "buffer_flits": [0, 8, 64],
               "credit_unit": ["packet", "phit", "cell"], "cell_bytes": [1, 16, 64], "phit_bytes": [1, 4, 16],
               "islip_iterations": [1, 2, 64], "traffic_classes": [1, 2], "switch_delay_cycles": [0, 1, 5],
               "link_delay_cycles": [0, 1, 3], "credit_delay_cycles": [0, 2], "injection_vcs": [0, 1, 2],
               "injection_queue_packets": [1, 8]},
    "routing": {"algorithm": ["auto", "dor", "dor-upper-lower", "bubble-adaptive", "duato", "tree-adaptive",
                "tree-deterministic", "direct", "hyperx-dor", "hyperx-adaptive", "hyperx-valiant", "hyperx-ugal",
                "hyperx-dal", "ts-dor", "dort", "table"], "selection": ["least-occupied", "most-credits", "random",
                "first"], "engine": ["minhop", "sssp", "dfsssp", "updn", "ftree", "parx"], "lmc": [0, 1, 2],
                "address": ["round-robin", "random", "parx"], "layering": ["placement", "opensm"]},
    "traffic": {"pattern": ["uniform", "bit-complement", "bit-reversal", "transpose", "perfect-shuffle", "butterfly",
                "tornado", "nearest-neighbour", "random-permutation", "hot-spot", "hot-region", "zipf"],
                "load": [0.0, 0.05, 0.3, 1.0], "injection": ["bernoulli", "bursty"], "packet_phits": [1, 4, 16],
                "packet_phits_max": [0, 32], "burst_packets": [1.0, 8.0], "hot_nodes": [[0], [1, 3]],
                "hot_fraction": [0.0, 0.5, 1.0], "hot_region_fraction": [0.25, 1.0], "zipf_exponent": [0.5, 1.0, 100],
                "zipf_ranks": ["index", "shuffled"]},
    "workload": {"kernel": ["bt", "ibt", "barrier", "bu", "2w", "3w", "wf", "2m", "3m", "2d", "3d", "bcast", "reduce",
                 "allreduce", "allgather", "alltoall", "gather", "scatter", "mpi-barrier", "deepbench-allreduce"],
                 "tasks": [0, 2, 3, 4, 8], "message_bytes": [0, 1, 64, 640, 4096], "compute_cycles": [0, 10],
                 "length_evolution": ["constant", "doubling", "halving"], "return_sweep": [True, False],
                 "wrap": [True, False], "diagonals": [True, False], "mesh": [[], [2, 2], [4, 2], [2, 2, 2]]},
    "nic": {"enabled": [True, False], "max_payload": ["16 B", "256 B", "64 KiB"], "packet_overhead": ["0 B", "16 B"],
            "rendezvous_threshold": ["0 B", "64 B"], "send_overhead": ["0 ns", "100 ns"]},
    "link": {"bandwidth": ["4 GB/s", "100 Gb/s"], "switch_latency": ["10 ns"], "host_bandwidth": ["10 GB/s"]},
}  # fmt: skip
RUN_TOPOLOGIES = ["torus:4x4", "torus:3x3", "mesh:3x3", "torus:4x4x2", "tree:k=2,n=3", "tree:k=4,n=2",
                  "tree:k=4,kp=2,n=2", "crossbar:8", "hyperx:3x3", "hyperx:4x4,t=2", "twin-torus:2x2x2",
                  "torus:4x4|faults:random=2,seed=1", "xgft:2;2,2;1,2"]  # fmt: skip


@st.composite
def run_config(draw) -> dict:
    config = {"topology": draw(st.sampled_from(RUN_TOPOLOGIES)), "seed": draw(st.integers(0, 5))}
    if draw(st.integers(0, 3)) == 0:
        config["technology"] = draw(st.sampled_from(["qsnet", "extoll", "qdr-infiniband", "ndr-infiniband"]))
    for section in draw(st.lists(st.sampled_from(sorted(RUN_FIELDS)), max_size=4, unique=True)):
        fields = RUN_FIELDS[section]
        keys = draw(st.lists(st.sampled_from(sorted(fields)), min_size=1, max_size=5, unique=True))
        config[section] = {k: draw(st.sampled_from(fields[k])) for k in keys}
    if draw(st.integers(0, 9)) == 0:  # now and then an invalid value
        section = draw(st.sampled_from(sorted(RUN_FIELDS)))
        config.setdefault(section, {})[draw(st.sampled_from(sorted(RUN_FIELDS[section])))] = draw(
            st.sampled_from([-1, 0, 10**13, 1e308, "x", [], None.__class__.__name__]))
    return config


#: The schedule every simulated case runs under: a few thousand cycles at most.
SHORT = {"warmup_cycles": 200, "window_cycles": 100, "max_convergence_cycles": 1000, "batches": 1,
         "batch_cycles": 200, "deadlock_cycles": 500}  # fmt: skip


def check_simulation(config: dict, tmp: Path) -> None:
    """A generated config run for a few thousand cycles with the engine's invariants checked:
    a result (any status) or a one-line ConfigError."""
    import hpcnetsim

    config = {**config, "measurement": SHORT}
    run = hpcnetsim.execute if "workload" in config else hpcnetsim.simulate
    _one_line_config_error(lambda: run(config, max_seconds=2, max_cycles=20000, check=True))


def check_experiment(text: str, tmp: Path) -> None:
    from hpcnetsim.experiments import experiment

    _write(tmp, {"e.toml": text})
    _one_line_config_error(lambda: experiment.load(tmp / "e.toml", quick=len(text) % 2 == 0))


def _trace_check(name: str, fmt: str, replay: bool = False):
    def check(files, tmp: Path) -> None:
        from hpcnetsim.inputs.trace import info

        _write(tmp, files if isinstance(files, dict) else {name: files})

        def call():
            d = info(tmp / name, fmt)
            if replay and d["summary"]["ranks"] <= 8:
                import hpcnetsim

                hpcnetsim.execute({"topology": "torus:4x4", "workload": {"trace": str(tmp / name), "format": fmt}},
                                  max_seconds=2)  # fmt: skip

        _one_line_config_error(call)

    return check


def _fabric_check(kind: str):
    def check(text: str, tmp: Path) -> None:
        from hpcnetsim import Topology

        _write(tmp, {"fabric": text})
        _one_line_config_error(lambda: Topology.from_spec(f"{kind}:{tmp / 'fabric'}"))

    return check


def check_cli(args: list[str], tmp: Path) -> None:
    from hpcnetsim.cli import main

    _write(tmp, {"tiny.toml": TINY, "tiny.trace": "ranks 2\n0 send 1 64\n1 recv 0 64\n",
                 "bad_experiment.toml": '[base]\ntopology = "torus:2x2"\n[[sweep]]\naxes.nope = [1]\n'})  # fmt: skip
    argv = [str(tmp / a[1:]) if a.startswith("@") else a for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:  # --help and --version only
            status = 0 if e.code in (0, None) else e.code
    text = err.getvalue()
    if "Traceback" in text:
        raise Violation(f"traceback on stderr: {text[-500:]}")
    if status not in (0, 1, 2, 3):
        raise Violation(f"exit status {status!r}")
    if status == 2:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) != 1 or not lines[0].startswith("error:"):
            raise Violation(f"exit status 2 without one error line: {text[-500:]!r}")


@dataclass
class Target:
    strategy: st.SearchStrategy
    check: object
    needs: str | None = None  # an optional module the target needs


TARGETS = {
    "spec": Target(spec_text(), check_spec),
    "config": Target(config_text(), check_config),
    "simulation": Target(run_config(), check_simulation),
    "experiment": Target(experiment_text(), check_experiment),
    "text-trace": Target(text_trace(), _trace_check("t.trace", "text", replay=True)),
    "simgrid": Target(simgrid_trace(), _trace_check("trace.index", "simgrid")),
    "dumpi": Target(dumpi_trace(), _trace_check("testtrace.meta", "dumpi")),
    "vef": Target(vef_trace(), _trace_check("t.vef", "vef", replay=True)),
    "otf2": Target(otf2_archive(), _trace_check("traces.otf2", "otf2"), needs="otf2"),
    "edges": Target(edge_list(), _fabric_check("edges")),
    "ibdm": Target(ibdm_topo(), _fabric_check("ibdm")),
    "ibnet": Target(ibnet_text(), _fabric_check("ibnet")),
    "cli": Target(cli_args(), check_cli),
}




def _abort_on_third(value: int, tmp: Path) -> None:
    if value == 3:
        os.abort()


def _sleep_on_second(value: int, tmp: Path) -> None:
    if value == 2:
        time.sleep(3600)


#: Targets that break the contract on purpose: the harness must report them (tests/test_fuzz.py).
BROKEN = {
    "abort": Target(st.integers(0, 10**6).map(lambda i: [1, 2, 3][i % 3]), _abort_on_third),
    "hang": Target(st.integers(0, 10**6).map(lambda i: [1, 2][i % 2]), _sleep_on_second),
    "traceback": Target(st.integers(0, 10**6), lambda value, tmp: [][value]),
}


# ---- the child: runs cases, writes a heartbeat and its findings ----


def _shown(value, limit: int = 400) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def child(targets: dict[str, int], seed: int, heartbeat: Path, findings: Path, tmp: Path) -> None:
    """Runs ``targets[name]`` cases of each target in turn."""
    beat = open(heartbeat, "w")  # noqa: SIM115 (open for the child's whole life)
    found = open(findings, "a")  # noqa: SIM115

    def note(record: dict) -> None:
        found.write(json.dumps(record) + "\n")
        found.flush()

    def cases_of(name: str, target: Target, cases: int) -> int:
        count = 0

        @settings(max_examples=cases, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        @hypothesis_seed(seed)
        @given(target.strategy)
        def run(value):
            nonlocal count
            count += 1
            beat.seek(0)
            beat.truncate()
            beat.write(json.dumps({"target": name, "case": count, "input": _shown(value, 4000)}))
            beat.flush()
            try:
                target.check(value, tmp / "case")
            except Violation as e:
                note({"target": name, "kind": "violation", "input": _shown(value), "error": str(e)})
            except Exception as e:
                note({"target": name, "kind": "exception", "input": _shown(value),
                      "error": f"{type(e).__name__}: {_shown(str(e), 300)}"})  # fmt: skip

        run()
        return count

    for name, cases in targets.items():
        note({"target": name, "done": cases_of(name, TARGETS.get(name) or BROKEN[name], cases)})


# ---- the parent: children under a memory limit, the time bound, the summary ----


@dataclass
class Summary:
    cases: dict[str, int] = field(default_factory=dict)
    findings: list[dict] = field(default_factory=list)

    def text(self) -> str:
        lines = [f"{name:<11} {n:>6} cases" for name, n in self.cases.items()]
        kinds: dict[str, int] = {}
        for f in self.findings:
            kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
        lines.append(f"{sum(self.cases.values())} cases, {len(self.findings)} findings"
                     + (" (" + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")" if kinds else ""))  # fmt: skip
        for f in self.findings:
            lines.append(f"{f['kind']:<9} {f['target']}: {f.get('error', '')}\n          input {f['input']}")
        return "\n".join(lines)


def _limit_memory(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.setsid()  # its own process group: a kill reaches what it started

    return apply


def fuzz(targets: list[str], cases: int, seed: int = 0, case_seconds: float = 10.0, memory: int = 4 << 30,
         log=lambda s: None) -> Summary:  # fmt: skip
    """Runs ``cases`` generated cases of each target; a child that hangs on a case (more than
    ``case_seconds``) or dies (abort, out of memory) is reported with the input and replaced
    by one that goes on with the rest of its cases under another seed."""
    summary = Summary()
    needs = {t: (TARGETS.get(t) or BROKEN[t]).needs for t in targets}
    pending = {t: cases for t in targets if needs[t] is None or _has(needs[t])}
    for t in targets:
        if t not in pending:
            log(f"{t}: skipped ({needs[t]} is not installed)")
    with tempfile.TemporaryDirectory(prefix="hpcnetsim-fuzz-") as d:
        work = Path(d)
        heartbeat, findings = work / "heartbeat.json", work / "findings.jsonl"
        attempt = 0
        while pending:
            findings.write_text("")
            heartbeat.write_text("")
            # A restarted target goes on with its remaining cases (under another seed).
            cmd = [sys.executable, __file__, "--child", "--seed", str(seed + attempt), "--heartbeat", str(heartbeat),
                   "--findings", str(findings), "--tmp", str(work)]  # fmt: skip
            for name, n in pending.items():
                cmd += ["--child-target", f"{name}={n}"]
            proc = subprocess.Popen(cmd, preexec_fn=_limit_memory(memory), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, env={**os.environ, "PYTHONHASHSEED": "0"})  # fmt: skip
            stalled = _watch(proc, heartbeat, case_seconds)
            stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            current = _read_json(heartbeat)
            for line in findings.read_text().splitlines():
                record = json.loads(line)
                if "done" in record:
                    summary.cases[record["target"]] = summary.cases.get(record["target"], 0) + record["done"]
                    pending.pop(record["target"], None)
                    log(f"{record['target']}: {summary.cases[record['target']]} cases")
                else:
                    summary.findings.append(record)
            if proc.returncode == 0 or not current:
                if proc.returncode != 0:
                    raise RuntimeError(f"the fuzzing child failed before its first case:\n{stderr[-2000:]}")
                continue
            name = current["target"]
            kind = "hang" if stalled else "crash"
            why = (f"case ran over {case_seconds:g} s" if stalled
                   else f"exit status {proc.returncode}: {_last_line(stderr)}")  # fmt: skip
            summary.findings.append({"target": name, "kind": kind, "input": current["input"], "error": why})
            done = current["case"]
            summary.cases[name] = summary.cases.get(name, 0) + done
            pending[name] = pending[name] - done
            if pending[name] <= 0:
                pending.pop(name)
            log(f"{name}: {kind} at case {done} ({why})")
            attempt += 1
    return summary


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def _watch(proc: subprocess.Popen, heartbeat: Path, case_seconds: float) -> bool:
    """Waits for the child; kills it when one case runs longer than ``case_seconds`` (True then)."""
    last, since = None, time.monotonic()
    while proc.poll() is None:
        time.sleep(0.05)
        try:
            now = heartbeat.read_text()
        except OSError:
            now = None
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > case_seconds:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Fuzz hpcnetsim's input parsers (docs/reliability.md).")
    p.add_argument("--target", action="append", choices=sorted(TARGETS), help="a target (repeatable; default all)")
    p.add_argument("--cases", type=int, default=1000, help="generated cases per target (default 1000)")
    p.add_argument("--seed", type=int, default=random.randrange(1 << 30), help="seed of the generator")
    p.add_argument("--case-seconds", type=float, default=10.0, help="the time bound of one case (default 10)")
    p.add_argument("--memory-gib", type=float, default=4.0, help="address-space limit of the cases (default 4)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--child-target", action="append", default=[], help=argparse.SUPPRESS)
    p.add_argument("--heartbeat", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--findings", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--tmp", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    targets = args.target or list(TARGETS)
    if args.child:
        counts = {name: int(n) for name, _, n in (t.partition("=") for t in args.child_target)}
        child(counts, args.seed, args.heartbeat, args.findings, args.tmp)
        return 0
    start = time.monotonic()
    print(f"fuzzing {', '.join(targets)}: {args.cases} cases each, seed {args.seed}", flush=True)
    summary = fuzz(targets, args.cases, args.seed, args.case_seconds, int(args.memory_gib * (1 << 30)),
                   log=lambda s: print(s, flush=True))  # fmt: skip
    print(summary.text())
    print(f"{time.monotonic() - start:.1f} s")
    return 1 if summary.findings else 0


if __name__ == "__main__":
    sys.exit(main())
