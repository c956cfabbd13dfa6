"""Altair charts of laws and sweeps. Every chart is drawn from data aggregated here (means over seeds,
at most a few hundred rows), never from raw runs or curves, so no chart nears Altair's row limit.

Law charts: log–log points (geometric mean over seeds ± one standard deviation of log y), the
fitted line, the theory's band or slope anchored at the data's centre (the theory gives exponents,
not prefactors), and the residuals. Sweep charts: training curves (mean ± one s.d. band over seeds)
and final metrics ("probes") against the grid axes.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from analysis.law import LawFit
    from analysis.reader import Results

WIDTH, HEIGHT = 380, 240
CASE = "case"  # the facet axis made of a sweep's cases
FACET_COLUMNS = 3
MAX_STEPS_PER_SERIES = 200  # curves thinned to this many records per series before plotting
MAX_PROBE_CHARTS = 12
VERDICT_COLOURS = {"consistent": "#1b7837", "inconsistent": "#b2182b", "inconclusive": "#8c6d1f"}


def law_chart(fit: LawFit) -> alt.TopLevelMixin | None:
    kind = fit.law.kind
    if fit.points is None or not len(fit.points):
        return None
    if kind == "power law":
        return power_law_chart(fit)
    if kind == "diagonal minimum":
        return diagonal_chart(fit)
    if kind == "threshold":
        return threshold_chart(fit)
    if kind == "linear":
        return linear_chart(fit)
    if kind == "flat region":
        return flat_region_chart(fit)
    return bound_chart(fit)


def _title(fit: LawFit, text: str, note: str = "") -> dict:
    subtitle = [f"{fit.group_label} — {fit.verdict.verdict}: {fit.verdict.reason}"]
    return {
        "text": text,
        "subtitle": [*subtitle, note] if note else subtitle,
        "subtitleColor": VERDICT_COLOURS.get(fit.verdict.verdict, "black"),
        "anchor": "start",
    }


def seed_summary(points: pd.DataFrame, by: str = "x", log: bool = True) -> pd.DataFrame:
    """Per x value: mean over seeds (geometric on log axes) and mean ± one standard deviation."""
    import pandas as pd

    usable = points[~points["censored"] & np.isfinite(points["value"])]
    if log:
        usable = usable[usable["value"] > 0].assign(value=lambda t: np.log(t["value"]))
    stats = usable.groupby(by, dropna=False)["value"].agg(["mean", "std", "count"]).reset_index()
    stats["std"] = stats["std"].fillna(0.0)
    transform = np.exp if log else (lambda v: v)
    return pd.DataFrame(
        {
            by: stats[by],
            "mean": transform(stats["mean"]),
            "low": transform(stats["mean"] - stats["std"]),
            "high": transform(stats["mean"] + stats["std"]),
            "seeds": stats["count"],
        }
    )


def power_law_chart(fit: LawFit) -> alt.TopLevelMixin:
    import altair as alt
    import pandas as pd

    law, result = fit.law, fit.fit
    x_name, y_name = law.x_symbol, law.measure.label
    summary = seed_summary(fit.points)
    shown = [fit.points, fit.outside_points] if fit.outside_points is not None else [fit.points]
    xs = pd.concat([p["x"] for p in shown]).astype(float)
    xs = xs[np.isfinite(xs) & (xs > 0)]
    domain = [float(xs.min()), float(xs.max())] if len(xs) else alt.Undefined  # shared with the residuals
    x_scale = alt.Scale(type="log", nice=False, padding=12, domain=domain)
    y_scale = alt.Scale(type="log", nice=False, padding=12)
    x_enc = alt.X("x:Q", scale=x_scale, title=x_name)
    layers = []

    lines = []
    if result is not None and math.isfinite(result.exponent) and len(summary):
        x_grid = np.geomspace(summary["x"].min(), summary["x"].max(), 20)
        log_x0 = float(result.log_x[:, 0].mean())
        log_y0 = result.log_prefactor + result.exponent * log_x0  # the fitted line's value at the centre
        lines.append(pd.DataFrame({"x": x_grid, "y": result.predict(x=x_grid), "line": f"fit {result.exponent:.3g}"}))
        if fit.prediction is not None:
            band = fit.prediction.primary.band
            edges = [v for v in (band.low, band.high) if math.isfinite(v)]
            if len(edges) == 2 and band.low != band.high:
                area = pd.DataFrame(
                    {
                        "x": x_grid,
                        "low": np.exp(log_y0 + band.low * (np.log(x_grid) - log_x0)),
                        "high": np.exp(log_y0 + band.high * (np.log(x_grid) - log_x0)),
                    }
                )
                layers.append(
                    alt.Chart(area)
                    .mark_area(opacity=0.18, color="#4575b4")
                    .encode(x=x_enc, y=alt.Y("low:Q", scale=y_scale, title=y_name), y2="high:Q")
                )
            for value in edges if len(edges) == 1 or band.low == band.high else []:
                slope = np.exp(log_y0 + value * (np.log(x_grid) - log_x0))
                lines.append(pd.DataFrame({"x": x_grid, "y": slope, "line": f"theory {value:.3g}"}))
            for hypothesis in fit.prediction.alternatives:
                if hypothesis.band.low == hypothesis.band.high:
                    value = hypothesis.band.low
                    slope = np.exp(log_y0 + value * (np.log(x_grid) - log_x0))
                    lines.append(pd.DataFrame({"x": x_grid, "y": slope, "line": f"{hypothesis.name} ({value:.3g})"}))
    if lines:
        fit_label = lines[0]["line"].iloc[0]  # the fitted line is solid, theory lines dashed
        line_data = pd.concat(lines, ignore_index=True)
        layers.append(
            alt.Chart(line_data)
            .mark_line(strokeWidth=1.5)
            .encode(
                x=x_enc,
                y=alt.Y("y:Q", scale=y_scale, title=y_name),
                color=alt.Color("line:N", title="line", legend=alt.Legend(orient="bottom", columns=2)),
                strokeDash=alt.condition(alt.datum.line == fit_label, alt.value([1, 0]), alt.value([4, 3])),
            )
        )
    if fit.outside_points is not None and len(fit.outside_points):
        outside = seed_summary(fit.outside_points)
        layers.append(
            alt.Chart(outside)
            .mark_point(shape="diamond", color="#999999", filled=False, size=40)
            .encode(x=x_enc, y=alt.Y("mean:Q", scale=y_scale), tooltip=["x:Q", "mean:Q"])
        )
    layers.append(
        alt.Chart(summary)
        .mark_rule(color="black")
        .encode(x=x_enc, y=alt.Y("low:Q", scale=y_scale, title=y_name), y2="high:Q")
    )
    layers.append(
        alt.Chart(summary)
        .mark_point(filled=True, color="black", size=30)
        .encode(x=x_enc, y=alt.Y("mean:Q", scale=y_scale), tooltip=["x:Q", "mean:Q", "low:Q", "high:Q", "seeds:Q"])
    )
    note = "points: geometric mean over seeds ± 1 s.d.; theory lines anchored at the data's centre"
    band = fit.prediction.primary.band if fit.prediction is not None else None
    if band is not None and band.low != band.high and math.isfinite(band.low) and math.isfinite(band.high):
        note += f"; shaded: {fit.prediction.primary.name}"
    if fit.outside_points is not None and len(fit.outside_points):
        note += "; grey diamonds: outside the regime (not fitted)"
    main = alt.layer(*layers).properties(
        width=WIDTH, height=HEIGHT, title=_title(fit, f"{law.name}: {y_name} vs {x_name}", note)
    )
    if result is None or not len(result.residuals) or not np.isfinite(result.residuals).any():
        return main
    residuals = pd.DataFrame({"x": np.exp(result.log_x[:, 0]), "residual": result.residuals})
    residual_chart = alt.layer(
        alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#999999").encode(y="zero:Q"),
        alt.Chart(residuals)
        .mark_point(color="black", size=20)
        .encode(x=x_enc, y=alt.Y("residual:Q", title="log residual")),
    ).properties(width=WIDTH, height=80)
    return alt.vconcat(main, residual_chart)


def bound_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. per x value (or per group when there is no x) and the bound."""
    import altair as alt
    import pandas as pd

    law = fit.law
    points = fit.points.assign(x=fit.points["x"] if law.x else 0.0)
    summary = seed_summary(points, log=False)
    x_enc = alt.X("x:Q", scale=alt.Scale(type="log"), title=law.x) if law.x else alt.X("x:O", title=None)
    y_title = law.measure.describe()
    layers = [
        alt.Chart(summary).mark_rule(color="black").encode(x=x_enc, y=alt.Y("low:Q", title=y_title), y2="high:Q"),
        alt.Chart(summary).mark_point(filled=True, color="black").encode(x=x_enc, y="mean:Q"),
        alt.Chart(points).mark_point(color="#777777", size=12, opacity=0.6).encode(x=x_enc, y="value:Q"),
    ]
    if fit.prediction is not None:
        band = fit.prediction.primary.band
        edges = [v for v in (band.low, band.high) if math.isfinite(v)]
        rules = pd.DataFrame({"bound": edges, "label": [f"bound {v:.3g}" for v in edges]})
        layers.append(
            alt.Chart(rules).mark_rule(color="#4575b4", strokeDash=[4, 3]).encode(y="bound:Q", tooltip=["label:N"])
        )
    return alt.layer(*layers).properties(width=WIDTH, height=HEIGHT, title=_title(fit, f"{law.name}"))


