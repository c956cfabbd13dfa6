"""Least-squares fits with small-sample t-intervals.

Power law, one variable:   y = c · x^p                (log y = log c + p log x)
Power law, several:        y = c · x1^a · x2^b · …    (log y = log c + a log x1 + b log x2 + …)
Line:                      y = a + b·x                (linear axes, e.g. a loss linear in a pruning rate R)

Intervals (`least_squares`), chosen by what is random in the experiment, the trained models:
- a train-role x (α, Λ = nL²/σ²): every (x, seed) is a model of its own, so the points are independent
  draws around the curve: the classical OLS t-interval, Student's t with n − p degrees of freedom
  (n points, p coefficients). It is exact for normal scatter on the fit's axes and needs no resampling,
  so it holds with 3 seeds, one seed per x and unbalanced designs alike;
- an eval-role x (α', l_ts, the pruning rate R): one model per seed is measured at every x, so a seed's
  points share its model's deviation (its own intercept and slope). Each seed is fitted on its own and
  the coefficients are the mean over seeds, with Student's t on S − 1 degrees of freedom (S seeds): the
  "summary statistics" approach to repeated measures (Diggle, Heagerty, Liang & Zeger, *Analysis of
  Longitudinal Data*, 2002, §3.3), exact for any seed-to-seed spread of slopes.
Why not a bootstrap over seeds (this module's earlier interval): with 3 to 5 seeds a percentile interval
is too narrow (it ignores the (n − 1)/n shrinkage and uses normal, not t, quantiles), and an unbalanced
design starves it: benchmarks/calibration.py measured 0.81–0.89 coverage at 3–5 seeds and 0.57 with one
seed at most x values; the t-intervals above lie within [0.93, 0.97] at the catalogue's designs
(docs/laws-and-verdicts.md). `interval_method` names the interval used.

Censored points (a threshold never reached), and points with y ≤ 0 (on log axes) or non-finite x, y, are
left out of these fits and counted; `iclscale.analysis.censored` fits the censored ones with a likelihood.

The bootstrap over seeds (`resample_weights`) remains for statistics of cell means (the smallest mean over
x, Spearman's ρ of the means: iclscale.analysis.kinds), whose sampling distribution has no closed form. Every point
belongs to a *stratum* (an x value for a train-role x; one stratum for an eval-role x, whose seeds are
paired across x) and, inside it, to a *unit* (a seed); a resample draws, within each stratum, its units with
replacement and keeps every point of each unit drawn.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
BOOTSTRAP = "bootstrap over seeds"
PAIRED = "paired bootstrap over seeds (one model measured at every x)"
MIN_UNITS = 3  # seeds a stratum needs for a bootstrap (this tool's choice, not from any paper)
T_BOOTSTRAP = "parametric t-bootstrap of cell means (each mean drawn from its Student t, n − 1 df)"
OLS_T = "OLS t-interval (t, n − p df: every point an independently trained model)"
PER_SEED_T = "t-interval of per-seed fits (t, S − 1 df: one model per seed measured at every x)"
OLS_ONE_SEED = "OLS t-interval (t, n − p df: one seed measured at every x)"
NO_FIT = "none: too few points to fit"


@dataclass
class PowerLawFit:
    """y = c · Π x_j^{p_j}, fitted by least squares on logs (one variable: y = c · x^p)."""

    names: list[str]
    exponents: dict[str, float]
    ci: dict[str, tuple[float, float]]  # the reported interval (module docstring: which t-interval)
    ols_ci: dict[str, tuple[float, float]]  # the pooled OLS t-interval, shown beside it
    log_prefactor: float
    r2: float
    n_points: int  # points used in the fit
    n_cells: int  # distinct x values (or combinations) among them
    n_censored: int  # left out: the measure never reached its threshold (or sits at a range edge)
    n_nonpositive: int  # left out: y ≤ 0 or non-finite x, y
    interval_method: str
    log_x: np.ndarray = field(repr=False)  # (points, variables), the points used
    log_y: np.ndarray = field(repr=False)
    seeds: np.ndarray = field(repr=False)
    residuals: np.ndarray = field(repr=False)  # log y − fitted log y

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
    """Fit y = c·x^p; the variable is named "x". `strata` None: one per x value (a train-role x); a single
    stratum marks a paired design (one model per seed measured at every x: module docstring)."""
    return fit_power_law_multi({"x": x}, y, seeds, censored, strata, **options)


def fit_power_law_multi(
    xs: Mapping[str, Sequence[float]],
    y: Sequence[float],
    seeds: Sequence | None = None,
    censored: Sequence[bool] | None = None,
    strata: Sequence | None = None,
    confidence: float = CONFIDENCE,
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
    found = least_squares(log_x, log_y, strata, seeds[usable], confidence)
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
        log_x=log_x,
        log_y=log_y,
        seeds=seeds[usable],
        residuals=found["residuals"],
    )


def fit_line(x, y, seeds=None, strata=None) -> LineFit:
    """y = a + b·x on linear axes, with the intervals of the power laws (strata None: one per x value)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    seeds = np.arange(len(x)) if seeds is None else np.asarray(seeds)[keep]
    cells = cell_labels(x[:, None])
    strata = cells if strata is None else labels(np.asarray(strata, dtype=object)[keep])
    found = least_squares(x[:, None], y, strata, seeds, CONFIDENCE)
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


