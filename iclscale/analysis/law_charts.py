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
"""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING

import numpy as np

from iclscale.analysis.chart_keys import MEANS, SEEDS, Keyed, apart, outside_layer
from iclscale.analysis.seed_summary import seed_summary

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from iclscale.analysis.lawfit import LawFit


VERDICT_COLOURS = {"consistent": "#1b7837", "inconsistent": "#b2182b", "inconclusive": "#8c6d1f", "outside": "#555"}
SUBTITLE_WIDTH = 150  # characters per subtitle line
WIDTH, HEIGHT = 1060, 380  # full width on the report page (max 1400 px)


def law_chart(fit: LawFit) -> alt.TopLevelMixin | None:
    """The chart of the fit's kind (CHARTS), or None without points."""
    shown = [p for p in (fit.points, fit.outside_points) if p is not None and len(p)]
    if not shown:
        return None
    return CHARTS.get(fit.law.kind.name, bound_chart)(fit)


def y_title(law) -> str:
    """The y axis: the paper's symbol of the measured quantity with what it is (`‖M‖₂ — final M_spectral_norm`),
    or what it is where the law's measure gives no symbol."""
    symbol = law.measure.symbol
    return f"{symbol} — {law.measure.describe()}" if symbol else law.measure.describe()


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


def _title(fit: LawFit, text: str, note: str = "") -> dict:
    """The chart's title, its subtitle the group and verdict, the note and the censored points' count."""
    from iclscale.analysis.censored_marks import censored_caption
    from iclscale.analysis.page import verdict_line

    subtitle = textwrap.wrap(f"{fit.group_label} — {verdict_line(fit.verdict)}", SUBTITLE_WIDTH)
    counted = censored_caption(fit.points, fit.outside_points)
    return {
        "text": text,
        "subtitle": [*subtitle, *textwrap.wrap(note, SUBTITLE_WIDTH), *textwrap.wrap(counted, SUBTITLE_WIDTH)],
        "subtitleColor": VERDICT_COLOURS.get(fit.verdict.verdict, "black"),
        "anchor": "start",
    }


def _single_seeds(keyed: Keyed, points: pd.DataFrame, x_enc, y_enc=None) -> None:
    """The measured single seeds as small grey points (the censored ones are drawn as bounds instead)."""
    import altair as alt

    measured = points[~points["censored"].astype(bool)]
    y_enc = y_enc if y_enc is not None else alt.Y("value:Q")
    keyed.add(alt.Chart(measured).mark_point(size=12, opacity=0.6).encode(x=x_enc, y=y_enc), SEEDS, "#999999")


def _means(keyed: Keyed, summary: pd.DataFrame, x_enc, title: str, as_line: bool = False, size=None) -> None:
    """Seed means ± one s.d. in black, one legend entry for both."""
    import altair as alt

    rule = alt.Chart(summary).mark_rule().encode(x=x_enc, y=alt.Y("low:Q", title=title), y2="high:Q")
    keyed.add(rule, MEANS, "black")
    chart = alt.Chart(summary)
    means = chart.mark_line(point=True) if as_line else chart.mark_point(filled=True, size=size or 50)
    keyed.add(means.encode(x=x_enc, y="mean:Q"), MEANS, "black")


def _outside(fit: LawFit, x=None) -> pd.DataFrame | None:
    """The points outside the theorem's conditions, their x the chart's (`x`: a constant for a law without one)."""
    outside = fit.outside_points
    if outside is None or not len(outside):
        return None
    return outside.assign(x=x) if x is not None else outside


def _layered(layers: list) -> alt.LayerChart:
    """The layers over one x and y; the groups `apart` made each on its own colour scale."""
    import altair as alt

    nested = any(isinstance(layer, alt.LayerChart) for layer in layers)
    chart = alt.layer(*layers)
    return chart.resolve_scale(color="independent", fill="independent", stroke="independent") if nested else chart


def power_law_chart(fit: LawFit) -> alt.TopLevelMixin:
    from iclscale.analysis.power_chart import power_law_chart as chart

    law = fit.law
    note = "points: geometric mean over seeds ± 1 s.d.; theory lines anchored at the fitted points' centre"
    return chart(fit, _title(fit, f"{law.name}: {law.measure.label} vs {law.x_symbol}", note))


