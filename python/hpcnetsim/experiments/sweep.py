"""Run an experiment: skip the points already in the store, run the rest, store each as it completes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import store
from .._core import __version__
from .._files import atomic_write_text, check_output_folder
from ..canonical import to_toml
from ..config import to_json
from .experiment import Experiment
from .worker import SKIPPED

EXPERIMENT_FILE = "experiment.json"
#: Statuses of points that ran but give no (complete) answer: listed after a sweep and in reports.
TROUBLED = ("not-converged", "deadlock", "partial")


@dataclass
class Summary:
    """What one run of a sweep did."""

    total: int
    stored_before: int
    ran: int
    failed: list[tuple[str, str]]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Points run by this sweep, by how they ended (converged, not-converged, deadlock, ...).
    statuses: dict[str, int] = field(default_factory=dict)
    #: Points not converged or deadlocked: (key, status, message).
    troubled: list[tuple[str, str, str]] = field(default_factory=list)


def _base_toml(base: dict) -> str:
    """The base config as TOML for the report ("" when it cannot be written as TOML)."""
    from .._core import ConfigError

    try:
        return to_toml(base) if base else ""
    except ConfigError:
        return ""


def write_experiment(exp: Experiment, out: Path) -> Path:
    """Record the expanded experiment next to its store, for ``hpcnetsim report``."""
    doc = {
        "name": exp.name, "title": exp.title, "description": exp.description, "quick": exp.quick,
        "repetitions": exp.repetitions,
        "hpcnetsim_version": __version__, "base_toml": _base_toml(exp.base),
        "base": exp.base, "report": exp.report, "source_text": exp.text,
        "points": [asdict(p) for p in exp.points],
    }  # fmt: skip
    path = Path(out) / EXPERIMENT_FILE
    atomic_write_text(path, json.dumps(doc, indent=1) + "\n")
    return path


#: Keys of an experiment record that ``hpcnetsim report`` needs, and those of each point.
RECORD_KEYS = ("name", "title", "points")
POINT_KEYS = ("key", "group", "config", "values")


def read_experiment(out: Path) -> dict:
    """The experiment record of an output folder, as :func:`write_experiment` wrote it: a file
    that is not JSON or lacks what a report needs is a one-line ``ConfigError`` naming it."""
    from .._core import ConfigError
    from .._files import read_text_file

    path = Path(out) / EXPERIMENT_FILE
    what = "the experiment record written by hpcnetsim sweep"
    redo = "run the sweep again to rewrite it"
    try:
        doc = json.loads(read_text_file(path, what, limit=None))  # large sweeps: tens of MB
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: not JSON ({e.msg}, line {e.lineno}): {what}; {redo}") from None
    problem = None
    if not isinstance(doc, dict):
        problem = f"a JSON {type(doc).__name__}, not an object"
    elif any(k not in doc for k in RECORD_KEYS):
        problem = ", ".join(k for k in RECORD_KEYS if k not in doc) + " missing"
    elif not isinstance(doc["points"], list):
        problem = "points is not a list"
    else:
        problem = _wrong_type(doc)
        for i, p in enumerate(doc["points"]):
            if problem is not None:
                break
            if not isinstance(p, dict) or any(k not in p for k in POINT_KEYS):
                problem = f"points[{i}] is not a point with {', '.join(POINT_KEYS)}"
                break
            if not isinstance(p["config"], dict) or not isinstance(p["config"].get("topology"), str) \
                    or not isinstance(p["values"], dict):  # fmt: skip
                problem = f"points[{i}] has no config with a topology, or no values table"
                break
            problem = _wrong_type(p, f"points[{i}].", ("group", "key"))
    if problem is not None:
        raise ConfigError(f"{path}: {problem}: {what}; {redo}")
    return doc


#: Fields of an experiment record that are text when present, and the others' kinds: a
#: record edited by hand with another type ended the report in a traceback.
TEXT_KEYS = ("name", "title", "description", "hpcnetsim_version", "base_toml", "source_text")


def _wrong_type(doc: dict, where: str = "", text: tuple[str, ...] = TEXT_KEYS) -> str | None:
    """The first field of ``doc`` (a record, or one of its points) of the wrong type, said as
    ``field = value is invalid: what``; None when every present field has its type."""
    checks = [(k, lambda v: isinstance(v, str), "text") for k in text]
    if not where:
        checks += [("repetitions", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
                    "an integer of at least 1"),
                   ("report", lambda v: isinstance(v, dict), "a table"),
                   ("quick", lambda v: isinstance(v, bool), "true or false")]  # fmt: skip
    for key, ok, what in checks:
        if key in doc and not ok(doc[key]):
            return f"{where}{key} = {json.dumps(doc[key])} is invalid: {what}"
    return None


def check_same_experiment(exp: Experiment, out: str | Path) -> None:
    """Refuses an output folder that holds another experiment's results (its ``experiment.json``
    names another experiment): the sweep would replace that record, so its report would lose
    the earlier points while the store mixed both. A record that cannot be read says nothing
    and is rewritten, as before."""
    from .._core import ConfigError

    try:
        old = json.loads((Path(out) / EXPERIMENT_FILE).read_text())
    except (OSError, ValueError):
        return
    name = old.get("name") if isinstance(old, dict) else None
    if isinstance(name, str) and name != exp.name:
        raise ConfigError(f"--out = {out} is invalid: it holds the results of experiment {name!r}, not {exp.name!r} "
                          f"({EXPERIMENT_FILE}): choose another folder, or remove this one to start again")  # fmt: skip
    # The full and the --quick variant of one experiment are two records too (their default
    # folders differ): either would replace the other's, whose points would leave its report.
    quick = old.get("quick") if isinstance(old, dict) else None
    if isinstance(quick, bool) and quick != exp.quick:
        variant = {True: "--quick variant", False: "full variant"}
        raise ConfigError(f"--out = {out} is invalid: it holds the results of the {variant[quick]} of experiment "
                          f"{name!r}, not of its {variant[exp.quick]} ({EXPERIMENT_FILE}): choose another folder "
                          f"(default: results/{exp.name}{'-quick' if exp.quick else ''})")  # fmt: skip


def run_sweep(
    exp: Experiment,
    out: str | Path,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    on_point: Callable[[str, str | None], None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> Summary:
    """Run every point of ``exp`` not yet stored under ``out``; local processes unless ``scheduler``.
    ``on_start`` is called once the scheduler answered and the folder is locked, before any point
    runs (the CLI prints its header line there, so that a refusal is the only line)."""
    from .executors import connect

    out = Path(out)
    client = connect(scheduler) if scheduler else None  # before writing anything: the address may be wrong
    try:
        with store.SweepLock(out):
            # Else a store that cannot be written (a file in its place, no permission) is found
            # when the first point has run, and its result is lost.
            check_output_folder(out / store.STORE_DIR)
            check_same_experiment(exp, out)
            # Read before anything is printed or written: a damaged store is the only line.
            done = store.finished(out) if (out / store.STORE_DIR).is_dir() else set()
            if on_start is not None:
                on_start()
            return _run(exp, out, jobs, client, progress, on_point, done)
    finally:
        if client is not None:
            client.close()


def _run(exp: Experiment, out: Path, jobs, client, progress: bool, on_point, done: set[str]) -> Summary:
    from .executors import run_dask, run_local

    write_experiment(exp, out)
    todo = [p for p in exp.points if p.key not in done]
    before = len(exp.points) - len(todo)
    by_key = {p.key: p for p in todo}
    tasks = [(p.key, to_json(p.config)) for p in todo]
    outcomes = run_dask(tasks, client) if client is not None else run_local(tasks, jobs)
    failed: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    statuses: dict[str, int] = {}
    troubled: list[tuple[str, str, str]] = []
    bar = _bar(exp, before, progress)
    written = 0
    try:
        for key, result_json, error in outcomes:
            result = None if result_json is None else json.loads(result_json)
            store.write(out, store.record(key, by_key[key].config, result, error))
            written += 1
            if written % store.COMPACT_EVERY == 0:
                store.compact(out)
            status = "failed" if error is not None else result.get("status", "?")
            statuses[status] = statuses.get(status, 0) + 1
            if error is not None:
                failed.append((key, error))
            elif status == SKIPPED:
                skipped.append((key, result.get("message", "")))
            elif status in TROUBLED:
                troubled.append((key, status, result.get("message", "")))
            if bar is not None:
                bar.set_postfix(failed=len(failed), refresh=False)
                bar.update()
            if on_point is not None:
                on_point(key, error)
    finally:
        outcomes.close()  # stops the executor now, not when the generator is collected
        if bar is not None:
            bar.close()
        store.compact(out)
    # Points finish in whatever order the workers take: listed in the experiment's order, the
    # failures read the same on one process, several or a Dask cluster.
    order = {key: i for i, key in enumerate(by_key)}
    for listed in (failed, skipped, troubled):
        listed.sort(key=lambda item: order[item[0]])
    return Summary(len(exp.points), before, len(todo), failed, skipped, statuses, troubled)


def _bar(exp: Experiment, before: int, progress: bool):
    """A tqdm bar: done/total, failures and ETA; none when asked for none or not on a terminal."""
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=len(exp.points), initial=before, desc=exp.name, unit="point", file=sys.stderr,
                disable=None, dynamic_ncols=True, postfix={"failed": 0})  # fmt: skip