def threshold_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed-mean of the measure per x value with its 95% bootstrap interval, coloured by whether it lies
    on the side of ε the claim puts it on; ε as a horizontal rule, the predicted threshold x0 as a
    vertical one. The y axis is symlog (errors of exactly 0 stay on the chart)."""
    import altair as alt
    import pandas as pd

    law = fit.law
    levels = fit.details.get("levels")
    if levels is None or not len(levels):
        return bound_chart(fit)
    epsilon = fit.details.get("threshold", math.nan)
    table = levels.assign(
        agrees=np.where(
            ~levels["claimed"],
            "no claim",
            np.where(
                levels["side"] == levels["expected"],
                "on its predicted side",
                np.where(levels["side"] == "unclear", "straddles ε", "wrong side"),
            ),
        )
    )
    colours = alt.Scale(
        domain=["on its predicted side", "straddles ε", "wrong side", "no claim"],
        range=["#1b7837", "#8c6d1f", "#b2182b", "#777777"],
    )
    y_scale = alt.Scale(type="symlog", constant=max(epsilon / 10, 1e-6) if math.isfinite(epsilon) else 1e-3)
    x_enc = alt.X("x:Q", title=law.x_symbol, scale=alt.Scale(padding=12, zero=False))
    y_title = f"{law.measure.label} (seed-mean, 95% interval)"
    layers = [
        alt.Chart(fit.points)
        .mark_point(color="#999999", size=12, opacity=0.6)
        .encode(x=x_enc, y=alt.Y("value:Q", scale=y_scale, title=y_title)),
        alt.Chart(table).mark_rule().encode(x=x_enc, y=alt.Y("low:Q", scale=y_scale), y2="high:Q", color="agrees:N"),
        alt.Chart(table)
        .mark_point(filled=True, size=50)
        .encode(
            x=x_enc,
            y=alt.Y("mean:Q", scale=y_scale),
            color=alt.Color("agrees:N", scale=colours, title=None, legend=alt.Legend(orient="bottom")),
            tooltip=["x:Q", "mean:Q", "low:Q", "high:Q", "seeds:Q", "side:N", "expected:N"],
        ),
    ]
    if math.isfinite(epsilon):
        rule = pd.DataFrame({"y": [epsilon], "label": [f"ε = {epsilon:g}"]})
        layers.append(
            alt.Chart(rule).mark_rule(strokeDash=[4, 3], color="#4575b4").encode(y="y:Q", tooltip=["label:N"])
        )
    if fit.prediction is not None and math.isfinite(fit.prediction.primary.band.low):
        x0 = fit.prediction.primary.band.low
        rule = pd.DataFrame({"x": [x0], "label": [f"predicted threshold {x0:g}"]})
        layers.append(
            alt.Chart(rule).mark_rule(strokeDash=[2, 2], color="#d73027").encode(x="x:Q", tooltip=["label:N"])
        )
    x0 = fit.prediction.primary.band.low if fit.prediction is not None else None
    note = f"dashed: ε and the predicted threshold; grey: single seeds; claim: {law.claim_text(x0)}"
    return alt.layer(*layers).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


def _linear_seed_layers(fit: LawFit, mean_as_line: bool):
    """Single seeds (grey), seed means ± one s.d. (black) on linear axes: (summary, x encoding, layers)."""
    import altair as alt

    summary = seed_summary(fit.points, log=False)
    x_enc = alt.X("x:Q", title=fit.law.x_symbol, scale=alt.Scale(padding=12))
    chart = alt.Chart(summary)
    if mean_as_line:
        means = chart.mark_line(point=True, color="black")
    else:
        means = chart.mark_point(filled=True, color="black", size=30)
    layers = [
        alt.Chart(fit.points).mark_point(color="#999999", size=12, opacity=0.6).encode(x=x_enc, y="value:Q"),
        alt.Chart(summary)
        .mark_rule(color="black")
        .encode(x=x_enc, y=alt.Y("low:Q", title=fit.law.measure.label), y2="high:Q"),
        means.encode(x=x_enc, y="mean:Q"),
    ]
    return summary, x_enc, layers


def linear_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. on linear axes with the fitted line a + b·x."""
    import altair as alt
    import pandas as pd

    law = fit.law
    summary, x_enc, layers = _linear_seed_layers(fit, mean_as_line=False)
    slope, intercept = fit.details.get("slope", math.nan), fit.details.get("intercept", math.nan)
    if math.isfinite(slope) and math.isfinite(intercept) and len(summary):
        xs = np.linspace(float(summary["x"].min()), float(summary["x"].max()), 20)
        line = pd.DataFrame({"x": xs, "y": intercept + slope * xs})
        layers.append(alt.Chart(line).mark_line(color="#4575b4").encode(x=x_enc, y="y:Q"))
    note = f"points: mean ± 1 s.d. over seeds; line: fitted slope {slope:.3g} (R² {fit.r2:.3g})"
    return alt.layer(*layers).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