def least_squares(x, y, strata, units, confidence: float = CONFIDENCE) -> dict:
    """y = b0 + x·b by ordinary least squares (x: (points, variables)), the pooled OLS t-intervals, and the
    reported intervals (module docstring): OLS t where the points are independent models, t over per-seed
    fits where one model per seed is measured at every x (a single stratum). Keys: coefficients, ci, ols_ci
    (lists over b0, b1, …), r2, residuals, method."""
    design = np.column_stack([np.ones(len(y)), x])
    nan = float("nan")
    if len(y) <= design.shape[1] or np.linalg.matrix_rank(design) < design.shape[1]:
        out = {"coefficients": np.full(design.shape[1], nan), "r2": nan, "residuals": np.full(len(y), nan)}
        empty = [(nan, nan)] * design.shape[1]
        return out | {"ci": empty, "ols_ci": empty, "method": NO_FIT}
    coefficients = np.linalg.lstsq(design, y, rcond=None)[0]
    ols_ci = _ols_intervals(design, y - design @ coefficients, coefficients, confidence)
    reported, method = ols_ci, OLS_T
    paired = len(np.unique(labels(strata))) == 1 and len(np.unique(cell_labels(x))) > 1
    if paired:
        per_seed = _per_seed_fits(design, y, np.asarray(units))
        if len(per_seed) >= 2:
            coefficients, reported, method = per_seed.mean(axis=0), _t_intervals(per_seed, confidence), PER_SEED_T
        else:
            method = OLS_ONE_SEED
    residuals = y - design @ coefficients
    total = np.sum((y - y.mean()) ** 2)
    r2 = 1.0 - np.sum(residuals**2) / total if total > 0 else nan
    return {
        "coefficients": coefficients,
        "ci": reported,
        "ols_ci": ols_ci,
        "r2": float(r2),
        "residuals": residuals,
        "method": method,
    }


def _per_seed_fits(design: np.ndarray, y: np.ndarray, units: np.ndarray) -> np.ndarray:
    """(seeds, coefficients): least squares on each seed's points, for the seeds whose points determine them."""
    out = []
    unit_of = labels(units)  # once: it is a Python loop over the points
    for unit in np.unique(unit_of):
        mine = unit_of == unit
        if mine.sum() >= design.shape[1] and np.linalg.matrix_rank(design[mine]) == design.shape[1]:
            out.append(np.linalg.lstsq(design[mine], y[mine], rcond=None)[0])
    return np.array(out).reshape(len(out), design.shape[1])


def _t_intervals(samples: np.ndarray, confidence: float) -> list[tuple[float, float]]:
    """Per column: mean ± t(S − 1) · sd / √S over the S rows (independent per-seed estimates)."""
    from scipy.special import stdtrit

    count = len(samples)
    mean = samples.mean(axis=0)
    half = stdtrit(count - 1, 0.5 + confidence / 2) * samples.std(axis=0, ddof=1) / np.sqrt(count)
    return [(float(m - h), float(m + h)) for m, h in zip(mean, half, strict=True)]


