"""The seed-means rise (or fall) with x, e.g. "‖M‖ increases with L" ([C24] Fig 3): a claim about the
direction of a trend, not its shape. Statistic: Spearman's rank correlation ρ between x and the seed-mean at
each x (scipy.stats.spearmanr); ρ = 1 when every step up in x raises the mean, −1 when every step lowers
it. The interval is a bootstrap of the means (iclscale.analysis.fits.bootstrap_cell_statistic), so a step smaller than
the seed scatter widens it. A law predicts a band for ρ, e.g. [0.5, 1] for "increasing" (judged with the whole
interval inside).

Calibration (benchmarks/calibration.py): ρ of the means is lattice-valued (one value per ordering of the means)
and a monotone truth sits at 1, the top of its range. A consistent estimate equals the true ρ with probability
→ 1 and the interval always holds the estimate, so its coverage tends to 1 (measured 1.000 at an interior ρ
too): no non-randomised interval covers a discrete parameter near 95% (the Clopper–Pearson interval of a
binomial proportion is conservative for the same reason). The interval is therefore calibrated as the
verdict's test: with the true ρ just below the band [0.5, 1], or flat means, "consistent" in ≤ 5% of
replicates (docs/laws-and-verdicts.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from iclscale.analysis.fits import bootstrap_cell_statistic, labels
from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.select import chart_points, measured_points


def spearman_of_means(order: np.ndarray):
    """statistic(means (rows, cells)) → Spearman's ρ between the cells' x order and their means, per row: the
    Pearson correlation of their ranks (scipy.stats.rankdata, ties averaged, as scipy.stats.spearmanr), row by
    row without spearmanr's full correlation matrix between every pair of rows (2000 resamples: 4·10⁶ entries)."""
    from scipy.stats import rankdata

    x_rank = rankdata(order)
    x_rank = (x_rank - x_rank.mean()) / np.sqrt(np.sum((x_rank - x_rank.mean()) ** 2))

    def statistic(means: np.ndarray) -> np.ndarray:
        out = np.full(len(means), np.nan)
        finite = np.all(np.isfinite(means), axis=1)
        if finite.any():
            ranks = rankdata(means[finite], axis=1)
            centred = ranks - ranks.mean(axis=1, keepdims=True)
            norm = np.sqrt(np.sum(centred**2, axis=1))
            with np.errstate(invalid="ignore", divide="ignore"):
                rho = centred @ x_rank / norm  # NaN where every mean ties (ρ undefined, as spearmanr)
            out[finite] = np.clip(np.round(rho, 12), -1.0, 1.0)  # ρ = 1 exactly for means in order
        return out

    return statistic


@dataclass(frozen=True)
class Trend(Kind):
    name: ClassVar[str] = "trend"

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        usable = measured_points(group.rows)
        x = usable[law.x].astype(float).to_numpy()
        cells = labels(x)  # numbered in ascending x
        estimate = low = high = np.nan
        method = "none: fewer than 3 x values"
        if len(np.unique(cells)) >= 3:
            statistic = spearman_of_means(np.arange(cells.max() + 1))
            estimate, low, high, method = bootstrap_cell_statistic(
                usable["value"], cells, statistic, usable["seed"], usable["stratum"]
            )
        return Estimate(
            statistic=f"Spearman ρ between {law.x_symbol} and the seed-mean of {law.measure.label}",
            estimate=estimate,
            ci_low=low,
            ci_high=high,
            interval_method=method,
            n_points=len(usable),
            n_levels=len(np.unique(x)),
            n_censored=int(group.rows["censored"].sum()),
            points=chart_points(group.rows, law.x),
        )
