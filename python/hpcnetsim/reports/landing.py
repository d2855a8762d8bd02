"""The landing page of a folder of study outputs (``hpcnetsim study run all``): one section per
study with its title, a link to its report and its published-vs-ours summary, and the HTML
shell that pages written from Markdown share (the ``hyperx`` study's report)."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from .._files import atomic_write_text

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 62rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; display: block;
        max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; }
th { background: #f3f3f3; }
img { max-width: 100%; height: auto; }
.failed { color: #a00; }
summary { cursor: pointer; }
"""


def page(title: str, body: str) -> str:
    """A complete HTML page: ``body`` (HTML) under ``title``, tables scrolling inside the page."""
    return (
        f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def markdown_html(text: str) -> str:
    """Markdown (with tables) as HTML."""
    import markdown

    return markdown.markdown(text, extensions=["tables"])


def markdown_page(text: str, title: str) -> str:
    """A page from a Markdown document whose first line is its ``# title``."""
    return page(title, markdown_html(text))


@dataclass
class Entry:
    """One study on the landing page."""

    name: str
    title: str
    folder: Path
    #: the report's file name inside ``folder`` (None when the study wrote none)
    report: str | None
    #: the published-vs-ours summary as Markdown ("" when the study has none)
    summary: str
    #: the error, when the study failed
    error: str | None = None
    seconds: float = 0.0


def index_html(entries: list[Entry], root: Path, heading: str) -> str:
    """The landing page's HTML: a table of contents, then a section per study."""
    rows = []
    for e in entries:
        status = "<span class='failed'>failed</span>" if e.error else "done"
        link = f"<a href='#{e.name}'>{html.escape(e.name)}</a>"
        rows.append(f"<tr><td>{link}</td><td>{html.escape(e.title)}</td><td>{status}</td><td>{e.seconds:.0f} s</td></tr>")
    parts = [f"<h1>{html.escape(heading)}</h1>",
             "<p>Each built-in study reproduces figures and tables of the reference papers; its report "
             "puts our values beside the published ones.</p>",
             "<table><tr><th>study</th><th>what</th><th>status</th><th>time</th></tr>" + "".join(rows) + "</table>"]
    for e in entries:
        parts.append(f"<h2 id='{e.name}'>{html.escape(e.title)}</h2>")
        if e.error:
            parts.append(f"<p class='failed'>The study failed: {html.escape(e.error)}</p>")
        if e.report:
            href = (e.folder / e.report).relative_to(root).as_posix()
            parts.append(f"<p><a href='{html.escape(href)}'>The full report</a> (folder "
                         f"<code>{html.escape(e.folder.relative_to(root).as_posix())}</code>)</p>")  # fmt: skip
        if e.summary.strip():
            parts.append("<details open><summary>Published vs ours</summary>" + markdown_html(e.summary) + "</details>")
    return page(heading, "\n".join(parts))


def write_index(entries: list[Entry], root: Path, heading: str = "hpcnetsim: the papers' studies") -> Path:
    """Writes ``root/index.html``; returns its path."""
    path = Path(root) / "index.html"
    atomic_write_text(path, index_html(entries, Path(root), heading))
    return path
