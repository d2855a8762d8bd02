"""Executors: run (key, config JSON) tasks and yield (key, result JSON, error) as they complete.

Both run the same task on the same canonical config, so a point's result does not depend on
the executor (its seed is part of the config).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed, wait

from .. import _core
from ..cores import default_jobs
from .worker import run_point, share_cores

Task = tuple[str, str]
Outcome = tuple[str, str | None, str | None]


def exit_with_parent(parent: int) -> None:
    """In a worker: end this process when the sweep that started it is gone (even by kill -9),
    instead of finishing a simulation nobody will store. Ctrl-C is the sweep's to handle (it
    stops the workers): a worker ignores the SIGINT a terminal sends its whole process group,
    which would otherwise print a traceback per worker."""
    import signal
    import threading
    import time

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Started with SIGINT blocked (see _run_pool): a Ctrl-C that came meanwhile is dropped now.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def start_worker(parent: int, cores, track: str) -> None:
    """A local sweep's worker: ends with its parent, reads the cores each point may use, and
    notes in the folder ``track`` which point it runs."""
    global _track
    exit_with_parent(parent)
    share_cores(cores)
    _track = track


#: In a local sweep's worker, the folder where it notes the key of the point it runs (a file
#: named by its process id), so that the sweep knows which points a dead worker was running.
_track: str | None = None


def run_tracked(key: str, config: str) -> tuple[str | None, str | None]:
    """:func:`run_point`, with the point's key noted in the worker's file while it runs."""
    note = os.path.join(_track, str(os.getpid())) if _track else None
    if note:
        with open(note, "w") as f:
            f.write(key)
    result = run_point(config)
    if note:
        os.remove(note)
    return result


def cores_per_point(jobs: int, unfinished: int) -> int:
    """The cores each running point may use: one while the points outnumber the workers, then
    the cores the finished workers leave idle, shared among the points still running."""
    return max(1, jobs // max(1, min(jobs, unfinished)))


def run_local(tasks: list[Task], jobs: int | None = None) -> Iterator[Outcome]:
    """Run the tasks in ``jobs`` worker processes (default: all cores). Each point starts on one
    thread; when fewer points remain than ``jobs``, the running ones are handed the idle cores
    and may move to the parallel engine (their results do not depend on it).

    A worker process that dies (killed by the system for lack of memory, a crash) breaks the
    pool: the points it did not reach run again in a new pool, and each point that was running
    then runs again alone, so only a point that kills its own process is recorded as failed."""
    if not tasks:
        return
    import tempfile

    jobs = jobs or default_jobs()
    with tempfile.TemporaryDirectory(prefix="hpcnetsim-sweep-") as track:
        queue = list(tasks)
        while queue:
            broken = yield from _run_pool(queue, jobs, track)
            if broken is None:
                return
            unfinished, running, _ = broken
            for task in (t for t in unfinished if t[0] in running):
                again = yield from _run_pool([task], 1, track)
                if again is not None:
                    yield task[0], None, (f"WorkerDied: the worker process running this point died ({again[2]}); "
                                          f"on Linux a process killed for lack of memory ends with signal 9")  # fmt: skip
            queue = [t for t in unfinished if t[0] not in running]


def _run_pool(tasks: list[Task], jobs: int, track: str):
    """Run ``tasks`` in one pool of ``jobs`` processes, yielding their outcomes. Returns None,
    or, when a worker process died, (the tasks without an outcome, the keys of those that were
    running, how the dead process ended)."""
    from concurrent.futures.process import BrokenProcessPool

    import signal

    # spawn, not fork: the parent may already run the core's thread pool, which fork would not copy.
    ctx = multiprocessing.get_context("spawn")
    cores = ctx.Value("i", cores_per_point(jobs, len(tasks)), lock=False)
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=ctx,
                               initializer=start_worker, initargs=(os.getpid(), cores, track))  # fmt: skip
    futures: dict = {}
    workers: list = []
    try:
        # The workers start (submit spawns them) with SIGINT blocked, which they inherit: a
        # terminal's Ctrl-C reaches the whole process group, and a worker still importing would
        # print a KeyboardInterrupt traceback. Each unblocks it once it ignores it; here, a
        # Ctrl-C of these few milliseconds is delivered when unblocked below.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            futures = {pool.submit(run_tracked, key, config): (key, config) for key, config in tasks}
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        workers = list((getattr(pool, "_processes", None) or {}).values())
        unfinished = len(futures)
        seen = set()
        for f in as_completed(futures):
            unfinished -= 1
            seen.add(f)
            # An int of the machine's word is written and read whole: no lock needed.
            cores.value = cores_per_point(jobs, unfinished)
            try:
                result, error = f.result()
            except BrokenProcessPool:
                wait(futures)  # the pool fails every point it had not finished
                left = []
                for g, task in futures.items():
                    if isinstance(g.exception(), BrokenProcessPool):
                        left.append(task)
                    elif g not in seen:  # finished before the pool broke, not yet handed on
                        try:
                            yield (task[0], *g.result())
                        except Exception as e:  # noqa: BLE001 - as below
                            yield task[0], None, f"{type(e).__name__}: {e}"
                running = set()
                for w in workers:
                    note = os.path.join(track, str(w.pid))
                    if os.path.exists(note):
                        with open(note) as n:
                            running.add(n.read())
                        os.remove(note)
                dead = [w.exitcode for w in workers if w.exitcode not in (None, 0, -15)]
                how = f"exit code {dead[0]}" if dead else "it ended abruptly"
                if dead and dead[0] < 0:
                    how = f"ended by signal {-dead[0]}"
                return left, running, how
            except Exception as e:  # noqa: BLE001 - e.g. a result that cannot be unpickled
                result, error = None, f"{type(e).__name__}: {e}"
            yield futures[f][0], result, error
        return None
    finally:
        # Stopped early (Ctrl-C, an error while storing): the queue is cancelled and running
        # points are killed, since nobody will store them; without this, the interpreter
        # would wait at exit for every running point to finish.
        stopped = any(not f.done() for f in futures)
        pool.shutdown(wait=False, cancel_futures=True)
        if stopped:
            _stop(workers)


def _stop(workers: list) -> None:
    """Terminates worker processes and waits (briefly) until they are gone."""
    import time

    for w in workers:
        if w.is_alive():
            w.terminate()
    deadline = time.monotonic() + 1.0
    for w in workers:
        w.join(max(0.0, deadline - time.monotonic()))
        if w.is_alive():
            w.kill()


#: Seconds to wait for a Dask scheduler before reporting its address as wrong.
CONNECT_TIMEOUT = 5


def check_address(scheduler: str) -> None:
    """Refuses, in one line and before Dask is imported, an address that cannot name a
    scheduler (``garbage``): ``[tcp|tls|ws|wss|ucx://]HOST:PORT``."""
    import re

    from .._core import ConfigError

    m = re.fullmatch(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})", scheduler)
    if m is None or not 1 <= int(m.group(2)) <= 65535:
        raise ConfigError(f"--scheduler = {scheduler!r} is invalid: a Dask scheduler address tcp://HOST:PORT "
                          f"(port 1 to 65535)")  # fmt: skip


