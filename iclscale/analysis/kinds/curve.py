"""measure = f(x; θ) with free constants θ fitted, for laws that are not power laws, e.g. [LW23]'s
T ∝ (1 − 1/(Cα))⁻¹ (C free) and T ∝ (1 − e − τM1)^(−1/2) (e free). The statistic is one named constant, judged
against its band.

Method: least squares on log axes (T is heavy-tailed: a ratio error is what matters), by
scipy.optimize.curve_fit within the constants' bounds, which may depend on the data (C > 1/min α keeps the
curve finite). The interval is chosen, as for the linear fits (iclscale.analysis.fits), by what is random:
- a train-role x (every (x, seed) its own trained model, independent points): the profile t-interval of the
  judged constant θ_j, the values c whose best fit with θ_j = c raises the residual sum of squares by at most
  t²(n − p)·s² (s² = RSS/(n − p)): the likelihood-ratio interval of nonlinear least squares (Bates & Watts,
  *Nonlinear Regression Analysis and Its Applications*, 1988, §6.1; R's confint.nls, Venables & Ripley, *Modern
  Applied Statistics with S*, 2002, §8.4). Not the Wald interval θ̂ ± t·se from curve_fit's linearised
  covariance: a constant the data bound on one side only (e of T = A(1 − e − τM1)^(−1/2) on a flat T, whose
  fit runs to the bound −10³) gets a Wald interval of about ±7·10⁴ around it, its profile [−10³, −13.8]. An end the
  profile never reaches within the constant's bounds is that bound;
- an eval-role x (one model per seed measured at every x, one stratum): each seed's curve is fitted on its own
  and the statistic is the mean of the per-seed constants, with Student's t on S − 1 degrees of freedom (the
  summary-statistics approach of Diggle, Heagerty, Liang & Zeger, *Analysis of Longitudinal Data*, 2002, §3.3),
  which keeps the seeds' pairing; with fewer than 2 seeds that fit, the pooled profile interval.
Neither scipy nor statsmodels profiles a bounded curve_fit, hence the search here (scipy.optimize.brentq on the
profile). Why not the bootstrap over seeds this kind used before: resampling 3 to 5 seeds gives intervals that
are too narrow, as for the linear fits, and none at all with fewer than 3 seeds per x (benchmarks/calibration.py
measured it; docs/laws-and-verdicts.md). Censored points (a threshold never reached) are left out and counted:
a censored non-linear fit is not implemented. `interval_method` names the interval used.

Generic, though one paper's laws use it today: any f(x; θ) takes this form, and a user's own fit
(iclscale.analysis.userfit) and the planted controls build on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from iclscale.analysis.fits import CONFIDENCE, labels
from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.select import chart_points, measured_points

PROFILE_T = "profile t-interval (t, n − p df: every point an independently trained model)"
PER_SEED_CURVES_T = "t-interval of per-seed curve fits (t, S − 1 df: one model per seed measured at every x)"
PROFILE_ONE_SEED = "profile t-interval (t, n − p df: one seed measured at every x)"
PROFILE_STEPS = 60  # doublings of the step away from the estimate before an end is left at the bound


@dataclass(frozen=True)
class Curve(Kind):
    function: Callable[..., np.ndarray] | None = None  # f(x, params, *θ) > 0
    constants: tuple[str, ...] = ()  # the names of θ, in f's order
    judged: str = ""  # the constant the verdict is about
    initial: Callable[[np.ndarray, np.ndarray, Mapping[str, Any]], tuple] | None = None  # a start from x, y, params
    bounds: Callable[[np.ndarray, Mapping[str, Any]], tuple] | None = None  # (lows, highs) from x and the params
    form_text: str = ""  # the curve in words, for the statistic's name

    name: ClassVar[str] = "curve"

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        usable = measured_points(group.rows)
        usable = usable[usable["value"] > 0]
        x, y = usable[law.x].astype(float).to_numpy(), usable["value"].to_numpy()
        params = group.params
        judged = self.constants.index(self.judged)
        fitted = self._fit(x, y, params)
        estimate = low = high = r2 = np.nan
        method, details = "none: too few points to fit", {}
        if fitted is not None:
            theta = fitted[0]
            estimate = float(theta[judged])
            details = {f"fitted {n}": float(v) for n, v in zip(self.constants, theta, strict=True)}
            r2 = _r2(np.log(y), np.log(self.function(x, params, *theta)))  # on log axes, as fitted
            estimate, low, high, method = self._interval(x, y, usable, params, judged, fitted, details)
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

    def _interval(self, x, y, usable, params, judged, fitted, details):
        """(estimate, low, high, method): the module docstring's interval for the judged constant."""
        from scipy.special import stdtrit

        theta, rss = fitted
        paired = len(np.unique(labels(usable["stratum"].to_numpy()))) == 1 and len(np.unique(x)) > 1
        if paired:
            seeds = labels(usable["seed"].to_numpy())
            per_seed = [self._fit(x[seeds == s], y[seeds == s], params) for s in np.unique(seeds)]
            values = np.array([fit[0][judged] for fit in per_seed if fit is not None])
            details["seeds whose curve did not fit"] = len(per_seed) - len(values)
            if len(values) >= 2:
                mean = float(values.mean())
                half = stdtrit(len(values) - 1, 0.5 + CONFIDENCE / 2) * values.std(ddof=1) / np.sqrt(len(values))
                return mean, mean - half, mean + half, PER_SEED_CURVES_T
        low, high = self._profile(x, y, params, judged, theta, rss)
        return float(theta[judged]), low, high, PROFILE_ONE_SEED if paired else PROFILE_T

    def _profile(self, x, y, params, judged, theta, rss) -> tuple[float, float]:
        """The profile t-interval of constant `judged`: the values c whose best fit with θ_j = c leaves
        (RSS(c) − RSS)/s² ≤ t²(n − p), s² = RSS/(n − p). Each end is bracketed by steps doubling away from θ̂_j
        and found by scipy.optimize.brentq; an end that the profile never reaches within the constant's bounds
        is that bound (±inf where unbounded): the data do not limit the constant on that side."""
        from scipy.optimize import brentq
        from scipy.special import stdtrit

        dof = len(x) - len(self.constants)
        scale = rss / dof
        if not scale > 0:
            return float(theta[judged]), float(theta[judged])
        critical = stdtrit(dof, 0.5 + CONFIDENCE / 2) ** 2
        lows, highs = self._bounds(x, params)

        def excess(value: float) -> float:
            fit = self._fit(x, y, params, fixed=(judged, value), start=theta)
            return (fit[1] - rss) / scale - critical if fit is not None else np.inf

        ends = []
        for direction, bound in ((-1, lows[judged]), (1, highs[judged])):
            inside, step, end = float(theta[judged]), max(abs(float(theta[judged])), 1.0) * 1e-3, bound
            for _ in range(PROFILE_STEPS):
                value = float(theta[judged]) + direction * step
                if direction * (value - bound) >= 0:
                    value = bound
                found = excess(value)
                if np.isinf(found):  # the curve cannot be fitted there: the end is where it stops being fittable
                    end = self._last_finite(excess, inside, value)
                    break
                if found > 0:
                    end = brentq(excess, *sorted((inside, value)), xtol=1e-6 * max(abs(value), 1.0))
                    break
                if value == bound:
                    break
                inside, step = value, step * 2
            ends.append(float(end))
        return ends[0], ends[1]

    @staticmethod
    def _last_finite(excess, inside: float, outside: float) -> float:
        """Where the profile stops being fittable between `inside` and `outside` (bisection): the end there."""
        for _ in range(40):
            middle = (inside + outside) / 2
            found = excess(middle)
            if found > 0:
                outside = middle
            else:
                inside = middle
        return outside

    def _bounds(self, x, params) -> tuple[np.ndarray, np.ndarray]:
        lows, highs = self.bounds(x, params) if self.bounds else (-np.inf, np.inf)
        count = len(self.constants)
        return np.broadcast_to(np.asarray(lows, float), count), np.broadcast_to(np.asarray(highs, float), count)

    def _fit(self, x, y, params, fixed: tuple[int, float] | None = None, start=None):
        """(θ minimising Σ (log y − log f(x; θ))², that sum), or None (too few points, or no convergence).
        `fixed` (j, c): constant j held at c, the others fitted (a point of the profile)."""
        import warnings

        from scipy.optimize import OptimizeWarning, curve_fit

        if len(np.unique(x)) <= len(self.constants):
            return None
        lows, highs = self._bounds(x, params)
        start = np.asarray(self.initial(x, y, params) if start is None else start, float)
        free = np.ones(len(self.constants), bool)
        if fixed is not None:
            free[fixed[0]] = False

        def log_curve(t, *values):
            return np.log(self.function(t, params, *_full(values, free, fixed)))

        lows, highs = lows[free], highs[free]
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", OptimizeWarning)  # the covariance is not used
                values, _ = curve_fit(
                    log_curve,
                    x,
                    np.log(y),
                    p0=np.clip(start[free], lows + 1e-9, highs - 1e-9),
                    bounds=(lows, highs),
                    maxfev=2000,
                )
                rss = float(np.sum((np.log(y) - log_curve(x, *values)) ** 2))
        except (RuntimeError, ValueError):
            return None
        if not np.isfinite(rss):
            return None
        return _full(values, free, fixed), rss


def _full(values, free, fixed) -> np.ndarray:
    """Every constant: the fitted ones where `free`, the fixed one (j, c) at c."""
    theta = np.empty(len(free))
    theta[free] = values
    if fixed is not None:
        theta[fixed[0]] = fixed[1]
    return theta


def _r2(observed: np.ndarray, predicted: np.ndarray) -> float:
    total = np.sum((observed - observed.mean()) ** 2)
    return float(1 - np.sum((observed - predicted) ** 2) / total) if total > 0 else float("nan")
