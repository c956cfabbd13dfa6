"""One legend for the plain marks of a law chart: every mark it draws (single seeds, means ± 1 s.d., fitted lines,
predicted edges, points outside the theorem's conditions) carries a label in the field `key`, and one colour scale
over every label gives each its colour and its legend entry, so nothing is drawn that the legend does not name.
Marks coloured by data (a compared setting, the side of ε) keep their own scale (`apart`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import altair as alt
    import pandas as pd

FIELD = "key"
LEGEND = {"orient": "bottom", "title": None, "labelLimit": 500}
OUTSIDE = "outside the theorem's conditions (not fitted)"
OUTSIDE_COLOUR, HOLLOW = "#8a8a8a", "white"
SEEDS, MEANS = "single seeds", "mean over seeds ± 1 s.d."


class Keyed:
    """The plain layers of one panel, each labelled (`add`), stroked and filled from one scale each by `layers()`
    (one legend: the two merge over the one field)."""

    def __init__(self):
        self._charts: list[alt.Chart] = []
        self.colours: dict[str, str] = {}
        self.fills: dict[str, str] = {}

    def add(self, chart: alt.Chart, label: str | dict[str, str], colour: str = "", fill: str = "") -> None:
        """A layer whose marks are all `label` (drawn in `colour`, filled with `fill` or the colour), or, with a
        {label: colour} dict, whose data already hold each mark's label in the column `key`."""
        if isinstance(label, dict):
            self.colours.update(label)
            self.fills.update(label)
        else:
            self.colours[label], self.fills[label] = colour, fill or colour
            chart = chart.transform_calculate(**{FIELD: json.dumps(label)})
        self._charts.append(chart)

    def layers(self) -> list[alt.Chart]:
        import altair as alt

        def scale(colours: dict[str, str]) -> alt.Scale:
            return alt.Scale(domain=list(colours), range=list(colours.values()))

        stroke = alt.Stroke(f"{FIELD}:N", scale=scale(self.colours), legend=alt.Legend(**LEGEND))
        fill = alt.Fill(f"{FIELD}:N", scale=scale(self.fills), legend=alt.Legend(**LEGEND))
        channels = {
            "line": {"stroke": stroke},
            "rule": {"stroke": stroke},
            "rect": {"fill": fill},
            "area": {"fill": fill},
        }
        return [
            chart.encode(**channels.get(_mark_type(chart), {"stroke": stroke, "fill": fill})) for chart in self._charts
        ]


def _mark_type(chart) -> str:
    """A filled line is a polygon: lines and rules take only a stroke, areas only a fill."""
    mark = chart.mark
    return mark if isinstance(mark, str) else mark.type


def outside_layer(keyed: Keyed, outside: pd.DataFrame | None, x_enc, y_enc) -> None:
    """The points outside the theorem's conditions, each seed a hollow grey circle (never fitted, never dropped)."""
    import altair as alt
    import numpy as np

    if outside is None or not len(outside):
        return
    measured = outside[np.isfinite(outside["value"].astype(float))]
    if "censored" in measured:  # a censored one is drawn at its bound by the censored marks
        measured = measured[~measured["censored"].astype(bool)]
    if "x" not in measured or not len(measured) or measured["x"].isna().all():
        return
    chart = alt.Chart(measured).mark_point(filled=True, size=45, strokeWidth=1.5).encode(x=x_enc, y=y_enc)
    keyed.add(chart, OUTSIDE, OUTSIDE_COLOUR, fill=HOLLOW)


def apart(coloured: list, keyed: Keyed) -> list:
    """Layers coloured by their data and the keyed ones, each group on its own scales (one legend each)."""
    import altair as alt

    plain = keyed.layers()
    if not coloured or not plain:
        return [*coloured, *plain]
    return [alt.layer(*coloured), alt.layer(*plain)]
