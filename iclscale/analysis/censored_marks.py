"""How every law chart marks censored points (iclscale.analysis.censored): each seed's point at its bound, as a
red triangle pointing to where the true value lies, with a legend entry saying which bound it is, and counted
in the chart's caption. One look for every kind of chart, so a bound is never read as a measured value."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

ABOVE = "not reached by the end of the run (lower bound)"  # right-censored: the true value is larger
BELOW = "reached already at the first value (upper bound)"  # left-censored: the true value is smaller
SHAPES = {ABOVE: "triangle-up", BELOW: "triangle-down"}
COLOUR = "#d6604d"
FIELD = "censored point"  # the column naming each censored point's bound, and the legend it makes
LEGEND = {"orient": "bottom", "title": None, "labelLimit": 500, "symbolFillColor": COLOUR, "symbolStrokeColor": COLOUR}


def censored_rows(points: pd.DataFrame | None, y: str = "value") -> pd.DataFrame | None:
    """The censored points with a finite bound, each labelled ABOVE or BELOW in FIELD; None without any."""
    if points is None or not len(points) or "censored" not in points:
        return None
    censored = points[points["censored"].astype(bool) & np.isfinite(points[y].astype(float))]
    if not len(censored):
        return None
    below = censored["left_censored"].astype(bool) if "left_censored" in censored else False
    return censored.assign(**{FIELD: np.where(below, BELOW, ABOVE)})


def censored_layer(points, x_enc, y: str = "value", y_scale=None, colour=None) -> list[alt.Chart]:
    """[a layer of triangles at the censored points' bounds] or [] without any: shape by bound (ABOVE, BELOW)
    with its legend; red, or coloured by `colour` (an encoding, e.g. the compared setting's) where given."""
    import altair as alt

    censored = censored_rows(points, y)
    if censored is None:
        return []
    present = [label for label in SHAPES if (censored[FIELD] == label).any()]
    shape = alt.Shape(
        f"{FIELD}:N",
        scale=alt.Scale(domain=present, range=[SHAPES[label] for label in present]),
        legend=alt.Legend(**LEGEND),
    )
    y_enc = alt.Y(f"{y}:Q", scale=y_scale) if y_scale is not None else alt.Y(f"{y}:Q")
    return [
        alt.Chart(censored)
        .mark_point(filled=True, size=70, opacity=0.9)
        .encode(
            x=x_enc,
            y=y_enc,
            shape=shape,
            color=colour if colour is not None else alt.value(COLOUR),
            tooltip=["x", f"{y}:Q", "seed:Q", f"{FIELD}:N"],
        )
    ]


def censored_caption(*tables) -> str:
    """'2 of 12 points censored, drawn ▲ at their bound: not reached by the end of the run (lower bound)', or ''
    without censored points; `tables` are the chart's point tables (inside and outside the conditions)."""
    shown = [t for t in tables if t is not None and len(t) and "censored" in t]
    if not shown:
        return ""
    total = sum(len(t) for t in shown)
    found = [c for c in (censored_rows(t) for t in shown) if c is not None]
    if not found:
        return ""
    labels = np.concatenate([c[FIELD].to_numpy() for c in found])
    parts = [f"{int((labels == label).sum())} {mark} {label}" for label, mark in ((ABOVE, "▲"), (BELOW, "▼"))
             if (labels == label).any()]  # fmt: skip
    return f"{len(labels)} of {total} points censored, drawn at their bound: " + "; ".join(parts)