def flat_region_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. against x, the edge (e.g. the small-neuron share) and the onset as rules."""
    import altair as alt
    import pandas as pd

    law = fit.law
    _summary, _x_enc, layers = _linear_seed_layers(fit, mean_as_line=True)
    marks = []
    edge, onset = fit.details.get("edge", math.nan), fit.details.get("onset", math.nan)
    if math.isfinite(edge):
        marks.append({"x": edge, "label": f"edge {edge:.3g}"})
    if math.isfinite(onset):
        marks.append({"x": onset, "label": f"onset {onset:g}"})
    if marks:
        layers.append(
            alt.Chart(pd.DataFrame(marks))
            .mark_rule(strokeDash=[4, 3])
            .encode(x="x:Q", color=alt.Color("label:N", title=None, legend=alt.Legend(orient="bottom")))
        )
    note = "mean ± 1 s.d. over seeds; edge: the data-given end of the free region; onset: the first x that costs"
    return alt.layer(*layers).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


def diagonal_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Heatmap of mean error / the diagonal's error for each test value (column)."""
    import altair as alt

    law = fit.law
    means = fit.points.groupby(["row", "x"], as_index=False)["value"].mean()
    diagonal = means[np.isclose(means["row"], means["x"])][["x", "value"]].rename(columns={"value": "diagonal"})
    means = means.merge(diagonal, on="x", how="left")
    means["log10 ratio to diagonal"] = np.log10(means["value"] / means["diagonal"])
    means["best"] = means.groupby("x")["value"].transform("min") == means["value"]
    base = alt.Chart(means).encode(
        x=alt.X("x:O", title=f"test {law.x}"), y=alt.Y("row:O", title=f"pretraining {law.row_axis}", sort="descending")
    )
    reach = float(np.nanmax(np.abs(means["log10 ratio to diagonal"]))) or 1.0  # symmetric: 0 is white
    heat = base.mark_rect().encode(
        color=alt.Color(
            "log10 ratio to diagonal:Q", scale=alt.Scale(scheme="redblue", reverse=True, domain=[-reach, reach])
        ),
        tooltip=["row:Q", "x:Q", "value:Q", "log10 ratio to diagonal:Q"],
    )
    marks = base.mark_text(fontSize=10).encode(text=alt.condition(alt.datum.best, alt.value("min"), alt.value("")))
    return alt.layer(heat, marks).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name))


