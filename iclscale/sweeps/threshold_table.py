"""A threshold search's result: one row per search in DIR/thresholds.csv, and its summary in words.

Columns: the cell's params (case × grid point), `seed` (empty for a search over the median of seeds), the
eval params, then `axis`, `threshold`, `status`, `censored`, `lo`, `hi`, `evaluated`, `outcomes`, `unchecked`,
`trend` and `evidence`:

- `threshold`: the smallest (largest) evaluated value meeting the criterion, as a grid reports it; at a
  censored end, that end (the threshold is at or beyond it: `censored` names the end);
- `lo`, `hi`: the final bracket (the criterion fails at lo, holds at hi);
- `status`: found, censored_low, censored_high, non_monotone (with the evidence: a value past the threshold
  where the criterion fails again), failed (a training failed after its retries), open or waiting (a search
  killed before it ended, or not yet started: it waits for its warm-start predecessor's threshold);
- `outcomes`: every value evaluated and whether the criterion held there;
- `unchecked_past`, `unchecked_before`: the spans of the range where no value was evaluated, past the
  threshold (toward the far end of the range) and before it (outside the final bracket), or `none`.
  Monotonicity is checked among the evaluated values only: a failure inside an unchecked span past the
  threshold (a window that closes again) or a success inside one before it (what a grid would call the
  threshold) is not seen. check_far_end evaluates the far end, which catches a window closing there;
- `trend`: with a chain (warm_start: AXIS), whether the threshold steps from its predecessor's as the stated
  trend says (iclscale.sweeps.threshold.trend_notes, passed in as `trends`).
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections import Counter
from typing import Any

from iclscale.sweeps.bisect import CENSORED_HIGH, CENSORED_LOW, DONE, FOUND, NON_MONOTONE

COLUMNS = ("axis", "threshold", "status", "censored", "lo", "hi", "evaluated", "outcomes", "unchecked_past",
           "unchecked_before", "trend", "evidence")  # fmt: skip


def table_rows(sweep, current, trends: dict[tuple, str]) -> list[dict[str, Any]]:
    spec = sweep.threshold
    rows = []
    for search, state in current:
        censored = {CENSORED_LOW: "low", CENSORED_HIGH: "high"}.get(state.status, "")
        reported = state.status in DONE or censored
        rows.append(
            {
                **search.point,
                "seed": search.seeds[0] if spec.over == "seed" else "",
                **{k: v for k, v in search.eval_point if k in sweep.eval},  # the sweep's eval axes
                "axis": spec.axis,
                "threshold": _text(state.value) if reported else "",
                "status": state.status,
                "censored": censored,
                "lo": _text(state.lo),
                "hi": _text(state.hi),
                "evaluated": state.evaluated,
                "outcomes": outcomes_text(state.outcomes),
                "unchecked_past": spans_text(sweep, unchecked(sweep, state, past=True)) if state.status in DONE else "",
                "unchecked_before": spans_text(sweep, unchecked(sweep, state)) if state.status in DONE else "",
                "trend": trends.get(search.key, ""),
                "evidence": state.evidence,
            }
        )
    return rows


def outcomes_text(outcomes) -> str:
    return ", ".join(f"{_text(v)} {'holds' if ok else 'fails'}" for v, ok in sorted(outcomes))


def unchecked(sweep, state, past: bool = False) -> list[tuple[float, float, bool, bool]]:
    """The spans (a, b, a included, b included) of the range that hold no evaluated value, past the threshold
    (toward the far end) or before it, the final bracket left out (on an int axis, only spans with an integer
    inside). None past a censored search's end, nothing before it when it is censored at the start."""
    spec = sweep.threshold
    if state.value is None:
        return []
    values = sorted(v for v, _ in state.outcomes)
    bracket = tuple(sorted((state.lo, state.hi))) if state.lo is not None and state.hi is not None else None
    edges = [(spec.low, True), *((v, False) for v in values), (spec.high, True)]
    smallest = spec.find == "smallest"
    spans = []
    for (a, a_in), (b, b_in) in itertools.pairwise(edges):
        a_in, b_in = a_in and a not in values, b_in and b not in values
        if (a, b) == bracket or past != ((a >= state.value) if smallest else (b <= state.value)):
            continue
        if spec.integer:
            if (a if a_in else a + 1) > (b if b_in else b - 1):
                continue
        elif a >= b:
            continue
        spans.append((a, b, a_in, b_in))
    return spans


