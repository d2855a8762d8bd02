"""Reports people can read: no raw JSON header, no duplicated title, no None or NaN cell, tables
that scroll inside the page, figures inline as SVG with a unit on every axis label; and, when a
Chromium is installed, each report rendered in headless Chromium without a broken image, an empty
figure or a page wider than the window.

By default the reports checked in Chromium are the tiny one written here; set
HPCNETSIM_REPORTS to a folder written by ``hpcnetsim study run all --quick`` (``make demo``:
``results``) to check every built-in study's report and the landing page too
(``make check-reports``)."""

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hpcnetsim.experiments import experiment
from hpcnetsim.experiments.sweep import run_sweep

#: Two loads on a 4x4 torus, short schedule: a report in about a second.
TINY = """\
name = "tiny"
title = "Tiny report"
description = "Two loads on the 4x4 torus."

[base]
topology = "torus:4x4"
switch.vcs = 2
routing.algorithm = "dor"

[base.measurement]
warmup_cycles = 300
window_cycles = 200
convergence_tolerance = 0.5
max_convergence_cycles = 2000
batches = 1
batch_cycles = 300

[[sweep]]
name = "loads"
axes.traffic.load = [0.1, 0.3]

[[report.figures]]
kind = "throughput"
title = "Accepted vs offered load"

[[report.figures]]
kind = "latency"
title = "Latency vs offered load"

[[report.published]]
topology = "torus:4x4"
bisection_throughput = 0.5
"""

#: Axis labels that name a count or a category, whose unit is the thing they name.
UNITLESS = re.compile(r"^((sender|receiver) rank|nodes|processes|workload|network|virtual channels|bisections)$")


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory) -> Path:
    from hpcnetsim.reports.report import write_report

    folder = tmp_path_factory.mktemp("tiny")
    (folder / "tiny.toml").write_text(TINY)
    summary = run_sweep(experiment.load(folder / "tiny.toml"), folder / "out", jobs=1, progress=False)
    assert (summary.total, summary.failed) == (2, [])
    return write_report(folder / "out")


class _Page(HTMLParser):
    """Headings, table cells, images and <pre> blocks of a page, and whether each is inside a
    scrolling box or a collapsed <details>."""

    def __init__(self):
        super().__init__()
        self.headings, self.cells, self.imgs, self.pres, self.tables = [], [], [], [], []
        self.stack: list[tuple[str, dict]] = []
        self.text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.imgs.append(attrs)
            return
        if tag == "table":
            scrolls = any(t == "div" and "scroll" in (a.get("class") or "") for t, a in self.stack)
            self.tables.append(scrolls)
        self.stack.append((tag, attrs))
        if tag in ("h1", "h2", "h3", "td", "th", "pre"):
            self.text = []

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag in ("h1", "h2", "h3", "td", "pre") and self.text is not None:
            text = "".join(self.text).strip()
            if tag == "td":
                self.cells.append(text)
            elif tag == "pre":
                self.pres.append((text, any(t == "details" for t, _ in self.stack)))
            else:
                self.headings.append(text)
            self.text = None

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)


def axis_labels(svg: ET.Element) -> list[tuple[str, list[str]]]:
    """(label, tick labels) of every labelled axis of a matplotlib SVG (text as <text>)."""
    ns = "{http://www.w3.org/2000/svg}"
    out = []
    for g in svg.iter(f"{ns}g"):
        if not re.search(r"matplotlib\.axis_\d+$", g.get("id", "")):
            continue
        ticks = [t.text or "" for tick in g if re.search(r"[xy]tick_\d+$", tick.get("id", ""))
                 for t in tick.iter(f"{ns}text")]  # fmt: skip
        labels = [t.text or "" for child in g if re.search(r"text_\d+$", child.get("id", ""))
                  for t in child.iter(f"{ns}text")]  # fmt: skip
        out += [(label, ticks) for label in labels if label.strip()]
    return out


