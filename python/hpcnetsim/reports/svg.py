"""Figures inline in HTML pages as SVG: text stays text (searchable, sharp at any zoom), the
figure scales with the page, and the page needs no image file beside it."""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path
from typing import Callable

import matplotlib

# Text as <text> elements rather than glyph outlines: a fifth of the size, and axis labels
# that a reader (and the report test) can select and read.
matplotlib.rcParams["svg.fonttype"] = "none"
# The same figure gives the same clip-path ids, so a report written twice is the same file.
matplotlib.rcParams["svg.hashsalt"] = "hpcnetsim"

_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|href="#)([^")]+)')


def inline(svg: str, alt: str, name: str) -> str:
    """The SVG document ``svg`` as an element to put in an HTML page.

    Its ids get the prefix ``name-`` (two figures of one page both have a ``patch_1`` and may
    share clip-path ids, and an HTML page resolves ``url(#id)`` to the first element with that
    id); the XML prolog, doctype and metadata (a date) go; ``alt`` becomes its accessible name.
    """
    start = svg.find("<svg")
    if start < 0:
        raise ValueError("not an SVG document")
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg[start:], flags=re.S)
    ids = set(_ID.findall(svg))
    svg = _ID.sub(lambda m: f'id="{name}-{m[1]}"', svg)
    svg = _REF.sub(lambda m: f"{m[1]}{name}-{m[2]}" if m[2] in ids else m[0], svg)
    label = html.escape(alt, quote=True)
    return svg.replace("<svg ", f"<svg role='img' aria-label='{label}' class='figure' ", 1)


def draw_svg(draw: Callable[[Path], None]) -> str:
    """The SVG text of a figure function that writes the format of its file's suffix."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "figure.svg"
        draw(path)
        return path.read_text()


#: Page style of inline figures: as wide as their drawing, never wider than the page.
STYLE = "svg.figure{max-width:100%;height:auto;display:block}"
