"""Least-squares fits, with intervals from the OLS t-distribution and from a bootstrap over seeds.

Power law, one variable:   y = c · x^p                (log y = log c + p log x)
Power law, several:        y = c · x1^a · x2^b · …    (log y = log c + a log x1 + b log x2 + …)
Line:                      y = a + b·x                (linear axes, e.g. a loss linear in a pruning rate R)

Resampling (`resample_weights`). A bootstrap must redraw what is random in the experiment: the trained
models. Every point belongs to a *stratum* and, inside it, to a *unit* (a seed: one trained model). A resample
draws, within each stratum, as many units as it holds, with replacement, and keeps every point of each unit
drawn:
- a train-role x (α, Λ = nL²/σ²): every (x, seed) is a model of its own, so strata = x values and units =
  seeds; the design (the x's) stays fixed and only seed-to-seed scatter moves the fit;
- an eval-role x (α', l_ts, the pruning rate R): one model per seed is measured at every x, so its points
  are correlated; resampling each x on its own would break that pairing. One stratum, units = seeds: a
  paired (cluster) bootstrap.
A resample is a weight per point (how often its unit was drawn): every fit is refitted by weighted least
squares with the design fixed. Where no stratum holds MIN_UNITS units the OLS t-interval is reported instead
(two seeds give three distinct resamples: a percentile interval from them is no interval), likewise where
every seed gives the same values (zero width); `interval_method` says which.

Censored points (a threshold never reached), and points with y ≤ 0 (on log axes) or non-finite x, y, are
left out of these fits and counted; `analysis.censored` fits the censored ones with a likelihood.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
BOOTSTRAP = "bootstrap over seeds"
PAIRED = "paired bootstrap over seeds (one model measured at every x)"
MIN_UNITS = 3  # seeds a stratum needs for a bootstrap (this tool's choice, not from any paper)
OLS_ONLY = "OLS t-interval (fewer than 3 seeds per x: too few to resample)"
OLS_DEGENERATE = "OLS t-interval (every seed gave the same value: the bootstrap has zero width)"
NO_FIT = "none: too few points to fit"


@dataclass
class PowerLawFit:
    """y = c · Π x_j^{p_j}, fitted by least squares on logs (one variable: y = c · x^p)."""

    names: list[str]
    exponents: dict[str, float]
    ci: dict[str, tuple[float, float]]  # the reported interval (bootstrap when possible)
    ols_ci: dict[str, tuple[float, float]]
    log_prefactor: float
    r2: float
    n_points: int  # points used in the fit
    n_cells: int  # distinct x values (or combinations) among them
    n_censored: int  # left out: the measure never reached its threshold (or sits at a range edge)
    n_nonpositive: int  # left out: y ≤ 0 or non-finite x, y
    interval_method: str
    resamples: int
    log_x: np.ndarray = field(repr=False)  # (points, variables), the points used
    log_y: np.ndarray = field(repr=False)
    seeds: np.ndarray = field(repr=False)
    residuals: np.ndarray = field(repr=False)  # log y − fitted log y
    bootstrap: np.ndarray | None = field(default=None, repr=False)  # (resamples, variables) exponents

    @property
    def exponent(self) -> float:
        return self.exponents[self._only()]

    @property
    def ci_low(self) -> float:
        return self.ci[self._only()][0]

    @property
    def ci_high(self) -> float:
        return self.ci[self._only()][1]

    @property
    def ols_low(self) -> float:
        return self.ols_ci[self._only()][0]

    @property
    def ols_high(self) -> float:
        return self.ols_ci[self._only()][1]

    @property
    def prefactor(self) -> float:
        return float(np.exp(self.log_prefactor))

    def _only(self) -> str:
        if len(self.names) != 1:
            raise ValueError(f"a fit over {self.names} has one exponent per variable; use .exponents")
        return self.names[0]

    def predict(self, **x: np.ndarray) -> np.ndarray:
        log_y = self.log_prefactor + sum(self.exponents[n] * np.log(np.asarray(x[n], float)) for n in self.names)
        return np.exp(log_y)


@dataclass
class LineFit:
    """y = a + b·x by least squares on linear axes."""

    slope: float
    intercept: float
    ci_low: float  # the slope's reported interval
    ci_high: float
    ols_low: float
    ols_high: float
    intercept_ci: tuple[float, float]
    r2: float
    interval_method: str
    n_points: int
    n_levels: int
    curvature: float  # c of y = a + b·x + c·x² (NaN with fewer than 4 distinct x)


def fit_power_law(x, y, seeds=None, censored=None, strata=None, **options) -> PowerLawFit:
    """Fit y = c·x^p; the variable is named "x". `seeds` are the units and `strata` the strata of the
    resampling (module docstring); strata None: one per x value."""
    return fit_power_law_multi({"x": x}, y, seeds, censored, strata, **options)


def fit_power_law_multi(
    xs: Mapping[str, Sequence[float]],
    y: Sequence[float],
    seeds: Sequence | None = None,
    censored: Sequence[bool] | None = None,
    strata: Sequence | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
    random_state: int = 0,
) -> PowerLawFit:
    """Fit y = c · Π x_j^{p_j} for the variables in `xs` (name → values, one per point)."""
    names = list(xs)
    x = np.column_stack([np.asarray(xs[n], dtype=float) for n in names])
    y = np.asarray(y, dtype=float)
    seeds = np.arange(len(y)) if seeds is None else np.asarray(seeds)
    censored = np.zeros(len(y), bool) if censored is None else np.asarray(censored, bool)
    usable = ~censored & np.isfinite(y) & (y > 0) & np.all(np.isfinite(x) & (x > 0), axis=1)
    log_x, log_y = np.log(x[usable]), np.log(y[usable])
    cells = cell_labels(log_x)
    strata = cells if strata is None else labels(np.asarray(strata, dtype=object)[usable])
    found = least_squares(log_x, log_y, strata, seeds[usable], resamples, confidence, random_state)
    nan = float("nan")
    coefficients = found["coefficients"]
    return PowerLawFit(
        names=names,
        exponents={n: float(coefficients[j + 1]) for j, n in enumerate(names)},
        ci={n: found["ci"][j + 1] for j, n in enumerate(names)},
        ols_ci={n: found["ols_ci"][j + 1] for j, n in enumerate(names)},
        log_prefactor=float(coefficients[0]) if len(coefficients) else nan,
        r2=found["r2"],
        n_points=len(log_y),
        n_cells=len(np.unique(cells)),
        n_censored=int(censored.sum()),
        n_nonpositive=int((~censored & ~usable).sum()),
        interval_method=found["method"],
        resamples=found["resamples"],
        log_x=log_x,
        log_y=log_y,
        seeds=seeds[usable],
        residuals=found["residuals"],
        bootstrap=None if found["boot"] is None else found["boot"][:, 1:],
    )


def fit_line(x, y, seeds=None, strata=None, resamples: int = BOOTSTRAP_RESAMPLES, random_state: int = 0) -> LineFit:
    """y = a + b·x on linear axes, resampled as the power laws are (strata None: one per x value)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    seeds = np.arange(len(x)) if seeds is None else np.asarray(seeds)[keep]
    cells = cell_labels(x[:, None])
    strata = cells if strata is None else labels(np.asarray(strata, dtype=object)[keep])
    found = least_squares(x[:, None], y, strata, seeds, resamples, CONFIDENCE, random_state)
    levels = len(np.unique(x))
    nan = float("nan")
    intercept, slope = found["coefficients"] if len(found["coefficients"]) else (nan, nan)
    return LineFit(
        slope=float(slope),
        intercept=float(intercept),
        ci_low=found["ci"][1][0] if found["ci"] else nan,
        ci_high=found["ci"][1][1] if found["ci"] else nan,
        ols_low=found["ols_ci"][1][0] if found["ols_ci"] else nan,
        ols_high=found["ols_ci"][1][1] if found["ols_ci"] else nan,
        intercept_ci=found["ci"][0] if found["ci"] else (nan, nan),
        r2=found["r2"],
        interval_method=found["method"],
        n_points=len(x),
        n_levels=levels,
        curvature=float(np.polyfit(x, y, 2)[0]) if levels >= 4 else nan,
    )


