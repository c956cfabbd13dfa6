"""The pieces every law chart is built from (iclscale.analysis.law_charts): its size, its title (the group and the
verdict), the y axis's title, the single seeds in grey, the seed means ± one s.d. in black, the points outside the
theorem's conditions, and the layering of all of them.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from iclscale.analysis.chart_keys import MEANS, SEEDS, Keyed

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

    from iclscale.analysis.lawfit import LawFit


VERDICT_COLOURS = {"consistent": "#1b7837", "inconsistent": "#b2182b", "inconclusive": "#8c6d1f", "outside": "#555"}
SUBTITLE_WIDTH = 150  # characters per subtitle line
WIDTH, HEIGHT = 1060, 380  # full width on the report page (max 1400 px)


def y_title(law) -> str:
    """The y axis: the paper's symbol of the measured quantity with what it is (`‖M‖₂ — final M_spectral_norm`),
    or what it is where the law's measure gives no symbol."""
    symbol = law.measure.symbol
    return f"{symbol} — {law.measure.describe()}" if symbol else law.measure.describe()


def chart_title(fit: LawFit, text: str, note: str = "") -> dict:
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


def single_seeds(keyed: Keyed, points: pd.DataFrame, x_enc, y_enc=None) -> None:
    """The measured single seeds as small grey points (the censored ones are drawn as bounds instead)."""
    import altair as alt

    measured = points[~points["censored"].astype(bool)]
    y_enc = y_enc if y_enc is not None else alt.Y("value:Q")
    keyed.add(alt.Chart(measured).mark_point(size=12, opacity=0.6).encode(x=x_enc, y=y_enc), SEEDS, "#999999")


def seed_means(keyed: Keyed, summary: pd.DataFrame, x_enc, title: str, as_line: bool = False, size=None) -> None:
    """Seed means ± one s.d. in black, one legend entry for both."""
    import altair as alt

    rule = alt.Chart(summary).mark_rule().encode(x=x_enc, y=alt.Y("low:Q", title=title), y2="high:Q")
    keyed.add(rule, MEANS, "black")
    chart = alt.Chart(summary)
    means = chart.mark_line(point=True) if as_line else chart.mark_point(filled=True, size=size or 50)
    keyed.add(means.encode(x=x_enc, y="mean:Q"), MEANS, "black")


def points_outside(fit: LawFit, x=None) -> pd.DataFrame | None:
    """The points outside the theorem's conditions, their x the chart's (`x`: a constant for a law without one)."""
    outside = fit.outside_points
    if outside is None or not len(outside):
        return None
    return outside.assign(x=x) if x is not None else outside


def layered(layers: list) -> alt.LayerChart:
    """The layers over one x and y; the groups `apart` made each on its own colour scale."""
    import altair as alt

    nested = any(isinstance(layer, alt.LayerChart) for layer in layers)
    chart = alt.layer(*layers)
    return chart.resolve_scale(color="independent", fill="independent", stroke="independent") if nested else chart
