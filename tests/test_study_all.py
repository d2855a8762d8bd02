"""``hpcnetsim study run all``: every built-in study in its folder, a landing page linking each
report with its published-vs-ours summary, and a non-zero exit that counts the failed ones."""

import shutil
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent / "data"


def _run(studies: Path, out: Path):
    env = {**__import__("os").environ, "HPCNETSIM_STUDIES": str(studies)}
    return subprocess.run([sys.executable, "-m", "hpcnetsim", "study", "run", "all", "--quick", "--out", str(out),
                           "--no-progress"], capture_output=True, text=True, env=env, timeout=300)  # fmt: skip


def test_every_study_runs_and_the_landing_page_links_their_reports(tmp_path):
    studies = tmp_path / "studies"
    studies.mkdir()
    shutil.copy(DATA / "small_sweep.toml", studies / "small.toml")
    (studies / "broken.toml").write_text('name = "broken"\n[base]\ntopology = "torus:0x4"\n[[sweep]]\nname = "a"\n'
                                         'axes.traffic.load = [0.1]\n')  # fmt: skip
    out = tmp_path / "results"
    r = _run(studies, out)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 of 2 studies failed: broken" in r.stderr
    assert "Traceback" not in r.stderr
    index = (out / "index.html").read_text()
    assert (out / "small-quick" / "report.html").exists()
    assert "href='small-quick/report.html'" in index, index
    assert "The study failed" in index and "torus:0x4" in index
    # The summary of the experiment study is there (its saturation table).
    assert "<table>" in index and "Published vs ours" in index


def test_an_out_that_is_a_file_is_one_line_naming_out(tmp_path, cli):
    (tmp_path / "f").write_text("")
    r = cli("study", "run", "all", "--quick", "--out", str(tmp_path / "f"), "--no-progress")
    assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
    assert r.stderr == f"error: --out = {tmp_path / 'f'} is invalid: a file, not a folder: a folder to write " \
        "into (created if missing)\n", r.stderr


def test_the_landing_page_escapes_and_fits(tmp_path):
    from hpcnetsim.reports.landing import Entry, index_html

    folder = tmp_path / "a"
    folder.mkdir()
    e = Entry("a", "<b>x</b>", folder, "report.html", "| a | b |\n|---|---|\n| 1 | 2 |\n", None, 3.0)
    page = index_html([e], tmp_path, "t")
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "<td>1</td>" in page
    assert "overflow-x: auto" in page, "wide tables scroll inside the page"


def test_a_benchmark_study_summary_is_its_tables_before_the_first_figure(tmp_path):
    from hpcnetsim.studies.study_all import summary_of

    (tmp_path / "report.md").write_text("# T\n\nabout\n\n## Lanes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                                        "![fig](f.png)\n\n## Later\n\nnot shown\n")  # fmt: skip
    s = summary_of(tmp_path)
    assert s.startswith("#### Lanes") and "| 1 | 2 |" in s
    assert "about" not in s and "Later" not in s and "f.png" not in s
