"""The law charts with a second param beside x (iclscale.analysis.law_charts picks them): a comparison's settings,
an earlier onset's variants, each in its own colour, and a diagonal minimum's heatmap of pretraining × test values.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from iclscale.analysis.chart_keys import Keyed, apart, outside_layer
from iclscale.analysis.law_chart_marks import HEIGHT, WIDTH, chart_title, layered, points_outside, y_title

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from iclscale.analysis.lawfit import LawFit


def comparison_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. per x and per compared setting (softmax vs linear attention, learners); censored
    values enter the means at their bound (iclscale.analysis.kinds.comparison) and are marked there, in their
    setting's colour."""
    import altair as alt

    from iclscale.analysis.censored_marks import censored_layer

    law, param = fit.law, fit.details["param"]
    points = fit.points.assign(setting=fit.points[param].astype(str))
    stats = points.groupby(["x", "setting"])["value"].agg(["mean", "std"]).reset_index().fillna({"std": 0.0})
    stats = stats.assign(low=stats["mean"] - stats["std"], high=stats["mean"] + stats["std"])
    numeric = law.x is not None
    x_enc = (
        alt.X("x:Q", scale=alt.Scale(type="log", padding=12), title=fit.x_title or law.x_symbol)
        if numeric
        else alt.X("setting:N", title=param)
    )
    colour = alt.Color("setting:N", title=param, legend=alt.Legend(orient="bottom"))
    layers = [
        alt.Chart(stats).mark_rule().encode(x=x_enc, y=alt.Y("low:Q", title=y_title(law)), y2="high:Q", color=colour),
        (
            alt.Chart(stats).mark_line(point=True) if numeric else alt.Chart(stats).mark_point(filled=True, size=60)
        ).encode(x=x_enc, y="mean:Q", color=colour, tooltip=["setting:N", "x:Q", "mean:Q", "std:Q"]),
        *censored_layer(points, x_enc, colour=colour),
    ]
    keyed = Keyed()
    outside = points_outside(fit)
    if outside is not None and param in outside:
        outside_layer(keyed, outside.assign(setting=outside[param].astype(str)), x_enc, alt.Y("value:Q"))
    note = f"mean ± 1 s.d. over seeds; the claim is about {fit.details['subject']}"
    if "censored" in fit.details:
        note += f"; censored settings, in the means at their bound: {fit.details['censored']}"
    return layered(apart(layers, keyed)).properties(width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name, note))


def earlier_onset_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. against x per variant, each variant's onset as a dotted rule, censored points at
    their bound in their variant's colour."""
    import altair as alt
    import pandas as pd

    from iclscale.analysis.censored_marks import censored_layer

    law, kind = fit.law, fit.law.kind
    points = fit.points.assign(variant=fit.points[kind.param].astype(str))
    stats = points.groupby(["x", "variant"])["value"].agg(["mean", "std"]).reset_index().fillna({"std": 0.0})
    stats = stats.assign(low=stats["mean"] - stats["std"], high=stats["mean"] + stats["std"])
    colour = alt.Color("variant:N", title=kind.param, legend=alt.Legend(orient="bottom"))
    x_enc = alt.X("x:Q", title=fit.x_title or law.x_symbol)
    layers = [
        alt.Chart(stats)
        .mark_rule(opacity=0.6)
        .encode(x=x_enc, y=alt.Y("low:Q", title=y_title(law)), y2="high:Q", color=colour),
        alt.Chart(stats).mark_line(point=True).encode(x=x_enc, y="mean:Q", color=colour),
        *censored_layer(points, x_enc, colour=colour),
    ]
    onsets = [{"x": v, "variant": k} for k, v in fit.details["onsets"].items() if math.isfinite(v)]
    if onsets:
        layers.append(alt.Chart(pd.DataFrame(onsets)).mark_rule(strokeDash=[1, 2]).encode(x="x:Q", color=colour))
    keyed = Keyed()
    outside_layer(keyed, points_outside(fit), x_enc, alt.Y("value:Q"))
    note = "mean ± 1 s.d. over seeds; dotted: where each variant starts to cost (iclscale.analysis.levels.cost_onset)"
    return layered(apart(layers, keyed)).properties(width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name, note))


def diagonal_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Heatmap of mean error / the diagonal's error for each test value (column); a cell whose mean includes
    censored seeds (bounds, iclscale.analysis.censored_marks) carries their mark, its legend and the count."""
    import altair as alt

    law = fit.law
    means = fit.points.groupby(["row", "x"], as_index=False)["value"].mean()
    diagonal = means[np.isclose(means["row"], means["x"])][["x", "value"]].rename(columns={"value": "diagonal"})
    means = means.merge(diagonal, on="x", how="left")
    means["log10 ratio to diagonal"] = np.log10(means["value"] / means["diagonal"])
    means["best"] = means.groupby("x")["value"].transform("min") == means["value"]
    base = alt.Chart(means).encode(
        x=alt.X("x:O", title=f"test {law.x}"),
        y=alt.Y("row:O", title=f"pretraining {law.kind.row_axis}", sort="descending"),
    )
    reach = float(np.nanmax(np.abs(means["log10 ratio to diagonal"]))) or 1.0  # symmetric: 0 is white
    heat = base.mark_rect().encode(
        color=alt.Color(
            "log10 ratio to diagonal:Q", scale=alt.Scale(scheme="redblue", reverse=True, domain=[-reach, reach])
        ),
        tooltip=["row:Q", "x:Q", "value:Q", "log10 ratio to diagonal:Q"],
    )
    marks = base.mark_text(fontSize=10).encode(text=alt.condition(alt.datum.best, alt.value("min"), alt.value("")))
    return alt.layer(heat, marks, *_censored_cells(fit.points, means)).properties(
        width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name)
    )


def _censored_cells(points: pd.DataFrame, means: pd.DataFrame) -> list[alt.Chart]:
    """[a layer marking the heatmap cells whose mean includes censored seeds] or []: the censored marks' shape
    and legend, placed in the cell's corner, the count of such seeds in the tooltip."""
    import altair as alt

    from iclscale.analysis.censored_marks import COLOUR, FIELD, LEGEND, SHAPES, censored_rows

    censored = censored_rows(points)
    if censored is None:
        return []
    cells = censored.groupby(["row", "x", FIELD], as_index=False).size().rename(columns={"size": "censored seeds"})
    cells = cells.merge(means[["row", "x", "value"]], on=["row", "x"], how="left")
    present = [label for label in SHAPES if (cells[FIELD] == label).any()]
    shape = alt.Shape(
        f"{FIELD}:N",
        scale=alt.Scale(domain=present, range=[SHAPES[label] for label in present]),
        legend=alt.Legend(**LEGEND),
    )
    return [
        alt.Chart(cells)
        .mark_point(filled=True, size=50, color=COLOUR, xOffset=10, yOffset=-8)
        .encode(
            x="x:O", y=alt.Y("row:O", sort="descending"), shape=shape,
            tooltip=["row:Q", "x:Q", "value:Q", "censored seeds:Q", f"{FIELD}:N"],
        )
    ]  # fmt: skip