def percentile_intervals(boot: np.ndarray, confidence: float = CONFIDENCE, method: str = "linear"):
    """Per column of `boot`, the percentile interval (NaN resamples, e.g. an empty cell, left out). A column of NaN
    resamples only, or a bound interpolated between infinite ones (a ratio to a mean of 0), gives NaN: no interval,
    without numpy's warning."""
    alpha = (1 - confidence) / 2
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.filterwarnings("ignore", "All-NaN slice encountered", RuntimeWarning)
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
    percentile interval (strata None: one per cell; seeds None: every point its own unit). The interval always
    holds the estimate: where the percentile interval misses it, it is widened to it and the method says so.

    Where every cell is its own stratum (each x its own trained models), each resample draws every cell's
    mean from its Student t: m_k + s_k/√n_k · T(n_k − 1) (s_k the cell's seed-to-seed s.d.; a cell with one
    seed takes the pooled s.d. and its degrees of freedom) — a parametric bootstrap, because resampling 3 to 5
    seeds with replacement gives intervals that are too narrow (coverage 0.75 for a mean of 3: the
    (n − 1)/n shrinkage, and normal rather than t tails). Where one model per seed is measured at every cell
    (one stratum, paired), whole seeds are resampled, which keeps the correlation between cells.

    `statistic` maps a (rows, cells) array of cell means to (rows,) values; cells are numbered in order of
    first appearance (`labels`). Returns (estimate, low, high, interval method)."""
    values = np.asarray(values, float)
    cell = labels(cells)
    onehot = np.zeros((len(values), cell.max() + 1 if len(cell) else 0))
    onehot[np.arange(len(values)), cell] = 1.0
    weights_per_cell = onehot.sum(axis=0)
    estimate = float(statistic(((values @ onehot) / weights_per_cell)[None, :])[0])
    seeds = np.arange(len(values)) if seeds is None else np.asarray(seeds)
    paired = strata is not None and len(np.unique(labels(strata))) < len(np.unique(cell))
    if paired:
        weights = resample_weights(strata, seeds, resamples, random_state)
        if weights is None:
            return estimate, float("nan"), float("nan"), f"none: fewer than {MIN_UNITS} seeds, too few to resample"
        with np.errstate(invalid="ignore", divide="ignore"):
            means = ((weights * values) @ onehot) / (weights @ onehot)  # NaN for a cell no resampled unit covers
        method = PAIRED
    else:
        means = t_draws_of_cell_means(values, cell, resamples, random_state)
        if means is None:
            return estimate, float("nan"), float("nan"), "none: one seed per cell, no scatter to draw from"
        method = T_BOOTSTRAP
    boot = statistic(means)
    low, high = percentile_intervals(boot[:, None], confidence, quantile_method)[0]
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


def t_draws_of_cell_means(values: np.ndarray, cell: np.ndarray, resamples: int, random_state: int = 0):
    """(resamples, cells) draws of the cell means, each m_k + s_k/√n_k · T(n_k − 1); a cell with one point takes
    the pooled s.d. and its degrees of freedom. None where no cell has two points."""
    k = int(cell.max()) + 1
    counts = np.bincount(cell, minlength=k).astype(float)
    means = np.bincount(cell, weights=values, minlength=k) / counts
    squares = np.bincount(cell, weights=(values - means[cell]) ** 2, minlength=k)
    replicated = counts >= 2
    if not replicated.any():
        return None
    pooled_df = float(np.sum(counts[replicated] - 1))
    pooled_sd = np.sqrt(np.sum(squares[replicated]) / pooled_df)
    sd = np.where(replicated, np.sqrt(squares / np.maximum(counts - 1, 1)), pooled_sd)
    df = np.where(replicated, counts - 1, pooled_df)
    rng = np.random.default_rng(random_state)
    return means + sd / np.sqrt(counts) * rng.standard_t(df, size=(resamples, k))
