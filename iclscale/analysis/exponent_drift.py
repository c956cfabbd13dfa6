"""Is it a power law over the whole x range? The exponent refitted on parts of the range (`range_sensitivity`), and
the drift of the local exponent across it (`curvature`): a quadratic in log x whose curvature, with its interval, says
whether the local exponent stays within a margin (the form shown) or changes (a bend). Lack of fit and the
alternative forms are in `iclscale.analysis.forms`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclscale.analysis import censored as tobit
from iclscale.analysis.forms import LOF_ALPHA


# Exponents on parts of the x range -------------------------------------------------------------------
def range_sensitivity(x, y, censored=None) -> dict[str, float]:
    """The OLS exponent refitted on parts of the x-range: a law that holds over the whole range gives
    about the same exponent on each part; a drifting one shows curvature (a crossover, or a regime
    boundary). Parts: all x, without the lowest x, without the highest x, the lower half and the
    upper half of the x values (each part needs 2 distinct x)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if censored is not None:
        keep &= ~np.asarray(censored, bool)
    x, y = x[keep], y[keep]
    levels = np.unique(x)
    half = (len(levels) + 1) // 2
    parts = {
        "all x": levels,
        "without lowest x": levels[1:],
        "without highest x": levels[:-1],
        "lower half of x": levels[:half],
        "upper half of x": levels[len(levels) - half :],
    }
    out = {}
    for name, part in parts.items():
        mask = np.isin(x, part)
        out[name] = _ols_slope(np.log(x[mask]), np.log(y[mask])) if len(part) >= 2 else float("nan")
    return out


def _ols_slope(log_x: np.ndarray, log_y: np.ndarray) -> float:
    centred = log_x - log_x.mean()
    denominator = np.sum(centred**2)
    return float(np.sum(centred * log_y) / denominator) if denominator > 0 else float("nan")


# Is it a power law over the range? The local exponent's drift ------------------------------------------
FORM_CONFIDENCE = 0.90  # two one-sided tests at 5% each: the drift shown inside ±margin
BEND_CONFIDENCE = 0.95
QUADRATIC_ALPHA = 0.05  # the means depart from the quadratic in log x below this p (this tool's choice)
NARROW_DECADES = 1.0  # an x range under one decade is labelled narrow (this tool's choice)


@dataclass(frozen=True)
class Curvature:
    """log y = a + b·u + c·u² over u = log x (centred): the local exponent b + 2c·u changes by
    drift = 2c·(u_max − u_min) across the range. `low`/`high` bound the drift at FORM_CONFIDENCE (the
    equivalence test), `bend_low`/`bend_high` at BEND_CONFIDENCE (the test of a bend)."""

    drift: float
    low: float
    high: float
    bend_low: float
    bend_high: float
    df: int
    method: str
    n_levels: int
    decades: float  # log10(max x / min x)
    local: tuple[tuple[float, float, float], ...] = ()  # per neighbouring pair: (slope, low, high) at 95%
    lack_of_fit_p: float = float("nan")  # the quadratic against the cell means (replicates needed)

    def shown(self, margin: float) -> bool:
        """The drift is within ±margin (both one-sided tests reject), and the means depart from the quadratic by
        nothing that matters: no lack of fit beyond it (p ≥ QUADRATIC_ALPHA), or local exponents spanning at most
        the margin (a kink too slight to matter, found because the scatter is tiny)."""
        return -margin < self.low and self.high < margin and (not self.beyond_quadratic or self.local_span <= margin)

    @property
    def beyond_quadratic(self) -> bool:
        return bool(np.isfinite(self.lack_of_fit_p) and self.lack_of_fit_p < QUADRATIC_ALPHA)

    @property
    def local_span(self) -> float:
        """The largest minus the smallest local exponent (inf with fewer than two: no kink can be ruled out)."""
        slopes = [s for s, _, _ in self.local]
        return float(np.ptp(slopes)) if len(slopes) >= 2 else float("inf")

    @property
    def drift_bound(self) -> float:
        """The largest |drift| the FORM_CONFIDENCE interval allows."""
        return max(abs(self.low), abs(self.high))

    @property
    def bent(self) -> bool:
        """The local exponent changes across the range (95% interval of the drift excludes 0), or the means
        depart from any quadratic (lack of fit, p < LOF_ALPHA)."""
        beyond = np.isfinite(self.lack_of_fit_p) and self.lack_of_fit_p < LOF_ALPHA
        return self.bend_low > 0 or self.bend_high < 0 or beyond

    def span(self) -> str:
        factor = 10**self.decades
        # a decade computed from logs may fall short of 1 by rounding (α = 0.1 … 1): that is a decade
        narrow = ": narrow, under one decade" if self.decades < NARROW_DECADES - 1e-9 else ""
        return f"x spans {factor:.3g}× ({self.decades:.2g} decades{narrow})"

    def describe(self) -> str:
        text = (
            f"local exponent drift across the range {self.drift:+.2g}, 90% [{self.low:+.2g}, {self.high:+.2g}] "
            f"({self.method}, {self.df} df)"
        )
        if np.isfinite(self.lack_of_fit_p):
            text += f", beyond a quadratic p = {self.lack_of_fit_p:.2g}"
        return text


