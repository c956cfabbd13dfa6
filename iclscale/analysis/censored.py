"""Censored regression on log y: a Tobit likelihood.

A censored point is only bounded: a run that never reached ε by its last record has T ≥ that record
(right-censored); a threshold found already at the smallest value of its grid is ≤ that value
(left-censored); an oracle minimiser at an end of its w grid lies beyond that end. Dropping such points
biases a fit (the slowest runs vanish, which flattens a slope). Here every point enters the likelihood of

    log y = mean(θ) + e,   e ~ N(0, s²),   z = (log y − mean)/s
    observed:        log φ(z) − log s
    right-censored:  log P(Y ≥ y) = log Φ(−z)
    left-censored:   log P(Y ≤ y) = log Φ(z)

maximised over (θ, s). A mean linear in θ (a power law, cell means) is fitted by Newton's method in
Olsen's parameters, where the likelihood is concave (`newton`); a curved one (T = c0 + c1·α^p) by
Nelder–Mead. Without censored points the maximum is the least-squares fit (the same θ, s² = RSS/n), so
one likelihood serves every form that `iclscale.analysis.forms` compares.

Written here rather than taken from a library: statsmodels has no censored-normal (Tobit) regression, and
its survival models (Kaplan–Meier, Cox) give no parametric mean to read an exponent from; scipy supplies
the normal log-density and log-tails and the optimisers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from iclscale.analysis.fits import CONFIDENCE

RIGHT, LEFT, OBSERVED = 1, -1, 0
LOG_ROOT_2PI = 0.5 * np.log(2 * np.pi)
CENSORED_WALD = (
    "Wald t-interval of the censored (Tobit) fit (observed information scaled by n/(n − 2), t with n_observed − 2 df)"
)


@dataclass
class CensoredFit:
    theta: np.ndarray  # the mean's parameters
    log_sigma: float
    loglik: float
    n_points: int

    @property
    def n_parameters(self) -> int:
        return len(self.theta) + 1  # + the scale s

    @property
    def aic(self) -> float:
        return 2 * self.n_parameters - 2 * self.loglik


@dataclass
class CensoredPowerLaw:
    """log y = a + p·log x with censored points in the likelihood."""

    exponent: float
    ci_low: float
    ci_high: float
    log_prefactor: float
    sigma: float
    n_points: int  # observed and censored points that entered the likelihood
    n_censored: int
    interval_method: str


def loglik_terms(mean: np.ndarray, log_sigma: float, log_y: np.ndarray, side: np.ndarray):
    """Per point: the log-likelihood, and its derivatives with respect to the mean and to log s."""
    from scipy.special import log_ndtr  # log Φ, accurate far into the tails

    sigma = np.exp(log_sigma)
    z = (log_y - mean) / sigma
    log_density = -0.5 * z**2 - LOG_ROOT_2PI  # log φ(z)
    value = np.where(side == OBSERVED, log_density - log_sigma, 0.0)
    d_mean = np.where(side == OBSERVED, z / sigma, 0.0)
    d_log_sigma = np.where(side == OBSERVED, z**2 - 1, 0.0)
    for censored, sign in ((RIGHT, -1.0), (LEFT, 1.0)):
        at = side == censored
        tail = log_ndtr(sign * z[at])  # log Φ(−z) above, log Φ(z) below
        mills = np.exp(log_density[at] - tail)  # φ/Φ: d log Φ(±z) / d(±z)
        value[at] = tail
        d_mean[at] = -sign * mills / sigma
        d_log_sigma[at] = -sign * mills * z[at]
    return value, d_mean, d_log_sigma


def fit_linear(design, log_y, side, weights=None) -> CensoredFit:
    """Maximum likelihood for mean = design·θ; `weights` (points,) or (resamples, points) fits every row
    of weights at once (`newton`)."""
    weights = np.ones(len(log_y)) if weights is None else np.asarray(weights, float)
    batch = np.atleast_2d(weights)
    theta, tau, loglik = newton(design, log_y, side, batch)
    if weights.ndim == 1:
        return CensoredFit(theta[0] / tau[0], float(-np.log(tau[0])), float(loglik[0]), len(log_y))
    return CensoredFit(theta / tau[:, None], -np.log(tau), loglik, len(log_y))


def newton(design, log_y, side, weights, iterations: int = 60):
    """Newton's method on Olsen's parameters (γ = θ/s, τ = 1/s), in which the Tobit log-likelihood is
    concave, for every row of `weights` at once (a bootstrap's hundreds of refits cost one batched solve;
    scipy's optimisers take one problem at a time and cost milliseconds each). With g = (−design, log y):
        observed  z = g·(γ, τ):   ℓ = log τ − z²/2 − log √(2π)
        censored  u = ±z:         ℓ = log Φ(u)   (u = −z above a right-censored bound, z below a left one)
    Steps are halved until ℓ does not fall and τ stays positive. Returns (γ (rows, k), τ (rows,), ℓ (rows,)).
    A cell whose points are all censored drifts towards ±∞ (its supremum): ℓ converges, θ is not used."""
    from scipy.special import log_ndtr

    g = np.column_stack([-design, log_y])
    observed = side == OBSERVED
    sign = np.where(side == RIGHT, -1.0, 1.0)
    start = np.linalg.lstsq(design, log_y, rcond=None)[0]
    spread = max(float(np.std(log_y - design @ start)), 1e-3)
    params = np.tile(np.append(start, 1.0) / spread, (len(weights), 1))

    def loglik(p):
        z = p @ g.T  # (rows, points)
        terms = np.where(observed, np.log(np.abs(p[:, -1:])) - 0.5 * z**2 - LOG_ROOT_2PI, log_ndtr(sign * z))
        return np.sum(weights * terms, axis=1)

    current = loglik(params)
    for _ in range(iterations):
        z = params @ g.T
        u = sign * z
        mills = np.exp(-0.5 * u**2 - LOG_ROOT_2PI - log_ndtr(u))  # φ(u)/Φ(u)
        slope = np.where(observed, -z, sign * mills)  # dℓ/dz·(dz/dθ along g)
        curve = np.where(observed, -1.0, -mills * (u + mills))
        gradient = np.einsum("bn,ni->bi", weights * slope, g)
        hessian = np.einsum("bn,ni,nj->bij", weights * curve, g, g)
        gradient[:, -1] += weights[:, observed].sum(axis=1) / params[:, -1]
        hessian[:, -1, -1] -= weights[:, observed].sum(axis=1) / params[:, -1] ** 2
        step = -np.einsum("bij,bj->bi", np.linalg.pinv(hessian), gradient)
        scale = np.ones(len(params))
        for _ in range(30):
            trial = params + scale[:, None] * step
            better = (trial[:, -1] > 0) & (loglik(trial) >= current - 1e-12)
            if better.all():
                break
            scale = np.where(better, scale, scale / 2)
        trial = params + scale[:, None] * step
        gained = loglik(trial)
        done = np.all(np.abs(gained - current) < 1e-10 * (1 + np.abs(current)))
        params, current = trial, gained
        if done:
            break
    return params[:, :-1], params[:, -1], current


def fit_curve(mean: Callable[[np.ndarray], np.ndarray], start, log_y, side) -> CensoredFit:
    """Maximum likelihood for a mean curved in θ (Nelder–Mead); θ where the mean is undefined (NaN) is
    refused."""
    from scipy.optimize import minimize

    def objective(params):
        with np.errstate(invalid="ignore", divide="ignore"):
            values = mean(params[:-1])
        if not np.all(np.isfinite(values)):
            return np.inf
        return -np.sum(loglik_terms(values, params[-1], log_y, side)[0])

    found = minimize(objective, start, method="Nelder-Mead", options={"maxiter": 4000, "xatol": 1e-6, "fatol": 1e-9})
    return CensoredFit(found.x[:-1], float(found.x[-1]), float(-found.fun), len(log_y))


def sides(censored, left_censored=None) -> np.ndarray:
    """RIGHT, LEFT or OBSERVED per point from the measures' `censored` and `left_censored` columns."""
    censored = np.asarray(censored, bool)
    left = np.zeros(len(censored), bool) if left_censored is None else np.asarray(left_censored, bool)
    return np.where(censored, np.where(left, LEFT, RIGHT), OBSERVED)


def fit_power_law(x, y, side, seeds=None, strata=None, confidence: float = CONFIDENCE):
    """log y = a + p·log x with its censored points (`side`), and a Wald t-interval of p.

    The interval: p ± t(n_obs − 2) · se, se from the inverse observed information scaled by n/(n − 2) (n the
    points in the likelihood), which is exactly the OLS t-interval when nothing is censored. A bootstrap
    over seeds (this function's earlier interval) was too narrow with 3 to 5 seeds, as for the uncensored
    fits (iclscale.analysis.fits); benchmarks/calibration.py measures this one's coverage with censored points.
    `seeds` and `strata` are accepted for the callers' symmetry with iclscale.analysis.fits and not used."""
    from scipy.special import stdtrit

    x, y, side = np.asarray(x, float), np.asarray(y, float), np.asarray(side)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    log_x, log_y, side = np.log(x[keep]), np.log(y[keep]), side[keep]
    design = np.column_stack([np.ones(len(log_y)), log_x])
    nan = float("nan")
    observed = int((side == OBSERVED).sum())
    if observed < 3 or len(np.unique(log_x)) < 2:
        return CensoredPowerLaw(nan, nan, nan, nan, nan, len(log_y), int((side != OBSERVED).sum()), "none")
    best = fit_linear(design, log_y, side)
    start = np.append(best.theta, best.log_sigma)
    n = len(log_y)
    se = _standard_error(design, log_y, side, start, index=1) * np.sqrt(n / (n - 2))
    half = float(stdtrit(observed - 2, 0.5 + confidence / 2)) * se
    low, high, method = best.theta[1] - half, best.theta[1] + half, CENSORED_WALD
    return CensoredPowerLaw(
        exponent=float(best.theta[1]),
        ci_low=float(low),
        ci_high=float(high),
        log_prefactor=float(best.theta[0]),
        sigma=float(np.exp(best.log_sigma)),
        n_points=len(log_y),
        n_censored=int((side != OBSERVED).sum()),
        interval_method=method,
    )


def _standard_error(design, log_y, side, params, index: int, step: float = 1e-4) -> float:
    """√ of a diagonal entry of the inverse observed information, the Hessian by central differences of
    the analytic gradient."""

    def gradient(p):
        _, d_mean, d_log_sigma = loglik_terms(design @ p[:-1], p[-1], log_y, side)
        return np.append(design.T @ d_mean, np.sum(d_log_sigma))

    hessian = np.empty((len(params), len(params)))
    for j in range(len(params)):
        delta = np.zeros(len(params))
        delta[j] = step
        hessian[:, j] = (gradient(params + delta) - gradient(params - delta)) / (2 * step)
    covariance = np.linalg.pinv(-(hessian + hessian.T) / 2)
    return float(np.sqrt(max(covariance[index, index], 0.0)))
