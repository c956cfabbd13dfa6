"""The power-law chart: three panels on a shared log x axis.

1. The data and the curves: seed means (geometric) ± one s.d. of log y in black; censored points (inside the
   conditions or not) as red triangles at their bound, labelled as every law chart labels them
   (iclscale.analysis.censored_marks: pointing up, the true value is larger; down, smaller); the measured
   points outside the theorem's conditions hollow and grey (never fitted); the fitted line (the censored fit where
   points are censored, the drop-censored fit dashed beside it); the theory's band (shaded) or slopes anchored
   at the centre of the fitted points (the theory gives exponents, not prefactors); the paper's other forms
   (y = c0 + c1·x^q).
2. The log residuals of the least-squares fit.
3. The local exponents (slopes between neighbouring x values of the means; over every point, those outside
   the conditions included, where there are such) against the theory's band: a power law is a flat row.
Each panel's legend names every mark drawn on it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from iclscale.analysis import censored_marks

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from iclscale.analysis.lawfit import LawFit

WIDTH, HEIGHT = 1060, 400  # full width on the report page
LEGEND = {"orient": "bottom", "columns": 1, "labelLimit": 500, "title": None}
INDEPENDENT = {channel: "independent" for channel in ("color", "shape", "fill", "stroke")}
HOLLOW = "white"
OBSERVED, CENSORED_UP, CENSORED_DOWN, OUTSIDE = (
    "seed mean ± 1 s.d.",
    censored_marks.ABOVE,
    censored_marks.BELOW,
    "outside the theorem's conditions (not fitted)",
)


def power_law_chart(fit: LawFit, title: dict) -> alt.TopLevelMixin:
    import altair as alt

    from iclscale.analysis.seed_summary import seed_summary

    law = fit.law
    symbol = law.measure.symbol
    x_title = fit.x_title or law.x_symbol
    y_title = f"{symbol} ({law.measure.label})" if symbol else law.measure.label
    marks = _marks(fit)
    xs = marks["x"][np.isfinite(marks["x"]) & (marks["x"] > 0)]
    domain = [float(xs.min()), float(xs.max())] if len(xs) else alt.Undefined  # shared by the three panels
    x_enc = alt.X("x:Q", scale=alt.Scale(type="log", nice=False, padding=12, domain=domain), title=x_title)
    y_scale = alt.Scale(type="log", nice=False, padding=12)
    summary = seed_summary(fit.points)
    layers = _band_layer(fit, summary, x_enc, y_scale, y_title)
    lines = _lines(fit, summary)
    if len(lines):
        layers.append(
            alt.Chart(lines)
            .mark_line(strokeWidth=1.5)
            .encode(
                x=x_enc,
                y=alt.Y("y:Q", scale=y_scale, title=y_title),
                color=alt.Color("line:N", legend=alt.Legend(**LEGEND)),
                strokeDash=alt.StrokeDash(
                    "dash:N", legend=None, scale=alt.Scale(domain=["solid", "dashed"], range=[[1, 0], [5, 3]])
                ),
            )
        )
    shapes = {OBSERVED: "circle", OUTSIDE: "circle", **censored_marks.SHAPES}
    colours = {OBSERVED: "black", CENSORED_UP: censored_marks.COLOUR, CENSORED_DOWN: censored_marks.COLOUR,
               OUTSIDE: "#aaaaaa"}  # fmt: skip
    present = [k for k in shapes if (marks["mark"] == k).any()]
    if not present:  # no point to draw (every run failed, say): an empty legend scale gives an invalid SVG
        return _no_points_chart(fit, title)
    # the points and their error bars share one legend (shape, fill and stroke over one field merge); the points
    # outside the conditions are hollow (white fill): measured, drawn, never fitted
    fills = [HOLLOW if k == OUTSIDE else colours[k] for k in present]
    by_mark = {
        "shape": alt.Shape("mark:N", scale=alt.Scale(domain=present, range=[shapes[k] for k in present]),
                           legend=alt.Legend(**LEGEND)),
        "fill": alt.Fill("mark:N", scale=alt.Scale(domain=present, range=fills), legend=alt.Legend(**LEGEND)),
        "stroke": alt.Stroke("mark:N", scale=alt.Scale(domain=present, range=[colours[k] for k in present]),
                             legend=alt.Legend(**LEGEND)),
    }  # fmt: skip
    layers.append(
        alt.layer(
            alt.Chart(marks[marks["mark"] == OBSERVED])
            .mark_rule()
            .encode(x=x_enc, y=alt.Y("low:Q", scale=y_scale, title=y_title), y2="high:Q", stroke=by_mark["stroke"]),
            alt.Chart(marks)
            .mark_point(size=45, filled=True, strokeWidth=1.5, opacity=1)
            .encode(x=x_enc, y=alt.Y("mean:Q", scale=y_scale, title=y_title), **by_mark,
                    tooltip=["x:Q", "mean:Q", "seeds:Q", "mark:N"]),
        )
    )  # fmt: skip
    main = alt.layer(*layers).resolve_scale(**INDEPENDENT)
    main = main.properties(width=WIDTH, height=HEIGHT, title=title)
    panels = [main, *_residual_panel(fit, x_enc), *_local_panel(fit, x_enc)]
    return alt.vconcat(*panels).resolve_scale(**INDEPENDENT)  # each panel's legend under it


def _no_points_chart(fit: LawFit, title: dict) -> alt.TopLevelMixin:
    """The chart of a law with no point to draw: its title and one line saying so (the verdict says why)."""
    import altair as alt
    import pandas as pd

    text = pd.DataFrame({"text": [f"no points to draw for {fit.law.name} in this group"]})
    return (
        alt.Chart(text)
        .mark_text(align="left", x=5, y=20)
        .encode(text="text:N")
        .properties(width=WIDTH, height=40, title=title)
    )


def _marks(fit: LawFit) -> pd.DataFrame:
    """One row per x and kind of mark: observed seed means ± 1 s.d., censored points (per seed, at their
    bound, inside the conditions or not), and the measured seed means outside the conditions."""
    import pandas as pd

    from iclscale.analysis.seed_summary import seed_summary

    frames = [seed_summary(fit.points).assign(mark=OBSERVED)]
    for points in (fit.points, fit.outside_points):
        censored = censored_marks.censored_rows(points)
        if censored is not None:
            mark = censored[censored_marks.FIELD]
            frames.append(pd.DataFrame({"x": censored["x"], "mean": censored["value"], "seeds": 1, "mark": mark}))
    if fit.outside_points is not None and len(fit.outside_points):
        frames.append(seed_summary(fit.outside_points).assign(mark=OUTSIDE))
    table = pd.concat(frames, ignore_index=True).astype({"x": float, "mean": float})
    return table[np.isfinite(table["mean"]) & (table["mean"] > 0)]


def _anchor(fit: LawFit, summary) -> tuple[float, float] | None:
    """(log x, log y) at the centre of the fitted points, on the reported fit's line."""
    reported = fit.details.get("censored fit") or fit.details.get("drop-censored fit")
    if not len(summary) or not reported or not math.isfinite(reported["exponent"]):
        return None
    log_x0 = float(np.mean(np.log(summary["x"].astype(float))))
    return log_x0, reported["log_prefactor"] + reported["exponent"] * log_x0