def check_html(path: Path) -> list[str]:
    """What a reader would stumble on in the page at ``path``, as a list of problems."""
    page = path.read_text()
    problems = []
    parser = _Page()
    parser.feed(page)
    bad_cells = {c for c in parser.cells if c in ("None", "nan", "NaN", "<NA>", "null")}
    if bad_cells:
        problems.append(f"table cells {sorted(bad_cells)}")
    if not all(parser.tables) and "overflow-x" not in page:
        problems.append("a table outside a scrolling box")
    seen = set()
    for h in parser.headings:
        if h in seen:
            problems.append(f"heading {h!r} twice")
        seen.add(h)
    for text, collapsed in parser.pres:
        if text.startswith(("{", "[")) and not collapsed:
            try:
                json.loads(text)
                problems.append("a raw JSON block shown open")
            except ValueError:
                pass
    if re.search(r"points: \{", page):
        problems.append("point counts as raw JSON")
    for img in parser.imgs:
        src = img.get("src", "")
        if src.startswith("data:image/png"):
            problems.append("a figure embedded as PNG instead of inline SVG")
        elif not src.startswith("data:") and not (path.parent / src).is_file():
            problems.append(f"image {src!r} not found")
    svgs = re.findall(r"<svg\b.*?</svg>", page, flags=re.S)
    for i, text in enumerate(svgs):
        root = ET.fromstring(text)
        shapes = [e for e in root.iter() if e.tag.rsplit("}", 1)[-1] in ("path", "rect", "use", "image")]
        if not shapes:
            problems.append(f"figure {i + 1}: empty")
        # Figure titles say which figure it is; the page's heading above it says so already.
        for label, ticks in axis_labels(root):
            numeric = any(re.fullmatch(r"[−\-+0-9.,e$^{}\\mathdefault ]+", t.strip()) for t in ticks if t.strip())
            has_unit = re.search(r"\(.+\)|\[.+\]", label)
            if numeric and not has_unit and not UNITLESS.match(label.strip()):
                problems.append(f"figure {i + 1}: axis label {label!r} without a unit")
        ids = re.findall(r'\bid="([^"]+)"', text)
        if len(ids) != len(set(ids)):
            problems.append(f"figure {i + 1}: duplicate ids")
    all_ids = re.findall(r'\bid="([^"]+)"', page)
    if len(all_ids) != len(set(all_ids)):
        problems.append("the same id in two figures")
    return problems


def test_tiny_report_reads_well(tiny_report):
    page = tiny_report.read_text()
    assert check_html(tiny_report) == []
    # Two figures inline as SVG, no PNG in the page, the points counted in words.
    assert page.count("<svg ") == 2 and "data:image/png" not in page
    assert "points: 2 converged" in page
    # The figure's title is the heading above it, not also drawn in the figure.
    shown = page.split("<h2>Configuration</h2>")[0]  # the experiment file below quotes the title
    assert shown.count("Accepted vs offered load") == 2  # the heading and the SVG's accessible name
    # Missing values (the points' error column, the published table's empty cells) as a dash.
    assert "\u2014" in page and ">None<" not in page
    # The saved figures stay beside the report for slides and papers.
    figures = sorted(p.name for p in (tiny_report.parent / "figures").iterdir())
    assert figures == ["figure-1.png", "figure-1.svg", "figure-2.png", "figure-2.svg"]


def test_the_checker_finds_what_readers_stumble_on(tiny_report, tmp_path):
    """Each kind of problem planted in a good page is reported: the check can fail."""
    good = tiny_report.read_text()
    plants = {
        "table cells": good.replace("<td>\u2014</td>", "<td>None</td>", 1),
        "heading": good.replace("</h1>", "</h1><h2>Tiny report</h2>", 1),
        "raw JSON": good.replace("points: 2 converged", 'points: {"converged": 2}'),
        "not found": good.replace("<body>", "<body><img src='missing.png'>", 1),
        "empty": good.replace("</body>", "<svg xmlns='http://www.w3.org/2000/svg'></svg></body>"),
        "without a unit": good.replace("offered load (phits/cycle/node)</text>", "offered load</text>", 1),
        "PNG": good.replace("<body>", "<body><img src='data:image/png;base64,AAAA'>", 1),
    }
    for what, text in plants.items():
        assert text != good, what
        bad = tmp_path / "report.html"
        bad.write_text(text)
        problems = check_html(bad)
        assert any(what in p for p in problems), (what, problems)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


#: Run in the page once it has loaded: what the reader sees broken, written into the DOM for
#: --dump-dom to return.
PROBE = """<script>window.addEventListener('load', () => {
  const d = document.documentElement, out = {overflow: d.scrollWidth - d.clientWidth, broken: [], empty: []};
  for (const img of document.images) if (!img.complete || img.naturalWidth === 0) out.broken.push(img.src.slice(0, 80));
  document.querySelectorAll('svg').forEach((s, i) => {
    const r = s.getBoundingClientRect();
    if (r.width < 20 || r.height < 20 || !s.querySelector('path,rect,use,image')) out.empty.push(i + 1);
  });
  const pre = document.createElement('pre'); pre.id = 'report-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});</script>"""