# Sweep charts ---------------------------------------------------------------------------------
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
        table = table.assign(**{row: table[parts].astype(str).agg(", ".join, axis=1)})
    return table


PER_UNIT_METRIC = re.compile(r".+_\d{3}")


def is_per_unit(metric: str) -> bool:
    """Per-neuron (or per-unit) metrics such as neuron_magnitude_007: one chart each would bury the
    report; they are drawn together where they mean something (the pruning section's bars)."""
    return PER_UNIT_METRIC.fullmatch(metric) is not None


def training_curve_charts(results: Results) -> list[tuple[str, alt.TopLevelMixin]]:
    """One chart per curve metric with more than one recorded step: mean ± one s.d. over seeds,
    coloured and faceted by the sweep's axes."""
    import altair as alt

    from analysis.reader import curves_with_params

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
        chart = alt.layer(band, line, data=stats).properties(width=260, height=170)
        chart = _facet(chart, layout)
        title = f"{metric} during training ({BAND_TEXT[log]} over seeds)"
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
    key_of = table[keys].astype(str).agg("|".join, axis=1)
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


def probe_charts(results: Results) -> list[tuple[str, alt.TopLevelMixin]]:
    """Final metrics (the study's measurements and mechanism probes) against the sweep's axes:
    mean ± one s.d. over seeds, the axis with most values on x (log scale when positive). A metric
    that is the same at every eval point of a run is drawn against the config axes only."""
    runs = results.runs[results.runs["status"] == "ok"]
    if not len(runs):
        return []
    eval_params = set(results.params("eval"))
    charts = []
    for metric in [m for m in results.metrics() if not is_per_unit(m)][:MAX_PROBE_CHARTS]:
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
            charts.append((f"probe {metric}", _probe_chart(results, values, metric, axes)))
    return charts


