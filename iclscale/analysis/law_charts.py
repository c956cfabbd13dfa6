"""Altair charts of laws, one builder per kind (`law_chart` picks it). Every chart is drawn from data
aggregated here (means over seeds, at most a few hundred rows).

Every mark a chart draws is named in its panel's legend (iclscale.analysis.chart_keys), and every kind draws the
points outside the theorem's conditions hollow and grey (measured, never fitted, never dropped).

Power laws: log–log points (geometric mean over seeds ± one standard deviation of log y), points outside the
theorem's conditions hollow, the fitted line (and the drop-censored one where they differ), the theory's band
or slope anchored at the data's centre (the theory gives exponents, not prefactors), the paper's other forms,
the residuals and the local exponents along x.
Axes carry the param's symbol and meaning where the frozen sweep gives them. Every kind draws censored points
the same way (iclscale.analysis.censored_marks): each seed's bound as a red triangle with its legend entry, counted
in the caption.

The pieces the charts share are in iclscale.analysis.law_chart_marks; the charts with a second param beside x
(a comparison's settings, an earlier onset's variants, a diagonal minimum's pretraining values) in
iclscale.analysis.law_charts_by_setting.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from iclscale.analysis.chart_keys import Keyed, apart, outside_layer
from iclscale.analysis.law_chart_marks import (
    HEIGHT,
    WIDTH,
    chart_title,
    layered,
    points_outside,
    seed_means,
    single_seeds,
    y_title,
)
from iclscale.analysis.law_charts_by_setting import comparison_chart, diagonal_chart, earlier_onset_chart
from iclscale.analysis.seed_summary import seed_summary

if TYPE_CHECKING:
    import altair as alt

    from iclscale.analysis.lawfit import LawFit


def law_chart(fit: LawFit) -> alt.TopLevelMixin | None:
    """The chart of the fit's kind (CHARTS), or None without points."""
    shown = [p for p in (fit.points, fit.outside_points) if p is not None and len(p)]
    if not shown:
        return None
    return CHARTS.get(fit.law.kind.name, bound_chart)(fit)


DRAWN = {  # how each kind of chart draws its points (the caption's first sentence)
    "power law": "on log–log axes, each black point the geometric mean over seeds ± 1 s.d. of log y; below, the log "
    "residuals of the fit and the local exponents between neighbouring x against the theory's band",
    "bound": "black: the mean over seeds ± 1 s.d. at each x; grey: single seeds",
    "trend": "black: the mean over seeds ± 1 s.d., joined in x order (the trend Spearman's ρ summarises); grey: single "
    "seeds",
    "linear": "black: the mean over seeds ± 1 s.d.; grey: single seeds",
    "threshold": "the seed-mean at each x with its 95% bootstrap interval, coloured by the side of ε it lies on; "
    "grey: single seeds; y on a symlog scale",
    "comparison": "the mean over seeds ± 1 s.d. per compared setting",
    "flat region": "black: the mean over seeds ± 1 s.d., joined in x order; grey: single seeds",
    "earlier onset": "the mean over seeds ± 1 s.d. per variant, each variant's onset a dotted rule",
    "diagonal minimum": "the mean error of each (pretraining, test) cell over the diagonal's, log₁₀, the least per "
    "column marked",
}


def caption(fit: LawFit) -> str:
    """The caption under the law's chart: what is plotted and how, the fitted line, the prediction drawn, how many
    points and which lie outside the theorem's conditions (drawn hollow and grey, never fitted)."""
    from iclscale.analysis.page import num

    law = fit.law
    against = f" against {fit.x_title or law.x_symbol}" if law.x else ""
    parts = [f"{y_title(law)}{against}, {DRAWN.get(law.kind.name, DRAWN['bound'])}."]
    interval = f"[{num(fit.ci_low)}, {num(fit.ci_high)}]"
    if law.kind.name == "power law" and math.isfinite(fit.estimate):
        method = fit.interval_method.split(" (")[0]
        parts.append(f"Solid line: the fitted exponent {num(fit.estimate)} {interval} ({method}).")
    elif law.kind.name == "linear" and math.isfinite(fit.details.get("slope", math.nan)):
        parts.append(f"Line: the fitted slope {num(fit.details['slope'])} {interval}.")
    elif math.isfinite(fit.estimate):
        parts.append(f"{fit.statistic or 'The statistic'}: {num(fit.estimate)} {interval}.")
    if fit.prediction is not None:
        hypothesis = fit.prediction.primary
        band = hypothesis.band
        if law.kind.name == "power law":
            drawn = "shaded: its band" if band.low != band.high else "dashed: its exponent"
            parts.append(f"The theory's exponent {band.describe()} ({hypothesis.source}), {drawn}, anchored at the "
                         "fitted points' centre (the theory gives exponents, not prefactors).")  # fmt: skip
        elif law.kind.name in ("bound", "threshold"):
            parts.append(f"Dashed: the prediction {band.describe()} ({hypothesis.source}).")
        else:
            parts.append(f"Predicted: {band.describe()} ({hypothesis.source}).")
    censored = f", {fit.n_censored} censored (triangles at their bound)" if fit.n_censored else ""
    parts.append(f"{fit.n_points} points at {fit.n_levels} x values fitted{censored}.")
    if fit.n_outside:
        binding = f"; binding condition: {fit.binding}" if fit.binding else ""
        parts.append(f"{fit.n_outside} points outside the theorem's conditions, drawn hollow and grey, not "
                     f"fitted{binding}.")  # fmt: skip
    not_ok = fit.n_excluded - fit.n_outside
    if not_ok > 0:
        parts.append(f"{not_ok} runs not ok (diverged or failed) left out.")
    return " ".join(parts)