def render_in_chromium(browser: str, page: Path, tmp: Path) -> dict:
    """The probe's findings for ``page`` rendered 1200 px wide in headless Chromium."""
    text = page.read_text()
    # A copy with the probe, resolving relative links against the page's own folder.
    base = f"<base href='{page.parent.resolve().as_uri()}/'>"
    probed = text.replace("<head>", "<head>" + base, 1) if "<head>" in text else base + text
    probed = probed.replace("</body>", PROBE + "</body>") if "</body>" in probed else probed + PROBE
    copy = tmp / f"probe-{page.parent.name}.html"
    copy.write_text(probed)
    r = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900",
         "--virtual-time-budget=5000", "--dump-dom", copy.as_uri()],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    found = re.search(r"<pre id=\"report-probe\">(.*?)</pre>", r.stdout, flags=re.S)
    assert found, f"{page}: no probe output from {browser} (exit {r.returncode}): {r.stderr[-500:]}"
    import html

    return json.loads(html.unescape(found.group(1)))


def _pages(tiny_report: Path) -> list[Path]:
    root = os.environ.get("HPCNETSIM_REPORTS")
    if not root:
        return [tiny_report]
    root = Path(root)
    pages = sorted(root.glob("*/report.html")) + [root / "index.html"]
    assert len(pages) >= 2 and pages[-1].is_file(), f"{root}: no study reports (hpcnetsim study run all --quick)"
    return pages


def test_every_report_reads_well(tiny_report):
    """The HTML checks on every page: the tiny report, or each study's with HPCNETSIM_REPORTS."""
    failures = {str(p): check_html(p) for p in _pages(tiny_report)}
    assert {p: f for p, f in failures.items() if f} == {}


def test_reports_render_in_chromium(tiny_report, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium installed (chromium, chromium-browser or google-chrome): the rendering check "
                    "needs one; the HTML checks above ran")  # fmt: skip
    failures = {}
    for page in _pages(tiny_report):
        problems = []
        seen = render_in_chromium(browser, page, tmp_path)
        if seen["overflow"] > 0:
            problems.append(f"the page is {seen['overflow']} px wider than the window")
        problems += [f"broken image {src}" for src in seen["broken"]]
        problems += [f"figure {i} empty on screen" for i in seen["empty"]]
        if problems:
            failures[str(page)] = problems
    assert failures == {}


def test_the_chromium_probe_sees_overflow_broken_images_and_empty_figures(tiny_report, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium installed (chromium, chromium-browser or google-chrome)")
    bad = tmp_path / "bad" / "report.html"
    bad.parent.mkdir()
    bad.write_text(tiny_report.read_text().replace(
        "<body>", "<body><div style='width:3000px'>wide</div><img src='missing.png'>"
                  "<svg xmlns='http://www.w3.org/2000/svg' width='0' height='0'></svg>", 1))  # fmt: skip
    seen = render_in_chromium(browser, bad, tmp_path)
    assert seen["overflow"] > 1000 and len(seen["broken"]) == 1 and seen["empty"] == [1]


def test_labels_of_close_dots_are_stacked_not_overprinted(tmp_path):
    from hpcnetsim.reports.plots import label_offsets, plot_cost_scatter

    # Three dots at one place and one far away: three lines apart, and the far one as usual.
    offsets = label_offsets([(100.0, 50.0), (100.0, 50.0), (102.0, 51.0), (400.0, 50.0)])
    ys = [50.0 + dy for _, dy in offsets[:3]]
    assert min(abs(a - b) for i, a in enumerate(ys) for b in ys[i + 1:]) >= 9.0
    assert offsets[0] == offsets[3] == (3, 3)
    plot_cost_scatter([("tree a", 64, 0.5), ("tree b", 64, 0.5)], tmp_path / "c.png", "")
    assert (tmp_path / "c.png").stat().st_size > 0


def test_a_quick_variants_report_says_what_its_quick_table_changed(tmp_path):
    # The workloads study's quick report says "binned in windows of 200 cycles" (the full
    # study's description) while its points ran with [quick]'s window_cycles = 100, and only
    # the collapsed base config told.
    from hpcnetsim.reports.report import write_report

    text = TINY.replace("axes.traffic.load = [0.1, 0.3]", 'axes.traffic.load = [0.1, 0.3]\n[[sweep]]\nname = "more"\n'
                        "axes.traffic.load = [0.2]")  # fmt: skip
    text = text.replace("[[report.figures]]", '[quick]\nsweeps = ["loads"]\nbase.measurement.batch_cycles = 200\n\n'
                        "[[report.figures]]", 1)  # fmt: skip
    (tmp_path / "q.toml").write_text(text)
    run_sweep(experiment.load(tmp_path / "q.toml", quick=True), tmp_path / "out", jobs=1, progress=False)
    page = write_report(tmp_path / "out").read_text()
    shown = page.split("<h2>Configuration</h2>")[0]
    assert "Quick variant: sweep groups loads; measurement.batch_cycles = 200" in shown, shown[:2000]
    assert check_html(tmp_path / "out" / "report.html") == []
