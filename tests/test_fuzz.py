"""Bounded fuzzing of the experiment parser: mutated experiment files load or fail with
a one-line ConfigError, never another exception (PYTHON fuzz seed fixed, 200 cases)."""

import random
from pathlib import Path

import pytest

from hpcnetsim import ConfigError
from hpcnetsim.experiments import experiment

SMALL = (Path(__file__).parent / "data" / "small_sweep.toml").read_text()
PIECES = ["=", "[", "]", "{", "}", '"', ",", "0", "-1", "1e999", "=9**9**9", "=ideal*", "axes.", "[[sweep]]",
          "\n", "nan", "true", "points = 3", "axes.traffic.load = []", "x" * 40]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_mutated_experiment_files_load_or_fail_in_one_line(tmp_path, seed):
    rng = random.Random(seed)
    for case in range(50):
        text = list(SMALL)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(text))
            if rng.random() < 0.5:
                del text[i : i + rng.randint(1, 8)]
            else:
                text.insert(i, rng.choice(PIECES))
        f = tmp_path / f"e{case}.toml"
        f.write_text("".join(text))
        try:
            experiment.load(f, quick=rng.random() < 0.5)
        except ConfigError as e:
            assert "\n" not in str(e).strip(), str(e)
