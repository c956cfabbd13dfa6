"""Thresholds found by a threshold search (iclscale.sweeps.threshold) as the points of a threshold law.

A grid measures "the smallest l_tr with final error ≤ ε" as the smallest grid value meeting it
(`measures.threshold_along_axis`). A threshold search stores only the values it evaluated, and writes its
answer per (cell, seed) to DIR/thresholds.csv. When the sweep's `threshold:` block searched exactly the
measure's criterion (axis, metric, level, direction; per seed, at the final record), its rows are the points:

- found: the threshold, not censored;
- censored_low / censored_high: the end of the range, censored there (left / right), as a grid's edges are;
- non_monotone (the criterion fails again past the threshold), failed, open, waiting: no point; they are
  left out of the fit (the search's summary and `sweep status` name them).

`search_summary` says so in the report, with what the search's monotonicity check covered: the values it
evaluated, not the ones it skipped (thresholds.csv's `unchecked_past`, iclscale.sweeps.threshold_table).

A measure asked at another level (the sensitivity refits at other ε) falls back to the grid reading of the
values the search stored, which brackets the threshold only at the searched level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from iclscale.analysis.reader import Results

POINT_STATUSES = ("found", "censored_low", "censored_high")
TABLE_COLUMNS = ("axis", "threshold", "status", "censored", "lo", "hi", "evaluated", "outcomes", "unchecked_past",
                 "unchecked_before", "trend", "evidence")  # fmt: skip
ENDED = (*POINT_STATUSES, "non_monotone")


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


def search_summary(results: Results) -> str | None:
    """The threshold search in a few sentences for the report: its searches by status, which are law points,
    and what its monotonicity check covered. None for a directory that holds no threshold search."""
    block = (results.sweep or {}).get("threshold") or {}
    table = getattr(results, "thresholds", None)
    if table is None or not block or not len(table):
        return None
    status = table["status"]
    ended = table[status.isin(ENDED)]
    unchecked = ended["unchecked_past"].astype("string").fillna("none") if "unchecked_past" in ended else None
    past = "an unknown number" if unchecked is None else int((unchecked != "none").sum())  # an older table
    against = int(table["trend"].astype("string").fillna("").str.startswith("against").sum()) if "trend" in table else 0
    sign = "≤" if block.get("meets", "below") == "below" else "≥"
    far = "its far end evaluated too" if block.get("check_far_end") else "its far end not evaluated"
    text = (
        f"Threshold search (thresholds.csv): {len(table)} searches for the {block.get('find', 'smallest')} "
        f"{block['axis']} with {block['metric']} {sign} {block['level']:g}: {int((status == 'found').sum())} found, "
        f"{int(status.isin(POINT_STATUSES[1:]).sum())} censored at an end of the range, "
        f"{int((status == 'non_monotone').sum())} non-monotone, {int((~status.isin(ENDED)).sum())} unfinished or "
        "failed. A threshold law takes the found and censored ones as its points and leaves the others out. "
        f"Non-monotone criteria are detected among the evaluated values only ({far}): {past} of {len(ended)} "
        "ended searches have values past their threshold that were never evaluated, where a renewed failure "
        "would go unseen (column unchecked_past)."
    )
    if "trend" in table and block.get("trend"):
        text += (
            f" Stated trend along {block.get('warm_start')}: {block['trend']}; {against} thresholds step against "
            "it from the neighbouring cell's (column trend)."
        )
    return text
