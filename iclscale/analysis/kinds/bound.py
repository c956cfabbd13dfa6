"""A reduction over x of the measure's seed-means must lie in a band, e.g. "for every n the linear-attention
loss ℒ/L² is ≥ 1/3": statistic = the smallest (over n) seed-mean of ℒ/L². The interval is a bootstrap of the
means (iclscale.analysis.fits.bootstrap_cell_statistic: t draws, or seeds resampled where paired). x may be categorical
(a task class) or absent (one cell)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from iclscale.analysis.fits import bootstrap_cell_statistic
from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.select import chart_points, measured_points

REDUCTIONS = {
    "min": lambda means: np.min(means, axis=1),
    "max": lambda means: np.max(means, axis=1),
    "mean": lambda means: np.mean(means, axis=1),
    "spread": lambda means: np.max(means, axis=1) / np.min(means, axis=1),  # largest / smallest seed-mean
}


@dataclass(frozen=True)
class Bound(Kind):
    aggregate: str = "min"  # one of REDUCTIONS
    statistic_text: str = ""

    name: ClassVar[str] = "bound"

    def __post_init__(self):
        if self.aggregate not in REDUCTIONS:
            raise ValueError(f"aggregate must be one of {sorted(REDUCTIONS)}, got {self.aggregate!r}")

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        usable = measured_points(group.rows)
        cells = usable[law.x].to_numpy() if law.x else np.zeros(len(usable))
        method = "none: no points"
        estimate = low = high = np.nan
        if len(usable):
            estimate, low, high, method = bootstrap_cell_statistic(
                usable["value"], cells, REDUCTIONS[self.aggregate], usable["seed"], usable["stratum"]
            )
        points = chart_points(group.rows, law.x, numeric=False)
        return Estimate(
            statistic=self.statistic_text or f"{self.aggregate} over x of the seed-mean",
            estimate=estimate,
            ci_low=low,
            ci_high=high,
            interval_method=method,
            n_points=len(usable),
            n_levels=len({repr(c) for c in cells}),
            n_censored=int(group.rows["censored"].sum()),
            points=points,
        )