def least_squares(x, y, strata, units, resamples, confidence, random_state) -> dict:
    """y = b0 + x·b by ordinary least squares (x: (points, variables)), the OLS t-intervals, and the
    reported intervals (bootstrap refits with the design fixed, else OLS). Keys: coefficients, ci, ols_ci
    (lists over b0, b1, …), r2, residuals, method, boot (resamples, coefficients), resamples."""
    design = np.column_stack([np.ones(len(y)), x])
    nan = float("nan")
    if len(y) <= design.shape[1] or np.linalg.matrix_rank(design) < design.shape[1]:
        out = {"coefficients": np.full(design.shape[1], nan), "r2": nan, "residuals": np.full(len(y), nan)}
        empty = [(nan, nan)] * design.shape[1]
        return out | {"ci": empty, "ols_ci": empty, "method": NO_FIT, "boot": None, "resamples": 0}
    coefficients = np.linalg.lstsq(design, y, rcond=None)[0]
    residuals = y - design @ coefficients
    total = np.sum((y - y.mean()) ** 2)
    r2 = 1.0 - np.sum(residuals**2) / total if total > 0 else nan
    ols_ci = _ols_intervals(design, residuals, coefficients, confidence)
    weights = resample_weights(strata, units, resamples, random_state)
    boot, reported, method = None, ols_ci, OLS_ONLY
    if weights is not None:
        boot = weighted_refits(design, y, weights)
        reported = percentile_intervals(boot, confidence)
        method = PAIRED if len(np.unique(strata)) == 1 and len(np.unique(cell_labels(x))) > 1 else BOOTSTRAP
        if all(high - low <= 1e-12 for low, high in reported[1:]):  # e.g. a threshold equal for every seed
            reported, method = ols_ci, OLS_DEGENERATE
    return {
        "coefficients": coefficients,
        "ci": reported,
        "ols_ci": ols_ci,
        "r2": float(r2),
        "residuals": residuals,
        "method": method,
        "boot": boot,
        "resamples": 0 if boot is None else resamples,
    }


