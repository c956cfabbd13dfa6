"""What checking a law on one group produces: the kind's `Estimate` (the statistic, its interval and the
evidence behind it), and the `LawFit` that adds the law, the group, the prediction and the verdict (one row
of fits.csv, one section of the report)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from iclscale.analysis.derived import symbol
from iclscale.analysis.select import label

if TYPE_CHECKING:
    from iclscale.analysis.exponent_drift import Curvature
    from iclscale.analysis.forms import FormComparison, LackOfFit, LocalExponents
    from iclscale.analysis.law import Experiment, Hypothesis, Law, Prediction
    from iclscale.analysis.verdict import Verdict

NAN = math.nan


@dataclass
class Estimate:
    """A kind's statistic for one group, with the evidence a verdict needs."""

    statistic: str = ""  # what `estimate` is: "exponent" for power laws
    estimate: float = NAN
    ci_low: float = NAN
    ci_high: float = NAN
    interval_method: str = ""
    n_points: int = 0
    n_levels: int = 0
    n_censored: int = 0
    r2: float = NAN
    ols_low: float = NAN
    ols_high: float = NAN
    lack_of_fit: LackOfFit | None = None  # the law's form against the cell means (iclscale.analysis.forms)
    local: LocalExponents | None = None  # slopes between neighbouring x
    curvature: Curvature | None = None  # the local exponent's drift across the range (power laws)
    forms: FormComparison | None = None  # the paper's alternative forms, side by side
    form_verdict: Verdict | None = None  # the verdict the paper's alternative form gives, where it fits
    sensitivity: dict[str, float] = field(default_factory=dict)
    combination: dict[str, dict[str, float]] = field(default_factory=dict)
    points: Any = None  # DataFrame: x, value, seed, censored, left_censored (+ axes) for the charts
    fit: Any = None  # the kind's fit object (e.g. iclscale.analysis.fits.PowerLawFit)
    details: dict[str, Any] = field(default_factory=dict)  # what a kind's chart and row need beyond that


@dataclass
class LawFit(Estimate):
    """One law checked on one group."""

    law: Law | None = None
    group: dict[str, Any] = field(default_factory=dict)
    prediction: Prediction | None = None
    verdict: Verdict | None = None
    alternatives: list[tuple[Hypothesis, Verdict]] = field(default_factory=list)
    n_excluded: int = 0  # outside the law's conditions or not ok (diverged, failed)
    n_outside: int = 0  # of which outside the conditions
    n_inside: int = 0  # rows inside the conditions (status ok), censored ones included
    outside_points: Any = None  # DataFrame like `points`: configs outside the theorem's regime
    x_title: str = ""  # the chart's x axis: the param's symbol and meaning where the sweep gives them
    c_star: float = math.inf  # the largest hidden constant at which some point is inside (Group.regime_constants)
    c_all: float = math.inf  # ... at which every point is
    binding: str = ""  # the condition that binds c*
    experiment: Experiment | None = None  # judged as the paper's own experiment (every point), not the theorem

    @property
    def judged(self) -> str:
        """What the verdict is about: the theorem's law inside its conditions, or the paper's experiment."""
        return "experiment" if self.experiment is not None else "theorem"

    @property
    def group_label(self) -> str:
        return label(self.group)

    def row(self) -> dict[str, Any]:
        """The fits.csv row: the required columns first, then details."""
        band = self.prediction.primary.band if self.prediction else None
        theory_low, theory_high = (band.low, band.high) if band else (NAN, NAN)
        censored = self.details.get("censored fit")
        dropped = self.details.get("drop-censored fit")
        return {
            "law": self.law.name,
            "x": self.law.x_label,
            "y": self.law.measure.label,
            "exponent": self.estimate,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "theory_low": theory_low,
            "theory_high": theory_high,
            "r2": self.r2,
            "n_points": self.n_points,
            "n_censored": self.n_censored,
            "verdict": self.verdict.verdict,
            "group": self.group_label,
            "statistic": self.statistic,
            "reason": self.verdict.reason,
            "theory": self.prediction.primary.name if self.prediction else "",
            "method": self.interval_method.split(" (")[0],
            "interval_method": self.interval_method,
            "tolerance": self.tolerance,
            "form": self.form_text(),
            "x_decades": self.curvature.decades if self.curvature else NAN,
            "ols_low": self.ols_low,
            "ols_high": self.ols_high,
            "n_levels": self.n_levels,
            "n_excluded": self.n_excluded,
            "n_inside_conditions": self.n_inside,
            "n_outside_conditions": self.n_outside,
            "judged": self.judged,
            "experiment": self.experiment.figure if self.experiment is not None else "",
            "c_star": self.c_star,
            "c_all": self.c_all,
            "binding_condition": self.binding,
            "lack_of_fit": self.lack_of_fit.describe() if self.lack_of_fit else "",
            "lack_of_fit_p": self.lack_of_fit.p_value if self.lack_of_fit else NAN,
            "local_exponents": self.local.describe(3) if self.local else "",
            "lack_of_fit_all_points": _describe(self.details.get("lack_of_fit_all")),
            "local_exponents_all_points": _describe(self.details.get("local_all"), 3),
            "censored_fit": _interval_text(censored),
            "drop_censored_fit": _interval_text(dropped),
            "forms": self.forms.describe() if self.forms else "",
            "alternatives": "; ".join(f"{h.name} {h.band.describe()}: {v.verdict}" for h, v in self.alternatives),
            "sensitivity": "; ".join(f"{k}: {v:.3g}" for k, v in self.sensitivity.items() if math.isfinite(v)),
            "combination": self.combination_text(),
            "citation": self.law.citation,
        }

    @property
    def tolerance(self) -> float:
        """The widening of the primary band in the verdict (iclscale.analysis.verdict)."""
        if self.law is None or self.prediction is None:
            return NAN
        return self.law.rule.band_tolerance(self.law.kind.tolerance, self.prediction.primary.mode)

    def form_text(self) -> str:
        """The power-law form check (iclscale.analysis.exponent_drift.curvature): shown, not shown or bent, and its
        numbers."""
        found = self.curvature
        if found is None:
            return ""
        state = "shown" if found.shown(self.law.rule.form_drift) else "bent" if found.bent else "not shown"
        return f"{state}: {found.describe()}; {found.span()}"

    def combination_text(self) -> str:
        """The multi-variable fit, and whether its ingredients imply one common exponent of x (their
        implied intervals share a value): if not, the measure does not depend on x's combination alone."""
        if not self.combination:
            return ""
        x = symbol(self.law.x, self.law.study)
        parts = [
            f"{name}^{c['exponent']:.3g} [{c['ci_low']:.3g}, {c['ci_high']:.3g}] "
            f"(per {x}: {c['implied']:.3g} [{c['implied_low']:.3g}, {c['implied_high']:.3g}])"
            for name, c in self.combination.items()
        ]
        common = max(c["implied_low"] for c in self.combination.values()) <= min(
            c["implied_high"] for c in self.combination.values()
        )
        verdict = "they agree" if common else "they differ: not a function of the combination alone"
        return "; ".join(parts) + f" — implied exponents per {x}: {verdict}"


def _describe(found, *args) -> str:
    """A form check's text ("" when absent): over every point, those outside the conditions included."""
    return found.describe(*args) if found is not None else ""


def _interval_text(fit: dict | None) -> str:
    if not fit:
        return ""
    return f"{fit['exponent']:.3g} [{fit['ci_low']:.3g}, {fit['ci_high']:.3g}] ({fit['points']} points)"