def spans_text(sweep, spans) -> str:
    if not spans:
        return "none"
    if sweep.threshold.integer:
        parts = []
        for a, b, a_in, b_in in spans:
            first, last = (a if a_in else a + 1), (b if b_in else b - 1)
            parts.append(_text(first) if first == last else f"{_text(first)}-{_text(last)}")
        return ", ".join(parts)
    return ", ".join(f"{'[' if ai else '('}{_text(a)}, {_text(b)}{']' if bi else ')'}" for a, b, ai, bi in spans)


def table_bytes(sweep, current, trends: dict[tuple, str]) -> bytes:
    rows = table_rows(sweep, current, trends)
    names = list(dict.fromkeys(name for row in rows for name in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


PROGRESS_ORDER = ("open", "waiting", FOUND, CENSORED_LOW, CENSORED_HIGH, NON_MONOTONE, "failed")


def progress(current) -> dict[str, int]:
    """Searches by status, every status named (0 where none)."""
    counts = Counter(state.status for _, state in current)
    return {status: counts.get(status, 0) for status in PROGRESS_ORDER}


def progress_text(counts: dict[str, int]) -> str:
    ended = sum(counts[s] for s in (FOUND, CENSORED_LOW, CENSORED_HIGH, NON_MONOTONE))
    censored = counts[CENSORED_LOW] + counts[CENSORED_HIGH]
    return (
        f"{sum(counts.values())} searches: {ended} ended ({counts[FOUND]} found, {censored} censored "
        f"[{counts[CENSORED_LOW]} low, {counts[CENSORED_HIGH]} high], {counts[NON_MONOTONE]} non-monotone), "
        f"{counts['failed']} failed, {counts['open']} open, {counts['waiting']} waiting"
    )


def describe(sweep, current, trends: dict[tuple, str], trained_configs: int | None = None) -> str:
    """The searches in a few lines: their progress, what monotonicity was checked, then each non-monotone,
    failed or against-the-trend one with its evidence."""
    spec = sweep.threshold
    scope = "per seed" if spec.over == "seed" else "on the median over seeds"
    lines = [
        f"threshold search of {sweep.name}: {spec.find} {spec.axis} in [{spec.low}, {spec.high}] "
        f"(resolution {spec.resolution:g}, {spec.scale}) with {spec.criterion_text()}, {scope}; "
        + progress_text(progress(current))
    ]
    if trained_configs is not None:
        lines.append(f"configs stored for the search: {trained_configs}")
    ended = [(search, state) for search, state in current if state.status in DONE]
    if ended:
        lines.append(monotone_statement(sweep, ended))
    for search, state in current:
        note = trends.get(search.key, "")
        if state.status in (NON_MONOTONE, "failed"):
            lines.append(f"  {state.status} at {search.where(sweep)}: {state.evidence}")
        elif note.startswith("against"):
            lines.append(f"  {note} at {search.where(sweep)}")
    return "\n".join(lines)


def monotone_statement(sweep, ended) -> str:
    """What the non-monotone check covered: the evaluated values only (`unchecked`)."""
    past = sum(1 for _, state in ended if unchecked(sweep, state, past=True))
    far = "the far end evaluated too (check_far_end)" if sweep.threshold.check_far_end else "the far end not evaluated"
    return (
        f"non-monotone criteria are detected among the evaluated values only ({far}): {past} of {len(ended)} "
        "ended searches have values past their threshold never evaluated, where a renewed failure would go "
        "unseen (thresholds.csv: unchecked_past)"
    )


def _text(value) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) and math.isfinite(value) else str(value)
