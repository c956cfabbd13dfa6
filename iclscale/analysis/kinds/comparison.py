"""One setting against the others, at every x: e.g. softmax against linear attention at every context length
n ([C24] Fig 1), or the trained transformer against classical learners ([L24] Fig 4). `param` names what is
compared (a pooled param: attention, learner), `subject` the setting the claim is about. Statistic: the
largest over x of seed-mean(subject) / smallest seed-mean of the others at that x: below 1 when the subject
is best everywhere. The interval is a bootstrap over seeds (iclscale.analysis.fits): paired where the settings are
measured on one model per seed (a learner is an eval param), per cell where they are separate models.

A censored value (a learner that never reaches ε in the grid) enters at its bound: for another setting the
ratio is then an upper bound on the true one, for the subject a lower bound; the reason says so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from iclscale.analysis.fits import bootstrap_cell_statistic, labels
from iclscale.analysis.kinds.base import Kind
from iclscale.analysis.lawfit import Estimate


@dataclass(frozen=True)
class Comparison(Kind):
    param: str = ""
    subject: str = ""

    name: ClassVar[str] = "comparison"

    def estimate(self, law, group, prediction, results, context) -> Estimate:
        rows = group.rows[np.isfinite(group.rows["value"].astype(float))]
        x = rows[law.x].astype(float).to_numpy() if law.x else np.zeros(len(rows))
        setting = rows[self.param].astype(str).to_numpy()
        cells = list(zip(x, setting, strict=True))
        numbering = labels(cells)
        order = sorted(set(cells))
        statistic = self._statistic(order)
        estimate = low = high = np.nan
        method = f"none: no {self.subject!r} with another {self.param} at one x"
        compared = 0 if statistic is None else statistic.compared
        if statistic is not None:
            estimate, low, high, method = bootstrap_cell_statistic(
                rows["value"], numbering, statistic, rows["seed"], rows["stratum"]
            )
        others = sorted(set(setting) - {self.subject})
        censored = rows[rows["censored"]]
        note = {}
        if len(censored):
            note["censored"] = ", ".join(sorted(set(censored[self.param].astype(str)))) + " (at their bounds)"
        return Estimate(
            statistic=f"max over {law.x_symbol or 'the one cell'} of {law.measure.label}: {self.subject} / best of "
            f"{', '.join(others)}",
            estimate=estimate,
            ci_low=low,
            ci_high=high,
            interval_method=method,
            n_points=len(rows),
            n_levels=compared,  # x values with the subject and another setting
            n_censored=0,  # censored values enter at their bounds (module docstring)
            points=rows[["value", "seed", "censored", "left_censored", self.param]].assign(x=x),
            details={"param": self.param, "subject": self.subject, **note},
        )

    def _statistic(self, order: list[tuple[float, str]]):
        """statistic(means (rows, cells)) → max over x of subject / min over the others, per row."""
        pairs = []
        for level in sorted({x for x, _ in order}):
            subject = [i for i, (x, s) in enumerate(order) if x == level and s == self.subject]
            others = [i for i, (x, s) in enumerate(order) if x == level and s != self.subject]
            if subject and others:
                pairs.append((subject[0], np.array(others)))
        if not pairs:
            return None

        def statistic(means: np.ndarray) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):  # a best-of-others mean of 0: inf (0/0: NaN)
                ratios = [means[:, s] / means[:, others].min(axis=1) for s, others in pairs]
            return np.max(ratios, axis=0)

        statistic.compared = len(pairs)
        return statistic
