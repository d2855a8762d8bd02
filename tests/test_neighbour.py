"""The cache-polluting neighbour of ``bench --scale --neighbour`` runs while asked and stops."""

import subprocess
import sys
import time

from hpcnetsim.neighbour import Neighbour


def test_the_neighbour_runs_and_stops():
    n = Neighbour(nbytes=1 << 24)
    with n:
        time.sleep(0.5)
        assert n.alive
    assert not n.alive


def test_neighbour_needs_scale():
    p = subprocess.run([sys.executable, "-m", "hpcnetsim", "bench", "--neighbour"], capture_output=True, text=True)
    assert p.returncode == 2 and "--neighbour is invalid without --scale" in p.stderr
