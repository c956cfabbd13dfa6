"""measure = a + b·x on linear axes (e.g. a loss linear in the pruning rate R, a neuron norm linear in the
training step t): the slope b (or the intercept a) per group by least squares, with a t-interval
(iclscale.analysis.fits), judged against the predicted band. Linearity is tested against the cell means (lack
of fit, iclscale.analysis.forms) and shown beside it: R², the slope on the lower and upper half of the x values, and
the curvature c of a quadratic fit a + b·x + c·x². x may be a fixed function of one param (ℒ = c0 + c1·L'²:
x = L'²)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from iclscale.analysis.fits import fit_line
from iclscale.analysis.forms import lack_of_fit, local_exponents
from iclscale.analysis.kinds.base import TransformedX
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.select import chart_points, measured_points


@dataclass(frozen=True)
class Linear(TransformedX):
    statistic: str = "slope"  # or "intercept": the value at x = 0 (a floor)

    name: ClassVar[str] = "linear"

    def __post_init__(self):
        if self.statistic not in ("slope", "intercept"):
            raise ValueError(f"statistic must be 'slope' or 'intercept', got {self.statistic!r}")

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        usable = measured_points(group.rows)
        x = usable[law.x].astype(float).to_numpy()
        y = usable["value"].astype(float).to_numpy()
        seeds, strata = usable["seed"].to_numpy(), usable["stratum"].to_numpy()
        line = fit_line(x, y, seeds, strata)
        levels = np.unique(x)
        half = (len(levels) + 1) // 2
        lower, upper = np.isin(x, levels[:half]), np.isin(x, levels[len(levels) - half :])
        slope = self.statistic == "slope"
        return Estimate(
            statistic=f"{self.statistic} of {law.measure.label} vs {self.x_label(law)}",
            estimate=line.slope if slope else line.intercept,
            ci_low=line.ci_low if slope else line.intercept_ci[0],
            ci_high=line.ci_high if slope else line.intercept_ci[1],
            interval_method=line.interval_method,
            n_points=line.n_points,
            n_levels=line.n_levels,
            n_censored=int(group.rows["censored"].sum()),
            r2=line.r2,
            ols_low=line.ols_low if slope else np.nan,
            ols_high=line.ols_high if slope else np.nan,
            lack_of_fit=lack_of_fit(x, y, x, blocks=seeds if group.paired else None) if len(x) else None,
            local=local_exponents(x, y, log=False) if len(levels) >= 2 else None,
            sensitivity={
                "slope on lower half of x": fit_line(x[lower], y[lower]).slope,
                "slope on upper half of x": fit_line(x[upper], y[upper]).slope,
                "quadratic coefficient": line.curvature,
                "intercept": line.intercept,
            },
            points=chart_points(group.rows, law.x),
            fit=line,
            # a bend matters when the local slopes differ by more than the slope itself
            details={"intercept": line.intercept, "slope": line.slope, "bend_tolerance": abs(line.slope)},
        )
