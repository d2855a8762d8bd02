"""The validation tables of a study, regenerated from its output folder as Markdown for
docs/validation.md (``hpcnetsim study tables DIR [--before DIR]``): the saturation table of
throughput studies and the φ / φ-per-cost tables of causal studies, with the published
values the study file holds and, optionally, the values of an earlier run beside ours."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def markdown(frame) -> str:
    """A DataFrame as a Markdown table, its numbers written as the HTML report writes them
    (4 significant digits, whole numbers without decimals), an empty cell as "-"."""
    from ..reports.report import formatted

    cells = formatted(frame, missing="-")
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(row) + " |" for row in cells.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def _with_before(frame, before, key: str, columns: list[str]):
    """``frame`` with, after each of ``columns``, the same column of ``before`` (matched on ``key``)."""
    if before is None:
        return frame
    old = before.set_index(key)
    out = frame.copy()
    for col in columns:
        if col in out and col in old:
            out.insert(out.columns.get_loc(col) + 1, f"{col} (before)", [old[col].get(k) for k in out[key]])
    return out


def _load(out: Path):
    """The study's experiment and points as its report reads them: with repetitions, one row per
    point holding its means, so these tables give the report's numbers."""
    from .. import confidence
    from ..reports.report import load

    doc, df = load(out)
    if doc.get("repetitions", 1) > 1:
        df = confidence.aggregate(df)
    return doc, df


def _saturation(out: Path):
    from ..reports.report import saturation, without_empty_config_columns

    doc, df = _load(out)
    if "offered_load" not in df or df["offered_load"].isna().all():
        return None
    sat = without_empty_config_columns(saturation(df))
    keep = [c for c in sat.columns if c not in ("group", "points")]
    return sat[keep]


def _performance(out: Path):
    from ..reports.causal_report import performance_frames

    doc, df = _load(out)
    return performance_frames(doc, df)


def _normalized(out: Path) -> dict[str, Any]:
    from ..reports.causal_report import normalized_frames

    doc, df = _load(out)
    found = {}
    for spec in doc.get("report", {}).get("figures", []):
        if spec.get("kind") == "normalized-time":
            frames = normalized_frames(spec, df)
            if frames is not None:
                found[spec.get("title", "normalized execution time")] = frames[1]
    return found


def _stack(frame, before, index: list[str]):
    """``frame`` (one row per network) with ``before``'s row for the same network below each row."""
    import pandas

    if before is None:
        return frame
    frame = frame.assign(run="ours")
    old = before.assign(run="before")
    both = pandas.concat([frame, old[old.columns.intersection(frame.columns)]], ignore_index=True)
    return both.sort_values([*index, "run"], ascending=[True] * len(index) + [False], kind="stable")


def tables(out: str | Path, before: str | Path | None = None) -> str:
    """The Markdown tables of study output ``out``, with ``before``'s values beside ours."""
    out = Path(out)
    parts = []
    sat = _saturation(out)
    if sat is not None and len(sat):
        # A curve is its config columns; its values (and notes) may differ from the earlier run's.
        values = ("max_accepted", "max_accepted_pct_host", "unconverged_points", "note", "ideal", "theta",
                  "max_over_ideal")  # fmt: skip
        key_cols = [c for c in sat.columns if c not in values]
        sat = sat.assign(curve=[", ".join(str(r[c]) for c in key_cols) for _, r in sat.iterrows()])
        old = _saturation(Path(before)) if before else None
        if old is not None:
            # A config column empty on every earlier row was left out of its table: empty there.
            nan = float("nan")
            old = old.assign(curve=[", ".join(str(r.get(c, nan)) for c in key_cols) for _, r in old.iterrows()])
        sat = _with_before(sat, old, "curve", ["max_accepted"]).drop(columns=["curve"])
        parts.append("**Saturation** (maximum accepted load per curve)\n\n" + markdown(sat))
    old_frames = {t: f for t, _, f in _performance(Path(before))} if before else {}
    for title, note, frame in _performance(out):
        frame = _with_before(frame, old_frames.get(title), "topology", ["phi"]).drop(columns=["topology"])
        parts.append(f"**{title}**. {note}\n\n" + markdown(frame))
    old_norm = _normalized(Path(before)) if before else {}
    for title, frame in _normalized(out).items():
        index = [c for c in frame.columns if c in ("workload.message_bytes", "network")]
        frame = _stack(frame, old_norm.get(title), index).drop(columns=["topology"])
        parts.append(f"**{title}** (execution time / the reference's)\n\n" + markdown(frame))
    return "\n\n".join(parts) + "\n"
