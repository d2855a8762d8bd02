"""Shared helpers of the Python tests."""

import subprocess
import sys

import pytest


@pytest.fixture
def cli():
    """Run ``hpcnetsim ARGS...`` in a subprocess; returns the CompletedProcess."""

    def run(*args, cwd=None):
        return subprocess.run(
            [sys.executable, "-m", "hpcnetsim", *args], capture_output=True, text=True, cwd=cwd, timeout=300
        )

    return run


def pytest_configure(config):
    config.addinivalue_line("markers", "bench: runs the simulator benchmarks (bench --quick, under 30 s)")
