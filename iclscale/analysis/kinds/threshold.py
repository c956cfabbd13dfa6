""" "measure ≤ ε if (and, with `necessary`, only if) x is on the good side of x0", e.g. OOD error ≤ 0.01 iff
S1 ≥ 1. The prediction gives x0 as a point band. Each x value's seed-mean gets a 95% Student t-interval
(iclscale.analysis.levels) and is placed: ≤ ε (the whole interval at or below ε), > ε (the whole interval
above) or unclear. The verdict (this tool's rule, not from any paper):

- inconclusive with fewer x values or points than the rule asks, or no x value on a claimed side;
- inconsistent when some x value lies clearly on the wrong side (on the good side yet > ε; with
  `necessary`, on the other side yet ≤ ε);
- consistent when every x value on a claimed side lies clearly on its side; otherwise inconclusive.

The statistic is the crossing: the smallest x from which every larger x has seed-mean ≤ ε (good side
"above"; "below": the largest x up to which every x has it), with a bootstrap interval
(iclscale.analysis.fits.bootstrap_cell_statistic: t draws of the means, or seeds resampled where paired); ±∞ when no x
qualifies. The crossing is a grid value (the true one lies between two x: interval-censored), so its
interval covers whenever the grid leaves it unambiguous (benchmarks/calibration.py: 1.000); the verdict does
not use it but the per-x t-intervals, whose coverage the calibration measures (docs/laws-and-verdicts.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from iclscale.analysis.fits import bootstrap_cell_statistic
from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate
from iclscale.analysis.levels import level_means
from iclscale.analysis.select import chart_points, measured_points
from iclscale.analysis.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict, evidence

REACHES, MISSES, UNCLEAR = "≤ ε", "> ε", "unclear"


@dataclass(frozen=True)
class Threshold(Kind):
    threshold: float = 0.01
    good_side: str = "above"  # "above": ≤ ε for x ≥ x0; "below": ≤ ε for x ≤ x0
    necessary: bool = True

    name: ClassVar[str] = "threshold"

    def __post_init__(self):
        if self.good_side not in ("above", "below"):
            raise ValueError(f"good_side must be 'above' or 'below', got {self.good_side!r}")

    def claim_text(self, law, x0: float | None = None) -> str:
        side = "≥" if self.good_side == "above" else "≤"
        where = "x0" if x0 is None else f"{x0:g}"
        return f"{law.measure.label} ≤ {self.threshold:g} {'iff' if self.necessary else 'if'} {law.x} {side} {where}"

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        usable = measured_points(group.rows)
        x = usable[law.x].astype(float).to_numpy()
        values = usable["value"].astype(float).to_numpy()
        levels = level_means(values, x)
        estimate, low, high, method = math.nan, math.nan, math.nan, "none: no points"
        if len(values):
            crossing, seeds, strata = self._crossing(np.unique(x)), usable["seed"], usable["stratum"]
            estimate, low, high, method = bootstrap_cell_statistic(
                values, x, crossing, seeds, strata, quantile_method="inverted_cdf"
            )
        if prediction is None:
            sides = levels.assign(side="", expected="", claimed=False)
        else:
            sides = self._sides(levels, prediction.primary.band.low)
        return Estimate(
            statistic=self._statistic_text(law),
            estimate=estimate,
            ci_low=low,
            ci_high=high,
            interval_method=method,
            n_points=len(usable),
            n_levels=len(levels),
            n_censored=int(group.rows["censored"].sum()),
            points=chart_points(group.rows, law.x),
            details={"threshold": self.threshold, "levels": sides},
        )

    def _statistic_text(self, law) -> str:
        if self.good_side == "above":
            return f"smallest {law.x} from which every larger {law.x} has seed-mean ≤ {self.threshold:g}"
        return f"largest {law.x} up to which every {law.x} has seed-mean ≤ {self.threshold:g}"

    def _crossing(self, x_levels: np.ndarray):
        """statistic(means (rows, x values ascending)) → the crossing, per row."""

        def crossing(means: np.ndarray) -> np.ndarray:
            ok = means <= self.threshold
            if self.good_side == "above":
                stays = np.flip(np.logical_and.accumulate(np.flip(ok, axis=1), axis=1), axis=1)
                return np.where(stays.any(axis=1), x_levels[np.argmax(stays, axis=1)], math.inf)
            upto = np.logical_and.accumulate(ok, axis=1)
            last = upto.shape[1] - 1 - np.argmax(np.flip(upto, axis=1), axis=1)
            return np.where(upto.any(axis=1), x_levels[last], -math.inf)

        return crossing

    def _sides(self, levels, x0: float):
        """Per x value: where its seed-mean lies (side), where the claim puts it (expected; "" where the
        claim says nothing), and whether it counts (claimed)."""
        good = levels["x"] >= x0 - 1e-9 if self.good_side == "above" else levels["x"] <= x0 + 1e-9
        side = np.where(
            levels["high"] <= self.threshold, REACHES, np.where(levels["low"] > self.threshold, MISSES, UNCLEAR)
        )
        expected = np.where(good, REACHES, MISSES if self.necessary else "")
        return levels.assign(side=side, expected=expected, claimed=expected != "")

    def judge(self, law, prediction, estimate) -> Verdict:
        thin = evidence(estimate.n_points, estimate.n_levels, estimate.n_censored, law.rule)
        if thin is not None:
            return thin
        sides, x0, x = estimate.details["levels"], prediction.primary.band.low, law.x
        good = sides[sides["expected"] == REACHES]
        bad = sides[sides["expected"] == MISSES]
        where = f"{x} {'≥' if self.good_side == 'above' else '≤'} {x0:g}"
        if not len(good):
            return Verdict(INCONCLUSIVE, f"no {x} value with {where} in the data")
        if self.necessary and not len(bad):
            return Verdict(INCONCLUSIVE, f"no {x} value on the other side of {x0:g} in the data")
        claimed = sides[sides["claimed"]]
        wrong = claimed[(claimed["side"] != claimed["expected"]) & (claimed["side"] != UNCLEAR)]

        def text(part):
            return ", ".join(f"{r.x:g} ({r.mean:.3g} [{r.low:.3g}, {r.high:.3g}])" for r in part.itertuples())

        if len(wrong):
            return Verdict(INCONSISTENT, f"on the wrong side of ε = {self.threshold:g} at {x} = {text(wrong)}")
        unclear = claimed[claimed["side"] == UNCLEAR]
        if len(unclear):
            return Verdict(INCONCLUSIVE, f"the interval straddles ε = {self.threshold:g} at {x} = {text(unclear)}")
        scope = "on both sides" if self.necessary else f"for every {where}"
        return Verdict(CONSISTENT, f"every {x} value lies on its predicted side of ε = {self.threshold:g} {scope}")
