"""Altair charts of a sweep: training curves (mean ± one s.d. band over seeds) and final metrics ("probes")
against the grid axes, faceted by the sweep's axes. Every chart is drawn from data aggregated here (means over
seeds, at most a few hundred rows), never from raw runs or curves, so no chart nears Altair's row limit."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from iclscale.analysis.frames import joined

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from iclscale.analysis.reader import Results

CASE = "case"  # the facet axis made of a sweep's cases
FACET_COLUMNS = 3
MAX_STEPS_PER_SERIES = 200  # curves thinned to this many records per series before plotting
MAX_PROBE_CHARTS = 12


def order_axes(results: Results, table: pd.DataFrame, axes: list[str]) -> list[str]:
    """The axes that vary in `table`, most telling first: grid axes before case keys and eval
    params, then by number of values."""
    grid = set(results.sweep.get("grid") or {})
    present = [a for a in axes if a in table and table[a].nunique(dropna=False) > 1]
    return sorted(present, key=lambda a: (a not in grid, -table[a].nunique(dropna=False)))


def axis_layout(ordered: list[str], slots: tuple[str, ...]) -> dict[str, str | None]:
    """Give the ordered axes to the slots (e.g. colour, column, row); the last slot takes every
    axis left over, folded into one label "a+b"."""
    layout: dict[str, str | None] = dict.fromkeys(slots)
    for i, slot in enumerate(slots):
        rest = ordered[i:] if slot == slots[-1] else ordered[i : i + 1]
        layout[slot] = "+".join(rest) or None
    return layout


def _fold(table: pd.DataFrame, layout: dict) -> pd.DataFrame:
    """Make the folded row axis (several params joined) a column of text labels."""
    row = layout.get("row")
    if row and "+" in row:
        parts = row.split("+")
        table = table.assign(**{row: joined(table, parts, ", ")})
    return table


PER_UNIT_METRIC = re.compile(r".+_\d{3}")


def is_per_unit(metric: str) -> bool:
    """Per-neuron (or per-unit) metrics such as neuron_magnitude_007: one chart each would bury the
    report; they are drawn together where they mean something (the pruning section's bars)."""
    return PER_UNIT_METRIC.fullmatch(metric) is not None


def training_curve_charts(results: Results, thresholds=None) -> list[tuple[str, alt.TopLevelMixin]]:
    """One chart per curve metric with more than one recorded step: mean ± one s.d. over seeds,
    coloured and faceted by the sweep's axes. `thresholds`: {metric: ε} of the laws' measures (the first step
    with the metric ≤ ε), drawn as a dashed red rule on that metric's curves."""
    import altair as alt

    from iclscale.analysis.reader import curves_with_params

    if not len(results.curves) or results.curves["step"].nunique() < 2:
        return []
    curves = curves_with_params(results)
    curves = curves[curves["status"] == "ok"]
    eval_params = [p for p in results.params("eval") if p in curves and curves[p].nunique(dropna=False) > 1]
    axes = [a for a in results.grid_axes() if a not in eval_params] + eval_params
    curves, axes = with_case_axis(results, curves, axes)
    charts = []
    for metric, part in curves.groupby("metric", sort=True):
        if part["step"].nunique() < 2 or is_per_unit(metric):
            continue
        layout = axis_layout(order_axes(results, part, axes), ("colour", "column", "row"))
        keys = [a for a in axes if a in part and part[a].nunique(dropna=False) > 1]
        stats, log = seed_band(part, [*keys, "step"], "value")
        stats = _fold(_labels_as_text(_thin_steps(stats, keys), keys), layout)
        y_scale = alt.Scale(type="log") if log else alt.Scale()
        colour = layout["colour"]
        encode_colour = {"color": alt.Color(f"{colour}:O", scale=alt.Scale(scheme="viridis"))} if colour else {}
        band = (
            alt.Chart()
            .mark_area(opacity=0.2)
            .encode(x=alt.X("step:Q"), y=alt.Y("low:Q", scale=y_scale, title=metric), y2="high:Q", **encode_colour)
        )
        line = alt.Chart().mark_line().encode(x="step:Q", y=alt.Y("mean:Q", scale=y_scale), **encode_colour)
        layers = [band, line]
        epsilon = (thresholds or {}).get(metric)
        if epsilon is not None:  # the laws' ε, in the same data so that the facets keep it
            stats = stats.assign(epsilon=epsilon)
            layers.append(alt.Chart().mark_rule(color="#b2182b", strokeDash=[6, 3]).encode(y="epsilon:Q"))
        chart = alt.layer(*layers, data=stats).properties(width=380, height=220)
        chart = _facet(chart, layout)
        title = f"{metric} during training ({BAND_TEXT[log]} over seeds)"
        if epsilon is not None:
            title += f"; dashed red: the laws' ε = {epsilon:g}"
        charts.append((f"curve {metric}", chart.properties(title=title)))
    return charts


def _is_number(column) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _labels_as_text(stats: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
    """Non-numeric axes (task class, booleans, nulls) as plain text labels for Vega."""
    return stats.astype({a: str for a in axes if not _is_number(stats[a])})


BAND_TEXT = {False: "mean ± 1 s.d.", True: "geometric mean ×/÷ 1 geometric s.d."}


def seed_band(table: pd.DataFrame, keys: list[str], column: str) -> tuple[pd.DataFrame, bool]:
    """Mean and a one-s.d. band over seeds per `keys`. Positive values spanning more than a factor
    10 (losses, window scales) are summarised on log scale, so the band stays positive; returns
    (stats with mean, low, high; whether log scale)."""
    values = table[column].astype(float)
    log = bool((values > 0).all() and values.max() / values.min() > 10)
    summary = table.assign(_v=np.log(values) if log else values)
    stats = summary.groupby(keys, dropna=False)["_v"].agg(["mean", "std"]).reset_index()
    spread = stats["std"].fillna(0.0)
    back = np.exp if log else (lambda v: v)
    stats["low"], stats["high"], stats["mean"] = (
        back(stats["mean"] - spread),
        back(stats["mean"] + spread),
        back(stats["mean"]),
    )
    return stats.drop(columns="std"), log


def _thin_steps(stats: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    steps = np.sort(stats["step"].unique())
    if len(steps) <= MAX_STEPS_PER_SERIES:
        return stats
    keep = steps[np.unique(np.linspace(0, len(steps) - 1, MAX_STEPS_PER_SERIES).round().astype(int))]
    return stats[stats["step"].isin(keep)]


def _facet(chart, layout: dict):
    """Facet by column and row; a single facet axis wraps, FACET_COLUMNS panels to a line."""
    import altair as alt

    column, row = layout["column"], layout["row"]
    if column and row:
        return chart.facet(column=alt.Column(f"{column}:O"), row=alt.Row(f"{row}:O"))
    if column or row:
        field = column or row
        order = None if field != CASE else "ascending"
        return chart.facet(facet=alt.Facet(f"{field}:O", sort=order), columns=FACET_COLUMNS)
    return chart


def with_case_axis(results: Results, table: pd.DataFrame, axes: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """A sweep's `cases` (e.g. {d: 2, n: 1000}, {d: 3, n: 3000}) are alternatives, not a product:
    faceting by each of their keys would leave most panels empty. Their keys become one axis
    `case` with labels like "1: d=2, n=1000" (numbered in the sweep's order)."""
    keys = [k for k in dict.fromkeys(k for case in results.sweep.get("cases") or [] for k in case) if k in axes]
    if not keys:
        return table, axes
    key_of = joined(table, keys)
    order = list(dict.fromkeys(key_of.sort_values(key=lambda s: s.map(_case_position(results, keys)))))
    digits = len(str(len(order)))  # zero-padded, so the labels sort in the sweep's order
    label = {
        k: f"{i + 1:0{digits}d}: " + ", ".join(f"{n}={v}" for n, v in zip(keys, k.split("|"), strict=True))
        for i, k in enumerate(order)
    }
    table = table.assign(**{CASE: key_of.map(label)})
    return table, [a for a in axes if a not in keys] + [CASE]


def _case_position(results: Results, keys: list[str]):
    cases = ["|".join(str(case.get(k)) for k in keys) for case in results.sweep.get("cases") or []]
    return lambda key: cases.index(key) if key in cases else len(cases)


def probe_charts(results: Results, thresholds=None) -> list[tuple[str, alt.TopLevelMixin]]:
    """Final metrics (the study's measurements and mechanism probes) against the sweep's axes:
    mean ± one s.d. over seeds, the axis with most values on x (log scale when positive). A metric
    that is the same at every eval point of a run is drawn against the config axes only. `thresholds`:
    {metric: ε} of the laws' measures; those metrics come first (a threshold search's criterion is never
    cut off by MAX_PROBE_CHARTS) and get ε as a dashed red rule, as on their training curves."""
    runs = results.runs[results.runs["status"] == "ok"]
    if not len(runs):
        return []
    thresholds = thresholds or {}
    eval_params = set(results.params("eval"))
    charts = []
    metrics = [m for m in results.metrics() if not is_per_unit(m)]
    metrics = sorted(metrics, key=lambda m: m not in thresholds)  # stable: otherwise the study's order
    for metric in metrics[:MAX_PROBE_CHARTS]:
        values = runs[np.isfinite(runs[metric].astype(float))]
        if not len(values) or values[metric].nunique() < 2:
            continue
        per_run = values.groupby("run_id")[metric].nunique().max() <= 1
        if per_run:
            values = values.drop_duplicates("run_id")
        axes = [a for a in results.grid_axes() if not (per_run and a in eval_params)]
        values, axes = with_case_axis(results, values, axes)
        axes = [a for a in axes if values[a].nunique(dropna=False) > 1]
        if axes:
            charts.append((f"probe {metric}", _probe_chart(results, values, metric, axes, thresholds.get(metric))))
    return charts


def _probe_chart(results: Results, values: pd.DataFrame, metric: str, axes: list[str], epsilon=None):
    import altair as alt

    layout = axis_layout(order_axes(results, values, axes), ("x", "colour", "column", "row"))
    x_axis, colour = layout["x"], layout["colour"]
    facet_layout = {"column": layout["column"], "row": layout["row"]}
    stats, log = seed_band(values, axes, metric)
    stats = _fold(_labels_as_text(stats, axes), facet_layout)
    numeric_x = _is_number(stats[x_axis])
    log_x = numeric_x and (stats[x_axis] > 0).all()
    scale = alt.Scale(type="log", nice=False, padding=12) if log_x else alt.Scale(padding=12)
    x_enc = alt.X(f"{x_axis}:{'Q' if numeric_x else 'O'}", scale=scale)
    colour_enc = {"color": alt.Color(f"{colour}:O", scale=alt.Scale(scheme="viridis"))} if colour else {}
    y_scale = alt.Scale(type="log") if log else alt.Scale()
    y_enc = alt.Y("low:Q", title=metric, scale=y_scale)
    rules = alt.Chart().mark_rule().encode(x=x_enc, y=y_enc, y2="high:Q", **colour_enc)
    line = alt.Chart().mark_line(point=True).encode(x=x_enc, y=alt.Y("mean:Q", scale=y_scale), **colour_enc)
    layers = [rules, line]
    title = f"final {metric} ({BAND_TEXT[log]} over seeds)"
    if epsilon is not None:  # in the same data, so that the facets keep it
        stats = stats.assign(epsilon=epsilon)
        layers.append(alt.Chart().mark_rule(color="#b2182b", strokeDash=[6, 3]).encode(y="epsilon:Q"))
        title += f"; dashed red: the laws' ε = {epsilon:g}"
    chart = alt.layer(*layers, data=stats).properties(width=380, height=220)
    return _facet(chart, facet_layout).properties(title=title)
