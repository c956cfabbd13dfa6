"""Power-law fits on log–log axes, with intervals from the OLS t-distribution and from a bootstrap
over seeds.

One variable:   y = c · x^p                    (log y = log c + p log x)
Several:        y = c · x1^a · x2^b · x3^c     (log y = log c + a log x1 + b log x2 + c log x3)

The reported interval is the bootstrap percentile interval: every resample draws, within each
cell (one x value, or one combination of the x's), as many points as the cell holds, with
replacement from that cell's seeds, and refits. Resampling within cells keeps the design (the x's)
fixed, so only seed-to-seed scatter moves the exponent. When no cell holds two seeds there is
nothing to resample and the OLS t-interval is reported instead; likewise when every seed gives
the same values, so the bootstrap interval has zero width (`interval_method` says which).

Censored points (a threshold never reached) and points with y ≤ 0 or non-finite x, y cannot be
placed on log axes: they are left out of the fit and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
BOOTSTRAP = "bootstrap over seeds"
OLS_ONLY = "OLS t-interval (one seed per x: nothing to resample)"
OLS_DEGENERATE = "OLS t-interval (every seed gave the same value: the bootstrap has zero width)"


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
    n_censored: int  # left out: the measure never reached its threshold
    n_nonpositive: int  # left out: y ≤ 0 or non-finite x, y
    interval_method: str
    resamples: int
    log_x: np.ndarray = field(repr=False)  # (points, variables), the points used
    log_y: np.ndarray = field(repr=False)
    seeds: np.ndarray = field(repr=False)
    residuals: np.ndarray = field(repr=False)  # log y − fitted log y
    bootstrap: np.ndarray | None = field(default=None, repr=False)  # (resamples, variables) exponents

    # the one-variable case
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


def fit_power_law(
    x: Sequence[float],
    y: Sequence[float],
    seeds: Sequence | None = None,
    censored: Sequence[bool] | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
    random_state: int = 0,
) -> PowerLawFit:
    """Fit y = c·x^p; the variable is named "x". `seeds` labels the points (kept for charts; the
    bootstrap resamples the points of each x value, which are the seeds of that x)."""
    return fit_power_law_multi({"x": x}, y, seeds, censored, resamples, confidence, random_state)


def fit_power_law_multi(
    xs: Mapping[str, Sequence[float]],
    y: Sequence[float],
    seeds: Sequence | None = None,
    censored: Sequence[bool] | None = None,
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
    n_censored = int(censored.sum())
    n_nonpositive = int((~censored & ~usable).sum())
    log_x, log_y, seeds = np.log(x[usable]), np.log(y[usable]), seeds[usable]

    cells = _cells(log_x)
    n_cells = len(np.unique(cells))
    design = np.column_stack([np.ones(len(log_y)), log_x])
    if len(log_y) <= design.shape[1] or np.linalg.matrix_rank(design) < design.shape[1]:
        return _empty_fit(names, log_x, log_y, seeds, n_cells, n_censored, n_nonpositive)

    solve = np.linalg.pinv(design)  # (1 + variables, points): coefficients = solve @ log y
    coefficients = solve @ log_y
    fitted = design @ coefficients
    residuals = log_y - fitted
    total = np.sum((log_y - log_y.mean()) ** 2)
    r2 = 1.0 - np.sum(residuals**2) / total if total > 0 else float("nan")
    ols_ci = _ols_intervals(names, design, residuals, coefficients, confidence)

    alpha = (1 - confidence) / 2
    indices = _bootstrap_indices(cells, resamples, random_state)
    if indices is None:
        reported, method, boot = ols_ci, OLS_ONLY, None
    else:
        boot = (log_y[indices] @ solve.T)[:, 1:]  # (resamples, variables): refits with the design fixed
        low, high = np.quantile(boot, [alpha, 1 - alpha], axis=0)
        reported = {n: (float(low[j]), float(high[j])) for j, n in enumerate(names)}
        method = BOOTSTRAP
        if np.allclose(low, high, rtol=0, atol=1e-12):  # e.g. a threshold on a coarse grid, equal for all seeds
            reported, method = ols_ci, OLS_DEGENERATE
    return PowerLawFit(
        names=names,
        exponents={n: float(coefficients[j + 1]) for j, n in enumerate(names)},
        ci=reported,
        ols_ci=ols_ci,
        log_prefactor=float(coefficients[0]),
        r2=float(r2),
        n_points=len(log_y),
        n_cells=n_cells,
        n_censored=n_censored,
        n_nonpositive=n_nonpositive,
        interval_method=method,
        resamples=0 if boot is None else resamples,
        log_x=log_x,
        log_y=log_y,
        seeds=seeds,
        residuals=residuals,
        bootstrap=boot,
    )


def _cells(log_x: np.ndarray) -> np.ndarray:
    """An integer label per point: points with the same x (all variables) share a cell."""
    if len(log_x) == 0:
        return np.zeros(0, int)
    _, labels = np.unique(np.round(log_x, 12), axis=0, return_inverse=True)
    return labels.ravel()


def _bootstrap_indices(cells: np.ndarray, resamples: int, random_state: int) -> np.ndarray | None:
    """(resamples, points) indices: each cell's positions refilled by draws from that cell's points.
    None when no cell has two points (nothing to resample)."""
    members = [np.flatnonzero(cells == c) for c in np.unique(cells)]
    if resamples < 1 or all(len(m) < 2 for m in members):
        return None
    rng = np.random.default_rng(random_state)
    indices = np.empty((resamples, len(cells)), dtype=int)
    for member in members:
        indices[:, member] = member[rng.integers(0, len(member), size=(resamples, len(member)))]
    return indices


def _ols_intervals(names, design, residuals, coefficients, confidence) -> dict[str, tuple[float, float]]:
    from scipy.special import stdtrit  # Student-t quantile (lighter to import than scipy.stats)

    points, parameters = design.shape
    dof = points - parameters
    variance = np.sum(residuals**2) / dof
    covariance = variance * np.linalg.pinv(design.T @ design)
    half = stdtrit(dof, 0.5 + confidence / 2) * np.sqrt(np.diag(covariance))
    return {n: (float(coefficients[j] - half[j]), float(coefficients[j] + half[j])) for j, n in enumerate(names, 1)}


def _empty_fit(names, log_x, log_y, seeds, n_cells, n_censored, n_nonpositive) -> PowerLawFit:
    nan = float("nan")
    return PowerLawFit(
        names=names,
        exponents={n: nan for n in names},
        ci={n: (nan, nan) for n in names},
        ols_ci={n: (nan, nan) for n in names},
        log_prefactor=nan,
        r2=nan,
        n_points=len(log_y),
        n_cells=n_cells,
        n_censored=n_censored,
        n_nonpositive=n_nonpositive,
        interval_method="none: too few points to fit",
        resamples=0,
        log_x=log_x,
        log_y=log_y,
        seeds=seeds,
        residuals=np.full(len(log_y), nan),
    )


# Sensitivity ----------------------------------------------------------------------------------
def range_sensitivity(x: Sequence[float], y: Sequence[float], censored: Sequence[bool] | None = None) -> dict:
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


# Statistics of cell means ---------------------------------------------------------------------
def bootstrap_cell_statistic(
    values: Sequence[float],
    cells: Sequence,
    statistic,
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
    random_state: int = 0,
) -> tuple[float, float, float, str]:
    """A statistic of the per-cell means (e.g. the smallest mean over x values), with a bootstrap
    percentile interval: seeds resampled within each cell, as for the power-law fits.

    `statistic` maps a (rows, cells) array of cell means to (rows,) values; cells are ordered as
    `np.unique(cells)`. Returns (estimate, low, high, interval method)."""
    values = np.asarray(values, float)
    labels, inverse = np.unique(np.asarray(cells), return_inverse=True)
    inverse = inverse.ravel()
    weights = np.zeros((len(values), len(labels)))
    weights[np.arange(len(values)), inverse] = 1.0
    weights /= weights.sum(axis=0, keepdims=True)  # column c averages the points of cell c
    estimate = float(statistic((values @ weights)[None, :])[0])
    indices = _bootstrap_indices(inverse, resamples, random_state)
    if indices is None:
        return estimate, float("nan"), float("nan"), "none: one seed per cell, nothing to resample"
    boot = statistic(values[indices] @ weights)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(boot, [alpha, 1 - alpha])
    return estimate, float(low), float(high), BOOTSTRAP