def curvature(x, y, side=None, blocks=None) -> Curvature | None:
    """The drift of the local exponent (class docstring) on log axes; None with fewer than 4 distinct x.

    Runs in every design:
    - replicates at some x (scatter between seeds): weighted least squares of the cell means on
      [1, u, u²], weights n_k, the variance from the pooled within-cell scatter (pure error, n − k df),
      beside the lack-of-fit F test of the quadratic against the cell means (k − 3, n − k df);
    - one seed per x, or identical seeds: ordinary least squares of the cell means, the variance from
      their residuals (k − 3 df), which then hold every departure from the quadratic;
    - censored points: the censored (Tobit) likelihood of the quadratic, Wald standard errors, t with
      n_observed − 3 df;
    - a paired design (`blocks`: the seed of each point, one model measured at every x): the quadratic fitted
      to each seed's points, the drift and local exponents averaged over seeds, t with S − 1 df (seeds
      differ in level and slope; within a seed the points share its model).
    Student t throughout; the local exponents (slopes between neighbouring cell means) get t-intervals
    from the same variance."""
    from scipy.special import stdtrit

    x, y = np.asarray(x, float), np.asarray(y, float)
    side = np.zeros(len(y), int) if side is None else np.asarray(side)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    log_x, log_y, side = np.log(x[keep]), np.log(y[keep]), side[keep]
    levels, cell = np.unique(np.round(log_x, 12), return_inverse=True)
    cell = cell.ravel()
    k, n = len(levels), len(log_y)
    if k < 4:
        return None
    centre = levels.mean()
    u = levels - centre
    reach = 2 * (u.max() - u.min())  # drift = reach · c
    decades = float((levels.max() - levels.min()) / np.log(10))
    observed = side == tobit.OBSERVED
    counts = np.bincount(cell, minlength=k).astype(float)
    lof_p = float("nan")
    if blocks is not None and observed.all():
        per_seed = _per_seed_curvature(cell, log_y, np.asarray(blocks)[keep], levels - centre, reach)
        if per_seed is not None:
            return Curvature(**per_seed, n_levels=k, decades=decades)
    if (~observed).any():
        design = np.column_stack([np.ones(n), log_x - centre, (log_x - centre) ** 2])
        fitted = tobit.fit_linear(design, log_y, side)
        start = np.append(fitted.theta, fitted.log_sigma)
        se_c = tobit._standard_error(design, log_y, side, start, index=2) * np.sqrt(n / max(n - 3, 1))
        c, df, method = float(fitted.theta[2]), int(observed.sum()) - 3, "censored (Tobit) quadratic, Wald"
        cells_fit = tobit.fit_linear(np.eye(k)[cell], log_y, side)
        means, mean_var = cells_fit.theta, np.full(k, np.exp(2 * cells_fit.log_sigma)) / counts
    else:
        means = np.bincount(cell, weights=log_y, minlength=k) / counts
        pure = float(np.sum((log_y - means[cell]) ** 2))
        quad = np.column_stack([np.ones(k), u, u**2])
        if n - k >= 2 and pure > 1e-12 * max(1.0, float(np.var(log_y))) * n:
            sigma2, df, method = pure / (n - k), n - k, "cell means weighted by seeds, pure-error variance"
            weights = counts
            gram = np.linalg.inv(quad.T @ (weights[:, None] * quad))
            coef = gram @ quad.T @ (weights * means)
            se_c = float(np.sqrt(sigma2 * gram[2, 2]))
            lack = float(np.sum(weights * (means - quad @ coef) ** 2))
            if k > 3:
                from scipy.stats import f as f_dist

                lof_p = float(f_dist.sf((lack / (k - 3)) / sigma2, k - 3, n - k))
            mean_var = sigma2 / counts
        else:
            coef = np.linalg.lstsq(quad, means, rcond=None)[0]
            resid = means - quad @ coef
            df, method = k - 3, "cell means, residual variance"
            sigma2 = float(np.sum(resid**2) / df)
            se_c = float(np.sqrt(sigma2 * np.linalg.inv(quad.T @ quad)[2, 2]))
            mean_var = np.full(k, sigma2)
        c = float(coef[2])
    drift = reach * c
    se = reach * se_c if df >= 1 else np.inf  # e.g. censored, with fewer than 4 observed points
    form_t = float(stdtrit(max(df, 1), 0.5 + FORM_CONFIDENCE / 2))  # Student t quantiles
    bend_t = float(stdtrit(max(df, 1), 0.5 + BEND_CONFIDENCE / 2))
    steps = np.diff(levels)
    slopes = np.diff(means) / steps
    slope_se = np.sqrt(mean_var[:-1] + mean_var[1:]) / steps
    local = tuple(
        (float(s), float(s - bend_t * e), float(s + bend_t * e)) for s, e in zip(slopes, slope_se, strict=True)
    )
    return Curvature(
        drift=drift,
        low=drift - form_t * se,
        high=drift + form_t * se,
        bend_low=drift - bend_t * se,
        bend_high=drift + bend_t * se,
        df=df,
        method=method,
        n_levels=k,
        decades=decades,
        local=local,
        lack_of_fit_p=lof_p,
    )