def _lines(fit: LawFit, summary) -> pd.DataFrame:
    """The lines drawn over the points: the reported fit (and the fit without the censored points), the theory's
    exact exponents through the fit's centre, and the fitted general forms."""
    import pandas as pd

    anchor = _anchor(fit, summary)
    if anchor is None:
        return pd.DataFrame(columns=["x", "y", "line", "dash"])
    x_grid = np.geomspace(float(summary["x"].min()), float(summary["x"].max()), 30)
    lines = [*_fitted_lines(fit, x_grid), *_theory_lines(fit, x_grid, anchor), *_form_lines(fit, x_grid)]
    return pd.concat(lines, ignore_index=True)


def _line(x_grid: np.ndarray, y: np.ndarray, label: str, dash: str) -> pd.DataFrame:
    """One drawn line: its points (x, y), its legend label and its dash."""
    import pandas as pd

    return pd.DataFrame({"x": x_grid, "y": y, "line": label, "dash": dash})


def _fitted_lines(fit: LawFit, x_grid: np.ndarray) -> list[pd.DataFrame]:
    """The reported fit's line; beside a censored (Tobit) fit, the fit with the censored points dropped, dashed."""
    censored, dropped = fit.details.get("censored fit"), fit.details.get("drop-censored fit")
    reported, lines = censored or dropped, []
    if math.isfinite(reported["exponent"]):
        how = " (censored points in a Tobit fit)" if censored else ""
        y = np.exp(reported["log_prefactor"] + reported["exponent"] * np.log(x_grid))
        lines.append(_line(x_grid, y, f"fit: exponent {reported['exponent']:.3g}{how}", "solid"))
    if censored and math.isfinite(dropped["exponent"]):
        y = np.exp(dropped["log_prefactor"] + dropped["exponent"] * np.log(x_grid))
        lines.append(_line(x_grid, y, f"exponent {dropped['exponent']:.3g} with the censored points dropped", "dashed"))
    return lines


