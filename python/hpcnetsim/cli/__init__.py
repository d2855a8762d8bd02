"""The ``hpcnetsim`` command: one module per sub-command, each adding its parser with
``add_parser(sub)`` and running it from the function it sets as ``func``.

Every user error (bad spec, bad config, bad flag, unwritable output) prints one line to stderr
and exits with status 2; nothing is left half-written.
"""

from __future__ import annotations

import argparse
import sys

from .._core import ConfigError
from . import bench, bench_net, config, flow, report, route, run, study, sweep, topo, trace, validate
from .arguments import Parser, UsageError

#: The sub-commands in the order ``hpcnetsim --help`` lists them.
COMMANDS = (topo, route, run, config, bench, bench_net, sweep, study, flow, validate, trace, report)


def one_line(message: str) -> str:
    """``message`` on one line: control characters that it echoes from the input (a newline
    inside an argument or a spec) are shown escaped, as ``\\n``."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message.strip())


def build_parser() -> argparse.ArgumentParser:
    from .._core import BUILD_ID, __version__

    p = Parser(prog="hpcnetsim", description="Model, simulate and evaluate supercomputer networks.")
    p.add_argument("--version", action="version", version=f"hpcnetsim {__version__} (build {BUILD_ID})")
    p.add_argument("--no-memory-check", action="store_true",
                   help="build networks even when the memory estimate exceeds what this process may use")  # fmt: skip
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return p


class _Stdout:
    """Standard output that outlives its reader (``hpcnetsim run ... | head -1``, a closed
    terminal): once a write or flush meets a closed pipe, the rest goes to the null device, so
    the command still writes its files and returns its status instead of stopping half-way."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop()

    def _drop(self) -> None:
        import os

        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, self._stream.fileno())
        os.close(null)
        self._stream.flush()  # what was buffered now goes to the null device

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a batch scheduler's time limit): the command stops as on Ctrl-C, with
    the same message and what it keeps (a sweep's finished points, its workers stopped), and
    exits with 143, the shell's status for a process ended by SIGTERM."""


def _terminate(signum, frame) -> None:
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    import signal

    stdout = sys.stdout
    sys.stdout = _Stdout(stdout)
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # called from another thread than the main one: leave signals alone
        previous = None
    try:
        return _main(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        sys.stdout.flush()
        sys.stdout = stdout


def _main(argv: list[str] | None) -> int:
    args = None
    try:
        args = build_parser().parse_args(argv)
        if args.no_memory_check:
            import os

            from .._core import set_memory_check

            set_memory_check(False)
            os.environ["HPCNETSIM_NO_MEMORY_CHECK"] = "1"  # sweep workers inherit it
        status = args.func(args)
    except (UsageError, ConfigError) as e:
        print(f"error: {one_line(str(e))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except MemoryError:
        # Past the estimate made before building (resources::check): a step it does not count
        # (describing a topology's cost and layout holds every link as a Python object).
        print("error: out of memory: this process's memory limit was reached past the estimate made "
              "before building; use a smaller network or raise the limit (ulimit -v, cgroup memory.max)",
              file=sys.stderr)  # fmt: skip
        return 2
    except OSError as e:
        print(f"error: {one_line(str(e.filename or ''))}: {e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        if getattr(args, "command", None) in ("sweep", "study"):
            print("interrupted (finished points are kept in the store: run again to resume)", file=sys.stderr)
        else:
            print("interrupted: nothing written", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130
    return status or 0
