"""Where a packet-hop's cache misses and instructions fall, by source file and line.

Runs the engine's warm-up twice under cachegrind (valgrind's cache simulator), with a short and
a long warm-up, and divides the difference of the two runs by the difference of their
packet-hops: the set-up, the first fill of the caches and the final report cancel out, so what
is left is what one more packet-hop of the running network costs. The caches simulated are the
first-level data cache and one last level, by default those of the machine of
docs/performance.md (48 KiB 12-way and 2 MiB 16-way, 64-byte lines): its L2 per core, because
on a host whose L3 is shared with other tenants the L3 holds little of a large network's state.

    python benchmarks/cache_profile.py --spec tree:k=4,kp=4,n=7 --load 0.4
    python benchmarks/cache_profile.py --config my.toml --warmups 300,500 --top 30

`--spec` and `--load` name a row of `hpcnetsim bench --scale` (its config, 2 VCs); `--config`
takes any config file, whose warm-up is replaced. The engine is the `simulate` example built
with the `profiling` profile (release with line tables), one thread, counters mode (the
warm-up only). Needs valgrind (Debian: `apt install valgrind`); a 16 384-terminal tree takes
about 10 minutes, the two runs side by side.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Where cargo puts the profiling build of the `simulate` example.
SIMULATE = ROOT / "target" / "profiling" / "examples" / "simulate"
#: The default caches: the Intel machine of docs/performance.md (size, ways, line bytes).
L1 = "49152,12,64"
L2 = "2097152,16,64"
#: Per-line figures taken from cachegrind's events: instructions, L1d and last-level misses.
FIGURES = {"instructions": ("Ir",), "l1d_misses": ("D1mr", "D1mw"), "l2_misses": ("DLmr", "DLmw")}


class UsageError(Exception):
    """Bad input: reported in one line, exit code 2."""


class Profile:
    """Cachegrind's counts per (source file, function, line) of one run."""

    def __init__(self, counts: dict[tuple[str, str, int], dict[str, int]]):
        self.counts = counts