def power_law_chart(fit: LawFit) -> alt.TopLevelMixin:
    from iclscale.analysis.power_chart import power_law_chart as chart

    law = fit.law
    note = "points: geometric mean over seeds ± 1 s.d.; theory lines anchored at the fitted points' centre"
    return chart(fit, chart_title(fit, f"{law.name}: {law.measure.label} vs {law.x_symbol}", note))


def bound_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. per x value (or per group when there is no x), single seeds in grey, censored
    points at their bound, and the predicted band's edges as dashed rules. A categorical x (a task class) is
    drawn as categories."""
    import altair as alt
    import pandas as pd

    from iclscale.analysis.censored_marks import censored_layer

    law = fit.law
    points = fit.points.assign(x=fit.points["x"] if law.x else "all")
    outside = points_outside(fit, None if law.x else "all")
    numeric = law.x is not None and pd.api.types.is_numeric_dtype(points["x"])
    summary = seed_summary(points, log=False)
    if numeric:
        every_x = pd.concat([points["x"], *([outside["x"]] if outside is not None else [])])
        scale = alt.Scale(type="log" if (every_x > 0).all() else "linear", padding=12)
        x_enc = alt.X("x:Q", scale=scale, title=fit.x_title or law.x_symbol)
    else:
        x_enc = alt.X("x:N", title=fit.x_title or law.x_symbol or None)
    keyed = Keyed()
    single_seeds(keyed, points, x_enc)
    seed_means(keyed, summary, x_enc, y_title(law))
    outside_layer(keyed, outside, x_enc, alt.Y("value:Q"))
    if fit.prediction is not None:
        band = fit.prediction.primary.band
        edges = sorted({v for v in (band.low, band.high) if math.isfinite(v)})  # a point: one edge
        labels = {f"predicted edge {v:.3g}": c for v, c in zip(edges, ("#4575b4", "#d73027"), strict=False)}
        rules = pd.DataFrame({"bound": edges, "key": list(labels)})
        keyed.add(alt.Chart(rules).mark_rule(strokeDash=[4, 3]).encode(y="bound:Q"), labels)
    layers = [*keyed.layers(), *censored_layer(points, x_enc)]
    note = "black: mean ± 1 s.d. over seeds; grey: single seeds"
    return layered(layers).properties(width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name, note))


def trend_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. joined in x order (the trend Spearman's ρ summarises), single seeds in grey,
    censored points at their bound."""
    import altair as alt

    from iclscale.analysis.censored_marks import censored_layer

    law = fit.law
    summary = seed_summary(fit.points, log=False)
    x_enc = alt.X("x:Q", scale=alt.Scale(type="log", padding=12), title=fit.x_title or law.x_symbol)
    keyed = Keyed()
    single_seeds(keyed, fit.points, x_enc)
    seed_means(keyed, summary, x_enc, y_title(law), as_line=True)
    outside_layer(keyed, points_outside(fit), x_enc, alt.Y("value:Q"))
    layers = [*keyed.layers(), *censored_layer(fit.points, x_enc)]
    note = f"Spearman ρ = {fit.estimate:.3g} [{fit.ci_low:.3g}, {fit.ci_high:.3g}]; black: mean ± 1 s.d. over seeds"
    return layered(layers).properties(width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name, note))