def connect(scheduler: str):
    """A Dask client of the scheduler at ``scheduler`` (tcp://HOST:PORT); a one-line error if unreachable."""
    from distributed import Client

    from .._core import ConfigError

    check_address(scheduler)
    try:
        # A wrong address fails within seconds, not after Dask's default 30-60 s.
        return Client(scheduler, set_as_default=False, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise ConfigError(
            f"--scheduler = {scheduler!r} is invalid: no Dask scheduler reachable there ({e})"
        ) from None


def run_dask(tasks: list[Task], client) -> Iterator[Outcome]:
    """Run the tasks on the cluster of the Dask ``client`` (see :func:`connect`)."""
    from distributed import as_completed as dask_completed

    # Local workers inherit --no-memory-check through the environment; Dask workers do not.
    check = _core.memory_check_enabled()
    futures = [
        client.submit(run_point, config, check, key=f"hpcnetsim-{key}", pure=False) for key, config in tasks
    ]
    try:
        for f in dask_completed(futures, loop=client.loop):
            if f.status == "error":  # e.g. KilledWorker after repeated worker deaths
                e = f.exception()
                result, error = None, f"{type(e).__name__}: {e}"
            else:
                result, error = f.result()
            yield f.key.removeprefix("hpcnetsim-"), result, error
            f.release()
    finally:
        client.cancel([f for f in futures if not f.done()])