def _probe_chart(results: Results, values: pd.DataFrame, metric: str, axes: list[str]):
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
    chart = alt.layer(rules, line, data=stats).properties(width=260, height=170)
    return _facet(chart, facet_layout).properties(title=f"final {metric} ({BAND_TEXT[log]} over seeds)")


# Sections of their own: pruning and classical learners ---------------------------------------------
METHOD_COLOURS = {"none": "#777777", "random": "#d95f02", "magnitude": "#1b9e77", "largest": "#7570b3"}


def pruning_chart(finding) -> alt.TopLevelMixin:
    """[L24] Fig. 5A's layout: error against the pruning rate per method (mean ± 1 s.d. over seeds, left
    axis) over the sorted neuron magnitudes as light-blue bars (right axis), the small-neuron share and
    the onset of magnitude pruning's cost as rules; the hinge loss in a panel below."""
    import altair as alt

    table = finding.table
    methods = sorted(
        table["prune_method"].unique(), key=lambda m: list(METHOD_COLOURS).index(m) if m in METHOD_COLOURS else 9
    )
    colour = alt.Color(
        "prune_method:N",
        title="pruning",
        scale=alt.Scale(domain=methods, range=[METHOD_COLOURS.get(m, "#000000") for m in methods]),
        legend=alt.Legend(orient="bottom"),
    )
    x_scale = alt.Scale(domain=[0, 1] if len(finding.magnitudes) else alt.Undefined, nice=False)
    x_enc = alt.X("prune_ratio:Q", title="pruning rate R", scale=x_scale)

    def panel(metric: str, title: str):
        stats = (
            table.groupby(["prune_method", "prune_ratio"])[metric]
            .agg(["mean", "std"])
            .reset_index()
            .fillna({"std": 0.0})
        )
        stats = stats.assign(low=stats["mean"] - stats["std"], high=stats["mean"] + stats["std"])
        y = alt.Y("mean:Q", title=title)
        return [
            alt.Chart(stats)
            .mark_rule(opacity=0.6)
            .encode(x=x_enc, y=alt.Y("low:Q", title=title), y2="high:Q", color=colour),
            alt.Chart(stats)
            .mark_line(point=True)
            .encode(x=x_enc, y=y, color=colour, tooltip=["prune_method:N", "prune_ratio:Q", "mean:Q", "std:Q"]),
        ]

    curves = panel(finding.metric, f"{finding.metric} (mean ± 1 s.d.)")
    notes = ["bars: sorted neuron magnitudes (right axis, mean over seeds by rank)"]
    if math.isfinite(finding.share):
        notes.append(f"dashed: small-neuron share |L^c|/m = {finding.share:.2f}")
        curves.append(_vertical_rule(finding.share, [4, 3]))
    if "magnitude" in finding.onsets and math.isfinite(finding.onsets["magnitude"][0]):
        onset = finding.onsets["magnitude"][0]
        notes.append(f"dotted: magnitude pruning costs from R = {onset:g}")
        curves.append(_vertical_rule(onset, [1, 2]))
    main = alt.layer(*curves)
    if len(finding.magnitudes):
        bars = (
            alt.Chart(finding.magnitudes)
            .mark_bar(color="#9ecae1", opacity=0.6)
            .encode(
                x=alt.X("low:Q", scale=x_scale),
                x2="high:Q",
                y=alt.Y(
                    "magnitude:Q", title="neuron magnitude (sorted; mean over seeds)", axis=alt.Axis(orient="right")
                ),
                y2=alt.datum(0),
                tooltip=["rank:Q", "magnitude:Q"],
            )
        )
        main = alt.layer(bars, main).resolve_scale(y="independent")
    main = main.properties(
        width=WIDTH + 60,
        height=HEIGHT,
        title={
            "text": f"Pruning: {finding.metric} vs R — {finding.label}",
            "anchor": "start",
            "subtitle": notes,
        },
    )
    if "test_hinge" not in table:
        return main
    hinge = alt.layer(*panel("test_hinge", "hinge loss")).properties(width=WIDTH + 60, height=120)
    return alt.vconcat(main, hinge)