def threshold_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed-mean of the measure per x value with its 95% bootstrap interval, coloured by whether it lies
    on the side of ε the claim puts it on; ε as a horizontal rule, the predicted threshold x0 as a
    vertical one; censored points at their bound. The y axis is symlog (errors of exactly 0 stay on the chart)."""
    import altair as alt
    import pandas as pd

    from iclscale.analysis.censored_marks import censored_layer

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
    x_enc = alt.X("x:Q", title=fit.x_title or law.x_symbol, scale=alt.Scale(padding=12, zero=False))
    y_text = f"{law.measure.symbol or law.measure.label} (seed-mean, 95% interval)"
    keyed = Keyed()
    single_seeds(keyed, fit.points, x_enc, alt.Y("value:Q", scale=y_scale, title=y_text))
    outside_layer(keyed, points_outside(fit), x_enc, alt.Y("value:Q", scale=y_scale))
    layers = [
        *censored_layer(fit.points, x_enc, y_scale=y_scale),
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
        rule = alt.Chart(pd.DataFrame({"y": [epsilon]})).mark_rule(strokeDash=[4, 3]).encode(y="y:Q")
        keyed.add(rule, f"ε = {epsilon:g}", "#4575b4")
    if fit.prediction is not None and math.isfinite(fit.prediction.primary.band.low):
        x0 = fit.prediction.primary.band.low
        rule = alt.Chart(pd.DataFrame({"x": [x0]})).mark_rule(strokeDash=[2, 2]).encode(x="x:Q")
        keyed.add(rule, f"predicted threshold {x0:g}", "#d73027")
    x0 = fit.prediction.primary.band.low if fit.prediction is not None else None
    note = f"dashed: ε and the predicted threshold; grey: single seeds; claim: {law.kind.claim_text(law, x0)}"
    return layered(apart(layers, keyed)).properties(width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name, note))


def _linear_seed_layers(fit: LawFit, mean_as_line: bool):
    """Single seeds (grey), seed means ± one s.d. (black), points outside the conditions (hollow) and censored
    points at their bound on linear axes: (summary, x encoding, the keyed layers, the censored layers)."""
    import altair as alt

    from iclscale.analysis.censored_marks import censored_layer

    summary = seed_summary(fit.points, log=False)
    x_enc = alt.X("x:Q", title=fit.x_title or fit.law.x_symbol, scale=alt.Scale(padding=12))
    keyed = Keyed()
    single_seeds(keyed, fit.points, x_enc)
    seed_means(keyed, summary, x_enc, y_title(fit.law), as_line=mean_as_line, size=30)
    outside_layer(keyed, points_outside(fit), x_enc, alt.Y("value:Q"))
    return summary, x_enc, keyed, censored_layer(fit.points, x_enc)


def linear_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. on linear axes with the fitted line a + b·x."""
    import altair as alt
    import pandas as pd

    law = fit.law
    summary, x_enc, keyed, censored = _linear_seed_layers(fit, mean_as_line=False)
    slope, intercept = fit.details.get("slope", math.nan), fit.details.get("intercept", math.nan)
    if math.isfinite(slope) and math.isfinite(intercept) and len(summary):
        xs = np.linspace(float(summary["x"].min()), float(summary["x"].max()), 20)
        line = alt.Chart(pd.DataFrame({"x": xs, "y": intercept + slope * xs})).mark_line().encode(x=x_enc, y="y:Q")
        keyed.add(line, f"fitted line, slope {slope:.3g}", "#4575b4")
    note = f"points: mean ± 1 s.d. over seeds; line: fitted slope {slope:.3g} (R² {fit.r2:.3g})"
    return layered([*keyed.layers(), *censored]).properties(
        width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name, note)
    )


def flat_region_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. against x, the edge (e.g. the small-neuron share) and the onset as rules."""
    import altair as alt
    import pandas as pd

    law = fit.law
    _summary, _x_enc, keyed, censored = _linear_seed_layers(fit, mean_as_line=True)
    marks = {}
    edge, onset = fit.details.get("edge", math.nan), fit.details.get("onset", math.nan)
    if math.isfinite(edge):
        marks[f"edge {edge:.3g}"] = (edge, "#4575b4")
    if math.isfinite(onset):
        marks[f"onset {onset:g}"] = (onset, "#d73027")
    if marks:
        rules = pd.DataFrame({"x": [x for x, _ in marks.values()], "key": list(marks)})
        keyed.add(alt.Chart(rules).mark_rule(strokeDash=[4, 3]).encode(x="x:Q"), {k: c for k, (_, c) in marks.items()})
    note = "mean ± 1 s.d. over seeds; edge: the data-given end of the free region; onset: the first x that costs"
    return layered([*keyed.layers(), *censored]).properties(
        width=WIDTH, height=HEIGHT, title=chart_title(fit, law.name, note)
    )


CHARTS = {
    "power law": power_law_chart,
    "linear": linear_chart,
    "bound": bound_chart,
    "trend": trend_chart,
    "threshold": threshold_chart,
    "diagonal minimum": diagonal_chart,
    "comparison": comparison_chart,
    "flat region": flat_region_chart,
    "earlier onset": earlier_onset_chart,
}
