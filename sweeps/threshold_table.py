"""A threshold search's result: one row per search in DIR/thresholds.csv, and its summary in words.

Columns: the cell's params (case × grid point), `seed` (empty for a search over the median of seeds), the
eval params, then `axis`, `threshold`, `status`, `censored`, `lo`, `hi`, `evaluated` and `evidence`:

- `threshold`: the smallest (largest) evaluated value meeting the criterion, as a grid reports it; at a
  censored end, that end (the threshold is at or beyond it: `censored` names the end);
- `lo`, `hi`: the final bracket (the criterion fails at lo, holds at hi);
- `status`: found, censored_low, censored_high, non_monotone (with the evidence: a value past the threshold
  where the criterion fails again), failed (a training failed after its retries), open or waiting (a search
  killed before it ended, or not yet started: its seed waits for the first seed's threshold).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

from sweeps.bisect import CENSORED_HIGH, CENSORED_LOW, DONE, FOUND

COLUMNS = ("axis", "threshold", "status", "censored", "lo", "hi", "evaluated", "evidence")


def table_rows(sweep, current) -> list[dict[str, Any]]:
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
                "evidence": state.evidence,
            }
        )
    return rows


def table_bytes(sweep, current) -> bytes:
    rows = table_rows(sweep, current)
    names = list(dict.fromkeys(name for row in rows for name in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


def describe(sweep, current, trained_configs: int | None = None) -> str:
    """The searches in a few lines: counts by status, then each non-monotone or failed one with its evidence."""
    spec = sweep.threshold
    counts = Counter(state.status for _, state in current)
    scope = "per seed" if spec.over == "seed" else "on the median over seeds"
    lines = [
        f"threshold search of {sweep.name}: {spec.find} {spec.axis} in [{spec.low}, {spec.high}] "
        f"(resolution {spec.resolution:g}, {spec.scale}) with {spec.criterion_text()}, {scope}; "
        f"{len(current)} searches: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    ]
    if trained_configs is not None:
        lines.append(f"configs stored for the search: {trained_configs}")
    for search, state in current:
        if state.status not in (FOUND, CENSORED_LOW, CENSORED_HIGH, "open", "waiting"):
            evals = {k: v for k, v in search.eval_point if k in sweep.eval}
            where = ", ".join(f"{k}={v}" for k, v in {**search.point, **evals}.items())
            seeds = f"seed {search.seeds[0]}" if spec.over == "seed" else "median"
            lines.append(f"  {state.status} at {where} ({seeds}): {state.evidence}")
    return "\n".join(lines)


def _text(value) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