def _vertical_rule(x: float, dash: list[int]):
    import altair as alt
    import pandas as pd

    return alt.Chart(pd.DataFrame({"x": [x]})).mark_rule(strokeDash=dash, color="black").encode(x="x:Q")


def baselines_chart(finding) -> alt.TopLevelMixin:
    """[L24] Fig. 4's layout: error against the context length per learner, one panel per α'."""
    import altair as alt

    stats = (
        finding.table.groupby(["alpha_test", "learner", "l_ts"])["test_error"]
        .agg(["mean", "std"])
        .reset_index()
        .fillna({"std": 0.0})
    )
    stats = stats.assign(low=(stats["mean"] - stats["std"]).clip(lower=0), high=stats["mean"] + stats["std"])
    stats["panel"] = stats["alpha_test"].map(lambda a: f"α' = {a:g}")
    learners = ["transformer", *sorted(set(stats["learner"]) - {"transformer"})]
    colour = alt.Color(
        "learner:N", sort=learners, scale=alt.Scale(scheme="category10"), legend=alt.Legend(orient="bottom")
    )
    x_enc = alt.X("l_ts:Q", title="context length l_ts")
    base = alt.Chart().encode(x=x_enc, color=colour)
    y_scale = alt.Scale(type="symlog", constant=0.01)  # small errors stay visible; 0 stays on the chart
    layers = alt.layer(
        base.mark_rule(opacity=0.5).encode(
            y=alt.Y("low:Q", title="test error (mean ± 1 s.d., symlog)", scale=y_scale), y2="high:Q"
        ),
        base.mark_line(point=True).encode(
            y=alt.Y("mean:Q", scale=y_scale),
            strokeWidth=alt.condition(alt.datum.learner == "transformer", alt.value(3), alt.value(1.5)),
            tooltip=["learner:N", "l_ts:Q", "mean:Q", "std:Q"],
        ),
        data=stats,
    ).properties(width=300, height=HEIGHT)
    order = sorted(stats["panel"].unique(), key=lambda t: -float(t.split("= ")[1]))
    return layers.facet(column=alt.Column("panel:N", sort=order, title=None)).properties(
        title={"text": f"ICL vs classical learners — {finding.label}", "anchor": "start"}
    )
