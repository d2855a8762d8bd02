"""Concurrent jobs from the command line: one line per job, overlapping jobs refused in one line."""

JOBS = """topology = "torus:4x4"
[switch]
vcs = 2
[[workload.jobs]]
kernel = "alltoall"
tasks = 8
message_bytes = 1024
[[workload.jobs]]
kernel = "allreduce"
tasks = 8
placement = "{placement}"
"""


def test_run_reports_every_job(cli, tmp_path):
    cfg = tmp_path / "jobs.toml"
    cfg.write_text(JOBS.format(placement="random"))
    r = cli("run", str(cfg))
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if line.startswith("job ")]
    assert len(lines) == 2 and "alltoall on 8 tasks" in lines[0] and "cycles" in lines[1], r.stdout


def test_overlapping_jobs_are_one_line_errors(cli, tmp_path):
    cfg = tmp_path / "jobs.toml"
    cfg.write_text(JOBS.format(placement="linear"))
    r = cli("run", str(cfg))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "workload.jobs[1].placement" in r.stderr, r.stderr


def test_a_job_without_free_terminals_names_its_field_and_the_file(cli, tmp_path):
    cfg = tmp_path / "jobs.toml"
    cfg.write_text(JOBS.format(placement="random").replace("tasks = 8\nmessage_bytes", "tasks = 16\nmessage_bytes"))
    r = cli("run", str(cfg))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(
        f"error: {cfg}: config: workload.jobs[1].tasks = 8 is invalid: at most 0 (0 of the 16 terminals left by "
        "the jobs before it × 1 task per terminal)"
    ), r.stderr


def test_set_reaches_a_job_by_its_index(cli, tmp_path):
    # --set workload.jobs[1].FIELD=VALUE changes that job's field; a missing job or a whole
    # entry is one line naming the override.
    cfg = tmp_path / "jobs.toml"
    cfg.write_text(JOBS.format(placement="random"))
    r = cli("run", str(cfg), "--set", "workload.jobs[1].tasks=4", "workload.jobs[0].kernel=bt")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if line.startswith("job ")]
    assert "bt on 8 tasks" in lines[0] and "allreduce on 4 tasks" in lines[1], r.stdout
    for setting, needle in (
        ("workload.jobs[2].tasks=4", "index 2 of workload.jobs; allowed: an index in 0..1"),
        ("workload.jobs[0]=4", "an entry is a table; set one of its fields (workload.jobs[0].tasks=8)"),
    ):
        r = cli("run", str(cfg), "--set", setting)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert f"override '{setting}' is invalid: {needle}" in r.stderr, r.stderr


def test_the_jobs_column_of_the_csv_files_is_json(cli, tmp_path):
    # result.csv and repetitions.csv held the Python repr of the jobs
    # ("[{'kernel': 'alltoall', ...}]"), which no other tool parses.
    import csv
    import json

    cfg = tmp_path / "jobs.toml"
    cfg.write_text(JOBS.format(placement="random"))
    r = cli("run", str(cfg), "--out", str(tmp_path / "one"))
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "one" / "result.csv", newline="") as f:
        row = next(csv.DictReader(f))
    jobs = json.loads((tmp_path / "one" / "result.json").read_text())["result"]["jobs"]
    assert [j["kernel"] for j in jobs] == ["alltoall", "allreduce"]
    assert json.loads(row["jobs"]) == jobs
    r = cli("run", str(cfg), "--repetitions", "2", "--out", str(tmp_path / "two"))
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "two" / "repetitions.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    results = json.loads((tmp_path / "two" / "repetitions.json").read_text())["results"]
    assert [json.loads(x["jobs"]) for x in rows] == [x["jobs"] for x in results]
