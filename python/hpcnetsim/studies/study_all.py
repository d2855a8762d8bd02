"""``hpcnetsim study run all``: every built-in study in turn, each in its own folder under one
output folder, then ``index.html`` there, linking every report with its published-vs-ours
summary. A study that fails does not stop the others; the command then exits 1 and says how
many failed."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

from ..reports.landing import Entry, write_index
from .catalog import available, title


def summary_of(folder: Path) -> str:
    """A study folder's published-vs-ours summary as Markdown ("" if it has none)."""
    if (folder / "summary.md").exists():  # benchmark studies of paper 004
        return (folder / "summary.md").read_text()
    if (folder / "experiment.json").exists():
        from .validation import tables

        return tables(folder)
    if (folder / "report.md").exists():  # the static-routing benchmarks of paper 001
        # Its tables up to the first figure, without the title and description.
        text = (folder / "report.md").read_text().split("\n![", 1)[0]
        sections = text.split("\n## ")[1:]
        return "\n".join("#### " + section for section in sections)
    return ""


def in_demo(path: Path) -> bool:
    """Whether ``study run all`` runs the study: its file does not say ``demo = false`` (a study
    whose quick variant alone takes minutes, such as ``procurement``)."""
    import tomllib

    try:
        return tomllib.loads(path.read_text()).get("demo", True) is not False
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return True


def _report_name(folder: Path) -> str | None:
    for name in ("report.html", "report.md"):
        if (folder / name).exists():
            return name
    return None


def run_all(args: argparse.Namespace, run_one: Callable[[argparse.Namespace], int]) -> int:
    """Runs every built-in study with the options of ``args`` (``args.out``: the root, default
    ``results``), writes the landing page and returns the exit code (1 if any study failed)."""
    from .._files import check_output_folder

    root = Path(args.out or "results")
    check_output_folder(root)  # a file there is a one-line error naming --out, before any study runs
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, path in available().items():
        if not in_demo(path):
            print(f"== study {name}: left out (demo = false in its file; run it alone)", flush=True)
            continue
        folder = root / (name + ("-quick" if args.quick else ""))
        one = argparse.Namespace(**{**vars(args), "name": name, "out": folder})
        print(f"== study {name}", flush=True)
        start = time.monotonic()
        error = None
        try:
            code = run_one(one)
            if code:
                error = f"exit code {code} (see its output above)"
        except (ValueError, OSError, RuntimeError) as e:
            error = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"study {name} failed: {error}", file=sys.stderr)
        seconds = time.monotonic() - start
        summary = ""
        if folder.exists():
            try:
                summary = summary_of(folder)
            except (ValueError, OSError, KeyError) as e:
                summary = f"(no summary: {e})"
        entries.append(Entry(name, title(path), folder, _report_name(folder) if folder.exists() else None,
                             summary, error, seconds))  # fmt: skip
    index = write_index(entries, root)
    failed = [e.name for e in entries if e.error]
    print(f"wrote {index}")
    if failed:
        print(f"{len(failed)} of {len(entries)} studies failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0
