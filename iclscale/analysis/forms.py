"""Is the law's functional form the data's? Lack of fit, local exponents and alternative forms. (Whether a
power law holds over the whole range, by the drift of its local exponent: `iclscale.analysis.exponent_drift`.)

Lack of fit (`lack_of_fit`). The fitted curve (a power law: a line on log–log axes; or a line on linear
axes) is set against the cell-means model, which gives every distinct x its own mean and so fits any shape:
- without censored points, the lack-of-fit F test (statsmodels: OLS of both models and `compare_f_test`),
  F = [(RSS_curve − RSS_cells)/(k − 2)] / [RSS_cells/(n − k)] for k distinct x and n points; in a paired
  design (one model measured at every x) both models also get a term per seed, so the seed-to-seed offset
  is not counted as scatter;
- with censored points, the likelihood-ratio test of the censored curve against censored cell means
  (`iclscale.analysis.censored`): 2Δℓ ~ χ²(k − 2).
A small p-value (below LOF_ALPHA) says the means are not on the curve, however narrow the exponent's
interval; the local exponents (slopes between neighbouring cell means) then show how the data bend. The test
needs three x values and scatter between seeds (without it, any deviation would count).

Alternative forms (`compare_forms`). Where a paper words a law as "T is linear in α^(−2/3)", the power law
y = c·x^p and the offset form y = c0 + c1·x^q (q from the paper) are fitted by one likelihood on log y
(censored points included), beside the general y = c0 + c1·x^p that contains both. AIC ranks them; a
likelihood ratio tests each against the general form (χ²(1)); each gets its own lack-of-fit test.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclscale.analysis import censored as tobit

LOF_ALPHA = 0.01  # this tool's choice, not from any paper: with dozens of fits, 5% would flag clean ones
FORM_TOLERANCE = 0.25  # exponent units: local exponents spanning less are one power law (not from any paper)


@dataclass(frozen=True)
class LackOfFit:
    test: str  # "F" or "likelihood ratio"
    statistic: float
    df: tuple[int, ...]
    p_value: float
    n_levels: int

    @property
    def rejected(self) -> bool:
        return self.p_value < LOF_ALPHA

    def describe(self) -> str:
        name = f"F({self.df[0]}, {self.df[1]})" if self.test == "F" else f"LR χ²({self.df[0]})"
        return f"lack-of-fit {name} = {self.statistic:.3g}, p = {self.p_value:.2g}"


@dataclass
class LocalExponents:
    """Slopes between neighbouring x values of the cell means (on the fit's axes)."""

    x_low: np.ndarray
    x_high: np.ndarray
    slope: np.ndarray

    def describe(self, digits: int = 2) -> str:
        return ", ".join(f"{s:.{digits}g}" for s in self.slope)

    @property
    def spread(self) -> float:
        """The largest minus the smallest local exponent (0 for fewer than two)."""
        finite = self.slope[np.isfinite(self.slope)]
        return float(np.ptp(finite)) if len(finite) >= 2 else 0.0

    def midpoints(self, log: bool = True) -> np.ndarray:
        return np.sqrt(self.x_low * self.x_high) if log else (self.x_low + self.x_high) / 2


def lack_of_fit(x, y, cells, side=None, blocks=None) -> LackOfFit | None:
    """The curve y = a + b·x (on whatever axes x, y are given) against the cell means; `side` marks censored
    points (iclscale.analysis.censored), `blocks` the seeds of a paired design. None where the test cannot be run."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    side = np.zeros(len(y), int) if side is None else np.asarray(side)
    cell = np.unique(np.asarray(cells), return_inverse=True)[1].ravel()
    k, n = int(cell.max()) + 1 if len(cell) else 0, len(y)
    observed = side == tobit.OBSERVED
    if k < 3 or n <= k or _pure_error(y[observed], cell[observed]) <= 1e-12 * max(1.0, float(np.var(y))):
        return None
    dummies = np.eye(k)[cell]
    line = np.column_stack([np.ones(n), x])
    if not (~observed).any():
        import statsmodels.api as sm

        extra = _block_dummies(blocks, n)
        curve = sm.OLS(y, np.column_stack([line, extra])).fit()
        means = sm.OLS(y, np.column_stack([dummies, extra])).fit()
        if means.df_resid < 1:
            return None
        statistic, p_value, df = means.compare_f_test(curve)
        return LackOfFit("F", float(statistic), (int(df), int(means.df_resid)), float(p_value), k)
    from scipy.stats import chi2

    ratio = 2 * (tobit.fit_linear(dummies, y, side).loglik - tobit.fit_linear(line, y, side).loglik)
    ratio = max(ratio, 0.0)
    return LackOfFit("likelihood ratio", float(ratio), (k - 2,), float(chi2.sf(ratio, k - 2)), k)


def _pure_error(y: np.ndarray, cell: np.ndarray) -> float:
    """Mean squared deviation of the points from their cell's mean."""
    if not len(y):
        return 0.0
    means = np.bincount(cell, weights=y) / np.maximum(np.bincount(cell), 1)
    return float(np.mean((y - means[cell]) ** 2))


def _block_dummies(blocks, n: int) -> np.ndarray:
    if blocks is None:
        return np.zeros((n, 0))
    block = np.unique(np.asarray(blocks).astype(str), return_inverse=True)[1].ravel()
    return np.eye(block.max() + 1)[block][:, 1:]  # one block left out: the intercept holds it


def local_exponents(x, y, side=None, log: bool = True) -> LocalExponents:
    """Slopes between neighbouring distinct x of the mean of y (of log y on log x with `log`: a power law's
    local exponents); where points are censored, of the censored cell-means fit."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    side = np.zeros(len(y), int) if side is None else np.asarray(side)
    keep = np.isfinite(x) & np.isfinite(y) & ((x > 0) & (y > 0) if log else True)
    x, y, side = x[keep], y[keep], side[keep]
    if log:
        x, y = np.log(x), np.log(y)
    levels, cell = np.unique(np.round(x, 12), return_inverse=True)
    cell = cell.ravel()
    if (side == tobit.OBSERVED).all():
        means = np.bincount(cell, weights=y) / np.bincount(cell)
    else:
        means = tobit.fit_linear(np.eye(len(levels))[cell], y, side).theta
    back = np.exp if log else np.asarray
    return LocalExponents(back(levels[:-1]), back(levels[1:]), np.diff(means) / np.diff(levels))


# Alternative forms ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class OffsetForm:
    """y = c0 + c1·x^q with the paper's q, e.g. T = c0 + c1·α^(−2/3) ("T is linear in α^(−2/3)")."""

    exponent: float
    text: str  # how the paper words it
    source: str  # where

    @property
    def formula(self) -> str:
        return f"y = c0 + c1·x^({self.exponent:.3g})"


@dataclass
class FormFit:
    name: str
    formula: str
    loglik: float
    n_parameters: int
    parameters: dict[str, float]
    lack_of_fit_p: float = float("nan")  # LR test against the cell means
    versus_general_p: float = float("nan")  # LR test against y = c0 + c1·x^p

    @property
    def aic(self) -> float:
        return 2 * self.n_parameters - 2 * self.loglik


@dataclass
class FormComparison:
    forms: list[FormFit] = field(default_factory=list)

    @property
    def preferred(self) -> FormFit:
        return min(self.forms, key=lambda f: f.aic)

    def get(self, name: str) -> FormFit:
        return next(f for f in self.forms if f.name == name)

    def describe(self) -> str:
        best = self.preferred
        parts = [
            f"{f.name} [{f.formula}]: AIC {f.aic:.1f} (Δ {f.aic - best.aic:.1f}), lack-of-fit p = {f.lack_of_fit_p:.2g}"
            + (f", vs the general form p = {f.versus_general_p:.2g}" if np.isfinite(f.versus_general_p) else "")
            for f in self.forms
        ]
        return "; ".join(parts) + f" — AIC prefers {best.name}"


def compare_forms(x, y, side, forms: tuple[OffsetForm, ...]) -> FormComparison | None:
    """The power law, each offset form and the general offset power law, by one likelihood on log y."""
    from scipy.stats import chi2

    x, y = np.asarray(x, float), np.asarray(y, float)
    side = np.asarray(side)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y, side = x[keep], y[keep], side[keep]
    levels, cell = np.unique(np.round(x, 12), return_inverse=True)
    if len(levels) < 3 or (side == tobit.OBSERVED).sum() < 4:
        return None
    log_x, log_y = np.log(x), np.log(y)
    cells = tobit.fit_linear(np.eye(len(levels))[cell.ravel()], log_y, side)
    power = tobit.fit_linear(np.column_stack([np.ones(len(y)), log_x]), log_y, side)
    a, p = power.theta
    out = [FormFit("power law", "y = c·x^p", power.loglik, 3, {"c": float(np.exp(a)), "p": float(p)})]
    for form in forms:
        fitted = _offset_fit(x, y, log_y, side, form.exponent)
        c0, c1 = fitted.theta
        name, fixed = f"offset, x^({form.exponent:.3g})", {"c0": c0, "c1": c1, "p": form.exponent}  # p fixed
        out.append(FormFit(name, form.formula, fitted.loglik, 3, fixed))
    general = _general_fit(x, log_y, side, out)
    c0, c1, p = general.theta
    out.append(FormFit("general", "y = c0 + c1·x^p", general.loglik, 4, {"c0": c0, "c1": c1, "p": p}))
    for form in out:
        ratio = max(2 * (cells.loglik - form.loglik), 0.0)
        form.lack_of_fit_p = float(chi2.sf(ratio, len(levels) + 1 - form.n_parameters))
        if form.name != "general":
            form.versus_general_p = float(chi2.sf(max(2 * (general.loglik - form.loglik), 0.0), 1))
        form.parameters = {k: float(v) for k, v in form.parameters.items()}
    return FormComparison(out)


def _offset_fit(x, y, log_y, side, q: float) -> tobit.CensoredFit:
    """y = c0 + c1·x^q: start from least squares on linear axes, kept positive at every x."""
    basis = x**q
    c0, c1 = np.linalg.lstsq(np.column_stack([np.ones(len(y)), basis]), y, rcond=None)[0]
    if np.any(c0 + c1 * basis <= 0):
        c0, c1 = 0.0, float(np.exp(np.mean(log_y - np.log(basis))))
    spread = max(float(np.std(log_y - np.log(c0 + c1 * basis))), 1e-3)
    return tobit.fit_curve(lambda t: np.log(t[0] + t[1] * basis), np.array([c0, c1, np.log(spread)]), log_y, side)


def _general_fit(x, log_y, side, fitted: list[FormFit]) -> tobit.CensoredFit:
    """y = c0 + c1·x^p, started from the best of the forms it contains (the best likelihood wins)."""
    best = None
    for form in fitted:
        p = form.parameters
        start = (p.get("c0", 0.0), p.get("c1", p.get("c")), p["p"])
        guess = np.log(np.asarray(start[0]) + start[1] * x ** start[2])
        spread = max(float(np.std(log_y - guess)), 1e-3)
        found = tobit.fit_curve(
            lambda t: np.log(t[0] + t[1] * x ** t[2]), np.array([*start, np.log(spread)]), log_y, side
        )
        if best is None or found.loglik > best.loglik:
            best = found
    return best