def _theory_lines(fit: LawFit, x_grid: np.ndarray, anchor: tuple[float, float]) -> list[pd.DataFrame]:
    """Each hypothesis that predicts one exponent (a band of width 0): a dashed line of that slope through the
    centre of the fitted points."""
    if fit.prediction is None:
        return []
    log_x0, log_y0 = anchor
    lines = []
    for hypothesis in (fit.prediction.primary, *fit.prediction.alternatives):
        band = hypothesis.band
        if band.low == band.high and math.isfinite(band.low):
            y = np.exp(log_y0 + band.low * (np.log(x_grid) - log_x0))
            lines.append(_line(x_grid, y, f"theory: {hypothesis.name} ({band.low:.3g})", "dashed"))
    return lines


def _form_lines(fit: LawFit, x_grid: np.ndarray) -> list[pd.DataFrame]:
    """The fitted forms y = c0 + c1·x^p other than the power law, where positive over the whole grid (log y)."""
    lines = []
    for form in fit.forms.forms if fit.forms is not None else ():
        if form.name == "power law":
            continue
        p = form.parameters
        y = p["c0"] + p["c1"] * x_grid ** p["p"]
        if np.all(y > 0):
            which = "paper's form" if form.name.startswith("offset") else "general form"
            lines.append(_line(x_grid, y, f"{which} y = c0 + c1·x^({p['p']:.3g}): AIC {form.aic:.1f}", "dashed"))
    return lines


def _band_layer(fit: LawFit, summary, x_enc, y_scale, y_title) -> list:
    import altair as alt
    import pandas as pd

    anchor = _anchor(fit, summary)
    band = fit.prediction.primary.band if fit.prediction is not None else None
    if (
        anchor is None
        or band is None
        or band.low == band.high
        or not (math.isfinite(band.low) and math.isfinite(band.high))
    ):
        return []  # fmt: skip
    log_x0, log_y0 = anchor
    x_grid = np.geomspace(float(summary["x"].min()), float(summary["x"].max()), 30)
    area = pd.DataFrame(
        {
            "x": x_grid,
            "low": np.exp(log_y0 + band.low * (np.log(x_grid) - log_x0)),
            "high": np.exp(log_y0 + band.high * (np.log(x_grid) - log_x0)),
            "band": f"theory band: {fit.prediction.primary.name}",
        }
    )
    return [
        alt.Chart(area)
        .mark_area(opacity=0.18)
        .encode(
            x=x_enc,
            y=alt.Y("low:Q", scale=y_scale, title=y_title),
            y2="high:Q",
            fill=alt.Fill("band:N", scale=alt.Scale(range=["#4575b4"]), legend=alt.Legend(**LEGEND)),
        )
    ]


def _residual_panel(fit: LawFit, x_enc) -> list:
    import altair as alt
    import pandas as pd

    result = fit.fit
    if result is None or not len(result.residuals) or not np.isfinite(result.residuals).any():
        return []
    from iclscale.analysis.chart_keys import Keyed

    residuals = pd.DataFrame({"x": np.exp(result.log_x[:, 0]), "residual": result.residuals})
    keyed = Keyed()
    keyed.add(alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule().encode(y="zero:Q"), "zero", "#999999")
    points = alt.Chart(residuals).mark_point(size=20).encode(x=x_enc, y=alt.Y("residual:Q", title="log residual"))
    keyed.add(points, "log residual of a point from the least-squares fit", "black")
    return [alt.layer(*keyed.layers()).properties(width=WIDTH, height=70)]


def _local_panel(fit: LawFit, x_enc) -> list:
    import altair as alt
    import pandas as pd

    local, note = fit.local, "local exponent"
    if fit.details.get("local_all") is not None:  # points outside the conditions: show the whole range
        local, note = fit.details["local_all"], "local exponent (all points)"
    if local is None or len(local.slope) < 2:
        return []
    table = pd.DataFrame({"x": local.midpoints(), "slope": local.slope, "from": local.x_low, "to": local.x_high})
    from iclscale.analysis.chart_keys import Keyed

    keyed = Keyed()
    if fit.prediction is not None:
        band = fit.prediction.primary.band
        low, high = (max(band.low, table["slope"].min() - 1), min(band.high, table["slope"].max() + 1))
        if low <= high:
            rect = alt.Chart(pd.DataFrame({"low": [low], "high": [high]})).mark_rect(opacity=0.15)
            keyed.add(rect.encode(y="low:Q", y2="high:Q"), f"theory band {band.describe()}", "#4575b4")
    line = alt.Chart(table).mark_line(point=True)
    keyed.add(line.encode(x=x_enc, y=alt.Y("slope:Q", title=note), tooltip=["from:Q", "to:Q", "slope:Q"]),
              "local exponent between neighbouring x", "black")  # fmt: skip
    return [alt.layer(*keyed.layers()).properties(width=WIDTH, height=90)]
