"""The regime ladder: one law's estimate as the param that binds its theorem's conditions climbs toward the bound.

A batch condition such as [L24] Thm 3.3 (ii), B ≥ Ω(max{ε⁻², M1} log M1), may be out of reach at the ε a paper
uses; a sweep that grids the binding param (B = 64 → 180 → 720 …) gives one fit per rung. This section draws
them as one chart: each rung's estimate and interval against the param, marked inside or outside the conditions
(its c*), beside the theory's band. The verdict is each inside rung's own (the evaluation skeleton leaves the
outside rungs out); the chart shows whether the estimate drifts as the conditions are approached.
"""

from __future__ import annotations

import html
import math
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iclscale.analysis.lawfit import LawFit
    from iclscale.analysis.page import Section

MIN_RUNGS = 3


def rung(fit: LawFit) -> tuple[float, float, float] | None:
    """A rung's estimate and interval: the verdict's fit inside the conditions, or, for a rung wholly outside them,
    the fit over all its points (a number to read, not a verdict: iclscale.analysis.evaluate.whole_range)."""
    if math.isfinite(fit.estimate):
        return fit.estimate, fit.ci_low, fit.ci_high
    whole = fit.details.get("fit_all")
    if whole is not None and math.isfinite(whole.exponent):
        return whole.exponent, whole.ci_low, whole.ci_high
    return None


def ladders(fits: list[LawFit]) -> list[tuple[str, str, list[LawFit]]]:
    """(law, param, rungs): a law's theorem fits that differ in one param only, at least MIN_RUNGS of them with an
    estimate, their c* changing along the param."""
    by_law: dict[str, list[LawFit]] = defaultdict(list)
    for fit in fits:
        if fit.experiment is None and fit.law is not None and rung(fit) is not None:
            by_law[fit.law.name].append(fit)
    found = []
    for name, rungs in by_law.items():
        varying = [p for p in rungs[0].group if len({str(f.group.get(p)) for f in rungs}) > 1]
        if len(rungs) < MIN_RUNGS or len(varying) != 1:
            continue
        param = varying[0]
        try:
            rungs = sorted(rungs, key=lambda f: float(f.group[param]))
        except (TypeError, ValueError):
            continue
        if len({f.c_star for f in rungs}) > 1:
            found.append((name, param, rungs))
    return found


def ladder_section(fits: list[LawFit], add) -> Section | None:
    """The section: one chart per ladder found in the fits (`ladders`), or None."""
    found = ladders(fits)
    if not found:
        return None
    from iclscale.analysis.page import Section

    items = []
    for name, param, rungs in found:
        chart = add(ladder_chart(name, param, rungs), f"regime ladder {name} {param}")
        rows = "".join(
            f"<tr><td>{html.escape(str(f.group[param]))}</td><td>{_interval(f)}</td><td>{_constant(f.c_star)}</td>"
            f"<td>{html.escape(f.verdict.verdict)}</td></tr>"
            for f in rungs
        )
        table = (
            f"<table><tr><th>{html.escape(param)}</th><th>{html.escape(rungs[0].statistic or 'estimate')}</th>"
            f"<th>c*</th><th>verdict</th></tr>{rows}</table>"
        )
        items.append((f"{name}: its estimate as {param} climbs", chart, table))
    intro = (
        "<p>Each rung is one fit of the law at one value of the param its theorem's conditions bind. Rungs with c* "
        "≥ 1 lie inside the conditions with the hidden constants taken as 1 and carry the verdict; the others are "
        "drawn for the trend only (c*: the largest value of the hidden constants at which the rung is inside).</p>"
    )
    return Section("Regime ladder", intro, items)


def _interval(fit: LawFit) -> str:
    estimate, low, high = rung(fit)
    whole = "" if math.isfinite(fit.estimate) else " (all points; no verdict)"
    return f"{estimate:.3g} [{low:.3g}, {high:.3g}]{whole}"


def _constant(c: float) -> str:
    return "∞" if c == math.inf else f"{c:.3g}"


def ladder_chart(name: str, param: str, rungs: list[LawFit]):
    import altair as alt
    import pandas as pd

    band = rungs[0].prediction.primary.band if rungs[0].prediction else None
    if band is not None and math.isfinite(rungs[0].tolerance):  # the band the verdict uses (a point has no height)
        band = band.widened(rungs[0].tolerance)
    table = pd.DataFrame(
        {
            param: [float(f.group[param]) for f in rungs],
            "estimate": [rung(f)[0] for f in rungs],
            "low": [rung(f)[1] for f in rungs],
            "high": [rung(f)[2] for f in rungs],
            "conditions": ["inside" if f.c_star >= 1 else "outside" for f in rungs],
            "c*": [_constant(f.c_star) for f in rungs],
        }
    )
    x = alt.X(f"{param}:Q", scale=alt.Scale(type="log"), title=param)
    colour = alt.Color("conditions:N", scale=alt.Scale(domain=["inside", "outside"], range=["#1f77b4", "#aaaaaa"]))
    points = (
        alt.Chart(table).mark_point(filled=True, size=70).encode(x, alt.Y("estimate:Q"), colour, tooltip=list(table))
    )
    bars = alt.Chart(table).mark_rule().encode(x, alt.Y("low:Q", title=rungs[0].statistic or "estimate"), y2="high:Q",
                                               color=colour)  # fmt: skip
    layers = [bars, points]
    if band is not None and math.isfinite(band.low) and math.isfinite(band.high):
        theory = pd.DataFrame({"low": [band.low], "high": [band.high], "theory": [band.describe()]})
        layers.insert(0, alt.Chart(theory).mark_rect(opacity=0.15, color="green").encode(
            y="low:Q", y2="high:Q", tooltip=["theory"]))  # fmt: skip
    return alt.layer(*layers).properties(title=f"{name}: regime ladder over {param}", width=420, height=260)