def read_cachegrind(path: Path) -> Profile:
    """Parses a cachegrind output file (the `events:`, `fl=`, `fn=` and per-line records)."""
    events: list[str] = []
    fl = fn = "???"
    counts: dict[tuple[str, str, int], dict[str, int]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fl="):
            fl = line[3:].strip()
        elif line.startswith("fn="):
            fn = line[3:].strip()
        elif line[:1].isdigit():
            if not events:
                raise ValueError(f"{path}: a count before the events line")
            number, *values = line.split()
            slot = counts.setdefault((fl, fn, int(number)), dict.fromkeys(events, 0))
            for name, value in zip(events, values):
                slot[name] += int(value)
    if not events:
        raise ValueError(f"{path}: no events line (not a cachegrind output file)")
    return Profile(counts)


def figures(record: dict[str, int]) -> dict[str, int]:
    """Instructions, L1d misses and last-level misses of one record."""
    return {k: sum(record.get(e, 0) for e in names) for k, names in FIGURES.items()}


def packet_hops(counters_line: str) -> int:
    """The packet-hops of the `simulate` example's counters line."""
    m = re.search(r"packet_hops: (\d+)", counters_line)
    if not m:
        raise ValueError(f"no packet_hops in the counters: {counters_line.strip()[:200]!r}")
    return int(m.group(1))


def per_hop(short: Profile, long: Profile, hops: int) -> dict[tuple[str, str, int], dict[str, float]]:
    """Per source line, the long run's counts less the short run's, per packet-hop between them."""
    if hops <= 0:
        raise ValueError(f"the long warm-up made {hops} more packet-hops than the short one (need > 0)")
    out = {}
    for key in long.counts.keys() | short.counts.keys():
        a = figures(short.counts.get(key, {}))
        b = figures(long.counts.get(key, {}))
        out[key] = {k: (b[k] - a[k]) / hops for k in FIGURES}
    return out


def source_name(path: str) -> str:
    """A source file as the tables show it: relative to the repository, or the library it is in."""
    p = path.replace("\\", "/")
    root = str(ROOT).replace("\\", "/") + "/"
    if p.startswith(root):
        return p[len(root) :]
    for marker in ("/library/", "/rust/deps/"):
        if marker in p and (p.startswith("/rustc/") or p.startswith("/rust/deps/")):
            # The standard library's atomics and pointers stand for the engine's state they access.
            return "Rust library " + p.split(marker, 1)[1]
    if "/.cargo/registry/src/" in p:
        # .../registry/src/<index>/<crate>-<version>/...
        return "crate " + p.split("/.cargo/registry/src/", 1)[1].split("/")[1]
    if p.startswith("./") or "/glibc" in p or p.startswith("/build/"):
        return "C library"
    return "other" if p == "???" else p


def summed(lines, name) -> list[tuple[str, dict[str, float]]]:
    """Per-hop figures summed by `name(file, function)`, most L2 misses first."""
    total: dict[str, dict[str, float]] = collections.defaultdict(lambda: dict.fromkeys(FIGURES, 0.0))
    for (fl, fn, _line), f in lines.items():
        for k, v in f.items():
            total[name(fl, fn)][k] += v
    return sorted(total.items(), key=lambda kv: (-kv[1]["l2_misses"], -kv[1]["instructions"], kv[0]))


def by_file(lines) -> list[tuple[str, dict[str, float]]]:
    """Per-hop figures by source file."""
    return summed(lines, lambda fl, _fn: source_name(fl))


def by_function(lines) -> list[tuple[str, dict[str, float]]]:
    """Per-hop figures by function (inlined code counts in the function it is inlined into)."""
    return summed(lines, lambda _fl, fn: function_name(fn))


def top_lines(lines, n: int) -> list[tuple[tuple[str, str, int], dict[str, float]]]:
    """The `n` source lines with most L2 misses per packet-hop."""
    return sorted(lines.items(), key=lambda kv: (-kv[1]["l2_misses"], kv[0]))[:n]


def line_text(path: str, number: int) -> str:
    """The source text of a line, if the file is here."""
    try:
        with open(path, encoding="utf-8") as f:
            for i, text in enumerate(f, 1):
                if i == number:
                    return text.strip()
    except OSError:
        pass
    return ""


def function_name(fn: str) -> str:
    """A function's last two path segments (`InputQueued::tail_left`), without generic arguments."""
    plain = re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", fn))
    parts = [p for p in plain.split("::") if p and not p.startswith("{{")]
    return "::".join(parts[-2:]) if parts else fn


def report(lines, hops: int, top: int) -> str:
    """The tables: totals, by source file, the `top` functions and lines with most L2 misses."""
    total = {k: sum(f[k] for f in lines.values()) for k in FIGURES}
    out = [
        f"packet-hops between the two warm-ups: {hops}",
        "per packet-hop: {instructions:.0f} instructions, {l1d_misses:.2f} L1d misses, "
        "{l2_misses:.2f} L2 misses".format(**total),
        "",
        f"{'L2 misses':>9}  {'L1d misses':>10}  {'instructions':>12}  source file",
    ]
    rest = dict.fromkeys(FIGURES, 0.0)
    for name, f in by_file(lines):
        if abs(f["l2_misses"]) < 0.005:
            rest = {k: rest[k] + f[k] for k in FIGURES}
            continue
        out.append(f"{f['l2_misses']:9.2f}  {f['l1d_misses']:10.2f}  {f['instructions']:12.0f}  {name}")
    if abs(rest["instructions"]) >= 0.5:
        out.append(f"{rest['l2_misses']:9.2f}  {rest['l1d_misses']:10.2f}  {rest['instructions']:12.0f}  (other files)")
    out += ["", f"{'L2 misses':>9}  {'L1d misses':>10}  {'instructions':>12}  function"]
    for name, f in by_function(lines)[:top]:
        out.append(f"{f['l2_misses']:9.2f}  {f['l1d_misses']:10.2f}  {f['instructions']:12.0f}  {name}")
    out += ["", f"{'L2 misses':>9}  line (function): source"]
    for (fl, fn, number), f in top_lines(lines, top):
        if f["l2_misses"] < 0.005:
            break
        text = line_text(fl, number)[:70]
        out.append(f"{f['l2_misses']:9.2f}  {source_name(fl)}:{number} ({function_name(fn)}): {text}")
    return "\n".join(out)


def scale_row_config(spec: str, load: float) -> dict:
    """The config of `hpcnetsim bench --scale`'s row for `spec` at `load` (fraction of capacity)."""
    from hpcnetsim.bench import SCALE_LOADS, scale_rows

    rows = scale_rows()
    specs = sorted({r["spec"] for r in rows})
    if spec not in specs:
        raise UsageError(f"--spec: {spec!r} is not a row of bench --scale (allowed: {', '.join(specs)})")
    match = [r for r in rows if r["spec"] == spec and abs(r["load_fraction"] - load) < 1e-9]
    if not match:
        loads = ", ".join(str(x) for x in SCALE_LOADS)
        raise UsageError(f"--load: {load} is not a load of bench --scale's row {spec} (allowed: {loads})")
    return match[0]["config"]


def file_config(path: str) -> dict:
    """A config file's contents, to run with other warm-ups."""
    import tomllib

    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise UsageError(f"--config: cannot read {path!r}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"--config: {path!r} is not valid TOML: {e}") from None


def parse_warmups(text: str) -> tuple[int, int]:
    """`--warmups A,B`: two warm-ups in cycles, 0 < A < B."""
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise UsageError(f"--warmups: {text!r} is not two cycle counts A,B (such as 300,500)") from None
    if not 0 < a < b:
        raise UsageError(f"--warmups: {text!r} must be two cycle counts with 0 < A < B")
    return a, b


def parse_cache(flag: str, text: str) -> str:
    """`--l1`/`--l2`: SIZE,WAYS,LINE in bytes, ways and bytes, as valgrind takes them."""
    parts = text.split(",")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise UsageError(f"{flag}: {text!r} is not SIZE,WAYS,LINE (positive integers, such as {L2})")
    return text


def build(binary: Path) -> None:
    """Builds the `simulate` example with line tables (the `profiling` profile)."""
    if binary != SIMULATE:
        return
    cmd = ["cargo", "build", "--quiet", "--profile", "profiling", "-p", "hpcnetsim-core", "--example", "simulate"]
    subprocess.run(cmd, cwd=ROOT, check=True)


def run_cachegrind(binary: Path, config: dict, warmups, l1: str, l2: str, workdir: Path):
    """Runs the warm-ups side by side under cachegrind; returns (profile, packet-hops) of each."""
    from hpcnetsim.canonical import to_toml

    env = {**os.environ, "HPCNETSIM_COUNTERS": "1", "HPCNETSIM_THREADS": "1"}
    procs = []
    for w in warmups:
        cfg = {**config, "measurement": {**config.get("measurement", {}), "warmup_cycles": w}}
        path = workdir / f"warmup-{w}.toml"
        path.write_text(to_toml(cfg))
        out = workdir / f"cachegrind-{w}.out"
        cmd = [
            "valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--D1={l1}", f"--LL={l2}",
            f"--cachegrind-out-file={out}", str(binary), str(path),
        ]  # fmt: skip
        log = open(workdir / f"valgrind-{w}.log", "w")
        procs.append((w, out, log, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=log, text=True)))
    # Both runs end before either is judged, so a failure leaves no valgrind running.
    finished = []
    for w, out, log, p in procs:
        stdout, _ = p.communicate()
        log.close()
        finished.append((w, out, p.returncode, stdout))
    results = []
    for w, out, code, stdout in finished:
        if code != 0:
            log_lines = (workdir / f"valgrind-{w}.log").read_text().strip().splitlines()
            last = log_lines[-1] if log_lines else "no output"
            raise RuntimeError(f"cachegrind of the {w}-cycle warm-up failed (exit code {code}): {last}")
        results.append((read_cachegrind(out), packet_hops(stdout)))
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--spec", default="tree:k=4,kp=4,n=7", help="a row of bench --scale (default %(default)s)")
    what.add_argument("--config", help="a config file to run instead (its warm-up is replaced)")
    ap.add_argument("--load", type=float, default=0.4, help="the row's load, fraction of capacity (default 0.4)")
    ap.add_argument("--warmups", default="300,500", help="short and long warm-up in cycles (default 300,500)")
    ap.add_argument("--l1", default=L1, help=f"L1d cache SIZE,WAYS,LINE (default {L1})")
    ap.add_argument("--l2", default=L2, help=f"last-level cache simulated, SIZE,WAYS,LINE (default {L2})")
    ap.add_argument("--top", type=int, default=20, help="source lines to list (default 20)")
    ap.add_argument("--binary", type=Path, default=SIMULATE, help="a simulate example built with line tables")
    ap.add_argument("--json", type=Path, help="also write the per-line figures here")
    ap.add_argument("--keep", type=Path, help="keep the configs and cachegrind files in this directory")
    args = ap.parse_args(argv)
    try:
        warmups = parse_warmups(args.warmups)
        l1, l2 = parse_cache("--l1", args.l1), parse_cache("--l2", args.l2)
        if args.top < 0:
            raise UsageError(f"--top: {args.top} is negative (allowed: 0 or more)")
        config = file_config(args.config) if args.config else scale_row_config(args.spec, args.load)
        if shutil.which("valgrind") is None:
            raise UsageError("valgrind: not found on PATH (install it, e.g. apt install valgrind)")
        if args.binary != SIMULATE and not args.binary.is_file():
            raise UsageError(f"--binary: {str(args.binary)!r} is not a file")
    except UsageError as e:
        print(f"cache_profile: {e}", file=sys.stderr)
        return 2
    try:
        build(args.binary)
        with tempfile.TemporaryDirectory() as tmp:
            workdir = args.keep or Path(tmp)
            workdir.mkdir(parents=True, exist_ok=True)
            (short, hops_a), (long, hops_b) = run_cachegrind(args.binary, config, warmups, l1, l2, workdir)
        lines = per_hop(short, long, hops_b - hops_a)
    except (RuntimeError, ValueError, OSError, subprocess.CalledProcessError) as e:
        print(f"cache_profile: {e}", file=sys.stderr)
        return 1
    print(report(lines, hops_b - hops_a, args.top))
    if args.json:
        rows = [
            {"file": source_name(fl), "function": fn, "line": n, **f}
            for (fl, fn, n), f in sorted(lines.items(), key=lambda kv: -kv[1]["l2_misses"])
            if any(f.values())
        ]
        args.json.write_text(json.dumps({"packet_hops": hops_b - hops_a, "lines": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
