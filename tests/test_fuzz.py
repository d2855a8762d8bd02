"""Bounded fuzzing inside `make test`: 50 generated cases of every input parser (fixed seed)
keep the contract of tests/fuzzing.py (`make fuzz` runs 1000), and the harness reports the
three ways of breaking it: a traceback, an abort, a hang."""

from fuzzing import TARGETS, _has, fuzz


def test_every_parser_keeps_the_contract_on_generated_inputs():
    summary = fuzz(list(TARGETS), cases=50, seed=2026, case_seconds=30, memory=2 << 30)
    assert summary.findings == [], summary.text()
    for name, target in TARGETS.items():
        if target.needs is None or _has(target.needs):
            assert summary.cases[name] >= 45, (name, summary.cases)


def test_the_harness_reports_tracebacks_aborts_and_hangs():
    summary = fuzz(["traceback", "abort", "hang"], cases=6, seed=1, case_seconds=1, memory=2 << 30)
    kinds = {(f["target"], f["kind"]) for f in summary.findings}
    assert kinds == {("traceback", "exception"), ("abort", "crash"), ("hang", "hang")}, summary.text()
    crash = next(f for f in summary.findings if f["kind"] == "crash")
    assert crash["input"] == "3" and "-6" in crash["error"], crash  # SIGABRT, and the input that caused it
    # After a crash or a hang, a new child goes on with the cases left.
    assert summary.cases == {"traceback": 6, "abort": 6, "hang": 6}, summary.cases
