"""Thresholds found by a threshold search (sweeps.threshold) as the points of a threshold law.

A grid measures "the smallest l_tr with final error ≤ ε" as the smallest grid value meeting it
(`measures.threshold_along_axis`). A threshold search stores only the values it evaluated, and writes its
answer per (cell, seed) to DIR/thresholds.csv. When the sweep's `threshold:` block searched exactly the
measure's criterion (axis, metric, level, direction; per seed, at the final record), its rows are the points:

- found: the threshold, not censored;
- censored_low / censored_high: the end of the range, censored there (left / right), as a grid's edges are;
- non_monotone (the criterion fails again past the threshold), failed, open, waiting: no point; they are
  left out of the fit (the search's summary and `sweep status` name them).

A measure asked at another level (the sensitivity refits at other ε) falls back to the grid reading of the
values the search stored, which brackets the threshold only at the searched level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from analysis.reader import Results

POINT_STATUSES = ("found", "censored_low", "censored_high")
TABLE_COLUMNS = ("axis", "threshold", "status", "censored", "lo", "hi", "evaluated", "evidence")


def searched_table(results: Results, axis: str, metric: str, level: float, below: bool) -> pd.DataFrame | None:
    """DIR/thresholds.csv when the sweep's threshold search searched this criterion, else None."""
    block = (results.sweep or {}).get("threshold") or {}
    table = getattr(results, "thresholds", None)
    if table is None or not block:
        return None
    same = (
        block.get("axis") == axis
        and block.get("metric") == metric
        and float(block.get("level", "nan")) == float(level)
        and (block.get("meets", "below") == "below") == below
        and block.get("find", "smallest") == "smallest"
        and block.get("within") is None
        and block.get("over", "seed") == "seed"
    )
    return table if same else None


def use_searched(out: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """The grid reading `out` (one row per group and seed) with each search's answer in place of its value."""
    keys = [c for c in table.columns if c in out.columns and c not in TABLE_COLUMNS]
    answers = table[[*keys, "threshold", "status"]]
    merged = out.drop(columns=["value", "censored", "left_censored"]).merge(answers, on=keys, how="inner")
    merged = merged[merged["status"].isin(POINT_STATUSES)].copy()
    merged["value"] = merged["threshold"].astype(float)
    merged["censored"] = merged["status"] != "found"
    merged["left_censored"] = merged["status"] == "censored_low"
    return merged.drop(columns=["threshold", "status"])