def _per_seed_curvature(cell, log_y, blocks, levels, reach) -> dict | None:
    """Curvature's fields from one quadratic per seed (seeds with every x level): mean ± t(S − 1)·sd/√S. `cell`: each
    point's x level (an index into `levels`; matching rounded x instead missed levels by round-off, giving NaN)."""
    from scipy.special import stdtrit

    drifts, slopes = [], []
    names = blocks.astype(str)  # once, not per seed
    k = len(levels)
    for block in np.unique(names):
        mine = names == block
        at = cell[mine]
        if len(np.unique(at)) != k:
            continue
        means = np.bincount(at, weights=log_y[mine], minlength=k) / np.bincount(at, minlength=k)
        quad = np.column_stack([np.ones(len(levels)), levels, levels**2])
        drifts.append(reach * np.linalg.lstsq(quad, means, rcond=None)[0][2])
        slopes.append(np.diff(means) / np.diff(levels))
    count = len(drifts)
    if count < 2:
        return None
    drifts, slopes = np.array(drifts), np.array(slopes)
    se = drifts.std(ddof=1) / np.sqrt(count)
    form_t = float(stdtrit(count - 1, 0.5 + FORM_CONFIDENCE / 2))
    bend_t = float(stdtrit(count - 1, 0.5 + BEND_CONFIDENCE / 2))
    drift = float(drifts.mean())
    slope, slope_se = slopes.mean(axis=0), slopes.std(axis=0, ddof=1) / np.sqrt(count)
    local = tuple(
        (float(s), float(s - bend_t * e), float(s + bend_t * e)) for s, e in zip(slope, slope_se, strict=True)
    )
    return {
        "drift": drift,
        "low": drift - form_t * se,
        "high": drift + form_t * se,
        "bend_low": drift - bend_t * se,
        "bend_high": drift + bend_t * se,
        "df": count - 1,
        "method": "per-seed quadratics (paired)",
        "local": local,
    }
