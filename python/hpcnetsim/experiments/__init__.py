"""The experiment layer: experiment files, their expansion into points, sweeps, the result store and its executors (docs/experiments.md)."""