def weighted_refits(design: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(resamples, coefficients): the least-squares coefficients under each row of weights."""
    gram = np.einsum("bn,ni,nj->bij", weights, design, design)
    moment = np.einsum("bn,ni,n->bi", weights, design, y)
    return np.einsum("bij,bj->bi", np.linalg.pinv(gram), moment)


def percentile_intervals(boot: np.ndarray, confidence: float = CONFIDENCE, method: str = "linear"):
    """Per column of `boot`, the percentile interval (NaN resamples, e.g. an empty cell, left out)."""
    alpha = (1 - confidence) / 2
    low, high = np.nanquantile(boot, [alpha, 1 - alpha], axis=0, method=method)
    return [(float(a), float(b)) for a, b in zip(np.atleast_1d(low), np.atleast_1d(high), strict=True)]


def labels(values) -> np.ndarray:
    """An integer label per value (numbers, strings, tuples of them), numbered in sorted order where the
    values sort (ascending x, as statistics of cell means expect), else in order of first appearance."""
    plain = [_plain(v) for v in values]
    keys = [repr(v) for v in plain]
    try:
        order = [repr(v) for v in sorted(dict(zip(keys, plain, strict=True)).values())]
    except TypeError:  # e.g. a null among numbers
        order = list(dict.fromkeys(keys))
    index = {k: i for i, k in enumerate(order)}
    return np.array([index[k] for k in keys], dtype=int)


def _plain(value):
    if isinstance(value, tuple | list):
        return tuple(_plain(v) for v in value)
    return value.item() if hasattr(value, "item") else value


def cell_labels(x: np.ndarray) -> np.ndarray:
    """An integer label per point: points with the same x (all variables) share a cell."""
    if len(x) == 0:
        return np.zeros(0, int)
    _, inverse = np.unique(np.round(np.asarray(x, float), 12), axis=0, return_inverse=True)
    return inverse.ravel()


def resample_weights(strata, units, resamples: int = BOOTSTRAP_RESAMPLES, random_state: int = 0):
    """(resamples, points) weights: within each stratum, its units drawn with replacement as many times as
    it holds them; a point's weight is how often its unit was drawn. None when no stratum has MIN_UNITS."""
    strata = labels(strata)
    units = labels(zip(strata, units, strict=True))  # a unit belongs to one stratum
    if resamples < 1:
        return None
    rng = np.random.default_rng(random_state)
    weights = np.zeros((resamples, len(units)))
    resampled = False
    for stratum in np.unique(strata):
        members = np.unique(units[strata == stratum])
        resampled |= len(members) >= MIN_UNITS
        draws = rng.integers(0, len(members), size=(resamples, len(members)))
        for j, unit in enumerate(members):
            weights[:, units == unit] = (draws == j).sum(axis=1, keepdims=True)
    return weights if resampled else None


def _ols_intervals(design, residuals, coefficients, confidence) -> list[tuple[float, float]]:
    from scipy.special import stdtrit  # Student-t quantile (lighter to import than scipy.stats)

    points, parameters = design.shape
    dof = points - parameters
    covariance = np.sum(residuals**2) / dof * np.linalg.pinv(design.T @ design)
    half = stdtrit(dof, 0.5 + confidence / 2) * np.sqrt(np.diag(covariance))
    return [(float(c - h), float(c + h)) for c, h in zip(coefficients, half, strict=True)]


# Statistics of cell means ---------------------------------------------------------------------
def bootstrap_cell_statistic(
    values: Sequence[float],
    cells: Sequence,
    statistic: Callable[[np.ndarray], np.ndarray],
    seeds: Sequence | None = None,
    strata: Sequence | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
    random_state: int = 0,
    quantile_method: str = "linear",
) -> tuple[float, float, float, str]:
    """A statistic of the per-cell means (e.g. the smallest mean over x values), with a bootstrap
    percentile interval, resampled as the fits are (seeds None: every point its own unit; strata None: one
    per cell). The interval always holds the estimate: where the percentile interval misses it, it is widened
    to it and the method says so.

    `statistic` maps a (rows, cells) array of cell means to (rows,) values; cells are numbered in order of
    first appearance (`labels`). Returns (estimate, low, high, interval method)."""
    values = np.asarray(values, float)
    cell = labels(cells)
    onehot = np.zeros((len(values), cell.max() + 1 if len(cell) else 0))
    onehot[np.arange(len(values)), cell] = 1.0
    weights_per_cell = onehot.sum(axis=0)
    estimate = float(statistic(((values @ onehot) / weights_per_cell)[None, :])[0])
    seeds = np.arange(len(values)) if seeds is None else np.asarray(seeds)
    weights = resample_weights(cell if strata is None else strata, seeds, resamples, random_state)
    if weights is None:
        return estimate, float("nan"), float("nan"), f"none: fewer than {MIN_UNITS} seeds per cell, too few to resample"
    with np.errstate(invalid="ignore", divide="ignore"):
        means = ((weights * values) @ onehot) / (weights @ onehot)  # NaN for a cell no resampled unit covers
    boot = statistic(means)
    low, high = percentile_intervals(boot[:, None], confidence, quantile_method)[0]
    paired = strata is not None and len(np.unique(labels(strata))) < len(np.unique(cell))
    method = PAIRED if paired else BOOTSTRAP
    if np.isfinite(estimate) and not low <= estimate <= high:
        # A statistic at the edge of its range (Spearman's ρ = 1 of the seed-means) is reached by few resamples:
        # resampled means are noisier, so their ρ falls short of it and the percentile interval can exclude the
        # estimate. BCa puts the whole interval at the edge then ([1, 1]: certainty the resamples deny) and the
        # basic interval leaves ρ's range ([1.06, 1.97]); the percentile interval widened to the estimate keeps
        # the resamples' spread and holds the estimate.
        reached = float(np.mean(boot >= estimate) if estimate > high else np.mean(boot <= estimate))
        low, high = min(low, estimate), max(high, estimate)
        method += f"; percentile interval widened to the estimate ({reached:.1%} of resamples reach it)"
    return estimate, low, high, method
