"""measure = f(x; θ) with free constants θ fitted, for laws that are not power laws, e.g. [LW23]'s
T ∝ (1 − 1/(Cα))⁻¹ (C free) and T ∝ (1 − e − τM1)^(−1/2) (e free). The statistic is one named constant, judged
against its band.

Method: least squares on log axes (T is heavy-tailed: a ratio error is what matters), by
scipy.optimize.curve_fit within the constants' bounds, which may depend on the data (C > 1/min α keeps the
curve finite). The interval is a bootstrap over seeds, resampled as every fit is
(iclscale.analysis.fits.resample_weights):
each resample refits with its weights (curve_fit's sigma = 1/√weight, points drawn zero times left out);
resamples that do not converge are left out and counted. Hand-written around curve_fit because neither
scipy nor statsmodels bootstraps a non-linear fit by cluster. Censored points (a threshold never reached) are
left out and counted: a censored non-linear fit is not implemented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from iclscale.analysis.fits import CONFIDENCE, percentile_intervals, resample_weights
from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.select import chart_points, measured_points

CURVE_RESAMPLES = 300  # fewer than the linear fits' 2000: each is an iterative fit (this tool's choice)


@dataclass(frozen=True)
class Curve(Kind):
    function: Callable[..., np.ndarray] | None = None  # f(x, params, *θ) > 0
    constants: tuple[str, ...] = ()  # the names of θ, in f's order
    judged: str = ""  # the constant the verdict is about
    initial: Callable[[np.ndarray, np.ndarray, Mapping[str, Any]], tuple] | None = None  # a start from x, y, params
    bounds: Callable[[np.ndarray, Mapping[str, Any]], tuple] | None = None  # (lows, highs) from x and the params
    form_text: str = ""  # the curve in words, for the statistic's name
    resamples: int = CURVE_RESAMPLES

    name: ClassVar[str] = "curve"

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        usable = measured_points(group.rows)
        usable = usable[usable["value"] > 0]
        x, y = usable[law.x].astype(float).to_numpy(), usable["value"].to_numpy()
        params = group.params
        judged = self.constants.index(self.judged)
        fitted = self._fit(x, y, np.ones(len(x)), params)
        estimate = low = high = r2 = np.nan
        method, details = "none: too few points to fit", {}
        if fitted is not None:
            estimate = float(fitted[judged])
            details = {f"fitted {n}": float(v) for n, v in zip(self.constants, fitted, strict=True)}
            r2 = _r2(np.log(y), np.log(self.function(x, params, *fitted)))  # on log axes, as fitted
            weights = resample_weights(usable["stratum"].to_numpy(), usable["seed"].to_numpy(), self.resamples)
            if weights is None:
                method = "none: fewer than 3 seeds per x, too few to resample"
            else:
                refits = [self._fit(x, y, w, params) for w in weights]
                boot = np.array([r[judged] if r is not None else np.nan for r in refits])
                details["resamples that did not converge"] = int(np.isnan(boot).sum())
                (low, high), method = percentile_intervals(boot[:, None], CONFIDENCE)[0], "bootstrap over seeds"
        return Estimate(
            statistic=f"{self.judged} of {self.form_text}",
            estimate=estimate,
            ci_low=low,
            ci_high=high,
            interval_method=method,
            n_points=len(usable),
            n_levels=len(np.unique(x)),
            n_censored=int(group.rows["censored"].sum()),
            r2=r2,
            points=chart_points(group.rows, law.x),
            details=details,
        )

    def _fit(self, x, y, weights, params) -> np.ndarray | None:
        """θ minimising Σ w (log y − log f(x; θ))², or None (too few points, or no convergence)."""
        from scipy.optimize import curve_fit

        keep = weights > 0
        if len(np.unique(x[keep])) <= len(self.constants):
            return None
        lows, highs = self.bounds(x[keep], params) if self.bounds else (-np.inf, np.inf)
        start = np.clip(self.initial(x[keep], y[keep], params), np.add(lows, 1e-9), np.subtract(highs, 1e-9))
        try:
            theta, _ = curve_fit(
                lambda t, *c: np.log(self.function(t, params, *c)),
                x[keep],
                np.log(y[keep]),
                p0=start,
                sigma=1 / np.sqrt(weights[keep]),
                bounds=(lows, highs),
                maxfev=2000,
            )
        except (RuntimeError, ValueError):
            return None
        return theta


def _r2(observed: np.ndarray, predicted: np.ndarray) -> float:
    total = np.sum((observed - observed.mean()) ** 2)
    return float(1 - np.sum((observed - predicted) ** 2) / total) if total > 0 else float("nan")
