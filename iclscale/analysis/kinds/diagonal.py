"""On a grid of a pretraining value (`row_axis`, e.g. L) × a test value (x, e.g. L'), for each test value that
is also a pretraining value and was measured after at least two of them, the seed-mean of the measure should
be smallest on the diagonal (pretraining = test). Statistic: the fraction of such test values whose minimum
is on the diagonal; interval: bootstrap over seeds (one model per pretraining value and seed, measured at
every test value). Beside it, per test value, the best off-diagonal mean over the diagonal one.

Generic, though one paper's laws use it today: any transfer claim (trained at one value, tested at
another) takes this form, and the planted controls and the law charts know it by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from iclscale.analysis.fits import bootstrap_cell_statistic
from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.select import measured_points


@dataclass(frozen=True)
class DiagonalMinimum(Kind):
    row_axis: str = ""

    name: ClassVar[str] = "diagonal minimum"

    def axes(self, law):
        return (self.row_axis, law.x) if law.x else (self.row_axis,)

    def x_label(self, law):
        return f"{law.x} vs {self.row_axis}"

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        usable = measured_points(group.rows)
        trained = np.unique(usable[self.row_axis].astype(float))
        tested = np.unique(usable[law.x].astype(float))
        cells = list(zip(usable[self.row_axis].astype(float), usable[law.x].astype(float), strict=True))
        order = sorted(set(cells))
        # a test value counts when it was also trained on and was measured after at least two pretraining
        # values (a sweep without a transfer grid has only the diagonal: no comparison)
        rivals = {t: sum(np.isclose(test, t) for _, test in order) for t in tested}
        matched = [t for t in tested if np.isclose(trained, t).any() and rivals[t] >= 2]
        estimate = low = high = np.nan
        method, margins = "none: no test value compared", {}
        if len(trained) >= 2 and matched:
            estimate, low, high, method = bootstrap_cell_statistic(
                usable["value"], cells, _diagonal_fraction(order, matched), usable["seed"], usable["stratum"]
            )
            values = usable["value"].to_numpy(float)
            mean = {c: values[[i for i, d in enumerate(cells) if d == c]].mean() for c in order}
            for test in matched:
                column = [c for c in order if np.isclose(c[1], test)]
                diagonal = next(mean[c] for c in column if np.isclose(c[0], test))
                best_other = min(mean[c] for c in column if not np.isclose(c[0], test))
                margins[f"best other / diagonal at {law.x} = {test:g}"] = float(best_other / diagonal)
        return Estimate(
            statistic=f"fraction of test {law.x} values whose best pretraining {self.row_axis} is equal",
            estimate=estimate,
            ci_low=low,
            ci_high=high,
            interval_method=method,
            n_points=len(usable),
            n_levels=len(matched),
            n_censored=int(group.rows["censored"].sum()),
            sensitivity=margins,
            points=usable.rename(columns={law.x: "x", self.row_axis: "row"})[
                ["x", "row", "value", "seed", "censored", "left_censored"]
            ],
        )


def _diagonal_fraction(order: list[tuple[float, float]], matched: list[float]):
    """statistic(means (rows, cells)) → fraction of matched test values whose argmin over the pretraining
    value is the diagonal cell."""
    columns = []
    for test in matched:
        members = [i for i, (_, t) in enumerate(order) if np.isclose(t, test)]
        diagonal = next(i for i in members if np.isclose(order[i][0], test))
        columns.append((np.array(members), members.index(diagonal)))

    def statistic(means):
        hits = [means[:, members].argmin(axis=1) == position for members, position in columns]
        return np.mean(hits, axis=0)

    return statistic