def bound_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. per x value (or per group when there is no x), single seeds in grey, censored
    points at their bound, and the predicted band's edges as dashed rules. A categorical x (a task class) is
    drawn as categories."""
    import altair as alt
    import pandas as pd

    from iclscale.analysis.censored_marks import censored_layer

    law = fit.law
    points = fit.points.assign(x=fit.points["x"] if law.x else "all")
    outside = _outside(fit, None if law.x else "all")
    numeric = law.x is not None and pd.api.types.is_numeric_dtype(points["x"])
    summary = seed_summary(points, log=False)
    if numeric:
        every_x = pd.concat([points["x"], *([outside["x"]] if outside is not None else [])])
        scale = alt.Scale(type="log" if (every_x > 0).all() else "linear", padding=12)
        x_enc = alt.X("x:Q", scale=scale, title=fit.x_title or law.x_symbol)
    else:
        x_enc = alt.X("x:N", title=fit.x_title or law.x_symbol or None)
    keyed = Keyed()
    _single_seeds(keyed, points, x_enc)
    _means(keyed, summary, x_enc, y_title(law))
    outside_layer(keyed, outside, x_enc, alt.Y("value:Q"))
    if fit.prediction is not None:
        band = fit.prediction.primary.band
        edges = sorted({v for v in (band.low, band.high) if math.isfinite(v)})  # a point: one edge
        labels = {f"predicted edge {v:.3g}": c for v, c in zip(edges, ("#4575b4", "#d73027"), strict=False)}
        rules = pd.DataFrame({"bound": edges, "key": list(labels)})
        keyed.add(alt.Chart(rules).mark_rule(strokeDash=[4, 3]).encode(y="bound:Q"), labels)
    layers = [*keyed.layers(), *censored_layer(points, x_enc)]
    note = "black: mean ± 1 s.d. over seeds; grey: single seeds"
    return _layered(layers).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


def trend_chart(fit: LawFit) -> alt.TopLevelMixin:
    """Seed means ± one s.d. joined in x order (the trend Spearman's ρ summarises), single seeds in grey,
    censored points at their bound."""
    import altair as alt

    from iclscale.analysis.censored_marks import censored_layer

    law = fit.law
    summary = seed_summary(fit.points, log=False)
    x_enc = alt.X("x:Q", scale=alt.Scale(type="log", padding=12), title=fit.x_title or law.x_symbol)
    keyed = Keyed()
    _single_seeds(keyed, fit.points, x_enc)
    _means(keyed, summary, x_enc, y_title(law), as_line=True)
    outside_layer(keyed, _outside(fit), x_enc, alt.Y("value:Q"))
    layers = [*keyed.layers(), *censored_layer(fit.points, x_enc)]
    note = f"Spearman ρ = {fit.estimate:.3g} [{fit.ci_low:.3g}, {fit.ci_high:.3g}]; black: mean ± 1 s.d. over seeds"
    return _layered(layers).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


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
    outside = _outside(fit)
    if outside is not None and param in outside:
        outside_layer(keyed, outside.assign(setting=outside[param].astype(str)), x_enc, alt.Y("value:Q"))
    note = f"mean ± 1 s.d. over seeds; the claim is about {fit.details['subject']}"
    if "censored" in fit.details:
        note += f"; censored settings, in the means at their bound: {fit.details['censored']}"
    return _layered(apart(layers, keyed)).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


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
    outside_layer(keyed, _outside(fit), x_enc, alt.Y("value:Q"))
    note = "mean ± 1 s.d. over seeds; dotted: where each variant starts to cost (iclscale.analysis.levels.cost_onset)"
    return _layered(apart(layers, keyed)).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


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
    _single_seeds(keyed, fit.points, x_enc, alt.Y("value:Q", scale=y_scale, title=y_text))
    outside_layer(keyed, _outside(fit), x_enc, alt.Y("value:Q", scale=y_scale))
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
    return _layered(apart(layers, keyed)).properties(width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note))


def _linear_seed_layers(fit: LawFit, mean_as_line: bool):
    """Single seeds (grey), seed means ± one s.d. (black), points outside the conditions (hollow) and censored
    points at their bound on linear axes: (summary, x encoding, the keyed layers, the censored layers)."""
    import altair as alt

    from iclscale.analysis.censored_marks import censored_layer

    summary = seed_summary(fit.points, log=False)
    x_enc = alt.X("x:Q", title=fit.x_title or fit.law.x_symbol, scale=alt.Scale(padding=12))
    keyed = Keyed()
    _single_seeds(keyed, fit.points, x_enc)
    _means(keyed, summary, x_enc, y_title(fit.law), as_line=mean_as_line, size=30)
    outside_layer(keyed, _outside(fit), x_enc, alt.Y("value:Q"))
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
    return _layered([*keyed.layers(), *censored]).properties(
        width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note)
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
    return _layered([*keyed.layers(), *censored]).properties(
        width=WIDTH, height=HEIGHT, title=_title(fit, law.name, note)
    )


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
        width=WIDTH, height=HEIGHT, title=_title(fit, law.name)
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
